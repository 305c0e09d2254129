// SPDX-License-Identifier: Apache-2.0
// Generic XTS kernels over whole blocks, built on a core's ECB kernels.
//
// XTS blocks are independent once their tweaks are known, so each batch
// computes its tweaks first (one multiplication by alpha per block, in two
// 64-bit registers), XORs them into a copy of the input, runs the core once
// over the whole batch (a pipelined or SIMD core runs at full width) and XORs
// the tweaks in again on the way out. Both the IEEE 1619 tweak update and the
// GB/T 17964-2021 one are here; they differ only in the bit order of the
// field element, so the kernel is one template over the update rule.
// Contracts are those of cores/modes.h: whole blocks, in == out allowed,
// unaligned buffers, `tweak` written back for the next block.
#include "cores/modes.h"
#include "cores/wipe.h"

#include <cstring>

namespace hwc::generic {
namespace {

constexpr size_t kBatch = 32; // 512 bytes of tweaks and 512 of data on the stack

// Explicit byte order, so big-endian hosts compute the same field elements.
inline uint64_t load_le64(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}
inline void store_le64(uint8_t* p, uint64_t v) {
    for (int i = 0; i < 8; ++i, v >>= 8) p[i] = static_cast<uint8_t>(v);
}
inline uint64_t load_be64(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
    return v;
}
inline void store_be64(uint8_t* p, uint64_t v) {
    for (int i = 7; i >= 0; --i, v >>= 8) p[i] = static_cast<uint8_t>(v);
}

// IEEE 1619: the tweak is a little-endian 128-bit integer (byte 0 holds
// x^0..x^7); multiplying by alpha = x is a left shift, and the bit shifted
// out of x^127 folds back as x^7 + x^2 + x + 1 (0x87). Branch-free: the
// tweak is secret (derived from the tweak key).
struct IeeeTweak {
    uint64_t lo, hi;
    explicit IeeeTweak(const uint8_t* t) : lo(load_le64(t)), hi(load_le64(t + 8)) {}
    void store(uint8_t* t) const { store_le64(t, lo); store_le64(t + 8, hi); }
    void next() {
        const uint64_t carry = hi >> 63;
        hi = (hi << 1) | (lo >> 63);
        lo = (lo << 1) ^ (0x87 & (0 - carry));
    }
};

// GB/T 17964-2021: the same field in reflected bit order (as GHASH): the
// tweak is a big-endian 128-bit integer whose most significant bit is x^0,
// so multiplying by x is a right shift and the bit leaving x^127 (the least
// significant bit) folds back as 0xE1 into the top byte.
struct GbTweak {
    uint64_t hi, lo;
    explicit GbTweak(const uint8_t* t) : hi(load_be64(t)), lo(load_be64(t + 8)) {}
    void store(uint8_t* t) const { store_be64(t, hi); store_be64(t + 8, lo); }
    void next() {
        const uint64_t carry = lo & 1;
        lo = (lo >> 1) | (hi << 63);
        hi = (hi >> 1) ^ ((uint64_t{0xE1} << 56) & (0 - carry));
    }
};

// `nblocks` whole blocks from the running tweak, left in `t`. With
// `swap_last`, the last block takes the tweak after its own and `t` is left
// at its own (a decryption with stealing: IEEE 1619 5.4.2).
template <typename Tweak>
void xts_run(const BlockCore& c, const KeySchedule& ks, Tweak& t, const uint8_t* in,
             uint8_t* out, size_t nblocks, bool encrypt, bool swap_last) {
    if (nblocks == 0) return;
    uint8_t tw[kBatch * kBlockSize];
    uint8_t buf[kBatch * kBlockSize];
    while (nblocks) {
        const size_t n = nblocks < kBatch ? nblocks : kBatch;
        const size_t bytes = n * kBlockSize;
        for (size_t i = 0; i < n; ++i) {
            if (swap_last && n == nblocks && i == n - 1) {
                Tweak u = t;
                u.next();
                u.store(tw + i * kBlockSize);
            } else {
                t.store(tw + i * kBlockSize);
                t.next();
            }
        }
        // buf is separate from `in`, so in == out is safe.
        for (size_t i = 0; i < bytes; ++i) buf[i] = in[i] ^ tw[i];
        if (encrypt) c.encrypt_blocks(ks, buf, buf, n);
        else c.decrypt_blocks(ks, buf, buf, n);
        for (size_t i = 0; i < bytes; ++i) out[i] = buf[i] ^ tw[i];
        in += bytes;
        out += bytes;
        nblocks -= n;
    }
    secure_wipe(tw, sizeof tw);
    secure_wipe(buf, sizeof buf); // plaintext on one side or the other
}

template <typename Tweak>
void xts_blocks(const BlockCore& c, const KeySchedule& ks, uint8_t tweak[kBlockSize],
                const uint8_t* in, uint8_t* out, size_t nblocks, bool encrypt) {
    if (nblocks == 0) return;
    Tweak t(tweak);
    xts_run(c, ks, t, in, out, nblocks, encrypt, false);
    t.store(tweak);
}

// A whole unit from the running tweak: every whole block in one pass (the
// last one of a decryption with stealing under T_m), then the stolen pair:
// `x`, the last whole block's output (CC, or PP when decrypting), gives the
// output's tail its head, and the input's tail padded with x's remainder
// goes through the remaining tweak into block m-1.
template <typename Tweak>
void xts_steal_run(const BlockCore& c, const KeySchedule& ks, uint8_t tweak[kBlockSize],
                   const uint8_t* in, uint8_t* out, size_t len, bool encrypt) {
    const size_t whole = len / kBlockSize, tail = len % kBlockSize;
    Tweak t(tweak);
    xts_run(c, ks, t, in, out, whole, encrypt, tail != 0 && !encrypt);
    if (tail != 0) {
        const uint8_t* last_in = in + (whole - 1) * kBlockSize;
        uint8_t* last_out = out + (whole - 1) * kBlockSize;
        uint8_t x[kBlockSize], y[kBlockSize], tw[kBlockSize];
        std::memcpy(x, last_out, kBlockSize);
        std::memcpy(y, last_in + kBlockSize, tail); // before the output's tail is written
        std::memcpy(y + tail, x + tail, kBlockSize - tail);
        std::memcpy(last_out + kBlockSize, x, tail);
        t.store(tw);
        for (size_t i = 0; i < kBlockSize; ++i) y[i] ^= tw[i];
        if (encrypt) c.encrypt_blocks(ks, y, y, 1);
        else c.decrypt_blocks(ks, y, y, 1);
        for (size_t i = 0; i < kBlockSize; ++i) last_out[i] = y[i] ^ tw[i];
        secure_wipe(x, sizeof x);
        secure_wipe(y, sizeof y);
        secure_wipe(tw, sizeof tw);
    }
    t.store(tweak);
}

} // namespace

void xts_encrypt(const BlockCore& c, const KeySchedule& ks, uint8_t tweak[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t nblocks) {
    xts_blocks<IeeeTweak>(c, ks, tweak, in, out, nblocks, true);
}

void xts_decrypt(const BlockCore& c, const KeySchedule& ks, uint8_t tweak[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t nblocks) {
    xts_blocks<IeeeTweak>(c, ks, tweak, in, out, nblocks, false);
}

void xts_gb_encrypt(const BlockCore& c, const KeySchedule& ks, uint8_t tweak[kBlockSize],
                    const uint8_t* in, uint8_t* out, size_t nblocks) {
    xts_blocks<GbTweak>(c, ks, tweak, in, out, nblocks, true);
}

void xts_gb_decrypt(const BlockCore& c, const KeySchedule& ks, uint8_t tweak[kBlockSize],
                    const uint8_t* in, uint8_t* out, size_t nblocks) {
    xts_blocks<GbTweak>(c, ks, tweak, in, out, nblocks, false);
}

void xts_steal_ecb(const BlockCore& c, const KeySchedule& ks, uint8_t tweak[kBlockSize],
                   const uint8_t* in, uint8_t* out, size_t len, bool encrypt, bool gb) {
    if (gb) xts_steal_run<GbTweak>(c, ks, tweak, in, out, len, encrypt);
    else xts_steal_run<IeeeTweak>(c, ks, tweak, in, out, len, encrypt);
}

void xts_mul_alpha(uint8_t tweak[kBlockSize], bool gb) {
    if (gb) {
        GbTweak t(tweak);
        t.next();
        t.store(tweak);
    } else {
        IeeeTweak t(tweak);
        t.next();
        t.store(tweak);
    }
}

} // namespace hwc::generic
