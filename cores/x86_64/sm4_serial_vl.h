// SPDX-License-Identifier: Apache-2.0
// A serial SM4 engine for AVX-512VL (sm4_avx2_modes.h's E parameter), used by
// sm4-gfni-avx512 (sm4_gfni_avx512.cpp): one block in the serial form of
// sm4_affine.h with a shorter dependency chain per round than crypt1.
//
// Why. The serial modes are bound by the latency from one round's S-box
// input to the next. crypt1 spends one S-box instruction, a byte rotation
// and two XORs on it. Here the round keeps two copies of the S-box input,
// u0 = in and u2 = R^2 in (R: rotate each 32-bit word left by 8), and
// evaluates F0, F1, F3 on both. As F0, F1, F3 and the inversion act on
// each byte alone they commute with R, so F(u2) = R^2 F(u0) comes without a
// shuffle, and the next input
//   in' = e ^ F0 y ^ R F1 y ^ R^2 F1 y ^ R^3 F3 y
//       = e ^ F0(u0) ^ F1(u2) ^ R F1(u0) ^ R F3(u2)
// (e = X_i ^ X_{i+2} ^ X_{i+3} ^ rk'_{i+1}, ready early) has only two
// rotated terms, computed in parallel, and two 3-input XORs (VPTERNLOGD):
// S-box, VPROLD, VPTERNLOGD, VPTERNLOGD. R^2 in' is the same sum of the
// other alignments. e itself is formed from the previous input, in ^ X_i ^
// X_{i+1} ^ (rk'_i ^ rk'_{i+1}) (the key difference precomputed, kEncDkOff),
// so it does not wait for the word the previous round produced.
// On the development machine (Zen 5) CBC encryption ran ~1.3x faster than
// with crypt1.
//
// Internal linkage, like sm4_avx2.h; included only by a translation unit
// compiled with -mavx512f -mavx512vl.
#pragma once

#include "cores/x86_64/sm4_avx2_modes.h"

#if !defined(__AVX512F__) || !defined(__AVX512VL__)
#error "sm4_serial_vl.h needs -mavx512f -mavx512vl"
#endif

namespace hwc::x86_64 {
namespace {
namespace sm4v {

[[gnu::always_inline]] inline X xor3(X a, X b, X c) { return _mm_ternarylogic_epi32(a, b, c, 0x96); }
template <int N> [[gnu::always_inline]] inline X rol(X a) { return _mm_rol_epi32(a, N); }

template <class P>
struct SerialVl {
    // Round i: a = X_i (replaced by X_{i+4}), b = X_{i+1}; u0, u2 = in_i,
    // R^2 in_i on entry, in_{i+1}, R^2 in_{i+1} on return (not formed in the
    // last round).
    template <bool Last>
    [[gnu::always_inline]] static void round(const SerialConsts<P>& k, X& u0, X& u2, X& a, X b,
                                             const uint32_t* dk, const uint32_t* dk2) {
        X z00, z10, z30, z02, z12, z32; // z_mj = F_m applied to u_j
        P::serial_f(u0, k.s, z00, z10, z30);
        P::serial_f(u2, k.s, z02, z12, z32);
        const X r10 = rol<8>(z10), r32 = rol<8>(z32);
        if constexpr (!Last) {
            const X v = vxor(a, b);
            const X e = xor3(u0, v, bcast32<1>(*dk));
            const X e2 = xor3(u2, rol<16>(v), bcast32<1>(*dk2));
            u0 = xor3(xor3(e, z00, z12), r10, r32);
            u2 = xor3(xor3(e2, z02, z10), rol<8>(z12), rol<8>(z30));
        }
        a = xor3(xor3(a, z00, z12), r10, r32);
    }

    [[gnu::always_inline]] static void crypt(const KeySchedule& ks, const SerialConsts<P>& k,
                                             X (&w)[4]) {
        const uint32_t* rkq = round_keys(ks, kEncQOff);
        const uint32_t* dk = round_keys(ks, kEncDkOff);
        const uint32_t* dk2 = round_keys(ks, kEncDk2Off);
        X x0 = w[0], x1 = w[1], x2 = w[2], x3 = w[3];
        X u0 = vxor(xor3(x1, x2, x3), bcast32<1>(rkq[0]));
        X u2 = rol<16>(u0);
        for (unsigned r = 0; r < 28; r += 4) {
            round<false>(k, u0, u2, x0, x1, dk + r, dk2 + r);
            round<false>(k, u0, u2, x1, x2, dk + r + 1, dk2 + r + 1);
            round<false>(k, u0, u2, x2, x3, dk + r + 2, dk2 + r + 2);
            round<false>(k, u0, u2, x3, x0, dk + r + 3, dk2 + r + 3);
        }
        round<false>(k, u0, u2, x0, x1, dk + 28, dk2 + 28);
        round<false>(k, u0, u2, x1, x2, dk + 29, dk2 + 29);
        round<false>(k, u0, u2, x2, x3, dk + 30, dk2 + 30);
        round<true>(k, u0, u2, x3, x0, dk + 31, dk2 + 31);
        w[0] = x3;
        w[1] = x2;
        w[2] = x1;
        w[3] = x0;
    }
};

} // namespace sm4v
} // namespace
} // namespace hwc::x86_64
