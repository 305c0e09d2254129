// SPDX-License-Identifier: Apache-2.0
// GHASH on PCLMULQDQ: the GhashKey layout of "ghash-clmul" and the
// multiply/reduce helpers it shares with the stitched AES-GCM kernel.
// Included only by translation units built with -mpclmul and at least
// -mssse3 (ghash_clmul.cpp, aes_ni_gcm.cpp); the helpers sit in an unnamed
// namespace so each such unit keeps its own copy and no baseline-ISA caller
// can be linked to one.
//
// Representation. GCM numbers the bits of a block from the most significant
// bit of byte 0 (coefficient of x^0) onwards. Byte-reversing a block with
// PSHUFB gives a 128-bit integer whose bit 127 - i holds the coefficient of
// x^i: the polynomial bit-reflected. The carry-less product of two reflected
// 128-bit values is the reflected 255-bit product (x^k at bit 254 - k); read
// as a reflected 256-bit value (x^k at bit 255 - k) it is the product times
// x, which the stored powers of H cancel by carrying a factor x^-1 (so data
// needs no shift, only the byte reversal; key setup shifts once). In a
// reflected 256-bit value the upper half holds x^0..x^127 and the lower half
// L x^128..x^255, folded back with x^128 = 1 + x + x^2 + x^7 (mod
// x^128 + x^7 + x^2 + x + 1). In reflected form multiplying by x^j is a right
// shift by j; the bits a right shift pushes below bit 0 (degree >= 128 again,
// at most 7 of them) are folded once more, and that second fold cannot
// overflow.
//
// Aggregation: up to 8 blocks per reduction,
//   y' = (y ^ X1) H^n ^ X2 H^(n-1) ^ ... ^ Xn H,
// the products summed unreduced (reduction is linear). Each 128x128 product
// is Karatsuba, three PCLMULQDQs: a0 b0, a1 b1 and (a0^a1)(b0^b1), the three
// kinds summed separately and the middle term recombined once per reduction.
// (b0^b1) of every power is precomputed. PCLMULQDQ runs in constant time.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "cores/ghash.h"

