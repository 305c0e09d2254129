// SPDX-License-Identifier: Apache-2.0
// The GFNI S-box policy of the x86_64 SM4 cores sm4-gfni-avx2 and
// sm4-gfni-avx512 (sm4_gfni_avx2.cpp, sm4_gfni_avx512.cpp): the matrices,
// checked at compile time against a model of the instructions, the two
// instructions (or, in the HWCIPHER_GFNI_EMULATE test build, their
// emulation in AVX2), the policy GfniSbox for sm4_avx2.h, and set_key.
//
// Technique. S_sm4(x) = Post(inv_aes(Pre(x))) with Pre and Post affine
// (sm4_affine.h): VGF2P8AFFINEQB computes Pre, VGF2P8AFFINEINVQB the
// inversion in the AES field followed by Post. Unlike AESENCLAST it works on
// whole YMM registers and permutes nothing, so the linear layer's rotations
// are plain byte shuffles. The serial modes evaluate their three per-round
// maps F0, F1, F3 (sm4_affine.h) each as one VGF2P8AFFINEINVQB.
//
// HWCIPHER_GFNI_EMULATE (a test build only, -DCMAKE_CXX_FLAGS=
// -DHWCIPHER_GFNI_EMULATE, which also drops -mgfni from the including files'
// flags) computes both instructions from their Intel SDM definitions in AVX2
// and drops kX86Gfni from `needs`, so every kernel of these cores runs, and
// is checked by the test suite, on CPUs without GFNI (and QEMU, which lacks
// it).
//
// Internal linkage throughout, like sm4_avx2.h: each including translation
// unit is compiled with its own -m flags.
#pragma once

#include <immintrin.h>

#include "cores/cpu.h"
#include "cores/x86_64/sm4_avx2_modes.h"

#if defined(HWCIPHER_GFNI_EMULATE)
#include <cstdio>
#include <cstdlib>
#if !defined(__AVX2__) || !defined(__AES__) || defined(__GFNI__)
#error "the HWCIPHER_GFNI_EMULATE build compiles the GFNI SM4 cores with -maes -mavx2, no -mgfni"
#endif
#elif !defined(__AVX2__) || !defined(__GFNI__)
#error "the GFNI SM4 cores need -mgfni -mavx2 (see hwcipher_isa_flags in CMakeLists.txt)"
#endif

