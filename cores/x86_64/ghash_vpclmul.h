// SPDX-License-Identifier: Apache-2.0
// GHASH on VPCLMULQDQ with 256-bit vectors: the GhashKey layout of
// "ghash-vpclmul-avx2" and its multiply/reduce steps. Included only
// by translation units built with -mavx2 -mvpclmulqdq -mpclmul; as in
// ghash_clmul.h the helpers sit in an unnamed namespace, so each such unit
// keeps its own copy and no narrower-ISA caller can be linked to one.
//
// Representation: ghash_clmul.h's (byte-reversed blocks read as bit-reflected
// polynomials, key powers carrying a factor x^-1, so a raw carry-less product
// of data and power needs no shift), two blocks per YMM register: block 2m in
// lane 0, block 2m+1 in lane 1, each byte-reversed within its lane.
//
// Aggregation: 16 blocks per reduction,
//   y' = (y ^ X0) H^16 ^ X1 H^15 ^ ... ^ X15 H,
// so register m is multiplied by (H^(16-2m), H^(15-2m)), one power register
// per data register, and the products of all eight are summed unreduced.
// Each product is schoolbook, four VPCLMULQDQs (lo, hi and the two cross
// terms): Karatsuba's third product would save one multiply per register but
// cost a shuffle and two XORs, and it needs a second table of keys.
// The sums of both lanes are folded into one 128-bit value only once per
// group (reduce()), then reduced with ghash_clmul.h's fold().
//
// Inputs of 1..3 blocks go through clmul::hash_few on XMM registers.
//
// A group of c < 16 blocks (a call's tail) uses the last c/2 power registers.
// An odd c is taken as c + 1 blocks, the first a zero block: register 0 then
// holds (0, X0) and the lanes of the others line up with the power
// registers, so no power table in another order is needed.
//
// VPCLMULQDQ runs in constant time; the only branches are on public counts.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "cores/cpu.h"
#include "cores/ghash.h"
#include "cores/x86_64/ghash_clmul.h"

