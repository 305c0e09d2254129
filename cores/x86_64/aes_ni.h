// SPDX-License-Identifier: Apache-2.0
// aes-aesni internals shared by its translation units: the KeySchedule
// layout, the round helpers, and the mode kernels that live outside
// aes_ni.cpp (XTS, OCB, stitched GCM) for its descriptor to point at.
//
// Only units compiled with -maes -msse4.1 include this header (aes_ni.cpp,
// aes_ni_xts.cpp, aes_ni_ocb.cpp, and aes_ni_gcm.cpp with -mpclmul added).
// The helpers sit in an unnamed namespace so each such unit keeps its own
// copy: an inline function with external linkage could otherwise be merged
// by the linker into a caller built for the baseline ISA.
//
// Round-key folding. AESENC(s, k) is MixColumns(ShiftRows(SubBytes(s))) ^ k
// and AESENCLAST the same without MixColumns, so whatever is XORed into a
// block just before or just after the cipher can be XORed into round key 0
// or the last round key instead: AESENCLAST(s, k) ^ d = AESENCLAST(s, k ^ d).
// The kernels do that with data, tweaks, offsets and chaining values, which
// takes the XOR off the dependency chain (serial modes) or saves a register
// move (parallel ones). The same holds for AESDEC/AESDECLAST.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "cores/core.h"
#include "cores/wipe.h"

namespace hwc::x86_64::aesni {

// 15 encryption round keys; 15 decryption round keys for the equivalent
// inverse cipher (FIPS-197 5.3.5: the encryption keys in reverse order, the
// middle ones through InvMixColumns); the round count (10, 12 or 14).
struct AesNiKey {
    __m128i enc[15];
    __m128i dec[15];
    uint8_t rounds;
};
static_assert(sizeof(AesNiKey) <= kMaxScheduleBytes);
static_assert(alignof(KeySchedule) >= alignof(AesNiKey));

// __m128i is declared may_alias, so viewing the bytes through it is defined.
inline const AesNiKey& aes_key(const KeySchedule& ks) {
    return *reinterpret_cast<const AesNiKey*>(ks.bytes);
}
inline AesNiKey& aes_key(KeySchedule& ks) { return *reinterpret_cast<AesNiKey*>(ks.bytes); }

// Kernels in the other translation units (contracts: cores/core.h).
void xts_encrypt(const KeySchedule& ks, uint8_t tweak[kBlockSize], const uint8_t* in,
                 uint8_t* out, size_t nblocks);                                  // aes_ni_xts.cpp
void xts_decrypt(const KeySchedule& ks, uint8_t tweak[kBlockSize], const uint8_t* in,
                 uint8_t* out, size_t nblocks);
bool xts_unit_encrypt(const KeySchedule& data_ks, const KeySchedule& tweak_ks,
                      const uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out,
                      size_t nblocks);
bool xts_unit_decrypt(const KeySchedule& data_ks, const KeySchedule& tweak_ks,
                      const uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out,
                      size_t nblocks);
// A unit of any length >= 16 bytes, stealing included (XtsUnitBytesFn).
bool xts_unit_any_encrypt(const KeySchedule& data_ks, const KeySchedule& tweak_ks,
                          const uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out,
                          size_t len);
bool xts_unit_any_decrypt(const KeySchedule& data_ks, const KeySchedule& tweak_ks,
                          const uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out,
                          size_t len);
void ocb_encrypt(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out,
                 size_t nblocks);                                                // aes_ni_ocb.cpp
void ocb_decrypt(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out,
                 size_t nblocks);
void gcm_encrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                 uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out,
                 size_t nblocks);                                                // aes_ni_gcm.cpp
void gcm_decrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                 uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks);

namespace {

using R10 = std::integral_constant<unsigned, 10>;
using R12 = std::integral_constant<unsigned, 12>;
using R14 = std::integral_constant<unsigned, 14>;

// The CTR modes' 128-bit big-endian counter, kept as two native 64-bit
// halves (the kernels carry from the low half into the high one, wrapping
// mod 2^128), and its conversions to and from the block.
struct Counter {
    uint64_t hi, lo;
};

inline Counter load_counter(const uint8_t iv[16]) {
    Counter c;
    std::memcpy(&c.hi, iv, 8);
    std::memcpy(&c.lo, iv + 8, 8);
    return {__builtin_bswap64(c.hi), __builtin_bswap64(c.lo)};
}

// The block is the 128-bit integer hi:lo with its bytes reversed.
[[gnu::always_inline]] inline __m128i counter_block(uint64_t hi, uint64_t lo) {
    const __m128i bswap = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm_shuffle_epi8(_mm_set_epi64x(static_cast<long long>(hi), static_cast<long long>(lo)),
                            bswap);
}

// Calls f with the schedule's round count as a compile-time constant, so
// every kernel is instantiated per key size with its round loop unrolled.
template <class F>
[[gnu::always_inline]] inline void with_rounds(const KeySchedule& ks, F&& f) {
    switch (aes_key(ks).rounds) {
    case 10: f(R10{}); break;
    case 12: f(R12{}); break;
    default: f(R14{}); break;
    }
}

// One direction's round keys, loaded once per call. Loops with few live
// blocks keep them all in registers; the 8-way loops cannot (16 XMM
// registers), and there the compiler feeds some as memory operands.
template <unsigned NR>
struct RoundKeys {
    __m128i k[NR + 1];
};

template <unsigned NR>
[[gnu::always_inline]] inline RoundKeys<NR> load_keys(const __m128i (&keys)[15]) {
    RoundKeys<NR> rk;
#pragma GCC unroll 15
    for (unsigned r = 0; r <= NR; ++r) rk.k[r] = _mm_load_si128(&keys[r]);
    return rk;
}

[[gnu::always_inline]] inline __m128i load(const uint8_t* p) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
[[gnu::always_inline]] inline void store(uint8_t* p, __m128i v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}

// The round keys read through a pointer to key 8, so keys 0 .. 14 sit at
// -128 .. +96 bytes and every memory operand or load in the 8-way loops
// takes an 8-bit displacement (3 bytes shorter than the 32-bit ones GCC
// uses for keys past the first eight). The empty asm hides the bias, so GCC
// cannot fold it back. Used where code size limits the loop (OCB), since the
// front end is shared with the other hyperthread.
struct KeyPtr {
    const __m128i* mid;
    [[gnu::always_inline]] __m128i operator[](unsigned r) const {
        return _mm_load_si128(mid + (static_cast<int>(r) - 8));
    }
};

[[gnu::always_inline]] inline KeyPtr key_ptr(const __m128i (&keys)[15]) {
    const __m128i* mid = keys + 8;
    __asm__("" : "+r"(mid));
    return {mid};
}

// Rounds 1..NR-1 of N blocks that already had round key 0 XORed in, round by
// round, so the N independent AESENC chains overlap in the pipeline. The
// last round is the caller's (it usually folds something into its key).
template <unsigned NR, size_t N>
[[gnu::always_inline]] inline void enc_middle(const RoundKeys<NR>& rk, __m128i (&b)[N]) {
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) {
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) b[i] = _mm_aesenc_si128(b[i], rk.k[r]);
    }
}

