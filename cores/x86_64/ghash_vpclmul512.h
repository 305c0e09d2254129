// SPDX-License-Identifier: Apache-2.0
// GHASH on VPCLMULQDQ with 512-bit vectors: the GhashKey layout of
// "ghash-vpclmul-avx512" and the multiply/reduce steps it shares with the
// stitched AES-GCM kernel of aes-vaes-avx512 (aes_vaes512_gcm.cpp). Included
// only by translation units built with -mavx2 -mavx512f -mavx512bw
// -mavx512vl -mpclmul and -mvpclmulqdq (not in the HWCIPHER_VPCLMUL_EMULATE
// test build, see clmul512); as in ghash_clmul.h the helpers sit in an
// unnamed namespace, so each such unit keeps its own copy and no
// narrower-ISA caller can be linked to one.
//
// Representation: ghash_clmul.h's (byte-reversed blocks read as
// bit-reflected polynomials, key powers carrying a factor x^-1, so a raw
// carry-less product of data and power needs no shift), four blocks per ZMM
// register, block 4j + l in lane l of register j.
//
// Aggregation: 32 blocks per reduction,
//   y' = (y ^ X0) H^32 ^ X1 H^31 ^ ... ^ X31 H,
// so register m of a 32-block group is multiplied by unit m of the key,
// (H^(32-4m), ..., H^(29-4m)), and the products of all eight are summed
// unreduced; the middle terms are folded into the low and high halves at
// full width, then the four lanes are summed and reduced once (reduce4).
// A group of n < 32 blocks (a tail) reads its powers H^n..H^1 from the same
// table at an unaligned offset, the last register's loads masked.
// Register 0, the only one that needs y, is multiplied last everywhere, so
// the others overlap the previous reduction's latency.
//
// On Zen 4 a VPCLMULQDQ, YMM or ZMM alike, occupies its unit for about two
// cycles: four blocks per instruction is twice the YMM core's rate.
// VPCLMULQDQ runs in constant time; the only branches are on public counts.
#pragma once

#include "cores/x86_64/avx512_intrinsics.h"

#include <cstddef>
#include <cstdint>

#include "cores/ghash.h"
#include "cores/x86_64/ghash_clmul.h"