namespace hwc::x86_64::vpclmul {

// Blocks per reduction, and power registers of two blocks each.
inline constexpr size_t kGroup = 16;
inline constexpr size_t kPowerRegs = kGroup / 2;

// What ghash-vpclmul-avx2's set_key leaves in GhashKey (the rest is unused):
//   pw[m] = (H^(16-2m) x^-1 in lane 0, H^(15-2m) x^-1 in lane 1), reflected,
// H^16..H^1 in descending order, so H^k is the 16-byte element 16 - k.
struct VpclmulKey {
    __m256i pw[kPowerRegs];
};
static_assert(sizeof(VpclmulKey) <= sizeof(GhashKey::bytes));
static_assert(alignof(GhashKey) >= alignof(VpclmulKey));

// __m256i is declared may_alias, so viewing the bytes through it is defined.
inline const VpclmulKey& vpclmul_key(const GhashKey& k) {
    return *reinterpret_cast<const VpclmulKey*>(k.bytes);
}
inline VpclmulKey& vpclmul_key(GhashKey& k) { return *reinterpret_cast<VpclmulKey*>(k.bytes); }

// y (reflected) updated by `nblocks` blocks at `in`, any count: 16 blocks per
// reduction, then one group of the remaining 1..15. In ghash_vpclmul.cpp.
__m128i hash_blocks(const VpclmulKey& key, __m128i y, const uint8_t* in, size_t nblocks);

namespace {

// VPCLMULQDQ on YMM. HWCIPHER_VPCLMUL_EMULATE (a test build only, e.g.
// -DCMAKE_CXX_FLAGS=-DHWCIPHER_VPCLMUL_EMULATE) runs each as two PCLMULQDQs
// with the same immediate, one per 128-bit lane, which is the instruction's
// definition (Intel SDM, VPCLMULQDQ), and drops VPCLMULQDQ from the `needs`
// of the cores using it: their kernels then run, and are checked by the
// tests, on CPUs (and QEMU) without it.
#if defined(HWCIPHER_VPCLMUL_EMULATE)
template <int Imm>
[[gnu::always_inline]] inline __m256i clmul256(__m256i a, __m256i b) {
    const __m128i lo = _mm_clmulepi64_si128(_mm256_castsi256_si128(a),
                                            _mm256_castsi256_si128(b), Imm);
    const __m128i hi = _mm_clmulepi64_si128(_mm256_extracti128_si256(a, 1),
                                            _mm256_extracti128_si256(b, 1), Imm);
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}
inline constexpr uint32_t kVpclmulFeature = 0;
#else
template <int Imm>
[[gnu::always_inline]] inline __m256i clmul256(__m256i a, __m256i b) {
    return _mm256_clmulepi64_epi128(a, b, Imm);
}
inline constexpr uint32_t kVpclmulFeature = kX86Vpclmul;
#endif

// Byte reversal within each lane: two GCM blocks <-> two reflected values.
[[gnu::always_inline]] inline __m256i byte_reverse2(__m256i v) {
    const __m256i rev = _mm256_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm256_shuffle_epi8(v, rev);
}

// Blocks i and i+1 at p + 16 i, reflected.
[[gnu::always_inline]] inline __m256i load2_reflected(const uint8_t* p) {
    return byte_reverse2(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

// A 128-bit value in lane 0 of a zeroed register, or in lane 1.
[[gnu::always_inline]] inline __m256i in_lane0(__m128i v) { return _mm256_zextsi128_si256(v); }
[[gnu::always_inline]] inline __m256i in_lane1(__m128i v) {
    return _mm256_inserti128_si256(_mm256_setzero_si256(), v, 1);
}

// Unreduced sums over both lanes: lo = a0 b0, hi = a1 b1, mid = a0 b1 ^ a1 b0
// (a0, b0 the low 64 bits of a lane's operands).
struct Acc2 {
    __m256i lo, mid, hi;
};

[[gnu::always_inline]] inline Acc2 acc2_zero() {
    const __m256i z = _mm256_setzero_si256();
    return {z, z, z};
}

// acc += a * b, lane by lane.
[[gnu::always_inline]] inline void mul_acc2(Acc2& acc, __m256i a, __m256i b) {
    acc.lo = _mm256_xor_si256(acc.lo, clmul256<0x00>(a, b));
    acc.mid = _mm256_xor_si256(acc.mid, _mm256_xor_si256(clmul256<0x01>(a, b),
                                                         clmul256<0x10>(a, b)));
    acc.hi = _mm256_xor_si256(acc.hi, clmul256<0x11>(a, b));
}

// acc += a * power register m.
[[gnu::always_inline]] inline void mul_acc_power2(Acc2& acc, __m256i a, const VpclmulKey& key,
                                                  size_t m) {
    mul_acc2(acc, a, _mm256_load_si256(&key.pw[m]));
}

[[gnu::always_inline]] inline __m128i lanes_xor(__m256i v) {
    return _mm_xor_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
}

// The sum of both lanes as a reduced field element (the x^-1 of the powers
// makes the raw 255-bit sum right without a shift, as in ghash_clmul.h).
[[gnu::always_inline]] inline __m128i reduce2(const Acc2& acc) {
    const __m128i mid = lanes_xor(acc.mid);
    const __m128i lo = _mm_xor_si128(lanes_xor(acc.lo), _mm_slli_si128(mid, 8));
    const __m128i hi = _mm_xor_si128(lanes_xor(acc.hi), _mm_srli_si128(mid, 8));
    return clmul::fold(hi, lo);
}

// One whole group of 16 blocks at `in` into y. Register 0, the only one
// that needs y (the previous group's result), is multiplied last, so the
// other seven products overlap that reduction's latency.
[[gnu::always_inline]] inline __m128i hash_group16(const VpclmulKey& key, __m128i y,
                                                   const uint8_t* in) {
    Acc2 acc = acc2_zero();
#pragma GCC unroll 8
    for (size_t m = 1; m < kPowerRegs; ++m)
        mul_acc_power2(acc, load2_reflected(in + 32 * m), key, m);
    mul_acc_power2(acc, _mm256_xor_si256(load2_reflected(in), in_lane0(y)), key, 0);
    return reduce2(acc);
}

// One group of c = 1..16 blocks at `in` into y (the odd-count rule above).
[[gnu::always_inline]] inline __m128i hash_group(const VpclmulKey& key, __m128i y,
                                                 const uint8_t* in, size_t c) {
    const size_t regs = (c + 1) / 2, first = kPowerRegs - regs, skew = 16 * (c & 1);
    Acc2 acc = acc2_zero();
    for (size_t m = 1; m < regs; ++m)
        mul_acc_power2(acc, load2_reflected(in + (32 * m - skew)), key, first + m);
    const __m256i x0 = (c & 1) ? in_lane1(_mm_xor_si128(clmul::load_reflected(in), y))
                               : _mm256_xor_si256(load2_reflected(in), in_lane0(y));
    mul_acc_power2(acc, x0, key, first);
    return reduce2(acc);
}

} // namespace

} // namespace hwc::x86_64::vpclmul
