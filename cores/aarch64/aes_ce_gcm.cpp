// SPDX-License-Identifier: Apache-2.0
// Stitched AES-GCM on the ARMv8 Crypto Extensions: AES-CTR with AESE/AESMC
// and GHASH with PMULL in one pass. Contract: GcmFn in cores/core.h;
// declarations in aes_ce_gcm.h. GHASH arithmetic and key layout: ghash_pmull.h.
//
// Why stitch: the AES rounds of a block and the GHASH multiplies are two
// independent dependency chains, so issuing them side by side fills issue
// slots either would leave idle (in-order cores depend on it), and GHASH reads
// ciphertext that is still in L1 instead of making a second pass.
//
// Split: whole chunks of 8 blocks go through the assembly loop in
// aes_ce_gcm.S (8 AES-CTR blocks interleaved with GHASH of 8 ciphertext
// blocks, one reduction). This file sets it up and does the rest with
// intrinsics: decryption hashes the chunk it decrypts, so all its chunks
// stitch; encryption hashes each chunk while encrypting the next one, so its
// first chunk is plain CTR and its last is hashed after the loop, together
// with the tail. Tails (under 8 blocks) are CTR 4 + 1 + 1 + 1 and one
// aggregated GHASH.
//
// Guest instructions per byte under qemu-aarch64 -cpu max through EVP (16
// KiB updates; 2 MiB minus 1 MiB): AES-128-GCM enc 2.13 / dec 2.13,
// AES-256-GCM 2.63 / 2.63; with EOR3 (gcm_ce_eor3_*, aes-armv8-ce-eor3)
// 1.98 / 1.98 and 2.49 / 2.49. The assembly loop is 269 / 302 / 334
// instructions per 8 blocks, 250 / 283 / 315 with EOR3.
//
// Compiled with -march=armv8-a+crypto (root CMakeLists.txt). The kernels run
// only when the GCM context pairs the AES-CE core (kArmAes) with the
// ghash-pmull core (kArmPmull), so both instruction sets are present.
#include "cores/aarch64/aes_ce_gcm.h"

#include <arm_neon.h>

#include <cstddef>

#include "cores/aarch64/aes_ce.h"
#include "cores/aarch64/ghash_pmull.h"

// aes_ce_gcm.S: 8-block stitched loop, one entry per round count, and the
// same with EOR3 (SHA3 extension) for the three-way XORs.
extern "C" {
#define HWC_GCM8(name)                                                                         \
    void name(const uint8_t* rk, const void* hk, uint8_t ctr[16], uint8_t y[16],               \
              const uint8_t* in, uint8_t* out, const uint8_t* hsrc, size_t nchunks)
HWC_GCM8(hwc_aes_ce_gcm8_r10);
HWC_GCM8(hwc_aes_ce_gcm8_r12);
HWC_GCM8(hwc_aes_ce_gcm8_r14);
HWC_GCM8(hwc_aes_ce_gcm8_eor3_r10);
HWC_GCM8(hwc_aes_ce_gcm8_eor3_r12);
HWC_GCM8(hwc_aes_ce_gcm8_eor3_r14);
#undef HWC_GCM8
}

namespace hwc::aarch64 {
namespace {

using namespace pmull;

// Offsets the assembly hard-codes.
static_assert(offsetof(PmullKey, h) == 0 && offsetof(PmullKey, k) == 128,
              "aes_ce_gcm.S: PMULL_KEY_K and the LDP offsets of h[]");
static_assert(offsetof(AesCeKey, enc) == 0, "aes_ce_gcm.S reads enc[0..14] contiguously");

constexpr size_t kChunk = 8; // blocks per stitched step

struct Counter {
    uint32x4_t v;   // the counter block, each 32-bit word byte-swapped
    uint32x4_t one; // {0, 0, 0, 1}

    explicit Counter(const uint8_t block[kBlockSize])
        : v(vreinterpretq_u32_u8(vrev32q_u8(vld1q_u8(block)))),
          one(vsetq_lane_u32(1, vdupq_n_u32(0), 3)) {
        // Hide the value of `one` from the optimizer: knowing it, GCC turns
        // the chain of +1 into v + {0,0,0,i} with eight constants it then
        // reloads from the literal pool inside the loop (ADRP+LDR per block).
        asm("" : "+w"(one));
    }

