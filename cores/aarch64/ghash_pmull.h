// SPDX-License-Identifier: Apache-2.0
// GHASH on PMULL/PMULL2: the GhashKey layout of "ghash-pmull" and the
// multiply/reduce helpers it shares with the stitched AES-GCM kernel.
// Included only by translation units built with -march=armv8-a+crypto
// (ghash_pmull.cpp, aes_ce_gcm.cpp); the helpers have internal linkage so no
// other unit can end up calling a copy of them. aes_ce_gcm.S repeats the same
// arithmetic in assembly and reads the same layout.
//
// Representation. GCM numbers the bits of a block from the most significant
// bit of byte 0 (the coefficient of x^0). RBIT on bytes (vrbitq_u8) reverses
// the bits inside each byte, after which the block read as a little-endian
// 128-bit value has the coefficient of x^k at bit k: ordinary polynomial
// order, the order PMULL multiplies in. So a product needs no shift and H no
// "twist"; the price is one RBIT per block loaded (a byte reversal, the
// alternative, costs the same) and one per value stored.
//
// Products are Karatsuba (three PMULLs per 128x128), summed unreduced over
// up to 8 blocks (y' = (y ^ X1) H^8 ^ X2 H^7 ^ ... ^ X8 H) and reduced once.
// For two blocks a, b at once, TRN1/TRN2 gather the halves so one EOR forms
// both Karatsuba middle operands (a0^a1 | b0^b1), and the precomputed
// (h0^h1) of the two matching powers sit side by side in one key vector.
//
// Reduction modulo P = x^128 + x^7 + x^2 + x + 1: with x^128 = R = 0x87, the
// 256-bit product l0 + l1 x^64 + h0 x^128 + h1 x^192 folds in two 64-bit
// steps, t = h1 R (at most 71 bits) lands on l1 and h0, then u = (h0 ^ t1) R
// lands on l0 and l1. Both are PMULL2 with R; PMULL runs in constant time.
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>

#include "cores/ghash.h"

