// SPDX-License-Identifier: Apache-2.0
// aes-vaes-avx512 internals shared by its translation units (aes_vaes512.cpp,
// aes_vaes512_gcm.cpp): the VAES operations on ZMM (and their emulation in
// the HWCIPHER_VAES_EMULATE test build), broadcast round keys, and the step
// shapes with masked loads and stores for tails of any length.
//
// Only units compiled with -maes -mvaes -mavx2 -mavx512f -mavx512bw
// -mavx512vl include this header. As in aes_vaes.h, the helpers sit in an
// unnamed namespace so no narrower-ISA caller can be linked to a copy built
// with these flags.
#pragma once

#include "cores/x86_64/avx512_intrinsics.h"

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cores/x86_64/aes_vaes.h"

namespace hwc::x86_64::vaes512 {

// Stitched GCM kernels (aes_vaes512_gcm.cpp, -mvpclmulqdq -mpclmul added),
// for ghash-vpclmul-avx512's key layout; contract GcmFn.
void gcm_encrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                 uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks);
void gcm_decrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                 uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks);

namespace {

// Registers per main-loop step, four blocks each.
constexpr size_t kRegs = 8;
constexpr size_t kStep = 4 * kRegs;

template <size_t M>
using Regs = std::integral_constant<size_t, M>;

// ---- the four VAES operations on ZMM -----------------------------------------
//
// HWCIPHER_VAES_EMULATE (a test build, aes_vaes.h) runs each as four AES-NI
// operations, one per 128-bit lane, which is the SDM's definition of the
// EVEX VAES forms. The AES-NI ones are written as inline assembly with "x"
// operands (xmm0-15): with -mvaes -mavx512vl on the command line the
// compiler may otherwise pick xmm16-31 and emit the EVEX encoding, which is
// itself a VAES instruction and would fault on the CPUs this build is for.
#if defined(HWCIPHER_VAES_EMULATE)
#define HWC_AESNI_OP(name, insn)                                                             \
    [[gnu::always_inline]] inline __m128i name(__m128i b, __m128i k) {                       \
        __asm__(insn " %1, %0" : "+x"(b) : "x"(k));                                          \
        return b;                                                                            \
    }
HWC_AESNI_OP(aesenc1, "aesenc")
HWC_AESNI_OP(aesenclast1, "aesenclast")
HWC_AESNI_OP(aesdec1, "aesdec")
HWC_AESNI_OP(aesdeclast1, "aesdeclast")
#undef HWC_AESNI_OP

template <__m128i (*Op)(__m128i, __m128i)>
[[gnu::always_inline]] inline __m512i per_lane(__m512i b, __m512i k) {
    __m512i r = _mm512_castsi128_si512(Op(_mm512_castsi512_si128(b), _mm512_castsi512_si128(k)));
    r = _mm512_inserti32x4(
        r, Op(_mm512_extracti32x4_epi32(b, 1), _mm512_extracti32x4_epi32(k, 1)), 1);
    r = _mm512_inserti32x4(
        r, Op(_mm512_extracti32x4_epi32(b, 2), _mm512_extracti32x4_epi32(k, 2)), 2);
    return _mm512_inserti32x4(
        r, Op(_mm512_extracti32x4_epi32(b, 3), _mm512_extracti32x4_epi32(k, 3)), 3);
}
[[gnu::always_inline]] inline __m512i vaesenc(__m512i b, __m512i k) {
    return per_lane<aesenc1>(b, k);
}
[[gnu::always_inline]] inline __m512i vaesenclast(__m512i b, __m512i k) {
    return per_lane<aesenclast1>(b, k);
}
[[gnu::always_inline]] inline __m512i vaesdec(__m512i b, __m512i k) {
    return per_lane<aesdec1>(b, k);
}
[[gnu::always_inline]] inline __m512i vaesdeclast(__m512i b, __m512i k) {
    return per_lane<aesdeclast1>(b, k);
}
#else
[[gnu::always_inline]] inline __m512i vaesenc(__m512i b, __m512i k) {
    return _mm512_aesenc_epi128(b, k);
}
[[gnu::always_inline]] inline __m512i vaesenclast(__m512i b, __m512i k) {
    return _mm512_aesenclast_epi128(b, k);
}
[[gnu::always_inline]] inline __m512i vaesdec(__m512i b, __m512i k) {
    return _mm512_aesdec_epi128(b, k);
}
[[gnu::always_inline]] inline __m512i vaesdeclast(__m512i b, __m512i k) {
    return _mm512_aesdeclast_epi128(b, k);
}
#endif

template <bool Enc>
[[gnu::always_inline]] inline __m512i round(__m512i b, __m512i k) {
    return Enc ? vaesenc(b, k) : vaesdec(b, k);
}
template <bool Enc>
[[gnu::always_inline]] inline __m512i last_round(__m512i b, __m512i k) {
    return Enc ? vaesenclast(b, k) : vaesdeclast(b, k);
}

// ---- round keys, steps, loads and stores ---------------------------------------

// One direction's round keys, each broadcast to the four lanes once per call.
template <unsigned NR>
struct ZmmKeys {
    __m512i k[NR + 1];
};

template <unsigned NR>
[[gnu::always_inline]] inline ZmmKeys<NR> broadcast_keys(const __m128i (&keys)[15]) {
    ZmmKeys<NR> rk;
#pragma GCC unroll 15
    for (unsigned r = 0; r <= NR; ++r) rk.k[r] = _mm512_broadcast_i32x4(keys[r]);
    return rk;
}

// Rounds 1..NR-1 on M registers (round key 0 already XORed in; the last
// round is the caller's, which folds data into its key: aes_ni.h).
template <unsigned NR, bool Enc, size_t M>
[[gnu::always_inline]] inline void middle_rounds(const ZmmKeys<NR>& rk, __m512i (&b)[M]) {
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) {
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) b[j] = round<Enc>(b[j], rk.k[r]);
    }
}