template <unsigned NR, size_t N>
[[gnu::always_inline]] inline void dec_middle(const RoundKeys<NR>& rk, __m128i (&b)[N]) {
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) {
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) b[i] = _mm_aesdec_si128(b[i], rk.k[r]);
    }
}

// The whole cipher on N blocks.
template <unsigned NR, size_t N>
[[gnu::always_inline]] inline void encrypt_n(const RoundKeys<NR>& rk, __m128i (&b)[N]) {
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) b[i] = _mm_xor_si128(b[i], rk.k[0]);
    enc_middle<NR>(rk, b);
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) b[i] = _mm_aesenclast_si128(b[i], rk.k[NR]);
}

// XTS's initial tweak E(key 2, iv), left in a register: the unit kernels
// start the data's rounds from it without a store and reload in between
// (two store-to-load forwards on the critical path of a short unit).
template <unsigned NR>
[[gnu::always_inline]] inline __m128i xts_first_tweak(const KeySchedule& tweak_ks,
                                                      const uint8_t iv[16]) {
    __m128i t[1] = {load(iv)};
    encrypt_n<NR>(load_keys<NR>(aes_key(tweak_ks).enc), t);
    return t[0];
}

// Ciphertext stealing's data movement (IEEE 1619 5.3.2 / 5.4.2) in
// registers, for a unit whose last whole block's output `x` (CC; PP when
// decrypting) is at `last_out` and whose `tail` (1..15) bytes follow that
// block: writes the output's tail (x's head) and returns the block to go
// through the remaining tweak into `last_out`: the input's tail, then x's
// remainder. No byte-wise copies: the input's tail comes with one load that
// ends where it ends, a PSHUFB rotation and a PBLENDVB, and x's head goes out
// with one 16-byte store ending at the unit's end (block m-1, which it also
// covers, is written again by the caller), so nothing is read or written
// outside the unit, and the block's load is not a failed store-to-load
// forward of byte-wise stores. The input's tail is loaded before anything is
// stored (in == out, output trailing input). `tail` is public.
[[gnu::always_inline]] inline __m128i xts_steal_mix(const uint8_t* last_in, uint8_t* last_out,
                                                    size_t tail) {
    alignas(16) static constexpr uint8_t kRot[32] = {0, 1, 2,  3,  4,  5,  6,  7,  8, 9, 10, 11,
                                                     12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7,
                                                     8, 9, 10, 11, 12, 13, 14, 15};
    alignas(16) static constexpr uint8_t kHead[32] = {
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    // v[j] = last_in[tail + j]: the input's tail is v[16 - tail ..].
    const __m128i v = load(last_in + tail);
    const __m128i x = load(last_out);
    // r[i] = v[(16 - tail + i) mod 16]: the input's tail first.
    const __m128i r = _mm_shuffle_epi8(v, load(kRot + 16 - tail));
    // z[j] = x[(j + tail) mod 16]: x's head in z's last `tail` bytes.
    const __m128i z = _mm_shuffle_epi8(x, load(kRot + tail));
    store(last_out + tail, z);
    return _mm_blendv_epi8(x, r, load(kHead + 16 - tail));
}

template <unsigned NR, size_t N>
[[gnu::always_inline]] inline void decrypt_n(const RoundKeys<NR>& rk, __m128i (&b)[N]) {
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) b[i] = _mm_xor_si128(b[i], rk.k[0]);
    dec_middle<NR>(rk, b);
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) b[i] = _mm_aesdeclast_si128(b[i], rk.k[NR]);
}

// One block, rounds 1..NR-1 (input already whitened with round key 0).
template <unsigned NR>
[[gnu::always_inline]] inline __m128i enc_middle1(const RoundKeys<NR>& rk, __m128i x) {
    __m128i b[1] = {x};
    enc_middle<NR>(rk, b);
    return b[0];
}

} // namespace

} // namespace hwc::x86_64::aesni
