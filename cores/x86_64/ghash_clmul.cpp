// SPDX-License-Identifier: Apache-2.0
// ghash-clmul: GHASH (NIST SP 800-38D 6.4) on PCLMULQDQ.
//
// Compiled with -mpclmul -mssse3 (root CMakeLists.txt) and reached only
// through the `ghash_clmul` descriptor (needs kX86Pclmul); all helpers have
// internal linkage.
//
// Representation. GCM numbers the bits of a block from the most significant
// bit of byte 0 (coefficient of x^0) onwards. Byte-reversing a block with
// PSHUFB gives a 128-bit integer whose bit 127 - i holds the coefficient of
// x^i: the polynomial bit-reflected. The carry-less product of two reflected
// 128-bit values is the reflected 255-bit product (x^k at bit 254 - k); read
// as a reflected 256-bit value (x^k at bit 255 - k) it is the product times
// x, which the stored powers of H cancel by carrying a factor x^-1 (so the
// bulk path needs no shift; key setup shifts). In a reflected 256-bit value
// the upper half holds x^0..x^127 and the lower half L x^128..x^255, folded
// back with
// x^128 = 1 + x + x^2 + x^7 (mod x^128 + x^7 + x^2 + x + 1). In reflected
// form multiplying by x^j is a right shift by j; the bits a right shift
// pushes below bit 0 (degree >= 128 again, at most 7 of them) are folded
// once more, and that second fold cannot overflow.
//
// Four blocks are hashed per step with precomputed H^1..H^4:
//   y' = (y ^ X1) H^4 ^ X2 H^3 ^ X3 H^2 ^ X4 H,
// the four 256-bit products XORed before a single shift and reduction (both
// linear). Each 128x128 product is three PCLMULQDQs (Karatsuba), with the
// XOR of each power's halves precomputed. PCLMULQDQ runs in constant time.
#include "cores/x86_64/x86_64.h"

#include "cores/cpu.h"

#include <immintrin.h>
#include <wmmintrin.h>

