// SPDX-License-Identifier: Apache-2.0
// aes-vaes-avx2 internals shared by its translation units (aes_vaes.cpp,
// aes_vaes_gcm.cpp): round-key broadcasting, loading and storing N blocks in
// YMM registers (two blocks per register), and the round helpers.
//
// The key schedule is aes-aesni's (AesNiKey, aes_ni.h), filled by its
// set_key: the serial modes of this core are aes-aesni's own kernels, so one
// layout serves both. Each round key is broadcast to both 128-bit lanes once
// per call (VBROADCASTI128); the VAES instructions then run the AES round on
// both lanes of a register at once.
//
// Why only 256-bit vectors: the development machine has no VAES at all and
// QEMU 7.2 TCG (the only way to execute VAES here, `qemu-x86_64 -cpu max`)
// emulates VAES on YMM but neither AVX-512 nor VPCLMULQDQ, so ZMM/EVEX VAES
// and VPCLMULQDQ GHASH code could not be run by any test. GHASH for the
// stitched GCM kernel therefore stays on 128-bit PCLMULQDQ (ghash_clmul.h).
//
// Only units compiled with -maes -mvaes -mavx2 include this header. As in
// aes_ni.h, the helpers sit in an unnamed namespace so no baseline-ISA caller
// can be linked to a copy built with these flags.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cores/cpu.h"
#include "cores/x86_64/aes_ni.h"

namespace hwc::x86_64::vaes {

using aesni::aes_key;

// Blocks per step of the main loops: 8 YMM registers of 2 blocks, enough
// independent VAES chains to cover the instruction's latency at its issue
// rate (4 cycles x up to 2 per cycle on Ice Lake and later). Tails run 8, 4,
// 2 and 1 blocks (the binary digits of the remainder).
inline constexpr size_t kStep = 16;

// Stitched GCM kernels (aes_vaes_gcm.cpp, -mpclmul added); contract GcmFn.
void gcm_encrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                 uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks);
void gcm_decrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                 uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks);

