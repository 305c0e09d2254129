// SPDX-License-Identifier: Apache-2.0
// Bitsliced S-box machinery shared by the constant-time AES and SM4 cores.
//
// Technique: bitslicing. Bit i of many bytes is kept in one 64-bit "plane",
// so an 8-bit S-box becomes a boolean circuit evaluated on eight whole words,
// with no memory access indexed by secret data and no secret branches.
//
// Both AES (FIPS-197, section 5.1.1) and SM4 (GB/T 32907-2016; see also Liu,
// Ji, Hu, Wu, "Analysis of the SM4 block cipher and its S-box", which shows
// S(x) = A*I(A*x + C) + C over GF(2)[x]/(x^8+x^7+x^6+x^5+x^4+x^2+1)) define
// their S-boxes as affine o inversion-in-GF(2^8) o affine. All GF(2^8) fields
// are isomorphic, so one inversion circuit serves every S-box: we compute in a
// tower field GF((2^4)^2) = GF(16)[Y]/(Y^2+Y+lambda), GF(16) = GF(2)[z]/(z^4+
// z+1), where an inverse costs five GF(16) multiplications (Itoh-Tsujii style
// norm trick). The isomorphism from each cipher's polynomial basis into the
// tower (found at compile time as a root of that cipher's field polynomial)
// is folded into the cipher's affine matrices, so it costs nothing at run time.
//
// Everything here has internal linkage (anonymous namespace): this header is
// included by several translation units and must not create ODR clashes.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "cores/wipe.h"

