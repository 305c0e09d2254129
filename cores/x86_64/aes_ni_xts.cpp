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

#include <type_traits>

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

// T * alpha^K (K = 2..4) from T directly, not as K steps of mul_alpha: a
// left shift of each 64-bit half by K; one PSRLQ by 64 - K gives the bits
// that leave both halves, and PSHUFD (swap halves) moves those of the low
// half into the high half and those leaving the top (`top`, < 2^K) into the
// low one, where they come back as top * 0x87 carry-less: top ^ top << 1 ^
// top << 2 ^ top << 7 (MOVQ keeps `top` alone for the three shifts). The
// same field element as K steps of mul_alpha, bit for bit.
template <unsigned K>
[[gnu::always_inline]] inline __m128i mul_alpha_k(__m128i t) {
    static_assert(K >= 1 && K <= 4);
    if constexpr (K == 1) {
        return mul_alpha(t);
    } else {
        const __m128i s = _mm_shuffle_epi32(_mm_srli_epi64(t, 64 - K), 0x4e);
        const __m128i top = _mm_move_epi64(s);
        const __m128i red = _mm_xor_si128(_mm_xor_si128(_mm_slli_epi64(top, 1), _mm_slli_epi64(top, 2)),
                                          _mm_slli_epi64(top, 7));
        return _mm_xor_si128(_mm_xor_si128(_mm_slli_epi64(t, K), s), red);
    }
}

// The tweaks of a step of N <= 8 blocks from T, in parallel: T * alpha^i
// for i <= 4 each from T itself, then blocks 5..7 from T * alpha^4 the same
// way, so no block waits behind more than two multiplications.
template <size_t N>
[[gnu::always_inline]] inline void step_tweaks(__m128i t, __m128i (&tw)[8]) {
    tw[0] = t;
    if constexpr (N > 1) tw[1] = mul_alpha_k<1>(t);
    if constexpr (N > 2) tw[2] = mul_alpha_k<2>(t);
    if constexpr (N > 3) tw[3] = mul_alpha_k<3>(t);
    if constexpr (N > 4) tw[4] = mul_alpha_k<4>(t);
    if constexpr (N > 5) tw[5] = mul_alpha_k<1>(tw[4]);
    if constexpr (N > 6) tw[6] = mul_alpha_k<2>(tw[4]);
    if constexpr (N > 7) tw[7] = mul_alpha_k<3>(tw[4]);
}

template <bool Enc>
[[gnu::always_inline]] inline __m128i round(__m128i b, __m128i k) {
    return Enc ? _mm_aesenc_si128(b, k) : _mm_aesdec_si128(b, k);
}
template <bool Enc>
[[gnu::always_inline]] inline __m128i last_round(__m128i b, __m128i k) {
    return Enc ? _mm_aesenclast_si128(b, k) : _mm_aesdeclast_si128(b, k);
}

// The last N <= 8 blocks, their tweaks in `tw`.
template <unsigned NR, size_t N, bool Enc>
[[gnu::always_inline]] inline void xts_step(const RoundKeys<NR>& rk, const __m128i (&tw)[8],
                                            const uint8_t* in, uint8_t* out) {
    __m128i b[N];
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i)
        b[i] = _mm_xor_si128(load(in + 16 * i), _mm_xor_si128(tw[i], rk.k[0]));
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) {
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) b[i] = round<Enc>(b[i], rk.k[r]);
    }
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i)
        store(out + 16 * i, last_round<Enc>(b[i], _mm_xor_si128(tw[i], rk.k[NR])));
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

// One block under tweak `t`.
template <unsigned NR, bool Enc>
[[gnu::always_inline]] inline __m128i xts_one(const RoundKeys<NR>& rk, __m128i t, __m128i x) {
    x = _mm_xor_si128(x, _mm_xor_si128(t, rk.k[0]));
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) x = round<Enc>(x, rk.k[r]);
    return last_round<Enc>(x, _mm_xor_si128(t, rk.k[NR]));
}

