// SPDX-License-Identifier: Apache-2.0
// The word-sliced SM4 engine shared by the x86_64 SM4 cores: vector helpers,
// the round function, block layout and batching, generic over an S-box policy
// P (the only thing the cores differ in). sm4_avx2_modes.h builds the mode
// kernels and the core descriptor on it.
//
// Layout. Blocks are word-sliced: after a 4x4 transpose of 32-bit words,
// register j holds word X_j of 4 blocks (one XMM, or each 128-bit lane of a
// YMM), byte-swapped to native order so the rotations are shifts. Each round
// then runs on 4 (XMM) or 8 (YMM) blocks at once; the parallel modes keep
// P::Main's number of YMM sets in flight so each set's round latency hides
// behind the others' work. The serial modes (one block, sm4_avx2_modes.h)
// keep each word broadcast to all 4 lanes instead.
//
// An S-box policy P provides (see sm4_aesni_avx2.cpp, sm4_gfni_avx2.cpp):
//   kShiftRows         P::sbox leaves each 128-bit lane ShiftRows-permuted
//                      (AESENCLAST); the rotations of L then undo it
//   Main               the width tag of the main chunk (W32 or W16 below)
//   Tables<L>, tables<L>(), sbox<L>(x, t)
//                      the S-box on every byte of x and its constant registers
//   Serial, serial(), to_q(v, s), from_q(v, s), serial_f(in, s, f0, f1, f3)
//                      the serial form (sm4_affine.h): Q and Q^-1 on each
//                      byte, and F0 y, F1 y, F3 y from in' = Pre(in)
//
// Everything has internal linkage: each including translation unit is
// compiled with its own -m flags, and no copy may be merged across them.
#pragma once

#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cores/core.h"
#include "cores/wipe.h"

