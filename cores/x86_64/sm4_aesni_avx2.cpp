// SPDX-License-Identifier: Apache-2.0
// sm4-aesni-avx2: SM4 (GB/T 32907-2016) with its S-box computed by AESENCLAST,
// 32 blocks at a time on AVX2 for the parallel modes, one block on XMM for
// the serial ones (engine and modes: sm4_avx2.h, sm4_avx2_modes.h).
//
// Compiled with -maes -mavx2 (root CMakeLists.txt) and reached only through
// the `sm4_aesni_avx2` descriptor, which the registry offers when the CPU
// probe reports kX86Aesni and kX86Avx2. Everything but the descriptor has
// internal linkage, so no AVX2 code can be merged into baseline callers.
//
// Technique. S_sm4(x) = PostS(SubBytes_aes(Pre(x))) with Pre and PostS affine
// (sm4_affine.h). Each affine map is two 16-entry PSHUFB nibble lookups and
// an XOR; SubBytes is AESENCLAST with a zero key, whose ShiftRows is undone
// by the PSHUFBs that also perform the 8/16/24-bit rotations of SM4's linear
// layer L. PSHUFB indexes a register-resident table by data, which is
// constant time; there is no memory table indexed by secret data.
//
// This CPU class has AES-NI on XMM only (no VAES), so each YMM is split into
// its two halves for AESENCLAST and joined again. The serial modes keep each
// word broadcast to all 4 lanes: ShiftRows then moves nothing.
#include "cores/x86_64/x86_64.h"

#include <immintrin.h>

#include "cores/cpu.h"
#include "cores/x86_64/sm4_avx2_modes.h"

#if !defined(__AVX2__) || !defined(__AES__)
#error "sm4_aesni_avx2.cpp needs -maes -mavx2 (see hwcipher_isa_flags in CMakeLists.txt)"
#endif

namespace hwc::x86_64 {
namespace {

using namespace sm4alg;
using sm4v::Vec;
using sm4v::Vec16;
using sm4v::X;
using sm4v::Y;

// Nibble tables of an affine map: f(x) = lo[x & 15] ^ hi[x >> 4], the
// constant folded into the low table.
constexpr Vec16 nibble_table(const Mat& m, uint8_t c, bool high) {
    Vec16 t{};
    for (unsigned n = 0; n < 16; ++n)
        t.b[n] = static_cast<uint8_t>(high ? apply(m, n << 4) : apply(m, n) ^ c);
    return t;
}
constexpr Vec16 kPreLo = nibble_table(kPreM, kPreC, false);
constexpr Vec16 kPreHi = nibble_table(kPreM, 0, true);
constexpr Vec16 kPostLo = nibble_table(kPostSubM, kPostSubC, false);
constexpr Vec16 kPostHi = nibble_table(kPostSubM, 0, true);

// The serial form on SubBytes (sm4_affine.h): AESENCLAST plus 7 dependent
// operations per round instead of 18 with Pre, Post and L (CBC encryption
// measured ~1.25x faster).
constexpr SerialMats kF = serial_mats(kPostSubM, kPostSubC);
static_assert(serial_checks(kF, [](unsigned y) { return aes_subbytes(y); }),
              "serial-form round does not match the SM4 round");
constexpr Vec16 kQLo = nibble_table(kPreM, 0, false);
constexpr Vec16 kQiLo = nibble_table(kQinv, 0, false), kQiHi = nibble_table(kQinv, 0, true);
constexpr Vec16 kF0Lo = nibble_table(kF.f0, kF.k0, false), kF0Hi = nibble_table(kF.f0, 0, true);
constexpr Vec16 kF1Lo = nibble_table(kF.f1, 0, false), kF1Hi = nibble_table(kF.f1, 0, true);
constexpr Vec16 kF3Lo = nibble_table(kF.f3, 0, false), kF3Hi = nibble_table(kF.f3, 0, true);

// A byte-wise map from its two nibble tables (overloads, not a template:
// see sm4v::Vec on vector types as template arguments).
[[gnu::always_inline]] inline X nib(X v, X lo_t, X hi_t, X m) {
    using namespace sm4v;
    return vxor(vshuf(lo_t, vand(v, m)), vshuf(hi_t, vand(vsrl4(v), m)));
}
[[gnu::always_inline]] inline Y nib(Y v, Y lo_t, Y hi_t, Y m) {
    using namespace sm4v;
    return vxor(vshuf(lo_t, vand(v, m)), vshuf(hi_t, vand(vsrl4(v), m)));
}

// SubBytes + ShiftRows: AESENCLAST with a zero round key. No VAES here, so a
// YMM goes through as two XMM halves.
[[gnu::always_inline]] inline X aes_sub(X a) {
    return _mm_aesenclast_si128(a, _mm_setzero_si128());
}
[[gnu::always_inline]] inline Y aes_sub(Y a) {
    const X lo = aes_sub(_mm256_castsi256_si128(a));
    const X hi = aes_sub(_mm256_extracti128_si256(a, 1));
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}

struct AesniSbox {
    static constexpr bool kShiftRows = true;
    // A round's dependency chain is about 25 cycles (AESENCLAST plus the
    // cross-lane moves around it, 3 cycles each on Intel, plus the shuffles
    // and XORs) while one YMM set's round issues in about 9, so 2 sets (16
    // blocks) leave the core idle part of the time: 4 sets measured ~1.2x
    // faster than 2 on the development machine (3 sets: ~1.05x).
    using Main = sm4v::W32;