// The unit's `n` >= 1 whole blocks from the running tweak `t`, which comes
// and goes in a register (the unit kernels below start it from E(key 2, iv)
// directly), then, when `tail` (0..15) bytes follow, the stolen pair;
// returns the tweak after the last block (meaningless after a stolen pair).
// With stealing, a decryption's last whole block takes the tweak after its
// own (IEEE 1619 5.4.2), in the same step as the blocks before it, and the
// pair goes through the tweak that leaves: one pass either way. Out of
// line: one copy per direction and key size serves every caller.
template <unsigned NR, bool Enc>
[[gnu::noinline]] __m128i xts_kernel(const KeySchedule& ks, __m128i t, const uint8_t* in,
                                     uint8_t* out, size_t n, size_t tail) {
    const RoundKeys<NR> rk = load_keys<NR>(Enc ? aes_key(ks).enc : aes_key(ks).dec);
    __m128i tw[8] = {}; // zeros keep GCC's uninitialized-use analysis quiet
    const bool looped = n > 8;
    if (looped) {
        // 8-block steps, each computing the next one's tweaks during its
        // rounds, until 1..8 blocks are left, their tweaks in `tw`.
        step_tweaks<8>(t, tw);
        t = mul_alpha_k<4>(tw[4]);
        for (; n > 8; n -= 8, in += 128, out += 128) xts_step8<NR, Enc>(rk, tw, t, in, out);
    }
    // The last step: tweaks from `tw`, or in parallel from `t` for a unit of
    // 8 blocks or fewer. With stealing, a decryption's last whole block goes
    // under the tweak after its own, and the pair under its own.
    const bool swap = tail != 0 && !Enc;
    __m128i next;
    auto last_step = [&](auto nb) {
        constexpr size_t N = decltype(nb)::value;
        if (!looped) step_tweaks<N>(t, tw);
        const __m128i after = mul_alpha(tw[N - 1]);
        if (swap) {
            next = tw[N - 1];
            tw[N - 1] = after;
        } else {
            next = after;
        }
        xts_step<NR, N, Enc>(rk, tw, in, out);
    };
    switch (n) {
    case 1: last_step(std::integral_constant<size_t, 1>{}); break;
    case 2: last_step(std::integral_constant<size_t, 2>{}); break;
    case 3: last_step(std::integral_constant<size_t, 3>{}); break;
    case 4: last_step(std::integral_constant<size_t, 4>{}); break;
    case 5: last_step(std::integral_constant<size_t, 5>{}); break;
    case 6: last_step(std::integral_constant<size_t, 6>{}); break;
    case 7: last_step(std::integral_constant<size_t, 7>{}); break;
    default: last_step(std::integral_constant<size_t, 8>{}); break;
    }
    if (tail != 0) {
        // The stolen pair: the output's tail, then block m-1 through `next`
        // (aes_ni.h).
        const uint8_t* last_in = in + 16 * (n - 1);
        uint8_t* last_out = out + 16 * (n - 1);
        store(last_out, xts_one<NR, Enc>(rk, next, xts_steal_mix(last_in, last_out, tail)));
    }
    return next;
}

template <bool Enc>
void xts_chain(const KeySchedule& ks, uint8_t tweak[16], const uint8_t* in, uint8_t* out,
               size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) {
        store(tweak, xts_kernel<decltype(nr)::value, Enc>(ks, load(tweak), in, out, n, 0));
    });
}

// Both halves of a key have the same length, so key 2's round count is key 1's.
template <bool Enc>
bool xts_unit(const KeySchedule& data_ks, const KeySchedule& tweak_ks, const uint8_t iv[16],
              const uint8_t* in, uint8_t* out, size_t n) {
    with_rounds(data_ks, [&](auto nr) {
        constexpr unsigned NR = decltype(nr)::value;
        xts_kernel<NR, Enc>(data_ks, xts_first_tweak<NR>(tweak_ks, iv), in, out, n, 0);
    });
    return true;
}

// A unit of any `len` >= 16 bytes: the whole blocks and the stolen pair in
// one kernel call.
template <bool Enc>
bool xts_unit_any(const KeySchedule& data_ks, const KeySchedule& tweak_ks, const uint8_t iv[16],
                  const uint8_t* in, uint8_t* out, size_t len) {
    with_rounds(data_ks, [&](auto nr) {
        constexpr unsigned NR = decltype(nr)::value;
        xts_kernel<NR, Enc>(data_ks, xts_first_tweak<NR>(tweak_ks, iv), in, out, len / 16,
                            len % 16);
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
bool xts_unit_any_encrypt(const KeySchedule& data_ks, const KeySchedule& tweak_ks,
                          const uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out,
                          size_t len) {
    return xts_unit_any<true>(data_ks, tweak_ks, iv, in, out, len);
}
bool xts_unit_any_decrypt(const KeySchedule& data_ks, const KeySchedule& tweak_ks,
                          const uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out,
                          size_t len) {
    return xts_unit_any<false>(data_ks, tweak_ks, iv, in, out, len);
}

} // namespace hwc::x86_64::aesni