namespace hwc::x86_64 {
namespace {
namespace sm4v {

// 16-byte constant vectors (broadcast to both lanes for YMM).
struct Vec16 {
    alignas(16) uint8_t b[16];
};

// PSHUFB controls. AESENCLAST applies ShiftRows after SubBytes: output byte
// 4c + r comes from input byte 4((c + r) mod 4) + r, so undoing it takes
// byte 4((c - r) mod 4) + r. Rotating each native 32-bit word left by 8q
// bits takes byte (j - q) mod 4 of the same word. kUndoRotCtl[q] does both
// (for a ShiftRows-permuted S-box output); kRotCtl[q] only the rotation.
constexpr Vec16 undo_rot(unsigned q, bool undo_shiftrows) {
    Vec16 v{};
    for (unsigned c = 0; c < 4; ++c)
        for (unsigned j = 0; j < 4; ++j) {
            const unsigned r = (j + 4 - q) & 3;
            v.b[4 * c + j] = static_cast<uint8_t>(undo_shiftrows ? 4 * ((c + 4 - r) & 3) + r
                                                                 : 4 * c + r);
        }
    return v;
}
// Each control duplicated for both YMM lanes, so a round can take them as
// VPSHUFB memory operands (an XMM round reads the first 16 bytes of each).
struct Ctl4 {
    alignas(32) uint8_t b[4][32];
};
constexpr Ctl4 rot_ctl(bool undo_shiftrows) {
    Ctl4 c{};
    for (unsigned q = 0; q < 4; ++q) {
        const Vec16 v = undo_rot(q, undo_shiftrows);
        for (unsigned i = 0; i < 32; ++i) c.b[q][i] = v.b[i & 15];
    }
    return c;
}
constexpr Ctl4 kUndoRotCtl = rot_ctl(true);
constexpr Ctl4 kRotCtl = rot_ctl(false);
// Big-endian words <-> native.
constexpr Vec16 kBswap32 = {{3, 2, 1, 0, 7, 6, 5, 4, 11, 10, 9, 8, 15, 14, 13, 12}};

// ---- vector helpers, overloaded for XMM and YMM --------------------------------

using X = __m128i;
using Y = __m256i;

[[gnu::always_inline]] inline X vxor(X a, X b) { return _mm_xor_si128(a, b); }
[[gnu::always_inline]] inline Y vxor(Y a, Y b) { return _mm256_xor_si256(a, b); }
[[gnu::always_inline]] inline X vand(X a, X b) { return _mm_and_si128(a, b); }
[[gnu::always_inline]] inline Y vand(Y a, Y b) { return _mm256_and_si256(a, b); }
[[gnu::always_inline]] inline X vshuf(X a, X b) { return _mm_shuffle_epi8(a, b); }
[[gnu::always_inline]] inline Y vshuf(Y a, Y b) { return _mm256_shuffle_epi8(a, b); }
[[gnu::always_inline]] inline X vsrl4(X a) { return _mm_srli_epi32(a, 4); }
[[gnu::always_inline]] inline Y vsrl4(Y a) { return _mm256_srli_epi32(a, 4); }
[[gnu::always_inline]] inline X vadd32(X a, X b) { return _mm_add_epi32(a, b); }
[[gnu::always_inline]] inline Y vadd32(Y a, Y b) { return _mm256_add_epi32(a, b); }
[[gnu::always_inline]] inline X vrotl2(X a) {
    return _mm_or_si128(_mm_slli_epi32(a, 2), _mm_srli_epi32(a, 30));
}
[[gnu::always_inline]] inline Y vrotl2(Y a) {
    return _mm256_or_si256(_mm256_slli_epi32(a, 2), _mm256_srli_epi32(a, 30));
}
[[gnu::always_inline]] inline X unpacklo32(X a, X b) { return _mm_unpacklo_epi32(a, b); }
[[gnu::always_inline]] inline Y unpacklo32(Y a, Y b) { return _mm256_unpacklo_epi32(a, b); }
[[gnu::always_inline]] inline X unpackhi32(X a, X b) { return _mm_unpackhi_epi32(a, b); }
[[gnu::always_inline]] inline Y unpackhi32(Y a, Y b) { return _mm256_unpackhi_epi32(a, b); }
[[gnu::always_inline]] inline X unpacklo64(X a, X b) { return _mm_unpacklo_epi64(a, b); }
[[gnu::always_inline]] inline Y unpacklo64(Y a, Y b) { return _mm256_unpacklo_epi64(a, b); }
[[gnu::always_inline]] inline X unpackhi64(X a, X b) { return _mm_unpackhi_epi64(a, b); }
[[gnu::always_inline]] inline Y unpackhi64(Y a, Y b) { return _mm256_unpackhi_epi64(a, b); }

// Code generic over the vector width is templated on L, the number of
// 128-bit lanes (1: XMM, 2: YMM), not on the vector type itself: GCC drops
// the vector types' attributes from template arguments (-Wignored-attributes).
template <unsigned L> struct VecOf;
template <> struct VecOf<1> { using type = X; };
template <> struct VecOf<2> { using type = Y; };
template <unsigned L> using Vec = typename VecOf<L>::type;

template <unsigned L> Vec<L> bcast16(const Vec16& v);
template <> [[gnu::always_inline]] inline X bcast16<1>(const Vec16& v) {
    return _mm_load_si128(reinterpret_cast<const X*>(v.b));
}
template <> [[gnu::always_inline]] inline Y bcast16<2>(const Vec16& v) {
    return _mm256_broadcastsi128_si256(bcast16<1>(v));
}

template <unsigned L> Vec<L> bcast32(uint32_t w);
template <> [[gnu::always_inline]] inline X bcast32<1>(uint32_t w) {
    return _mm_set1_epi32(static_cast<int>(w));
}
template <> [[gnu::always_inline]] inline Y bcast32<2>(uint32_t w) {
    return _mm256_set1_epi32(static_cast<int>(w));
}

template <unsigned L> Vec<L> bcast64(uint64_t w);
template <> [[gnu::always_inline]] inline X bcast64<1>(uint64_t w) {
    return _mm_set1_epi64x(static_cast<long long>(w));
}
template <> [[gnu::always_inline]] inline Y bcast64<2>(uint64_t w) {
    return _mm256_set1_epi64x(static_cast<long long>(w));
}

// Blocks of a "row": for XMM one block at p; for YMM the block at p in the
// low lane and the block 4 further (p + 64) in the high lane.
template <unsigned L> Vec<L> ld(const uint8_t* p);
template <> [[gnu::always_inline]] inline X ld<1>(const uint8_t* p) {
    return _mm_loadu_si128(reinterpret_cast<const X*>(p));
}
template <> [[gnu::always_inline]] inline Y ld<2>(const uint8_t* p) {
    return _mm256_loadu2_m128i(reinterpret_cast<const X*>(p + 64), reinterpret_cast<const X*>(p));
}
// A plain (contiguous) vector load of 32-bit words.
template <unsigned L> Vec<L> ldc(const uint32_t* p);
template <> [[gnu::always_inline]] inline X ldc<1>(const uint32_t* p) {
    return _mm_loadu_si128(reinterpret_cast<const X*>(p));
}
template <> [[gnu::always_inline]] inline Y ldc<2>(const uint32_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const Y*>(p));
}
[[gnu::always_inline]] inline void st(uint8_t* p, X v) {
    _mm_storeu_si128(reinterpret_cast<X*>(p), v);
}
[[gnu::always_inline]] inline void st(uint8_t* p, Y v) {
    _mm256_storeu2_m128i(reinterpret_cast<X*>(p + 64), reinterpret_cast<X*>(p), v);
}

template <unsigned L> Vec<L> ctl(const uint8_t* p);
template <> [[gnu::always_inline]] inline X ctl<1>(const uint8_t* p) {
    return _mm_load_si128(reinterpret_cast<const X*>(p));
}
template <> [[gnu::always_inline]] inline Y ctl<2>(const uint8_t* p) {
    return _mm256_load_si256(reinterpret_cast<const Y*>(p));
}

// ---- the round function --------------------------------------------------------

// The constants of a round: the policy's S-box tables, the byte swap, and
// the rotation controls. With 8 state registers (two YMM sets) plus the
// S-box constants and temporaries a round needs more than the 16 AVX2
// registers, so the controls are read from memory as VPSHUFB operands (a
// load port is free; an opaque pointer per round keeps GCC from hoisting
// them back into registers).
template <class P, unsigned L>
struct Consts {
    typename P::template Tables<L> s;
    Vec<L> bswap;
    const uint8_t* rot; // Ctl4 rows
};
template <class P, unsigned L>
[[gnu::always_inline]] inline Consts<P, L> load_consts() {
    return {P::template tables<L>(), bcast16<L>(kBswap32),
            P::kShiftRows ? &kUndoRotCtl.b[0][0] : &kRotCtl.b[0][0]};
}

// T = L(tau(x)): four S-boxes per word, then L(B) = B ^ (B <<< 2) ^
// (B <<< 10) ^ (B <<< 18) ^ (B <<< 24) = B ^ (B <<< 24) ^
// ((B ^ (B <<< 8) ^ (B <<< 16)) <<< 2). With a ShiftRows-permuted S-box
// rot[0] undoes ShiftRows; otherwise it is the identity and skipped.
template <class P, unsigned L>
[[gnu::always_inline]] inline Vec<L> tau_l(Vec<L> x, const Consts<P, L>& k, const uint8_t* rot) {
    using V = Vec<L>;
    const V z = P::template sbox<L>(x, k.s);
    const V b = P::kShiftRows ? vshuf(z, ctl<L>(rot)) : z;
    const V t = vxor(vxor(b, vshuf(z, ctl<L>(rot + 32))), vshuf(z, ctl<L>(rot + 64)));
    return vxor(vxor(b, vshuf(z, ctl<L>(rot + 96))), vrotl2(t));
}

// 32 rounds on S independent sets of four word registers. Round i updates
// X_i ^= T(X_{i+1} ^ X_{i+2} ^ X_{i+3} ^ rk_i); the newest word is XORed in
// last so the other XORs run ahead of the dependency chain.
template <class P, unsigned L, size_t S>
[[gnu::always_inline]] inline void sm4_rounds(const uint32_t* rk, const Consts<P, L>& k,
                                              Vec<L> (&x)[S][4]) {
    using V = Vec<L>;
    for (unsigned r = 0; r < 32; r += 4) {
#pragma GCC unroll 4
        for (unsigned j = 0; j < 4; ++j) {
            const V key = bcast32<L>(rk[r + j]);
            const uint8_t* rot = k.rot;
            asm("" : "+r"(rot));
#pragma GCC unroll 4
            for (size_t s = 0; s < S; ++s) {
                const V in = vxor(vxor(vxor(x[s][(j + 1) & 3], x[s][(j + 2) & 3]), key),
                                  x[s][(j + 3) & 3]);
                x[s][j] = vxor(x[s][j], tau_l<P, L>(in, k, rot));
            }
        }
    }
}

template <class V>
[[gnu::always_inline]] inline void transpose(V& a, V& b, V& c, V& d) {
    const V t0 = unpacklo32(a, b), t1 = unpackhi32(a, b);
    const V t2 = unpacklo32(c, d), t3 = unpackhi32(c, d);
    a = unpacklo64(t0, t2);
    b = unpackhi64(t0, t2);
    c = unpacklo64(t1, t3);
    d = unpackhi64(t1, t3);
}

// from_rows turns four row registers of blocks (memory order) into words,
// to_rows the cipher state (X32..X35) back into rows of output blocks
// (X35, X34, X33, X32), big-endian.
template <unsigned L>
[[gnu::always_inline]] inline void from_rows(Vec<L> bswap, Vec<L> (&x)[4]) {
#pragma GCC unroll 4
    for (unsigned i = 0; i < 4; ++i) x[i] = vshuf(x[i], bswap);
    transpose(x[0], x[1], x[2], x[3]);
}
template <unsigned L>
[[gnu::always_inline]] inline void to_rows(Vec<L> bswap, Vec<L> (&x)[4]) {
    Vec<L> a = x[3], b = x[2], c = x[1], d = x[0];
    transpose(a, b, c, d);
    x[0] = vshuf(a, bswap);
    x[1] = vshuf(b, bswap);
    x[2] = vshuf(c, bswap);
    x[3] = vshuf(d, bswap);
}

// get(s, i) returns input row i of set s (blocks 4Ls + i and, for YMM,
// 4Ls + i + 4); put(s, i, v) takes the output row. Every get runs before any
// put, and puts go from the last row to the first, which lets CBC
// decryption read the previous ciphertext in place.
template <class P, unsigned L, size_t S, class Put>
[[gnu::always_inline]] inline void crypt_state(const uint32_t* rk, const Consts<P, L>& k,
                                               Vec<L> (&x)[S][4], Put&& put) {
    sm4_rounds<P, L, S>(rk, k, x);
#pragma GCC unroll 4
    for (size_t t = 0; t < S; ++t) {
        const size_t s = S - 1 - t;
        to_rows<L>(k.bswap, x[s]);
#pragma GCC unroll 4
        for (unsigned j = 0; j < 4; ++j) put(s, 3 - j, x[s][3 - j]);
    }
}

template <class P, unsigned L, size_t S, class Get, class Put>
[[gnu::always_inline]] inline void crypt_rows(const uint32_t* rk, const Consts<P, L>& k, Get&& get,
                                              Put&& put) {
    Vec<L> x[S][4];
#pragma GCC unroll 4
    for (size_t s = 0; s < S; ++s) {
#pragma GCC unroll 4
        for (unsigned i = 0; i < 4; ++i) x[s][i] = get(s, i);
        from_rows<L>(k.bswap, x[s]);
    }
    crypt_state<P, L, S>(rk, k, x, put);
}

// ---- key schedule layout -----------------------------------------------------

// KeySchedule layout: rk_0..rk_31 for encryption, then the same reversed for
// decryption, as native 32-bit words (read through a may_alias type).
constexpr size_t kEncOff = 0;
constexpr size_t kDecOff = 32 * 4;
// Then Pre(rk_0)..Pre(rk_31) for the serial (encrypt-only) kernels, and for
// sm4_serial_vl.h Pre(rk_i) ^ Pre(rk_{i+1}), plain and rotated left by 16.
constexpr size_t kEncQOff = 64 * 4;
constexpr size_t kEncDkOff = 96 * 4;
constexpr size_t kEncDk2Off = 128 * 4;
static_assert(kEncDk2Off + 32 * 4 <= kMaxScheduleBytes);

using u32_alias [[gnu::may_alias]] = uint32_t;
inline const uint32_t* round_keys(const KeySchedule& ks, size_t off) {
    return reinterpret_cast<const u32_alias*>(ks.bytes + off);
}

// ---- batching ----------------------------------------------------------------

// Width tags: 32 blocks (four YMM sets), 16, 8 (one YMM set), 4 (one XMM
// set). A set is 4L blocks.
struct W32 { static constexpr unsigned L = 2; static constexpr size_t S = 4; };
struct W16 { static constexpr unsigned L = 2; static constexpr size_t S = 2; };
struct W8 { static constexpr unsigned L = 2; static constexpr size_t S = 1; };
struct W4 { static constexpr unsigned L = 1; static constexpr size_t S = 1; };
template <class W> constexpr size_t kBlocksOf = 4 * W::L * W::S;
// Bytes of the widest chunk, for per-block side buffers (tweaks, offsets).
constexpr size_t kMaxChunkBytes = 16 * kBlocksOf<W32>;

// Calls chunk(W, in, out, m) for each group of m <= 32 blocks: groups of
// P::Main's width and then (if that is 32) one of 16, straight from the
// caller's buffers, the last 1..15 through a zeroed stack buffer at the
// narrowest width that holds them (chunk may then read and write the whole
// width). The buffer held data; it is wiped.
//
// Output trailing its input by less than a chunk (out = in - d, 0 < d <
// 16 * the main width): a chunk reads input after storing output (the XOR
// operands of CTR, CFB and CBC decryption; rows are stored last to first),
// so such a call gives each chunk a copy of its input. A chunk never writes
// into a later chunk's input (out < in), and with a larger d not into its own.
template <class P, class Chunk>
[[gnu::always_inline]] inline void in_chunks(const uint8_t* in, uint8_t* out, size_t n,
                                             Chunk&& chunk) {
    using WMain = typename P::Main;
    constexpr size_t NM = kBlocksOf<WMain>;
    static_assert(NM == 16 || NM == 32);
    const uintptr_t gap = reinterpret_cast<uintptr_t>(in) - reinterpret_cast<uintptr_t>(out);
    const bool trailing = gap != 0 && gap < 16 * NM;
    alignas(32) uint8_t copy[16 * NM];
    auto run = [&](auto w, size_t m) {
        if (trailing) {
            std::memcpy(copy, in, 16 * m);
            chunk(w, copy, out, m);
        } else {
            chunk(w, in, out, m);
        }
    };
    for (; n >= NM; n -= NM, in += 16 * NM, out += 16 * NM) run(WMain{}, NM);
    if (NM > 16 && n >= 16) {
        run(W16{}, size_t{16});
        n -= 16, in += 256, out += 256;
    }
    if (trailing) secure_wipe(copy, sizeof copy);
    if (n == 0) return;
    alignas(32) uint8_t buf[256] = {};
    std::memcpy(buf, in, 16 * n);
    if (n > 8) chunk(W16{}, buf, buf, n);
    else if (n > 4) chunk(W8{}, buf, buf, n);
    else chunk(W4{}, buf, buf, n);
    std::memcpy(out, buf, 16 * n);
    secure_wipe(buf, sizeof buf);
}

// One chunk of W's width (in and out may be equal).
template <class P, class W>
[[gnu::always_inline]] inline void crypt_w(const uint32_t* rk, const uint8_t* in, uint8_t* out) {
    constexpr unsigned L = W::L;
    const Consts<P, L> k = load_consts<P, L>();
    crypt_rows<P, L, W::S>(
        rk, k, [&](size_t s, unsigned r) { return ld<L>(in + 16 * (4 * L * s + r)); },
        [&](size_t s, unsigned r, Vec<L> v) { st(out + 16 * (4 * L * s + r), v); });
}

} // namespace sm4v
} // namespace
} // namespace hwc::x86_64
