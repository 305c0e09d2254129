// SPDX-License-Identifier: Apache-2.0
// SM4's S-box as affine maps around an inversion in the AES field, derived at
// compile time for the SM4 cores that reach that inversion through AES or
// GFNI instructions (x86_64: sm4_aesni_avx2.cpp, sm4_gfni_avx2.cpp;
// aarch64: sm4_neon_aese.cpp).
//
// The SM4 and AES S-boxes are both "affine map, inversion in GF(2^8), affine
// map", over two representations of the same field (SM4: x^8+x^7+x^6+x^5+
// x^4+x^2+1, AES: x^8+x^4+x^3+x+1). With T the field isomorphism from the
// SM4 representation to the AES one,
//     S_sm4(x) = Post(inv_aes(Pre(x))),
// Pre and Post affine over GF(2)^8. The AES-NI core reaches inv_aes through
// AESENCLAST (SubBytes, whose own affine map it folds into Post), the
// aarch64 core through AESE (the same SubBytes, after a key XOR that carries
// the round key and Pre's constant); the GFNI core through
// VGF2P8AFFINEINVQB, which applies Post itself.
//
// Only constexpr values and functions, in an unnamed namespace: the header is
// included by translation units compiled with different -m flags.
#pragma once

#include <cstdint>

namespace hwc {
namespace {
namespace sm4alg {

// An 8x8 bit matrix stored as rows: output bit i = parity(row[i] & x).
struct Mat {
    uint8_t row[8];
};

constexpr uint8_t rotl8(uint8_t x, unsigned k) {
    return static_cast<uint8_t>((x << (k & 7)) | (x >> ((8 - k) & 7)));
}
constexpr unsigned parity8(unsigned x) {
    x ^= x >> 4;
    x ^= x >> 2;
    x ^= x >> 1;
    return x & 1;
}
constexpr uint8_t apply(const Mat& m, unsigned x) {
    unsigned y = 0;
    for (unsigned i = 0; i < 8; ++i) y |= parity8(m.row[i] & x) << i;
    return static_cast<uint8_t>(y);
}
// Matrix of a GF(2)-linear byte map given by its images of the basis bits.
template <class F>
constexpr Mat mat_from(F f) {
    Mat m{};
    for (unsigned j = 0; j < 8; ++j) {
        const unsigned col = f(1u << j);
        for (unsigned i = 0; i < 8; ++i) m.row[i] |= static_cast<uint8_t>(((col >> i) & 1) << j);
    }
    return m;
}
// a after b.
constexpr Mat mat_mul(const Mat& a, const Mat& b) {
    return mat_from([&](unsigned x) { return apply(a, apply(b, x)); });
}
constexpr Mat mat_add(const Mat& a, const Mat& b) {
    return mat_from([&](unsigned x) { return static_cast<unsigned>(apply(a, x) ^ apply(b, x)); });
}
// Inverse by brute-forcing the preimage of each basis bit.
constexpr Mat mat_inv(const Mat& m) {
    return mat_from([&](unsigned e) {
        for (unsigned x = 0; x < 256; ++x)
            if (apply(m, x) == e) return x;
        return 0u;
    });
}
// Row i is row0 rotated left by i: the shape of both standards' affine maps.
constexpr Mat circulant(uint8_t row0) {
    Mat m{};
    for (unsigned i = 0; i < 8; ++i) m.row[i] = rotl8(row0, i);
    return m;
}

// Multiplication and inversion in GF(2)[x]/(poly).
constexpr uint8_t gf_mul(unsigned a, unsigned b, unsigned poly) {
    unsigned r = 0;
    for (; b; b >>= 1) {
        if (b & 1) r ^= a;
        a <<= 1;
        if (a & 0x100) a ^= poly;
    }
    return static_cast<uint8_t>(r);
}
constexpr uint8_t gf_inv(unsigned a, unsigned poly) { // a^254, 0 -> 0
    unsigned r = 1;
    for (unsigned e = 254, b = a; e; e >>= 1) {
        if (e & 1) r = gf_mul(r, b, poly);
        b = gf_mul(b, b, poly);
    }
    return static_cast<uint8_t>(r);
}

constexpr unsigned kSm4Poly = 0x1f5;  // x^8+x^7+x^6+x^5+x^4+x^2+1
constexpr unsigned kAesPoly = 0x11b;  // x^8+x^4+x^3+x+1
// SM4: S(x) = A * inv_sm4(A * x + c) + c (Liu et al., "Analysis of the SM4
// block cipher and its S-box"; the same form cores/portable/sm4_ct.cpp uses).
constexpr Mat kA = circulant(0xa7);
constexpr uint8_t kC = 0xd3;
// AES (FIPS-197 5.1.1): SubBytes(y) = M * inv_aes(y) + 0x63.
constexpr Mat kM = circulant(0xf1);
constexpr uint8_t kAesC = 0x63;

constexpr uint8_t sm4_sbox_ref(unsigned x) {
    return static_cast<uint8_t>(apply(kA, gf_inv(apply(kA, x) ^ kC, kSm4Poly)) ^ kC);
}
constexpr uint8_t aes_subbytes(unsigned y) {
    return static_cast<uint8_t>(apply(kM, gf_inv(y, kAesPoly)) ^ kAesC);
}
static_assert(aes_subbytes(0x00) == 0x63 && aes_subbytes(0x01) == 0x7c &&
              aes_subbytes(0x53) == 0xed);

// The first two rows and the last row of the S-box table in GB/T 32907-2016.
constexpr uint8_t kSboxRow0[16] = {0xd6, 0x90, 0xe9, 0xfe, 0xcc, 0xe1, 0x3d, 0xb7,
                                   0x16, 0xb6, 0x14, 0xc2, 0x28, 0xfb, 0x2c, 0x05};
constexpr uint8_t kSboxRow1[16] = {0x2b, 0x67, 0x9a, 0x76, 0x2a, 0xbe, 0x04, 0xc3,
                                   0xaa, 0x44, 0x13, 0x26, 0x49, 0x86, 0x06, 0x99};
constexpr uint8_t kSboxRowF[16] = {0x18, 0xf0, 0x7d, 0xec, 0x3a, 0xdc, 0x4d, 0x20,
                                   0x79, 0xee, 0x5f, 0x3e, 0xd7, 0xcb, 0x39, 0x48};
constexpr bool ref_matches_standard() {
    for (unsigned i = 0; i < 16; ++i)
        if (sm4_sbox_ref(i) != kSboxRow0[i] || sm4_sbox_ref(16 + i) != kSboxRow1[i] ||
            sm4_sbox_ref(240 + i) != kSboxRowF[i])
            return false;
    return true;
}
static_assert(ref_matches_standard(), "sm4_sbox_ref is not the GB/T 32907-2016 S-box");

// Field isomorphism T from the SM4 representation to the AES one: x maps to
// a root beta of the SM4 polynomial inside the AES field, so T(x^i) =
// beta^i, and inv_sm4(z) = T^-1 inv_aes(T z).
constexpr Mat field_iso() {
    for (unsigned beta = 2; beta < 256; ++beta) {
        unsigned pw = 1, v = 0;
        for (unsigned j = 0; j <= 8; ++j) {
            if ((kSm4Poly >> j) & 1) v ^= pw;
            pw = gf_mul(pw, beta, kAesPoly);
        }
        if (v != 0) continue;
        return mat_from([beta](unsigned e) {
            unsigned j = 0;
            while ((1u << j) != e) ++j;
            unsigned p = 1;
            for (unsigned i = 0; i < j; ++i) p = gf_mul(p, beta, kAesPoly);
            return p;
        });
    }
    return Mat{};
}
constexpr Mat kT = field_iso();

// S_sm4(x) = A T^-1 inv_aes(T A x + T c) + c, so
//   Pre(x)  = (T A) x + T c                  (both cores),
//   Post(z) = (A T^-1) z + c                 (on inv_aes: GFNI),
// and, as inv_aes(w) = M^-1 (SubBytes(w) + 0x63),
//   PostS(y) = (A T^-1 M^-1) y + (A T^-1 M^-1 0x63 + c)  (on SubBytes: AES-NI).
constexpr Mat kPreM = mat_mul(kT, kA);
constexpr uint8_t kPreC = apply(kT, kC);
constexpr Mat kPostInvM = mat_mul(kA, mat_inv(kT));
constexpr uint8_t kPostInvC = kC;
constexpr Mat kPostSubM = mat_mul(kPostInvM, mat_inv(kM));
constexpr uint8_t kPostSubC = static_cast<uint8_t>(apply(kPostSubM, kAesC) ^ kC);

constexpr bool pre_post_checks() {
    for (unsigned x = 0; x < 256; ++x) {
        const unsigned w = apply(kPreM, x) ^ kPreC;
        if ((apply(kPostInvM, gf_inv(w, kAesPoly)) ^ kPostInvC) != sm4_sbox_ref(x)) return false;
        if ((apply(kPostSubM, aes_subbytes(w)) ^ kPostSubC) != sm4_sbox_ref(x)) return false;
    }
    return true;
}
static_assert(pre_post_checks(), "Pre/Post do not give the SM4 S-box");

// Serial form: the one-block modes are latency bound, and there Pre and
// Post sit on the dependency chain. So those kernels keep each state word
// X as X' = Q X (Q = Pre's matrix, applied to each byte) and use round keys
// rk' = Pre(rk): then Pre(X1 ^ X2 ^ X3 ^ rk) = X1' ^ X2' ^ X3' ^ rk' goes
// straight into the inversion. The update X0' ^= Q L(Post(y)) is linear in y
// apart from a constant. Writing R for the byte rotation rol8 and Sl2/Sr6
// for byte shifts, rol2 = Sl2 + Sr6 R, so
//   L = (1 + Sl2) + (Sl2 + Sr6) R + (Sl2 + Sr6) R^2 + (1 + Sr6) R^3,
// and since byte-wise maps commute with R,
//   Q L Post(y) = F0 y + R F1 y + R^2 F1 y + R^3 F3 y + K
// with F0 = Q (1 + Sl2) P, F1 = Q (Sl2 + Sr6) P, F3 = Q (1 + Sr6) P (P =
// Post's matrix) and K the image of Post's constant (the same in every byte,
// as L of a word of equal bytes is (Sl2 + Sr6) of that byte, so it folds
// into F0's constant). Each core evaluates F0, F1, F3 on its own y (the
// AES-NI core on SubBytes, with P = kPostSubM; the GFNI core on inv_aes
// inside VGF2P8AFFINEINVQB, with P = kPostInvM).
constexpr Mat kId = mat_from([](unsigned x) { return x; });
constexpr Mat kSl2 = mat_from([](unsigned x) { return (x << 2) & 0xff; });
constexpr Mat kSr6 = mat_from([](unsigned x) { return x >> 6; });
struct SerialMats {
    Mat f0, f1, f3;
    uint8_t k0; // F0's constant
};
constexpr SerialMats serial_mats(const Mat& post, uint8_t post_c) {
    return {mat_mul(kPreM, mat_mul(mat_add(kId, kSl2), post)),
            mat_mul(kPreM, mat_mul(mat_add(kSl2, kSr6), post)),
            mat_mul(kPreM, mat_mul(mat_add(kId, kSr6), post)), apply(kPreM, rotl8(post_c, 2))};
}
constexpr Mat kQinv = mat_inv(kPreM);
constexpr bool inverts_pre() {
    for (unsigned x = 0; x < 256; ++x)
        if (apply(kQinv, apply(kPreM, x)) != x) return false;
    return true;
}
static_assert(inverts_pre());

// An affine byte map as two 16-entry nibble lookups (PSHUFB, TBL):
// f(x) = lo[x & 15] ^ hi[x >> 4], the constant folded into lo.
struct Nibbles {
    uint8_t lo[16], hi[16];
};
constexpr Nibbles nibble_tables(const Mat& m, uint8_t c) {
    Nibbles t{};
    for (unsigned n = 0; n < 16; ++n) {
        t.lo[n] = static_cast<uint8_t>(apply(m, n) ^ c);
        t.hi[n] = apply(m, n << 4);
    }
    return t;
}

// Word-level models for the cores' compile-time checks, on native 32-bit
// words (byte j = bits 8j..8j+7).
constexpr uint32_t rotl32c(uint32_t x, unsigned k) { return (x << k) | (x >> ((32 - k) & 31)); }
constexpr uint32_t bytewise(const Mat& m, uint32_t w, uint8_t c) {
    uint32_t r = 0;
    for (unsigned j = 0; j < 4; ++j)
        r |= uint32_t{static_cast<uint8_t>(apply(m, (w >> (8 * j)) & 0xff) ^ c)} << (8 * j);
    return r;
}
constexpr uint32_t ref_t(uint32_t in) { // L(tau(in))
    uint32_t b = 0;
    for (unsigned j = 0; j < 4; ++j)
        b |= uint32_t{sm4_sbox_ref((in >> (8 * j)) & 0xff)} << (8 * j);
    return b ^ rotl32c(b, 2) ^ rotl32c(b, 10) ^ rotl32c(b, 18) ^ rotl32c(b, 24);
}
// The serial form's Q L(tau(in)) from y = Y(Pre(in)) byte-wise, Y being the
// core's inversion step (SubBytes or inv_aes).
template <class Y>
constexpr uint32_t serial_t(const SerialMats& f, uint32_t pre_in, Y y_of) {
    uint32_t y = 0;
    for (unsigned j = 0; j < 4; ++j) y |= uint32_t{y_of((pre_in >> (8 * j)) & 0xff)} << (8 * j);
    const uint32_t f1 = bytewise(f.f1, y, 0);
    return bytewise(f.f0, y, f.k0) ^ rotl32c(f1, 8) ^ rotl32c(f1, 16) ^
           rotl32c(bytewise(f.f3, y, 0), 24);
}
template <class Y>
constexpr bool serial_checks(const SerialMats& f, Y y_of) {
    uint32_t w = 0x01234567;
    for (unsigned i = 0; i < 64; ++i, w = w * 0x9e3779b1u + 0x7f4a7c15u)
        if (serial_t(f, bytewise(kPreM, w, kPreC), y_of) != bytewise(kPreM, ref_t(w), 0))
            return false;
    return true;
}

} // namespace sm4alg
} // namespace
} // namespace hwc