namespace hwc::x86_64 {
namespace {

// GhashKey layout: H^1..H^4 reflected, then for each power its two 64-bit
// halves XORed (in the low lane) for the Karatsuba middle product.
struct KeyData {
    __m128i pw[4];
    __m128i kar[4];
};
static_assert(sizeof(KeyData) <= sizeof(GhashKey));
static_assert(alignof(GhashKey) >= alignof(KeyData));

// A 256-bit carry-less product, not yet shifted or reduced.
struct Wide {
    __m128i hi, lo;
};

[[gnu::always_inline]] inline __m128i byte_reverse(__m128i v) {
    const __m128i rev = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm_shuffle_epi8(v, rev);
}

[[gnu::always_inline]] inline __m128i load_reflected(const uint8_t* p) {
    return byte_reverse(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
}

[[gnu::always_inline]] inline __m128i halves_xor(__m128i a) {
    return _mm_xor_si128(a, _mm_shuffle_epi32(a, 0x4e));
}

// w ^= a * b, Karatsuba: (a1 b1) x^128 ^ ((a0^a1)(b0^b1) ^ a0 b0 ^ a1 b1) x^64 ^ a0 b0,
// with bk = b0 ^ b1 in the low lane.
[[gnu::always_inline]] inline void mul_acc(Wide& w, __m128i a, __m128i b, __m128i bk) {
    const __m128i lo = _mm_clmulepi64_si128(a, b, 0x00);
    const __m128i hi = _mm_clmulepi64_si128(a, b, 0x11);
    __m128i mid = _mm_clmulepi64_si128(halves_xor(a), bk, 0x00);
    mid = _mm_xor_si128(mid, _mm_xor_si128(lo, hi));
    w.lo = _mm_xor_si128(w.lo, _mm_xor_si128(lo, _mm_slli_si128(mid, 8)));
    w.hi = _mm_xor_si128(w.hi, _mm_xor_si128(hi, _mm_srli_si128(mid, 8)));
}

// Reduces a reflected 256-bit value (x^k at bit 255 - k) to 128 bits.
[[gnu::always_inline]] inline __m128i fold(__m128i hi, __m128i lo) {
    // Fold L = lo: L (1 + x + x^2 + x^7) is L ^ L>>1 ^ L>>2 ^ L>>7 as 128-bit
    // shifts. Per 64-bit lane, t = L<<63 ^ L<<62 ^ L<<57: its high lane is
    // what those shifts carry from L's high lane into the low lane, its low
    // lane what they push out below bit 0 (the degree >= 128 spill S, which
    // belongs at the top of the high lane).
    const __m128i t = _mm_xor_si128(_mm_xor_si128(_mm_slli_epi64(lo, 63), _mm_slli_epi64(lo, 62)),
                                    _mm_slli_epi64(lo, 57));
    const __m128i s = _mm_slli_si128(t, 8);
    const __m128i carry = _mm_srli_si128(t, 8);
    // S sits in bits 121..127; its shifts by 1, 2, 7 stay within the high lane.
    const __m128i b = _mm_xor_si128(lo, s);
    __m128i r = _mm_xor_si128(hi, b);
    r = _mm_xor_si128(r, _mm_srli_epi64(b, 1));
    r = _mm_xor_si128(r, _mm_srli_epi64(b, 2));
    r = _mm_xor_si128(r, _mm_srli_epi64(b, 7));
    return _mm_xor_si128(r, carry);
}

// The reflected 255-bit product in w, shifted left by one and reduced.
[[gnu::always_inline]] inline __m128i reduce_shifted(const Wide& w) {
    const __m128i clo = _mm_srli_epi64(w.lo, 63);
    const __m128i chi = _mm_srli_epi64(w.hi, 63);
    const __m128i lo = _mm_or_si128(_mm_slli_epi64(w.lo, 1), _mm_slli_si128(clo, 8));
    const __m128i hi = _mm_or_si128(_mm_or_si128(_mm_slli_epi64(w.hi, 1), _mm_slli_si128(chi, 8)),
                                    _mm_srli_si128(clo, 8));
    return fold(hi, lo);
}

// a * b mod P, both reflected.
[[gnu::always_inline]] inline __m128i gmul(__m128i a, __m128i b) {
    Wide w{_mm_setzero_si128(), _mm_setzero_si128()};
    mul_acc(w, a, b, halves_xor(b));
    return reduce_shifted(w);
}

// The bulk path skips the one-bit shift of each product: read without it,
// the raw 255-bit product of a and b is a * b * x. So the stored powers are
// H^i * x^-1, with x^-1 = x^127 + x^6 + x + 1 (x times it is P + 1).
void ghash_set_key(GhashKey& key, const uint8_t h[16]) {
    auto* kd = reinterpret_cast<KeyData*>(key.bytes);
    const __m128i x_inv = _mm_set_epi64x(static_cast<long long>(0xc200000000000000ull), 1);
    const __m128i h1 = load_reflected(h);
    __m128i p = h1;
    for (int i = 0; i < 4; ++i) {
        if (i) p = gmul(p, h1);
        const __m128i q = gmul(p, x_inv);
        _mm_store_si128(&kd->pw[i], q);
        _mm_store_si128(&kd->kar[i], halves_xor(q));
    }
}

void ghash_update(const GhashKey& key, uint8_t y[16], const uint8_t* in, size_t nblocks) {
    if (nblocks == 0) return;
    const auto* kd = reinterpret_cast<const KeyData*>(key.bytes);
    __m128i acc = load_reflected(y);
    if (nblocks >= 4) {
        const __m128i h1 = _mm_load_si128(&kd->pw[0]), k1 = _mm_load_si128(&kd->kar[0]);
        const __m128i h2 = _mm_load_si128(&kd->pw[1]), k2 = _mm_load_si128(&kd->kar[1]);
        const __m128i h3 = _mm_load_si128(&kd->pw[2]), k3 = _mm_load_si128(&kd->kar[2]);
        const __m128i h4 = _mm_load_si128(&kd->pw[3]), k4 = _mm_load_si128(&kd->kar[3]);
        for (; nblocks >= 4; nblocks -= 4, in += 64) {
            Wide w{_mm_setzero_si128(), _mm_setzero_si128()};
            mul_acc(w, _mm_xor_si128(acc, load_reflected(in)), h4, k4);
            mul_acc(w, load_reflected(in + 16), h3, k3);
            mul_acc(w, load_reflected(in + 32), h2, k2);
            mul_acc(w, load_reflected(in + 48), h1, k1);
            acc = fold(w.hi, w.lo);
        }
    }
    if (nblocks) {
        const __m128i h1 = _mm_load_si128(&kd->pw[0]), k1 = _mm_load_si128(&kd->kar[0]);
        for (; nblocks; --nblocks, in += 16) {
            Wide w{_mm_setzero_si128(), _mm_setzero_si128()};
            mul_acc(w, _mm_xor_si128(acc, load_reflected(in)), h1, k1);
            acc = fold(w.hi, w.lo);
        }
    }
    _mm_storeu_si128(reinterpret_cast<__m128i*>(y), byte_reverse(acc));
}

} // namespace

extern const GhashCore ghash_clmul = {
    "ghash-clmul",
    true,
    kX86Pclmul,
    ghash_set_key,
    ghash_update,
};

} // namespace hwc::x86_64