namespace hwc::portable {
namespace {

// ---------------------------------------------------------------------------
// Compile-time GF(2) linear algebra on bytes. A Mat8 holds rows: output bit i
// is the parity of (row[i] & x).
using Mat8 = std::array<uint8_t, 8>;

constexpr uint8_t parity8(uint8_t x) {
    x ^= x >> 4; x ^= x >> 2; x ^= x >> 1;
    return x & 1;
}
constexpr uint8_t rotl8(uint8_t x, unsigned k) {
    return static_cast<uint8_t>((x << (k & 7)) | (x >> ((8 - k) & 7)));
}
constexpr uint8_t mat_apply(const Mat8& m, uint8_t x) {
    uint8_t y = 0;
    for (unsigned i = 0; i < 8; ++i) y |= static_cast<uint8_t>(parity8(m[i] & x) << i);
    return y;
}
// (a*b)(x) = a(b(x)).
constexpr Mat8 mat_mul(const Mat8& a, const Mat8& b) {
    Mat8 r{};
    for (unsigned i = 0; i < 8; ++i)
        for (unsigned j = 0; j < 8; ++j)
            if ((a[i] >> j) & 1) r[i] ^= b[j];
    return r;
}
// Matrix of a GF(2)-linear byte map given as a function.
template <typename F>
constexpr Mat8 mat_from(F f) {
    Mat8 r{};
    for (unsigned j = 0; j < 8; ++j) {
        const uint8_t col = f(static_cast<uint8_t>(1u << j));
        for (unsigned i = 0; i < 8; ++i) r[i] |= static_cast<uint8_t>(((col >> i) & 1) << j);
    }
    return r;
}
// Inverse of an invertible matrix: brute force the preimage of each basis
// vector (256 tries each; compile time only).
constexpr Mat8 mat_inv(const Mat8& m) {
    return mat_from([&m](uint8_t e) {
        for (unsigned x = 0; x < 256; ++x)
            if (mat_apply(m, static_cast<uint8_t>(x)) == e) return static_cast<uint8_t>(x);
        return uint8_t{0};
    });
}
// Circulant matrix whose row i is row0 rotated left by i (the shape of both
// the AES and the SM4 affine maps).
constexpr Mat8 mat_circulant(uint8_t row0) {
    Mat8 r{};
    for (unsigned i = 0; i < 8; ++i) r[i] = rotl8(row0, i);
    return r;
}

// ---------------------------------------------------------------------------
// Scalar reference arithmetic (compile time, and for tests).

// Multiplication in GF(2)[x]/(poly), poly given with its x^8 bit (e.g. 0x11b).
constexpr uint8_t gf_mul(uint8_t a, uint8_t b, unsigned poly) {
    unsigned r = 0, x = a;
    for (unsigned i = 0; i < 8; ++i) {
        if ((b >> i) & 1) r ^= x;
        x <<= 1;
        if (x & 0x100) x ^= poly;
    }
    return static_cast<uint8_t>(r);
}

// GF(16) = GF(2)[z]/(z^4+z+1).
constexpr uint8_t gf16_mul(uint8_t a, uint8_t b) {
    unsigned r = 0, x = a & 15;
    for (unsigned i = 0; i < 4; ++i) {
        if ((b >> i) & 1) r ^= x;
        x <<= 1;
        if (x & 0x10) x ^= 0x13;
    }
    return static_cast<uint8_t>(r);
}
// lambda: the first constant making Y^2+Y+lambda irreducible over GF(16),
// i.e. no y in GF(16) with y^2+y = lambda.
constexpr uint8_t find_lambda() {
    for (unsigned l = 1; l < 16; ++l) {
        bool has_root = false;
        for (unsigned y = 0; y < 16; ++y)
            if ((gf16_mul(static_cast<uint8_t>(y), static_cast<uint8_t>(y)) ^ y) == l) has_root = true;
        if (!has_root) return static_cast<uint8_t>(l);
    }
    return 0;
}
inline constexpr uint8_t kLambda = find_lambda();
static_assert(kLambda != 0, "an irreducible Y^2+Y+lambda exists over GF(16)");

// Tower element as a byte: high nibble = coefficient of Y, low nibble = 1.
constexpr uint8_t tower_mul(uint8_t a, uint8_t b) {
    const uint8_t ah = a >> 4, al = a & 15, bh = b >> 4, bl = b & 15;
    const uint8_t hh = gf16_mul(ah, bh);  // * Y^2 = Y + lambda
    const uint8_t h = gf16_mul(ah, bl) ^ gf16_mul(al, bh) ^ hh;
    const uint8_t l = gf16_mul(al, bl) ^ gf16_mul(hh, kLambda);
    return static_cast<uint8_t>((h << 4) | l);
}
constexpr uint8_t tower_inv(uint8_t a) {  // a^254; 0 maps to 0
    uint8_t r = 1;
    for (unsigned i = 0; i < 254; ++i) r = tower_mul(r, a);
    return r;
}

// Matrix taking the polynomial basis of GF(2)[x]/(poly) to the tower basis:
// pick a root beta of poly inside the tower and send x^j to beta^j. This is
// a field isomorphism, so inversion commutes with it.
constexpr Mat8 tower_iso(unsigned poly) {
    for (unsigned beta = 2; beta < 256; ++beta) {
        uint8_t pw[9]{};
        pw[0] = 1;
        for (unsigned j = 1; j <= 8; ++j) pw[j] = tower_mul(pw[j - 1], static_cast<uint8_t>(beta));
        uint8_t v = 0;
        for (unsigned j = 0; j <= 8; ++j)
            if ((poly >> j) & 1) v ^= pw[j];
        if (v != 0) continue;
        return mat_from([&pw](uint8_t e) {
            uint8_t y = 0;
            for (unsigned j = 0; j < 8; ++j)
                if ((e >> j) & 1) y ^= pw[j];
            return y;
        });
    }
    return Mat8{};
}

// An S-box of the shape out = mout * tower_inv(min * x + cin) + cout.
struct SboxSpec {
    Mat8 min;
    uint8_t cin;
    Mat8 mout;
    uint8_t cout;
};
constexpr uint8_t sbox_eval(const SboxSpec& s, uint8_t x) {
    return static_cast<uint8_t>(mat_apply(s.mout, tower_inv(static_cast<uint8_t>(mat_apply(s.min, x) ^ s.cin))) ^ s.cout);
}

// ---------------------------------------------------------------------------
// Bitsliced circuit. Plane i holds bit i of 64 independent bytes.
using u64 = uint64_t;

// out = M * in for an N-bit compile-time matrix (rows as integers). The
// selection on matrix bits is resolved at compile time: only XORs remain.
template <auto Rows, size_t I, size_t... J>
inline u64 lin_row(const u64* in, std::index_sequence<J...>) {
    return (u64{0} ^ ... ^ (((Rows[I] >> J) & 1) ? in[J] : u64{0}));
}
template <auto Rows, size_t N, size_t... I>
inline void lin_apply(const u64* in, u64* out, std::index_sequence<I...>) {
    ((out[I] = lin_row<Rows, I>(in, std::make_index_sequence<N>{})), ...);
}
template <auto Rows, size_t N>
inline void lin(const u64* in, u64* out) {
    lin_apply<Rows, N>(in, out, std::make_index_sequence<N>{});
}

// 4x4 matrices of GF(16) linear maps used inside the inversion.
template <typename F>
constexpr std::array<uint8_t, 4> mat4_from(F f) {
    std::array<uint8_t, 4> r{};
    for (unsigned j = 0; j < 4; ++j) {
        const uint8_t col = f(static_cast<uint8_t>(1u << j));
        for (unsigned i = 0; i < 4; ++i) r[i] |= static_cast<uint8_t>(((col >> i) & 1) << j);
    }
    return r;
}
inline constexpr auto kSq16 = mat4_from([](uint8_t x) { return gf16_mul(x, x); });
inline constexpr auto kSqSq16 = mat4_from([](uint8_t x) {
    const uint8_t s = gf16_mul(x, x);
    return gf16_mul(s, s);
});
inline constexpr auto kLamSq16 = mat4_from([](uint8_t x) { return gf16_mul(kLambda, gf16_mul(x, x)); });

// GF(16) multiplication, schoolbook then reduction by z^4 = z + 1.
inline void mul16(const u64* a, const u64* b, u64* c) {
    const u64 p0 = a[0] & b[0];
    const u64 p1 = (a[0] & b[1]) ^ (a[1] & b[0]);
    const u64 p2 = (a[0] & b[2]) ^ (a[1] & b[1]) ^ (a[2] & b[0]);
    const u64 p3 = (a[0] & b[3]) ^ (a[1] & b[2]) ^ (a[2] & b[1]) ^ (a[3] & b[0]);
    const u64 p4 = (a[1] & b[3]) ^ (a[2] & b[2]) ^ (a[3] & b[1]);
    const u64 p5 = (a[2] & b[3]) ^ (a[3] & b[2]);
    const u64 p6 = a[3] & b[3];
    c[0] = p0 ^ p4;
    c[1] = p1 ^ p4 ^ p5;
    c[2] = p2 ^ p5 ^ p6;
    c[3] = p3 ^ p6;
}

// Tower inversion of x = ah*Y + al: with d = lambda*ah^2 + ah*al + al^2 (the
// norm, in GF(16)), x^-1 = (ah*Y + ah + al) * d^-1, and d^-1 = d^14 =
// d^12 * d^2 with d^12 = (d^2 * d)^4. Five multiplications, no branches; 0
// maps to 0 as the S-box definitions require.
inline void tower_inv_sliced(const u64 x[8], u64 y[8]) {
    const u64* al = x;
    const u64* ah = x + 4;
    u64 s[4], t[4], u[4], d[4];
    for (int i = 0; i < 4; ++i) s[i] = ah[i] ^ al[i];
    mul16(al, s, t);                  // al*(ah+al) = ah*al + al^2
    lin<kLamSq16, 4>(ah, u);          // lambda*ah^2
    for (int i = 0; i < 4; ++i) d[i] = t[i] ^ u[i];
    u64 d2[4], d3[4], d12[4], di[4];
    lin<kSq16, 4>(d, d2);
    mul16(d2, d, d3);
    lin<kSqSq16, 4>(d3, d12);
    mul16(d12, d2, di);
    mul16(ah, di, y + 4);
    mul16(s, di, y);
}

// Full bitsliced S-box for a compile-time SboxSpec, in place on 8 planes.
template <SboxSpec S>
inline void sbox_sliced(u64 q[8]) {
    u64 a[8], b[8];
    lin<S.min, 8>(q, a);
    for (int i = 0; i < 8; ++i) a[i] ^= u64{0} - ((S.cin >> i) & 1);
    tower_inv_sliced(a, b);
    lin<S.mout, 8>(b, q);
    for (int i = 0; i < 8; ++i) q[i] ^= u64{0} - ((S.cout >> i) & 1);
}

// Apply the S-box to each of the four bytes of a word, constant-time (used by
// the key schedules): byte k goes to bit k of every plane.
template <SboxSpec S>
inline void sbox_bytes4(uint8_t b[4]) {
    u64 q[8];
    for (unsigned i = 0; i < 8; ++i) {
        q[i] = 0;
        for (unsigned k = 0; k < 4; ++k) q[i] |= static_cast<u64>((b[k] >> i) & 1) << k;
    }
    sbox_sliced<S>(q);
    for (unsigned k = 0; k < 4; ++k) {
        unsigned v = 0;
        for (unsigned i = 0; i < 8; ++i) v |= static_cast<unsigned>((q[i] >> k) & 1) << i;
        b[k] = static_cast<uint8_t>(v);
    }
    for (unsigned i = 0; i < 8; ++i) { volatile u64* p = &q[i]; *p = 0; }
}

// ---------------------------------------------------------------------------
// Packing 64 bytes into 8 planes.
//
// Eight 64-bit words w[0..7] are first built so that byte lane k of word m is
// the byte we want at plane position 8k+m; an 8x8 bit transposition inside
// each byte lane (three swap-move steps) then leaves bit i of that byte at
// bit 8k+m of plane i. The transposition is its own inverse.
inline void swapmove(u64& a, u64& b, unsigned shift, u64 mask) {
    const u64 t = ((a >> shift) ^ b) & mask;
    b ^= t;
    a ^= t << shift;
}
inline void transpose8(u64 w[8]) {
    for (int i = 0; i < 8; i += 2) swapmove(w[i], w[i + 1], 1, 0x5555555555555555ull);
    for (int i = 0; i < 8; i += 4) {
        swapmove(w[i], w[i + 2], 2, 0x3333333333333333ull);
        swapmove(w[i + 1], w[i + 3], 2, 0x3333333333333333ull);
    }
    for (int i = 0; i < 4; ++i) swapmove(w[i], w[i + 4], 4, 0x0f0f0f0f0f0f0f0full);
}

// Explicit byte assembly: correct on either endianness.
inline u64 load4(const uint8_t* p) {
    return u64{p[0]} | (u64{p[1]} << 8) | (u64{p[2]} << 16) | (u64{p[3]} << 24);
}
inline void store4(uint8_t* p, u64 v) {
    for (int k = 0; k < 4; ++k) p[k] = static_cast<uint8_t>(v >> (8 * k));
}
// Byte r of a 32-bit value moves to bit 16r (lanes 0, 2, 4, 6).
inline u64 spread(u64 x) {
    x = (x | (x << 16)) & 0x0000ffff0000ffffull;
    return (x | (x << 8)) & 0x00ff00ff00ff00ffull;
}
inline u64 unspread(u64 x) {
    x &= 0x00ff00ff00ff00ffull;
    x = (x | (x >> 8)) & 0x0000ffff0000ffffull;
    return (x | (x >> 16)) & 0xffffffffull;
}
// Word m interleaves the 4 bytes at a[m] (even lanes) and b[m] (odd lanes).
inline void pack_pairs(const uint8_t* const a[8], const uint8_t* const b[8], u64 q[8]) {
    for (int m = 0; m < 8; ++m) q[m] = spread(load4(a[m])) | (spread(load4(b[m])) << 8);
    transpose8(q);
}
inline void unpack_pairs(u64 q[8], uint8_t* const a[8], uint8_t* const b[8]) {
    transpose8(q);
    for (int m = 0; m < 8; ++m) {
        store4(a[m], unspread(q[m]));
        store4(b[m], unspread(q[m] >> 8));
    }
}

inline u64 rotr64(u64 x, unsigned k) {
    return (x >> (k & 63)) | (x << ((64 - k) & 63));
}

using hwc::secure_wipe;

} // namespace
} // namespace hwc::portable