    [[gnu::always_inline]] uint8x16_t next() {
        const uint8x16_t block = vrev32q_u8(vreinterpretq_u8_u32(v));
        v = vaddq_u32(v, one);
        return block;
    }
    template <size_t N>
    [[gnu::always_inline]] void next(uint8x16_t (&b)[N]) {
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) b[i] = next();
    }
    void store(uint8_t block[kBlockSize]) const {
        vst1q_u8(block, vrev32q_u8(vreinterpretq_u8_u32(v)));
    }
};

// CTR only, for the blocks outside the stitched loop: 8, 4 or 1 at a time
// with all round keys in registers (aes_ce.h helpers).
template <unsigned NR, size_t N>
[[gnu::always_inline]] inline void ctr_blocks(const AesCeRounds<NR>& rk, Counter& ctr,
                                              const uint8_t* in, uint8_t* out) {
    uint8x16_t s[N];
    ctr.next(s);
    aes_ce_encrypt_open<NR>(rk, s);
#pragma GCC unroll 8
    for (size_t b = 0; b < N; ++b)
        vst1q_u8(out + 16 * b, veorq_u8(s[b], veorq_u8(vld1q_u8(in + 16 * b), rk.k[NR])));
}

// The assembly loop for NR rounds, with EOR3 or without (aes_ce_gcm.S has
// the contract).
template <unsigned NR, bool Eor3>
void gcm8(const AesCeKey& aes, const PmullKey& hkey, uint8_t ctr[kBlockSize],
          uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, const uint8_t* hsrc,
          size_t nchunks) {
    constexpr auto fn = NR == 10 ? (Eor3 ? hwc_aes_ce_gcm8_eor3_r10 : hwc_aes_ce_gcm8_r10)
                      : NR == 12 ? (Eor3 ? hwc_aes_ce_gcm8_eor3_r12 : hwc_aes_ce_gcm8_r12)
                                 : (Eor3 ? hwc_aes_ce_gcm8_eor3_r14 : hwc_aes_ce_gcm8_r14);
    fn(aes.enc[0], &hkey, ctr, y, in, out, hsrc, nchunks);
}

// CTR over the last 0..7 blocks of a call.
template <unsigned NR>
void ctr_tail(const AesCeKey& aes, uint8_t ctr_block[kBlockSize], const uint8_t* in,
              uint8_t* out, size_t n) {
    if (n == 0) return;
    const AesCeRounds<NR> rk = aes_ce_load<NR>(aes.enc);
    Counter ctr(ctr_block);
    if (n >= 4) {
        ctr_blocks<NR, 4>(rk, ctr, in, out);
        in += 64;
        out += 64;
        n -= 4;
    }
    for (; n != 0; --n, in += 16, out += 16) ctr_blocks<NR, 1>(rk, ctr, in, out);
    ctr.store(ctr_block);
}

// y = GHASH step over n blocks at p (y in GCM byte order, as the engine keeps it).
void hash_tail(const PmullKey& hkey, uint8_t y[kBlockSize], const uint8_t* p, size_t n) {
    if (n != 0) store_elem(y, hash_blocks(hkey, load_elem(y), p, n));
}

template <unsigned NR, bool Eor3>
void encrypt(const AesCeKey& aes, const PmullKey& hkey, uint8_t ctr[kBlockSize],
             uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks) {
    const uint8_t* unhashed = out; // ciphertext written but not hashed yet
    if (nblocks >= kChunk) {
        // The first chunk has nothing before it to hash: plain CTR.
        Counter c(ctr);
        ctr_blocks<NR, kChunk>(aes_ce_load<NR>(aes.enc), c, in, out);
        c.store(ctr);
        in += 16 * kChunk;
        out += 16 * kChunk;
        nblocks -= kChunk;
        const size_t chunks = nblocks / kChunk;
        if (chunks != 0) {
            gcm8<NR, Eor3>(aes, hkey, ctr, y, in, out, unhashed, chunks);
            in += 16 * kChunk * chunks;
            out += 16 * kChunk * chunks;
            nblocks -= kChunk * chunks;
            unhashed = out - 16 * kChunk;
        }
    }
    ctr_tail<NR>(aes, ctr, in, out, nblocks);
    // The last full chunk (if any) and the tail, 8 blocks per reduction.
    hash_tail(hkey, y, unhashed, static_cast<size_t>(out - unhashed) / 16 + nblocks);
}

template <unsigned NR, bool Eor3>
void decrypt(const AesCeKey& aes, const PmullKey& hkey, uint8_t ctr[kBlockSize],
             uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks) {
    const size_t chunks = nblocks / kChunk;
    if (chunks != 0) {
        gcm8<NR, Eor3>(aes, hkey, ctr, y, in, out, in, chunks);
        in += 16 * kChunk * chunks;
        out += 16 * kChunk * chunks;
        nblocks -= kChunk * chunks;
    }
    // Hash before decrypting: with in == out the ciphertext is about to go.
    hash_tail(hkey, y, in, nblocks);
    ctr_tail<NR>(aes, ctr, in, out, nblocks);
}

template <bool Eor3>
void encrypt_any(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                 uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks) {
    if (nblocks == 0) return;
    const AesCeKey& key = aes_ce_key(ks);
    aes_ce_with_rounds(key, [&](auto nr) {
        encrypt<nr, Eor3>(key, pmull_key(hk), ctr, y, in, out, nblocks);
    });
}

template <bool Eor3>
void decrypt_any(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                 uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks) {
    if (nblocks == 0) return;
    const AesCeKey& key = aes_ce_key(ks);
    aes_ce_with_rounds(key, [&](auto nr) {
        decrypt<nr, Eor3>(key, pmull_key(hk), ctr, y, in, out, nblocks);
    });
}

} // namespace

void gcm_ce_encrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                    uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks) {
    encrypt_any<false>(ks, hk, ctr, y, in, out, nblocks);
}
void gcm_ce_decrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                    uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks) {
    decrypt_any<false>(ks, hk, ctr, y, in, out, nblocks);
}
void gcm_ce_eor3_encrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                         uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks) {
    encrypt_any<true>(ks, hk, ctr, y, in, out, nblocks);
}
void gcm_ce_eor3_decrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                         uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks) {
    decrypt_any<true>(ks, hk, ctr, y, in, out, nblocks);
}

} // namespace hwc::aarch64