namespace hwc::x86_64::clmul {

inline constexpr size_t kAggregate = 8;

// What ghash-clmul's set_key leaves in GhashKey (the rest is unused):
//   pw[i]  = H^(i+1) * x^-1, reflected, i = 0..7;
//   kar[i] = the two 64-bit halves of pw[i] XORed, in the low lane.
struct ClmulKey {
    __m128i pw[kAggregate];
    __m128i kar[kAggregate];
};
static_assert(sizeof(ClmulKey) <= sizeof(GhashKey::bytes));
static_assert(alignof(GhashKey) >= alignof(ClmulKey));

// __m128i is declared may_alias, so viewing the bytes through it is defined.
inline const ClmulKey& clmul_key(const GhashKey& k) {
    return *reinterpret_cast<const ClmulKey*>(k.bytes);
}
inline ClmulKey& clmul_key(GhashKey& k) { return *reinterpret_cast<ClmulKey*>(k.bytes); }

// y (reflected) updated by `nblocks` blocks at `in`, any count: 8 blocks per
// reduction, then the remaining 1..7 with H^r..H^1 and one more reduction.
// In ghash_clmul.cpp.
__m128i hash_blocks(const ClmulKey& key, __m128i y, const uint8_t* in, size_t nblocks);

namespace {

// Byte reversal: GCM block <-> reflected 128-bit value (an involution).
[[gnu::always_inline]] inline __m128i byte_reverse(__m128i v) {
    const __m128i rev = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm_shuffle_epi8(v, rev);
}

[[gnu::always_inline]] inline __m128i load_reflected(const uint8_t* p) {
    return byte_reverse(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}
[[gnu::always_inline]] inline void store_reflected(uint8_t* p, __m128i v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), byte_reverse(v));
}

[[gnu::always_inline]] inline __m128i halves_xor(__m128i a) {
    return _mm_xor_si128(a, _mm_shuffle_epi32(a, 0x4e));
}

// Unreduced sum of Karatsuba products: lo = sum a0 b0, hi = sum a1 b1,
// mid = sum (a0^a1)(b0^b1) (lo and hi are taken out of it in reduce()).
struct Acc {
    __m128i lo, mid, hi;
};

[[gnu::always_inline]] inline Acc acc_zero() {
    const __m128i z = _mm_setzero_si128();
    return {z, z, z};
}

// acc += a * b, with bk = b0 ^ b1 in the low lane.
[[gnu::always_inline]] inline void mul_acc(Acc& acc, __m128i a, __m128i b, __m128i bk) {
    acc.lo = _mm_xor_si128(acc.lo, _mm_clmulepi64_si128(a, b, 0x00));
    acc.hi = _mm_xor_si128(acc.hi, _mm_clmulepi64_si128(a, b, 0x11));
    acc.mid = _mm_xor_si128(acc.mid, _mm_clmulepi64_si128(halves_xor(a), bk, 0x00));
}

// acc += a * key power j (H^(j+1) x^-1).
[[gnu::always_inline]] inline void mul_acc_power(Acc& acc, __m128i a, const ClmulKey& key,
                                                 size_t j) {
    mul_acc(acc, a, _mm_load_si128(&key.pw[j]), _mm_load_si128(&key.kar[j]));
}

// Reduces a reflected 256-bit value (x^k at bit 255 - k) to 128 bits.
// Folding L = lo is L (1 + x + x^2 + x^7): L itself plus L>>1 ^ L>>2 ^ L>>7,
// which as integers is (L * 0x61) >> 7 carry-less (0x61: bits 0, 5, 6). With
// K = 0x61 << 57 (0xc2 << 56), the products of L's two halves with K are
// T = (L * 0x61) << 57 in two pieces, A (low half) and B (high half):
// (L * 0x61) >> 7 = T >> 64 = B ^ (A >> 64), and A's low half holds what
// that shift pushes below bit 0, the spill S: degrees 128..134 again, which
// belong at the top of a value to fold, S << 64. The same rule folds it:
// S << 64 itself plus (S * K) (nothing spills this time). So
//   result = hi ^ L ^ B ^ swap(A) ^ clmul(A.low, K),
// the two halves of A swapped giving both A >> 64 and S << 64. Three
// PCLMULQDQs instead of shifts: the shifts share a port with AESENC on some
// cores (Skylake port 0), PCLMULQDQ does not.
[[gnu::always_inline]] inline __m128i fold(__m128i hi, __m128i lo) {
    const __m128i k = _mm_set_epi64x(0, static_cast<long long>(0xc200000000000000ull));
    const __m128i a = _mm_clmulepi64_si128(lo, k, 0x00);
    const __m128i b = _mm_clmulepi64_si128(lo, k, 0x01);
    const __m128i c = _mm_clmulepi64_si128(a, k, 0x00);
    const __m128i r = _mm_xor_si128(_mm_xor_si128(hi, lo), _mm_xor_si128(b, c));
    return _mm_xor_si128(r, _mm_shuffle_epi32(a, 0x4e));
}

// The sum in acc as a reduced field element. With the x^-1 carried by the
// key powers, the raw 255-bit sum needs no shift.
[[gnu::always_inline]] inline __m128i reduce(const Acc& acc) {
    const __m128i mid = _mm_xor_si128(acc.mid, _mm_xor_si128(acc.lo, acc.hi)); // a0 b1 ^ a1 b0
    const __m128i lo = _mm_xor_si128(acc.lo, _mm_slli_si128(mid, 8));
    const __m128i hi = _mm_xor_si128(acc.hi, _mm_srli_si128(mid, 8));
    return fold(hi, lo);
}

// H * x^-1 (reflected) from h = E_K(0^128) in GCM's byte order: the first
// stored power. x^-1 = x^127 + x^6 + x + 1 (x times it is P + 1), so bulk
// products of stored powers need no one-bit shift. This one product is of
// two values without x^-1, so the raw product (a b x) is shifted left by
// one bit (one factor x back out) before the fold.
[[gnu::always_inline]] inline __m128i first_power(const uint8_t h[16]) {
    const __m128i a = load_reflected(h);
    const __m128i b = _mm_set_epi64x(static_cast<long long>(0xc200000000000000ull), 1);
    Acc acc = acc_zero();
    mul_acc(acc, a, b, halves_xor(b));
    const __m128i mid = _mm_xor_si128(acc.mid, _mm_xor_si128(acc.lo, acc.hi));
    const __m128i wlo = _mm_xor_si128(acc.lo, _mm_slli_si128(mid, 8));
    const __m128i whi = _mm_xor_si128(acc.hi, _mm_srli_si128(mid, 8));
    const __m128i clo = _mm_srli_epi64(wlo, 63);
    const __m128i chi = _mm_srli_epi64(whi, 63);
    const __m128i lo = _mm_or_si128(_mm_slli_epi64(wlo, 1), _mm_slli_si128(clo, 8));
    const __m128i hi = _mm_or_si128(_mm_or_si128(_mm_slli_epi64(whi, 1), _mm_slli_si128(chi, 8)),
                                    _mm_srli_si128(clo, 8));
    return fold(hi, lo);
}

// y updated by n = 1..3 blocks at `in` on XMM registers, one reduction:
// inputs shorter than a vector group (GCM's AAD and length blocks), where
// lane folding would cost more than it saves. Schoolbook products (each
// independent: Karatsuba's shuffle and XOR before its middle product would
// lengthen the chain); the powers come from a descending table pw of
// npowers elements (H^k is pw[npowers - k]), as the vector cores keep them.
[[gnu::always_inline]] inline __m128i hash_few(const __m128i* pw, size_t npowers, __m128i y,
                                               const uint8_t* in, size_t n) {
    __m128i lo = _mm_setzero_si128(), mid = lo, hi = lo;
    for (size_t i = 0; i < n; ++i) {
        __m128i x = load_reflected(in + 16 * i);
        if (i == 0) x = _mm_xor_si128(x, y);
        const __m128i h = _mm_load_si128(pw + (npowers - (n - i)));
        lo = _mm_xor_si128(lo, _mm_clmulepi64_si128(x, h, 0x00));
        mid = _mm_xor_si128(mid, _mm_xor_si128(_mm_clmulepi64_si128(x, h, 0x01),
                                               _mm_clmulepi64_si128(x, h, 0x10)));
        hi = _mm_xor_si128(hi, _mm_clmulepi64_si128(x, h, 0x11));
    }
    return fold(_mm_xor_si128(hi, _mm_srli_si128(mid, 8)),
                _mm_xor_si128(lo, _mm_slli_si128(mid, 8)));
}

// GhashCore::finish for every x86_64 GHASH core: tag = y updated by n = 1..2
// blocks (hash_few over a descending table), XOR mask, y and the product
// never leaving registers.
[[gnu::always_inline]] inline void finish_tag(const __m128i* pw, size_t npowers,
                                              const uint8_t y[16], const uint8_t* in, size_t n,
                                              const uint8_t mask[16], uint8_t tag[16]) {
    const __m128i r = hash_few(pw, npowers, load_reflected(y), in, n);
    const __m128i m = _mm_loadu_si128(reinterpret_cast<const __m128i*>(mask));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(tag), _mm_xor_si128(byte_reverse(r), m));
}

} // namespace

} // namespace hwc::x86_64::clmul