namespace hwc::x86_64 {
namespace {

using namespace sm4alg;
using sm4v::Vec;
using sm4v::X;
using sm4v::Y;

// ---- the instructions' definitions, at compile time --------------------------
//
// GF2P8AFFINEQB (Intel SDM vol. 2): for every byte x of source 1, with A the
// qword of source 2 in the same 64-bit lane,
//     result bit i = parity(A.byte[7 - i] & x) ^ imm8 bit i,
// so matrix row i (sm4alg::Mat) goes to byte 7 - i of the qword.
// GF2P8AFFINEINVQB is the same applied to x^-1 in GF(2^8) mod x^8+x^4+x^3+x+1
// (0 maps to 0).
constexpr uint64_t qword_of(const Mat& m) {
    uint64_t q = 0;
    for (unsigned i = 0; i < 8; ++i) q |= uint64_t{m.row[i]} << (8 * (7 - i));
    return q;
}
constexpr uint8_t sdm_affine(uint64_t a, unsigned x, uint8_t imm) {
    unsigned r = 0;
    for (unsigned i = 0; i < 8; ++i) r |= parity8(((a >> (8 * (7 - i))) & 0xff) & x) << i;
    return static_cast<uint8_t>(r ^ imm);
}
constexpr uint8_t sdm_affineinv(uint64_t a, unsigned x, uint8_t imm) {
    return sdm_affine(a, gf_inv(x, kAesPoly), imm);
}

// The byte order, pinned by Intel's published AES S-box matrix: the
// circulant of FIPS-197 encodes to 0xF1E3C78F1F3E7CF8, and the model then
// gives SubBytes.
constexpr uint64_t kAesAffineQ = 0xF1E3C78F1F3E7CF8;
static_assert(qword_of(kM) == kAesAffineQ);
constexpr bool model_gives_subbytes() {
    for (unsigned x = 0; x < 256; ++x)
        if (sdm_affineinv(kAesAffineQ, x, kAesC) != aes_subbytes(x)) return false;
    return true;
}
static_assert(model_gives_subbytes());

// The parallel S-box: Pre by VGF2P8AFFINEQB, then inversion and Post by
// VGF2P8AFFINEINVQB.
constexpr uint64_t kPreQ = qword_of(kPreM);
constexpr uint64_t kPostQ = qword_of(kPostInvM);
constexpr bool gfni_sbox_checks() {
    for (unsigned x = 0; x < 256; ++x)
        if (sdm_affineinv(kPostQ, sdm_affine(kPreQ, x, kPreC), kPostInvC) != sm4_sbox_ref(x))
            return false;
    return true;
}
static_assert(gfni_sbox_checks(), "the GFNI matrices do not give the SM4 S-box");

// The serial form on inv_aes: F0, F1, F3 with Post's matrix, Q and Q^-1.
constexpr SerialMats kF = serial_mats(kPostInvM, kPostInvC);
static_assert(serial_checks(kF, [](unsigned y) { return gf_inv(y, kAesPoly); }),
              "serial-form round does not match the SM4 round");
constexpr uint64_t kF0Q = qword_of(kF.f0), kF1Q = qword_of(kF.f1), kF3Q = qword_of(kF.f3);
constexpr uint64_t kQQ = qword_of(kPreM), kQiQ = qword_of(kQinv);
// Each of these through the instruction model equals the matrix it encodes.
constexpr bool encodes(const Mat& m, uint64_t q) {
    for (unsigned x = 0; x < 256; ++x)
        if (sdm_affine(q, x, 0) != apply(m, x)) return false;
    return true;
}
static_assert(encodes(kF.f0, kF0Q) && encodes(kF.f1, kF1Q) && encodes(kF.f3, kF3Q) &&
              encodes(kPreM, kQQ) && encodes(kQinv, kQiQ));

// ---- the two instructions ----------------------------------------------------

#if defined(HWCIPHER_GFNI_EMULATE)
// Their SDM definitions in AVX2, byte-parallel and constant time: no table
// in memory, no branch on data.
namespace emu {

// result = imm ^ sum over i of (parity(A.byte[7 - i] & x) << i): row i is
// spread over its qword by VPSHUFB, the parity of each byte's 8 bits is a
// 16-entry register lookup on the XOR of its nibbles (0xff when odd).
[[gnu::always_inline]] inline Y affine(Y x, Y a, uint8_t imm) {
    const Y m0f = _mm256_set1_epi8(0x0f);
    const Y odd = _mm256_setr_epi8(0, -1, -1, 0, -1, 0, 0, -1, -1, 0, 0, -1, 0, -1, -1, 0,
                                   0, -1, -1, 0, -1, 0, 0, -1, -1, 0, 0, -1, 0, -1, -1, 0);
    Y r = _mm256_set1_epi8(static_cast<char>(imm));
    for (unsigned i = 0; i < 8; ++i) {
        const long long lo = static_cast<long long>(0x0101010101010101ull * (7 - i));
        const long long hi = static_cast<long long>(0x0101010101010101ull * (15 - i));
        const Y row = _mm256_shuffle_epi8(a, _mm256_setr_epi64x(lo, hi, lo, hi));
        const Y t = _mm256_and_si256(x, row);
        const Y n = _mm256_and_si256(_mm256_xor_si256(t, _mm256_srli_epi16(t, 4)), m0f);
        const Y bit = _mm256_set1_epi8(static_cast<char>(1u << i));
        r = _mm256_xor_si256(r, _mm256_and_si256(_mm256_shuffle_epi8(odd, n), bit));
    }
    return r;
}

// a * b in GF(2^8) mod x^8+x^4+x^3+x+1, shift-and-add over b's bits.
[[gnu::always_inline]] inline Y gf_mul(Y a, Y b) {
    const Y zero = _mm256_setzero_si256(), poly = _mm256_set1_epi8(0x1b);
    Y r = zero;
    for (unsigned j = 0; j < 8; ++j) {
        const Y bit = _mm256_set1_epi8(static_cast<char>(1u << j));
        r = _mm256_xor_si256(r, _mm256_and_si256(a, _mm256_cmpeq_epi8(_mm256_and_si256(b, bit), bit)));
        const Y carry = _mm256_cmpgt_epi8(zero, a); // top bit set
        a = _mm256_xor_si256(_mm256_add_epi8(a, a), _mm256_and_si256(carry, poly));
    }
    return r;
}

// x^-1 = x^254 (0 stays 0): 254 = 0b11111110 by squarings and multiplies.
[[gnu::always_inline]] inline Y inv(Y x) {
    Y p = x;                        // x^(2^k - 1), k = 1
    for (unsigned k = 1; k < 7; ++k) p = gf_mul(gf_mul(p, p), x);
    return gf_mul(p, p);            // (x^127)^2
}

[[gnu::always_inline]] inline Y affineinv(Y x, Y a, uint8_t imm) { return affine(inv(x), a, imm); }

// Startup check against facts that do not depend on this core's matrices:
// the identity matrix 0x0102040810204080 maps every byte to itself, and the
// AES affine matrix with 0x63 after the inversion is SubBytes, here taken
// from AESENCLAST with a zero key on a register of equal bytes.
bool matches_hardware_facts() {
    const Y identity = _mm256_set1_epi64x(0x0102040810204080);
    const Y aes = _mm256_set1_epi64x(static_cast<long long>(kAesAffineQ));
    for (unsigned v = 0; v < 256; v += 32) {
        alignas(32) uint8_t in[32], same[32], sub[32];
        for (unsigned j = 0; j < 32; ++j) in[j] = static_cast<uint8_t>(v + j);
        const Y x = _mm256_load_si256(reinterpret_cast<const Y*>(in));
        _mm256_store_si256(reinterpret_cast<Y*>(same), affine(x, identity, 0));
        _mm256_store_si256(reinterpret_cast<Y*>(sub), affineinv(x, aes, 0x63));
        for (unsigned j = 0; j < 32; ++j) {
            const X s = _mm_aesenclast_si128(_mm_set1_epi8(static_cast<char>(in[j])),
                                             _mm_setzero_si128());
            if (same[j] != in[j] || sub[j] != static_cast<uint8_t>(_mm_cvtsi128_si32(s)))
                return false;
        }
    }
    return true;
}

} // namespace emu

template <uint8_t C> [[gnu::always_inline]] inline Y affine(Y x, Y a) {
    return emu::affine(x, a, C);
}
template <uint8_t C> [[gnu::always_inline]] inline Y affineinv(Y x, Y a) {
    return emu::affineinv(x, a, C);
}
template <uint8_t C> [[gnu::always_inline]] inline X affine(X x, X a) {
    return _mm256_castsi256_si128(
        emu::affine(_mm256_zextsi128_si256(x), _mm256_zextsi128_si256(a), C));
}
template <uint8_t C> [[gnu::always_inline]] inline X affineinv(X x, X a) {
    return _mm256_castsi256_si128(
        emu::affineinv(_mm256_zextsi128_si256(x), _mm256_zextsi128_si256(a), C));
}
// AES-NI for the startup check only.
constexpr uint32_t kGfniNeeds = kX86Avx2 | kX86Aesni;
#else
template <uint8_t C> [[gnu::always_inline]] inline Y affine(Y x, Y a) {
    return _mm256_gf2p8affine_epi64_epi8(x, a, C);
}
template <uint8_t C> [[gnu::always_inline]] inline Y affineinv(Y x, Y a) {
    return _mm256_gf2p8affineinv_epi64_epi8(x, a, C);
}
template <uint8_t C> [[gnu::always_inline]] inline X affine(X x, X a) {
    return _mm_gf2p8affine_epi64_epi8(x, a, C);
}
template <uint8_t C> [[gnu::always_inline]] inline X affineinv(X x, X a) {
    return _mm_gf2p8affineinv_epi64_epi8(x, a, C);
}
constexpr uint32_t kGfniNeeds = kX86Gfni | kX86Avx2;
#endif

// ---- the S-box policy (sm4_avx2.h) ---------------------------------------------

struct GfniSbox {
    static constexpr bool kShiftRows = false;
    using Main = sm4v::W32;

