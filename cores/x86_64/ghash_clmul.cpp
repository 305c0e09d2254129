// SPDX-License-Identifier: Apache-2.0
// ghash-clmul: GHASH (NIST SP 800-38D 6.4) on PCLMULQDQ, 8 blocks per
// reduction. Representation, key layout and helpers: ghash_clmul.h.
//
// Compiled with -mpclmul -mssse3 (root CMakeLists.txt) and reached only
// through the `ghash_clmul` descriptor (needs kX86Pclmul).
#include "cores/x86_64/ghash_clmul.h"

#include "cores/cpu.h"
#include "cores/x86_64/x86_64.h"

namespace hwc::x86_64 {

namespace clmul {

__m128i hash_blocks(const ClmulKey& key, __m128i y, const uint8_t* in, size_t nblocks) {
    for (; nblocks >= kAggregate; nblocks -= kAggregate, in += kAggregate * 16) {
        Acc acc = acc_zero();
        mul_acc_power(acc, _mm_xor_si128(y, load_reflected(in)), key, kAggregate - 1);
#pragma GCC unroll 8
        for (size_t i = 1; i < kAggregate; ++i)
            mul_acc_power(acc, load_reflected(in + 16 * i), key, kAggregate - 1 - i);
        y = reduce(acc);
    }
    if (nblocks != 0) {
        Acc acc = acc_zero();
        mul_acc_power(acc, _mm_xor_si128(y, load_reflected(in)), key, nblocks - 1);
        for (size_t i = 1; i < nblocks; ++i)
            mul_acc_power(acc, load_reflected(in + 16 * i), key, nblocks - 1 - i);
        y = reduce(acc);
    }
    return y;
}

} // namespace clmul

namespace {

using namespace clmul;

// a * b mod P for key setup, both reflected and neither carrying x^-1: the
// raw product is a * b * x, so it is shifted left by one bit (one factor x
// back out) before the fold.
__m128i gmul(__m128i a, __m128i b) {
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

// Stored powers are H^i * x^-1, with x^-1 = x^127 + x^6 + x + 1 (x times it
// is P + 1), so bulk products come out right without the one-bit shift. Only
// the first needs gmul: a bulk product of two stored powers is
// (H^i x^-1)(H^j x^-1) x = H^(i+j) x^-1, another stored power. The powers
// are formed in a tree (depth 3 after H^1, not 7): key setup is on the
// per-message path of callers that re-key every message.
void ghash_set_key(GhashKey& key, const uint8_t h[16]) {
    static_assert(kAggregate == 8);
    const __m128i x_inv = _mm_set_epi64x(static_cast<long long>(0xc200000000000000ull), 1);
    auto mul = [](__m128i a, __m128i b) {
        Acc acc = acc_zero();
        mul_acc(acc, a, b, halves_xor(b));
        return reduce(acc);
    };
    __m128i p[kAggregate];
    p[0] = gmul(load_reflected(h), x_inv);
    p[1] = mul(p[0], p[0]);
    p[2] = mul(p[1], p[0]);
    p[3] = mul(p[1], p[1]);
    for (size_t i = 4; i < kAggregate; ++i) p[i] = mul(p[3], p[i - 4]);
    ClmulKey& kd = clmul_key(key);
    for (size_t i = 0; i < kAggregate; ++i) {
        _mm_store_si128(&kd.pw[i], p[i]);
        _mm_store_si128(&kd.kar[i], halves_xor(p[i]));
    }
}

void ghash_update(const GhashKey& key, uint8_t y[16], const uint8_t* in, size_t nblocks) {
    if (nblocks == 0) return;
    store_reflected(y, hash_blocks(clmul_key(key), load_reflected(y), in, nblocks));
}

} // namespace

extern const GhashCore ghash_clmul = {
    .name = "ghash-clmul",
    .hardware = true,
    .needs = kX86Pclmul,
    .set_key = ghash_set_key,
    .update = ghash_update,
};

} // namespace hwc::x86_64