namespace hwc::aarch64::pmull {

// What ghash-pmull's set_key leaves in GhashKey (all in the RBIT domain,
// stored as bytes so every access is a plain vld1q):
//   h[i] = H^(i+1), i = 0..7;
//   k[j] = { h0 ^ h1 of H^(2j+2), h0 ^ h1 of H^(2j+1) }: the Karatsuba middle
//          operands for a pair of consecutive blocks, the earlier of which
//          takes the higher power (lane 0).
// The rest of GhashKey is zero.
struct PmullKey {
    uint8_t h[8][16];
    uint8_t k[4][16];
};
static_assert(sizeof(PmullKey) <= sizeof(GhashKey::bytes));

inline const PmullKey& pmull_key(const GhashKey& k) {
    return *reinterpret_cast<const PmullKey*>(k.bytes);
}
inline PmullKey& pmull_key(GhashKey& k) { return *reinterpret_cast<PmullKey*>(k.bytes); }

namespace {

using u64x2 = uint64x2_t;

// Unreduced sum of Karatsuba products: lo = sum a0 b0, hi = sum a1 b1,
// mid = sum (a0^a1)(b0^b1) (lo and hi are added back in reduce()).
struct Acc {
    u64x2 lo, mid, hi;
};

[[gnu::always_inline]] inline Acc acc_zero() {
    const u64x2 z = vdupq_n_u64(0);
    return {z, z, z};
}

// A GCM block (16 bytes in GCM order) into the RBIT domain and back.
[[gnu::always_inline]] inline u64x2 to_elem(uint8x16_t block) {
    return vreinterpretq_u64_u8(vrbitq_u8(block));
}
[[gnu::always_inline]] inline uint8x16_t from_elem(u64x2 e) {
    return vrbitq_u8(vreinterpretq_u8_u64(e));
}
[[gnu::always_inline]] inline u64x2 load_elem(const uint8_t* p) { return to_elem(vld1q_u8(p)); }
[[gnu::always_inline]] inline void store_elem(uint8_t* p, u64x2 e) { vst1q_u8(p, from_elem(e)); }

[[gnu::always_inline]] inline u64x2 load_key(const uint8_t (&slot)[16]) {
    return vreinterpretq_u64_u8(vld1q_u8(slot));
}

// Carry-less 64x64 products of the low lanes (PMULL) and high lanes (PMULL2).
// PMULL is written as asm: through vmull_p64(vgetq_lane_p64(...)) GCC 12
// gives every vector used by both PMULL and PMULL2 (each power of H) a
// second register holding a copy of its low lane, which in the 8-block loops
// pushes live values onto the stack.
[[gnu::always_inline]] inline u64x2 clmul_lo(u64x2 a, u64x2 b) {
    u64x2 r;
    asm("pmull %0.1q, %1.1d, %2.1d" : "=w"(r) : "w"(a), "w"(b));
    return r;
}
[[gnu::always_inline]] inline u64x2 clmul_hi(u64x2 a, u64x2 b) {
    return vreinterpretq_u64_p128(
        vmull_high_p64(vreinterpretq_p64_u64(a), vreinterpretq_p64_u64(b)));
}

// acc += a * h for one block. `kk` holds h0 ^ h1 in lane `kLane`; a0 ^ a1 is
// formed in both lanes so either lane of a key vector can serve.
template <int kLane>
[[gnu::always_inline]] inline void mul_acc(Acc& acc, u64x2 a, u64x2 h, u64x2 kk) {
    const u64x2 s = veorq_u64(a, vextq_u64(a, a, 1));
    acc.lo = veorq_u64(acc.lo, clmul_lo(a, h));
    acc.hi = veorq_u64(acc.hi, clmul_hi(a, h));
    acc.mid = veorq_u64(acc.mid, kLane == 0 ? clmul_lo(s, kk) : clmul_hi(s, kk));
}

// acc += a * ha + b * hb, with kab = { ha0 ^ ha1, hb0 ^ hb1 } (a PmullKey k[]).
[[gnu::always_inline]] inline void mul_acc_pair(Acc& acc, u64x2 a, u64x2 b, u64x2 ha, u64x2 hb,
                                                u64x2 kab) {
    const u64x2 s = veorq_u64(vtrn1q_u64(a, b), vtrn2q_u64(a, b)); // {a0^a1, b0^b1}
    acc.lo = veorq_u64(acc.lo, veorq_u64(clmul_lo(a, ha), clmul_lo(b, hb)));
    acc.hi = veorq_u64(acc.hi, veorq_u64(clmul_hi(a, ha), clmul_hi(b, hb)));
    acc.mid = veorq_u64(acc.mid, veorq_u64(clmul_lo(s, kab), clmul_hi(s, kab)));
}

// x^128 mod P in the high lane, for clmul_hi.
[[gnu::always_inline]] inline u64x2 reduction_constant() { return vdupq_n_u64(0x87); }

// The product summed in acc, reduced mod P (see the top of the file).
[[gnu::always_inline]] inline u64x2 reduce(const Acc& acc, u64x2 r) {
    const u64x2 mid = veorq_u64(acc.mid, veorq_u64(acc.lo, acc.hi)); // a0 b1 ^ a1 b0
    const u64x2 t = clmul_hi(acc.hi, r);                              // h1 R
    // {l1 ^ m0 ^ t0, h0 ^ m1 ^ t1}: the 128 bits between x^64 and x^191.
    const u64x2 m = veorq_u64(veorq_u64(vextq_u64(acc.lo, acc.hi, 1), mid), t);
    const u64x2 u = clmul_hi(m, r);                                   // (h0 ^ m1 ^ t1) R
    return veorq_u64(vtrn1q_u64(acc.lo, m), u);
}

// The 8-block step, blocks x[0..7] already in the RBIT domain:
// returns (y ^ x0) H^8 ^ x1 H^7 ^ ... ^ x7 H.
[[gnu::always_inline]] inline u64x2 hash8(const PmullKey& key, u64x2 y, const u64x2 (&x)[8],
                                          u64x2 r) {
    Acc acc = acc_zero();
    mul_acc_pair(acc, veorq_u64(y, x[0]), x[1], load_key(key.h[7]), load_key(key.h[6]),
                 load_key(key.k[3]));
    mul_acc_pair(acc, x[2], x[3], load_key(key.h[5]), load_key(key.h[4]), load_key(key.k[2]));
    mul_acc_pair(acc, x[4], x[5], load_key(key.h[3]), load_key(key.h[2]), load_key(key.k[1]));
    mul_acc_pair(acc, x[6], x[7], load_key(key.h[1]), load_key(key.h[0]), load_key(key.k[0]));
    return reduce(acc, r);
}

} // namespace

// y updated by n blocks at `in` (any n), as GhashCore::update but on a value
// already in the RBIT domain: 8 blocks per reduction, then the remaining
// 1..7 blocks with H^n..H^1 and one more reduction. In ghash_pmull.cpp.
u64x2 hash_blocks(const PmullKey& key, u64x2 y, const uint8_t* in, size_t nblocks);

} // namespace hwc::aarch64::pmull
