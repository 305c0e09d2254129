// SPDX-License-Identifier: Apache-2.0
// aes-aesni XTS kernels (IEEE 1619 tweak update) over whole blocks of one
// data unit; ciphertext stealing is the caller's. Contract: ChainFn
// xts_encrypt/xts_decrypt in cores/core.h.
//
// 8 blocks per step. The tweak stays in an XMM register and is multiplied by
// alpha there (below), once per block; each block's tweak is folded into
// round key 0 on the way in and into the last round key on the way out
// (aes_ni.h), so XTS costs no more AES-unit work than ECB. What it does add
// is five vector ALU operations per block for the tweak, and on cores where
// AESENC shares its port with those (Skylake: port 0) a burst of them at the
// start of each step delays the AES rounds; so the 8-way loop computes the
// next step's tweaks one per AES round of the current step (software
// pipelining), which brought it from ~0.9x to ECB speed on the development
// machine.
//
// Compiled with -maes -msse4.1 (root CMakeLists.txt); reached only through
// the aes_ni descriptor (aes_ni.cpp).
#include "cores/x86_64/aes_ni.h"

namespace hwc::x86_64::aesni {
namespace {

// IEEE 1619: the tweak is a little-endian 128-bit integer, which is what a
// plain load gives. Times alpha is a left shift by one with x^128 folded back
// as 0x87. PADDQ shifts each 64-bit lane; the bits that leave them (63 into
// bit 64, 127 back as 0x87 into bit 0) come from PSRAD smearing the top bit
// of dwords 1 and 3, PSHUFD moving those to dwords 2 and 0, and a mask.
// Branch-free: the tweak is secret (it is the encrypted IV).
[[gnu::always_inline]] inline __m128i mul_alpha(__m128i t) {
    const __m128i poly = _mm_set_epi32(0, 1, 0, 0x87);
    const __m128i top = _mm_srai_epi32(_mm_shuffle_epi32(t, 0x13), 31);
    return _mm_xor_si128(_mm_add_epi64(t, t), _mm_and_si128(top, poly));
}

template <bool Enc>
[[gnu::always_inline]] inline __m128i round(__m128i b, __m128i k) {
    return Enc ? _mm_aesenc_si128(b, k) : _mm_aesdec_si128(b, k);
}
template <bool Enc>
[[gnu::always_inline]] inline __m128i last_round(__m128i b, __m128i k) {
    return Enc ? _mm_aesenclast_si128(b, k) : _mm_aesdeclast_si128(b, k);
}

// N blocks (the 4- and 1-block tail), tweaks computed up front.
template <unsigned NR, size_t N, bool Enc>
[[gnu::always_inline]] inline void xts_step(const RoundKeys<NR>& rk, __m128i& t,
                                            const uint8_t* in, uint8_t* out) {
    __m128i b[N], tl[N];
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) {
        b[i] = _mm_xor_si128(load(in + 16 * i), _mm_xor_si128(t, rk.k[0]));
        tl[i] = _mm_xor_si128(t, rk.k[NR]);
        t = mul_alpha(t);
    }
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) {
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) b[i] = round<Enc>(b[i], rk.k[r]);
    }
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) store(out + 16 * i, last_round<Enc>(b[i], tl[i]));
}

// 8 blocks whose tweaks are in `tw`; the next 8 tweaks, starting from `t`,
// are computed during the rounds and left in `tw`, `t` advanced past them.
// All 8 inputs are loaded before the first store (in == out).
template <unsigned NR, bool Enc>
[[gnu::always_inline]] inline void xts_step8(const RoundKeys<NR>& rk, __m128i (&tw)[8],
                                             __m128i& t, const uint8_t* in, uint8_t* out) {
    __m128i b[8], next[8];
#pragma GCC unroll 8
    for (size_t i = 0; i < 8; ++i)
        b[i] = _mm_xor_si128(load(in + 16 * i), _mm_xor_si128(tw[i], rk.k[0]));
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) { // NR - 1 >= 9 rounds: room for 8 tweaks
#pragma GCC unroll 8
        for (size_t i = 0; i < 8; ++i) b[i] = round<Enc>(b[i], rk.k[r]);
        if (r <= 8) {
            next[r - 1] = t;
            t = mul_alpha(t);
        }
    }
#pragma GCC unroll 8
    for (size_t i = 0; i < 8; ++i) {
        store(out + 16 * i, last_round<Enc>(b[i], _mm_xor_si128(tw[i], rk.k[NR])));
        tw[i] = next[i];
    }
}

// The unit's blocks from the running tweak `t`, which comes and goes in a
// register (the unit kernels below start it from E(key 2, iv) directly);
// returns the tweak after the last block. Out of line: one copy per
// direction and key size serves both callers.
template <unsigned NR, bool Enc>
[[gnu::noinline]] __m128i xts_kernel(const KeySchedule& ks, __m128i t, const uint8_t* in,
                                     uint8_t* out, size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(Enc ? aes_key(ks).enc : aes_key(ks).dec);
    if (n >= 8) {
        __m128i tw[8];
#pragma GCC unroll 8
        for (size_t i = 0; i < 8; ++i) {
            tw[i] = t;
            t = mul_alpha(t);
        }
        for (; n >= 8; n -= 8, in += 128, out += 128) xts_step8<NR, Enc>(rk, tw, t, in, out);
        t = tw[0]; // the tweaks computed ahead for a step that did not come
    }
    if (n >= 4) {
        xts_step<NR, 4, Enc>(rk, t, in, out);
        n -= 4, in += 64, out += 64;
    }
    for (; n; --n, in += 16, out += 16) xts_step<NR, 1, Enc>(rk, t, in, out);
    return t;
}

template <bool Enc>
void xts_chain(const KeySchedule& ks, uint8_t tweak[16], const uint8_t* in, uint8_t* out,
               size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) {
        store(tweak, xts_kernel<decltype(nr)::value, Enc>(ks, load(tweak), in, out, n));
    });
}

// Both halves of a key have the same length, so key 2's round count is key 1's.
template <bool Enc>
bool xts_unit(const KeySchedule& data_ks, const KeySchedule& tweak_ks, const uint8_t iv[16],
              const uint8_t* in, uint8_t* out, size_t n) {
    with_rounds(data_ks, [&](auto nr) {
        constexpr unsigned NR = decltype(nr)::value;
        xts_kernel<NR, Enc>(data_ks, xts_first_tweak<NR>(tweak_ks, iv), in, out, n);
    });
    return true;
}

} // namespace

void xts_encrypt(const KeySchedule& ks, uint8_t tweak[kBlockSize], const uint8_t* in,
                 uint8_t* out, size_t n) {
    xts_chain<true>(ks, tweak, in, out, n);
}
void xts_decrypt(const KeySchedule& ks, uint8_t tweak[kBlockSize], const uint8_t* in,
                 uint8_t* out, size_t n) {
    xts_chain<false>(ks, tweak, in, out, n);
}
bool xts_unit_encrypt(const KeySchedule& data_ks, const KeySchedule& tweak_ks,
                      const uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out, size_t n) {
    return xts_unit<true>(data_ks, tweak_ks, iv, in, out, n);
}
bool xts_unit_decrypt(const KeySchedule& data_ks, const KeySchedule& tweak_ks,
                      const uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out, size_t n) {
    return xts_unit<false>(data_ks, tweak_ks, iv, in, out, n);
}

} // namespace hwc::x86_64::aesni
