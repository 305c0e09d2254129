// SPDX-License-Identifier: Apache-2.0
// Generic mode kernels built only on a core's encrypt_blocks/decrypt_blocks.
//
// These serve every core that leaves a mode slot empty, so they must be right
// for all of them and not waste a fast core: where the mode allows it (CTR,
// CBC decryption, CFB decryption) blocks are gathered into a stack batch and
// handed to the core in one call, which lets multi-block (pipelined or SIMD)
// cores run at full width. Serial modes (CBC/CFB encryption, OFB, CFB8, CFB1)
// cannot be batched: each block needs the previous result.
// Contracts are those of cores/core.h: whole blocks, in == out allowed,
// unaligned buffers, `iv` updated so the next call continues the stream.
#include "cores/modes.h"
#include "cores/wipe.h"

#include <cstring>

namespace hwc::generic {
namespace {

// Blocks per batch: enough for an 8-way interleaved core to run several
// rounds of its pipeline, small enough (512 bytes) to stay on the stack.
constexpr size_t kBatch = 32;

inline void xor_bytes(uint8_t* out, const uint8_t* a, const uint8_t* b, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = a[i] ^ b[i];
}

// 128-bit big-endian increment, wrapping mod 2^128 (as CRYPTO_ctr128_encrypt).
inline void ctr_increment(uint8_t ctr[kBlockSize]) {
    for (size_t i = kBlockSize; i-- > 0;)
        if (++ctr[i] != 0) return;
}

} // namespace

void cbc_encrypt(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t nblocks) {
    // Chain through `iv` itself: it always holds the last ciphertext block,
    // which is also the value the caller needs back.
    for (; nblocks; --nblocks, in += kBlockSize, out += kBlockSize) {
        xor_bytes(iv, iv, in, kBlockSize);
        c.encrypt_blocks(ks, iv, iv, 1);
        std::memcpy(out, iv, kBlockSize);
    }
}

void cbc_decrypt(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t nblocks) {
    // ct keeps this batch's ciphertext: with in == out the decryption
    // overwrites it, yet it is the chaining value for the next block.
    uint8_t ct[kBatch * kBlockSize];
    while (nblocks) {
        const size_t n = nblocks < kBatch ? nblocks : kBatch;
        const size_t bytes = n * kBlockSize;
        std::memcpy(ct, in, bytes);
        c.decrypt_blocks(ks, ct, out, n);
        xor_bytes(out, out, iv, kBlockSize);
        xor_bytes(out + kBlockSize, out + kBlockSize, ct, bytes - kBlockSize);
        std::memcpy(iv, ct + bytes - kBlockSize, kBlockSize);
        in += bytes;
        out += bytes;
        nblocks -= n;
    }
    // Ciphertext is public; no wipe needed for ct.
}

void cfb_encrypt(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t nblocks) {
    // iv becomes E(iv) ^ P = C, the next register value and the output.
    for (; nblocks; --nblocks, in += kBlockSize, out += kBlockSize) {
        c.encrypt_blocks(ks, iv, iv, 1);
        xor_bytes(iv, iv, in, kBlockSize);
        std::memcpy(out, iv, kBlockSize);
    }
}

void cfb_decrypt(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t nblocks) {
    // P_i = C_i ^ E(C_{i-1}): all cipher inputs are known up front. Gather
    // (iv, C_0 .. C_{n-2}) before writing any output, so in == out is safe.
    uint8_t ks_buf[kBatch * kBlockSize];
    while (nblocks) {
        const size_t n = nblocks < kBatch ? nblocks : kBatch;
        const size_t bytes = n * kBlockSize;
        std::memcpy(ks_buf, iv, kBlockSize);
        std::memcpy(ks_buf + kBlockSize, in, bytes - kBlockSize);
        std::memcpy(iv, in + bytes - kBlockSize, kBlockSize);
        c.encrypt_blocks(ks, ks_buf, ks_buf, n);
        xor_bytes(out, in, ks_buf, bytes);
        in += bytes;
        out += bytes;
        nblocks -= n;
    }
    secure_wipe(ks_buf, sizeof ks_buf); // held keystream
}

void ofb(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
         const uint8_t* in, uint8_t* out, size_t nblocks) {
    for (; nblocks; --nblocks, in += kBlockSize, out += kBlockSize) {
        c.encrypt_blocks(ks, iv, iv, 1);
        xor_bytes(out, in, iv, kBlockSize);
    }
}

void ctr(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
         const uint8_t* in, uint8_t* out, size_t nblocks) {
    uint8_t buf[kBatch * kBlockSize];
    while (nblocks) {
        const size_t n = nblocks < kBatch ? nblocks : kBatch;
        const size_t bytes = n * kBlockSize;
        for (size_t i = 0; i < n; ++i) {
            std::memcpy(buf + i * kBlockSize, iv, kBlockSize);
            ctr_increment(iv);
        }
        c.encrypt_blocks(ks, buf, buf, n);
        xor_bytes(out, in, buf, bytes);
        in += bytes;
        out += bytes;
        nblocks -= n;
    }
    secure_wipe(buf, sizeof buf); // held keystream
}

void cfb8(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
          const uint8_t* in, uint8_t* out, size_t nbytes, bool encrypt) {
    // Per byte: keystream byte = E(register)[0]; the register shifts left by
    // one byte and takes in the ciphertext byte.
    uint8_t e[kBlockSize];
    for (size_t i = 0; i < nbytes; ++i) {
        c.encrypt_blocks(ks, iv, e, 1);
        const uint8_t x = in[i];
        const uint8_t y = static_cast<uint8_t>(x ^ e[0]);
        out[i] = y;
        std::memmove(iv, iv + 1, kBlockSize - 1);
        iv[kBlockSize - 1] = encrypt ? y : x;
    }
    secure_wipe(e, sizeof e);
}

void cfb1(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
          const uint8_t* in, uint8_t* out, size_t nbits, bool encrypt) {
    // Per bit (MSB first): keystream bit = top bit of E(register)[0]; the
    // register shifts left by one bit and takes in the ciphertext bit.
    // Output bits beyond nbits in the last byte are left as they were.
    uint8_t e[kBlockSize];
    for (size_t i = 0; i < nbits; ++i) {
        const size_t byte = i / 8;
        const unsigned shift = 7 - static_cast<unsigned>(i % 8);
        c.encrypt_blocks(ks, iv, e, 1);
        const unsigned x = (in[byte] >> shift) & 1u;
        const unsigned y = x ^ (e[0] >> 7);
        out[byte] = static_cast<uint8_t>((out[byte] & ~(1u << shift)) | (y << shift));
        const unsigned feed = encrypt ? y : x;
        for (size_t j = 0; j + 1 < kBlockSize; ++j)
            iv[j] = static_cast<uint8_t>((iv[j] << 1) | (iv[j + 1] >> 7));
        iv[kBlockSize - 1] = static_cast<uint8_t>((iv[kBlockSize - 1] << 1) | feed);
    }
    secure_wipe(e, sizeof e);
}

// CCM without a fused kernel: the two passes over chunks of 256 blocks
// (4 KiB), so the second pass reads data the first left in L1. The MAC reads
// the plaintext: before CTR overwrites it when encrypting (in == out), after
// CTR produced it when decrypting.
namespace {
constexpr size_t kCcmChunk = 256;
} // namespace

void ccm_encrypt(const BlockCore& c, const KeySchedule& ks, uint8_t mac[kBlockSize],
                 uint8_t ctr[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks) {
    while (nblocks != 0) {
        const size_t n = nblocks < kCcmChunk ? nblocks : kCcmChunk;
        hwc::cbc_mac(c, ks, mac, in, n);
        hwc::ctr(c, ks, ctr, in, out, n);
        in += n * kBlockSize;
        out += n * kBlockSize;
        nblocks -= n;
    }
}

void ccm_decrypt(const BlockCore& c, const KeySchedule& ks, uint8_t mac[kBlockSize],
                 uint8_t ctr[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks) {
    while (nblocks != 0) {
        const size_t n = nblocks < kCcmChunk ? nblocks : kCcmChunk;
        hwc::ctr(c, ks, ctr, in, out, n);
        hwc::cbc_mac(c, ks, mac, out, n);
        in += n * kBlockSize;
        out += n * kBlockSize;
        nblocks -= n;
    }
}

} // namespace hwc::generic