[[gnu::always_inline]] inline __m512i xor3(__m512i a, __m512i b, __m512i c) {
    return _mm512_ternarylogic_epi64(a, b, c, 0x96);
}

// The shape of one step: M registers, the last holding `last` (1..4)
// blocks. Loads of that register are masked (the lanes past the data read
// as zero and nothing beyond the buffer is touched, not even a fault), and
// so are its stores.
template <size_t M>
struct Step {
    size_t last;
    __mmask8 mask; // the 64-bit elements of register M-1 that hold blocks

    [[gnu::always_inline]] explicit Step(size_t l)
        : last(l), mask(static_cast<__mmask8>(0xffu >> (8 - 2 * l))) {}
    [[gnu::always_inline]] size_t blocks() const { return 4 * (M - 1) + last; }

    // Register j of the blocks at p.
    [[gnu::always_inline]] __m512i load(const uint8_t* p, size_t j) const {
        if (j + 1 < M || last == 4) return _mm512_loadu_si512(p + 64 * j);
        return _mm512_maskz_loadu_epi64(mask, p + 64 * j);
    }
    [[gnu::always_inline]] void store(uint8_t* p, size_t j, __m512i v) const {
        if (j + 1 < M || last == 4) _mm512_storeu_si512(p + 64 * j, v);
        else _mm512_mask_storeu_epi64(p + 64 * j, mask, v);
    }
    // Zero the lanes of register j that are not blocks.
    [[gnu::always_inline]] __m512i only_blocks(size_t j, __m512i v) const {
        return j + 1 < M ? v : _mm512_maskz_mov_epi64(mask, v);
    }
};

// Runs f(Regs<kRegs>{}, 4) per full step, then one step of ceil(r/4)
// registers for the r < kStep blocks left; f advances its own pointers.
template <class F>
[[gnu::always_inline]] inline void for_steps(size_t n, F&& f) {
    for (; n >= kStep; n -= kStep) f(Regs<kRegs>{}, size_t{4});
    if (n == 0) return;
    const size_t last = (n - 1) % 4 + 1;
    switch ((n + 3) / 4) {
    case 1: f(Regs<1>{}, last); break;
    case 2: f(Regs<2>{}, last); break;
    case 3: f(Regs<3>{}, last); break;
    case 4: f(Regs<4>{}, last); break;
    case 5: if constexpr (kRegs > 4) f(Regs<5>{}, last); break;
    case 6: if constexpr (kRegs > 4) f(Regs<6>{}, last); break;
    case 7: if constexpr (kRegs > 4) f(Regs<7>{}, last); break;
    default: if constexpr (kRegs > 4) f(Regs<8>{}, last); break;
    }
}

} // namespace
} // namespace hwc::x86_64::vaes512