    template <unsigned L>
    struct Tables {
        Vec<L> m0f, pre_lo, pre_hi, post_lo, post_hi;
    };
    template <unsigned L>
    [[gnu::always_inline]] static Tables<L> tables() {
        using namespace sm4v;
        return {bcast32<L>(0x0f0f0f0f), bcast16<L>(kPreLo), bcast16<L>(kPreHi),
                bcast16<L>(kPostLo), bcast16<L>(kPostHi)};
    }
    // The S-box on every byte, ShiftRows-permuted within each 128-bit lane.
    template <unsigned L>
    [[gnu::always_inline]] static Vec<L> sbox(Vec<L> x, const Tables<L>& t) {
        const Vec<L> y = aes_sub(nib(x, t.pre_lo, t.pre_hi, t.m0f));
        return nib(y, t.post_lo, t.post_hi, t.m0f);
    }

    struct Serial {
        X m0f, q_lo, q_hi, qi_lo, qi_hi, f0_lo, f0_hi, f1_lo, f1_hi, f3_lo, f3_hi;
    };
    [[gnu::always_inline]] static Serial serial() {
        using sm4v::bcast16;
        return {sm4v::bcast32<1>(0x0f0f0f0f), bcast16<1>(kQLo),  bcast16<1>(kPreHi),
                bcast16<1>(kQiLo),            bcast16<1>(kQiHi), bcast16<1>(kF0Lo),
                bcast16<1>(kF0Hi),            bcast16<1>(kF1Lo), bcast16<1>(kF1Hi),
                bcast16<1>(kF3Lo),            bcast16<1>(kF3Hi)};
    }
    [[gnu::always_inline]] static X to_q(X v, const Serial& s) {
        return nib(v, s.q_lo, s.q_hi, s.m0f);
    }
    [[gnu::always_inline]] static X from_q(X v, const Serial& s) {
        return nib(v, s.qi_lo, s.qi_hi, s.m0f);
    }
    [[gnu::always_inline]] static void serial_f(X in, const Serial& s, X& f0, X& f1, X& f3) {
        using namespace sm4v;
        const X y = aes_sub(in);
        const X lo = vand(y, s.m0f), hi = vand(vsrl4(y), s.m0f);
        f0 = vxor(vshuf(s.f0_lo, lo), vshuf(s.f0_hi, hi));
        f1 = vxor(vshuf(s.f1_lo, lo), vshuf(s.f1_hi, hi));
        f3 = vxor(vshuf(s.f3_lo, lo), vshuf(s.f3_hi, hi));
    }
};

} // namespace

extern constinit const BlockCore sm4_aesni_avx2 = sm4v::make_core<AesniSbox>(
    "sm4-aesni-avx2", kX86Aesni | kX86Avx2, sm4v::set_key<AesniSbox>);

} // namespace hwc::x86_64