namespace {

template <size_t N>
using Nb = std::integral_constant<size_t, N>;

// Registers holding NB blocks: an odd count leaves the upper lane of the
// last register unused (zero on load, never stored).
template <size_t NB>
inline constexpr size_t kRegs = (NB + 1) / 2;

// Runs f(Nb<16>) per full step, then f(Nb<8>), f(Nb<4>), f(Nb<2>), f(Nb<1>)
// for the digits of the remainder; f advances its own pointers.
template <class F>
[[gnu::always_inline]] inline void for_steps(size_t n, F&& f) {
    for (; n >= kStep; n -= kStep) f(Nb<16>{});
    if (n & 8) f(Nb<8>{});
    if (n & 4) f(Nb<4>{});
    if (n & 2) f(Nb<2>{});
    if (n & 1) f(Nb<1>{});
}

// One direction's round keys, each in both lanes, built once per call. The
// main loops hold 8 data registers (plus tweaks or offsets), so most keys are
// memory operands of VAESENC; broadcasting them up front keeps that a plain
// 32-byte load.
template <unsigned NR>
struct YmmKeys {
    __m256i k[NR + 1];
};

template <unsigned NR>
[[gnu::always_inline]] inline YmmKeys<NR> broadcast_keys(const __m128i (&keys)[15]) {
    YmmKeys<NR> rk;
#pragma GCC unroll 15
    for (unsigned r = 0; r <= NR; ++r) rk.k[r] = _mm256_broadcastsi128_si256(keys[r]);
    return rk;
}

[[gnu::always_inline]] inline __m128i load128(const uint8_t* p) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
[[gnu::always_inline]] inline void store128(uint8_t* p, __m128i v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}
[[gnu::always_inline]] inline __m256i load256(const uint8_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
[[gnu::always_inline]] inline void store256(uint8_t* p, __m256i v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}

// Register j of NB blocks at p: blocks 2j and 2j+1, or block 2j alone
// (zero-extended) when it is the odd last one.
template <size_t NB>
[[gnu::always_inline]] inline __m256i load_reg(const uint8_t* p, size_t j) {
    if (NB % 2 == 1 && j == NB / 2) return _mm256_zextsi128_si256(load128(p + 32 * j));
    return load256(p + 32 * j);
}
template <size_t NB>
[[gnu::always_inline]] inline void store_reg(uint8_t* p, size_t j, __m256i v) {
    if (NB % 2 == 1 && j == NB / 2) store128(p + 32 * j, _mm256_castsi256_si128(v));
    else store256(p + 32 * j, v);
}

// Two blocks in one register: lo in lane 0 (the earlier block), hi in lane 1.
[[gnu::always_inline]] inline __m256i pair(__m128i lo, __m128i hi) {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

// The four VAES operations. HWCIPHER_VAES_EMULATE (a test build only,
// e.g. -DCMAKE_CXX_FLAGS=-DHWCIPHER_VAES_EMULATE) runs each as two AES-NI
// operations on the two lanes, which is the instruction's definition, and
// drops VAES from the core's `needs`: every kernel of this core then runs,
// and is checked by the whole test suite, on CPUs without VAES. That is how
// the kernels are verified here: QEMU 7.2's VAESENC/VAESDEC on YMM compute
// the upper lane from the lower lane's state (VAESENCLAST/VAESDECLAST are
// right), so `qemu-x86_64 -cpu max` runs this core but gives wrong results.
#if defined(HWCIPHER_VAES_EMULATE)
template <__m128i (*Op)(__m128i, __m128i)>
[[gnu::always_inline]] inline __m256i per_lane(__m256i b, __m256i k) {
    return pair(Op(_mm256_castsi256_si128(b), _mm256_castsi256_si128(k)),
                Op(_mm256_extracti128_si256(b, 1), _mm256_extracti128_si256(k, 1)));
}
inline __m128i aesenc1(__m128i b, __m128i k) { return _mm_aesenc_si128(b, k); }
inline __m128i aesenclast1(__m128i b, __m128i k) { return _mm_aesenclast_si128(b, k); }
inline __m128i aesdec1(__m128i b, __m128i k) { return _mm_aesdec_si128(b, k); }
inline __m128i aesdeclast1(__m128i b, __m128i k) { return _mm_aesdeclast_si128(b, k); }
inline __m256i vaesenc(__m256i b, __m256i k) { return per_lane<aesenc1>(b, k); }
inline __m256i vaesenclast(__m256i b, __m256i k) { return per_lane<aesenclast1>(b, k); }
inline __m256i vaesdec(__m256i b, __m256i k) { return per_lane<aesdec1>(b, k); }
inline __m256i vaesdeclast(__m256i b, __m256i k) { return per_lane<aesdeclast1>(b, k); }
inline constexpr uint32_t kVaesFeature = 0;
#else
[[gnu::always_inline]] inline __m256i vaesenc(__m256i b, __m256i k) {
    return _mm256_aesenc_epi128(b, k);
}
[[gnu::always_inline]] inline __m256i vaesenclast(__m256i b, __m256i k) {
    return _mm256_aesenclast_epi128(b, k);
}
[[gnu::always_inline]] inline __m256i vaesdec(__m256i b, __m256i k) {
    return _mm256_aesdec_epi128(b, k);
}
[[gnu::always_inline]] inline __m256i vaesdeclast(__m256i b, __m256i k) {
    return _mm256_aesdeclast_epi128(b, k);
}
inline constexpr uint32_t kVaesFeature = kX86Vaes;
#endif

// Rounds 1..NR-1 on M registers (round key 0 already XORed in, the last
// round left to the caller, which folds data into its key: aes_ni.h).
template <unsigned NR, size_t M>
[[gnu::always_inline]] inline void enc_middle(const YmmKeys<NR>& rk, __m256i (&b)[M]) {
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) {
#pragma GCC unroll 8
        for (size_t i = 0; i < M; ++i) b[i] = vaesenc(b[i], rk.k[r]);
    }
}
template <unsigned NR, size_t M>
[[gnu::always_inline]] inline void dec_middle(const YmmKeys<NR>& rk, __m256i (&b)[M]) {
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) {
#pragma GCC unroll 8
        for (size_t i = 0; i < M; ++i) b[i] = vaesdec(b[i], rk.k[r]);
    }
}

template <bool Enc>
[[gnu::always_inline]] inline __m256i round(__m256i b, __m256i k) {
    return Enc ? vaesenc(b, k) : vaesdec(b, k);
}
template <bool Enc>
[[gnu::always_inline]] inline __m256i last_round(__m256i b, __m256i k) {
    return Enc ? vaesenclast(b, k) : vaesdeclast(b, k);
}

} // namespace

} // namespace hwc::x86_64::vaes