    template <unsigned L>
    struct Tables {
        Vec<L> pre, post;
    };
    template <unsigned L>
    [[gnu::always_inline]] static Tables<L> tables() {
        return {sm4v::bcast64<L>(kPreQ), sm4v::bcast64<L>(kPostQ)};
    }
    template <unsigned L>
    [[gnu::always_inline]] static Vec<L> sbox(Vec<L> x, const Tables<L>& t) {
        return affineinv<kPostInvC>(affine<kPreC>(x, t.pre), t.post);
    }

    struct Serial {
        X q, qi, f0, f1, f3;
    };
    [[gnu::always_inline]] static Serial serial() {
        using sm4v::bcast64;
        return {bcast64<1>(kQQ), bcast64<1>(kQiQ), bcast64<1>(kF0Q), bcast64<1>(kF1Q),
                bcast64<1>(kF3Q)};
    }
    [[gnu::always_inline]] static X to_q(X v, const Serial& s) { return affine<0>(v, s.q); }
    [[gnu::always_inline]] static X from_q(X v, const Serial& s) { return affine<0>(v, s.qi); }
    [[gnu::always_inline]] static void serial_f(X in, const Serial& s, X& f0, X& f1, X& f3) {
        f0 = affineinv<kF.k0>(in, s.f0);
        f1 = affineinv<0>(in, s.f1);
        f3 = affineinv<0>(in, s.f3);
    }
};

bool gfni_set_key(KeySchedule& ks, const uint8_t* key, size_t keylen) {
#if defined(HWCIPHER_GFNI_EMULATE)
    static const bool emulation_ok = emu::matches_hardware_facts();
    if (!emulation_ok) {
        std::fputs("hwcipher: HWCIPHER_GFNI_EMULATE: the GFNI emulation is wrong\n", stderr);
        std::abort();
    }
#endif
    return sm4v::set_key<GfniSbox>(ks, key, keylen);
}

} // namespace
} // namespace hwc::x86_64