namespace hwc::x86_64::vpclmul512 {

// Blocks per reduction, ZMM registers of four blocks per group.
inline constexpr size_t kPowers = 32;
inline constexpr size_t kUnits = kPowers / 4;

// What ghash-vpclmul-avx512's set_key leaves in GhashKey, all of it: the
// powers H^32..H^1, each times x^-1 and reflected, in descending order:
// unit m = (H^(32-4m), H^(31-4m), H^(30-4m), H^(29-4m)) in lanes 0..3, and
// H^k is the 16-byte element kPowers - k.
struct alignas(64) Vpclmul512Key {
    __m512i pw[kUnits];
};
static_assert(sizeof(Vpclmul512Key) <= sizeof(GhashKey::bytes));
static_assert(alignof(GhashKey) >= alignof(Vpclmul512Key));

// __m512i is declared may_alias, so viewing the bytes through it is defined.
inline const Vpclmul512Key& key512(const GhashKey& k) {
    return *reinterpret_cast<const Vpclmul512Key*>(k.bytes);
}
inline Vpclmul512Key& key512(GhashKey& k) { return *reinterpret_cast<Vpclmul512Key*>(k.bytes); }

// y (reflected) updated by `nblocks` blocks at `in`, any count: 32 blocks per
// reduction, then one group of the rest. In ghash_vpclmul512.cpp.
__m128i hash_blocks(const Vpclmul512Key& key, __m128i y, const uint8_t* in, size_t nblocks);

namespace {

#if defined(HWCIPHER_VPCLMUL_EMULATE)
// Four PCLMULQDQs with the same immediate, one per 128-bit lane: the SDM's
// definition of EVEX VPCLMULQDQ. Without -mvpclmulqdq (CMakeLists.txt) the
// compiler has only the VEX/legacy PCLMULQDQ for these.
template <int Imm>
[[gnu::always_inline]] inline __m512i clmul512(__m512i a, __m512i b) {
    const __m128i r0 = _mm_clmulepi64_si128(_mm512_castsi512_si128(a),
                                            _mm512_castsi512_si128(b), Imm);
    const __m128i r1 = _mm_clmulepi64_si128(_mm512_extracti32x4_epi32(a, 1),
                                            _mm512_extracti32x4_epi32(b, 1), Imm);
    const __m128i r2 = _mm_clmulepi64_si128(_mm512_extracti32x4_epi32(a, 2),
                                            _mm512_extracti32x4_epi32(b, 2), Imm);
    const __m128i r3 = _mm_clmulepi64_si128(_mm512_extracti32x4_epi32(a, 3),
                                            _mm512_extracti32x4_epi32(b, 3), Imm);
    __m512i r = _mm512_zextsi128_si512(r0);
    r = _mm512_inserti32x4(r, r1, 1);
    r = _mm512_inserti32x4(r, r2, 2);
    return _mm512_inserti32x4(r, r3, 3);
}
#else
template <int Imm>
[[gnu::always_inline]] inline __m512i clmul512(__m512i a, __m512i b) {
    return _mm512_clmulepi64_epi128(a, b, Imm);
}
#endif

[[gnu::always_inline]] inline __m512i xor3_512(__m512i a, __m512i b, __m512i c) {
    return _mm512_ternarylogic_epi64(a, b, c, 0x96);
}

// Byte reversal within each lane: four GCM blocks <-> four reflected values.
[[gnu::always_inline]] inline __m512i reflect4(__m512i v) {
    const __m512i rev = _mm512_broadcast_i32x4(
        _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    return _mm512_shuffle_epi8(v, rev);
}

// Unreduced sums over the four lanes (as ghash_vpclmul.h's Acc2).
struct Acc4 {
    __m512i lo, mid, hi;
};

[[gnu::always_inline]] inline Acc4 acc4_zero() {
    const __m512i z = _mm512_setzero_si512();
    return {z, z, z};
}

// acc += a * b, lane by lane, schoolbook: acc.mid collects a0 b1 ^ a1 b0.
[[gnu::always_inline]] inline void mul_acc4(Acc4& acc, __m512i a, __m512i b) {
    acc.lo = _mm512_xor_si512(acc.lo, clmul512<0x00>(a, b));
    acc.mid = xor3_512(acc.mid, clmul512<0x01>(a, b), clmul512<0x10>(a, b));
    acc.hi = _mm512_xor_si512(acc.hi, clmul512<0x11>(a, b));
}

// The two 64-bit halves of each lane XORed (in both halves).
[[gnu::always_inline]] inline __m512i halves_xor4(__m512i v) {
    return _mm512_xor_si512(v, _mm512_shuffle_epi32(v, _MM_PERM_BADC));
}

// acc += a * b, lane by lane, Karatsuba: bk = halves_xor4(b); acc.mid
// collects (a0 ^ a1)(b0 ^ b1) and needs karatsuba_mid before reduce4.
[[gnu::always_inline]] inline void mul_acc4k(Acc4& acc, __m512i a, __m512i b, __m512i bk) {
    acc.lo = _mm512_xor_si512(acc.lo, clmul512<0x00>(a, b));
    acc.mid = _mm512_xor_si512(acc.mid, clmul512<0x00>(halves_xor4(a), bk));
    acc.hi = _mm512_xor_si512(acc.hi, clmul512<0x11>(a, b));
}

// Karatsuba sums -> schoolbook ones: (a0^a1)(b0^b1) ^ a0 b0 ^ a1 b1.
[[gnu::always_inline]] inline Acc4 karatsuba_mid(Acc4 acc) {
    acc.mid = xor3_512(acc.mid, acc.lo, acc.hi);
    return acc;
}

// The middle terms folded into lo and hi (at full width).
[[gnu::always_inline]] inline void fold_mid(const Acc4& acc, __m512i& lo, __m512i& hi) {
    lo = _mm512_xor_si512(acc.lo, _mm512_bslli_epi128(acc.mid, 8));
    hi = _mm512_xor_si512(acc.hi, _mm512_bsrli_epi128(acc.mid, 8));
}

[[gnu::always_inline]] inline __m128i lanes_xor4(__m512i v) {
    const __m256i h =
        _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    return _mm_xor_si128(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}

// The sum of the four lanes as a reduced field element (the powers' x^-1
// makes the raw product right without a shift: ghash_clmul.h); only two
// values cross the lanes.
[[gnu::always_inline]] inline __m128i reduce4(const Acc4& acc) {
    __m512i lo, hi;
    fold_mid(acc, lo, hi);
    return clmul::fold(lanes_xor4(hi), lanes_xor4(lo));
}

// Which register of a 32-block group the i-th multiply (0..7) takes: 1, 2,
// ..., 7, then 0, the one carrying y, last.
constexpr size_t group_order(size_t i) { return (i + 1) % kUnits; }

// One whole group of 32 blocks at p into y, schoolbook.
[[gnu::always_inline]] inline __m128i hash_group32(const Vpclmul512Key& key, __m128i y,
                                                   const uint8_t* p) {
    Acc4 acc = acc4_zero();
#pragma GCC unroll 8
    for (size_t i = 0; i < kUnits; ++i) {
        const size_t m = group_order(i);
        __m512i x = reflect4(_mm512_loadu_si512(p + 64 * m));
        if (m == 0) x = _mm512_xor_si512(x, _mm512_zextsi128_si512(y));
        mul_acc4(acc, x, _mm512_load_si512(&key.pw[m]));
    }
    return reduce4(acc);
}

// The powers register j of an n-block tail (1..32 blocks, one reduction)
// takes: H^(n-4j)..H^(n-4j-3), read from the table at an unaligned offset;
// in the last register, when it is partial, masked: nothing past H^1 is read
// and the lanes without a block multiply by zero.
[[gnu::always_inline]] inline __m512i tail_powers(const Vpclmul512Key& key, size_t n, size_t j) {
    const size_t regs = (n + 3) / 4, last = n - 4 * (regs - 1);
    const uint8_t* p = reinterpret_cast<const uint8_t*>(key.pw) + 16 * (kPowers - n) + 64 * j;
    if (j + 1 == regs && last != 4)
        return _mm512_maskz_loadu_epi64(static_cast<__mmask8>(0xffu >> (8 - 2 * last)), p);
    return _mm512_loadu_si512(p);
}

// n = 1..32 blocks at p into y, one reduction: register j holds blocks
// 4j..4j+3 (the last one masked, its missing lanes zero, nothing past the
// data touched) and takes tail_powers(key, n, j).
[[gnu::always_inline]] inline __m128i hash_tail(const Vpclmul512Key& key, __m128i y,
                                                const uint8_t* p, size_t n) {
    const size_t regs = (n + 3) / 4, last = n - 4 * (regs - 1);
    const __mmask8 mask = static_cast<__mmask8>(0xffu >> (8 - 2 * last));
    Acc4 acc = acc4_zero();
    for (size_t j = regs; j-- > 0;) { // register 0 (with y) last
        const bool part = j + 1 == regs && last != 4;
        __m512i x = part ? _mm512_maskz_loadu_epi64(mask, p + 64 * j)
                         : _mm512_loadu_si512(p + 64 * j);
        x = reflect4(x);
        if (j == 0) x = _mm512_xor_si512(x, _mm512_zextsi128_si512(y));
        mul_acc4(acc, x, tail_powers(key, n, j));
    }
    return reduce4(acc);
}

// The same for n = 4M - 3..4M blocks already in registers x[0..M-1] (what
// the stitched kernel's encryption just wrote): hashing them from memory
// would load what was just stored, and a load from a recent ZMM store, or
// from a masked one, waits for the store to reach the cache instead of
// taking the data from it. Lanes of x past the blocks may hold anything:
// their powers are zero.
template <size_t M>
[[gnu::always_inline]] inline __m128i hash_regs(const Vpclmul512Key& key, __m128i y,
                                                const __m512i (&x)[M], size_t n) {
    Acc4 acc = acc4_zero();
    for (size_t j = M; j-- > 0;) { // M <= 8: unrolled
        __m512i v = reflect4(x[j]);
        if (j == 0) v = _mm512_xor_si512(v, _mm512_zextsi128_si512(y));
        mul_acc4(acc, v, tail_powers(key, n, j));
    }
    return reduce4(acc);
}

} // namespace

} // namespace hwc::x86_64::vpclmul512
