// SPDX-License-Identifier: Apache-2.0
// twofish-avx2 internals shared by its two translation units
// (twofish_avx2.cpp: ECB and the parallel modes; twofish_avx2_serial.cpp: the
// serial modes): the schedule view, the scalar cipher (one block, and N
// blocks with interleaved rounds) and the 8-/16-block AVX2 word-sliced
// cipher.
//
// NOT CONSTANT-TIME, like the portable core whose key schedule this reuses
// (cores/portable/twofish.cpp says why that is accepted for Twofish): every
// round indexes the key-dependent S-box/MDS tables with bytes of the cipher
// state, through VPGATHERDD in the vector code and plain loads in the scalar
// code, so which cache lines are touched depends on key and data.
//
// Only units compiled with -mavx2 include this header. The helpers sit in an
// unnamed namespace so each unit keeps its own copy: an inline function with
// external linkage could be merged by the linker into a baseline-ISA caller.
#pragma once

#include <immintrin.h>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>

#include "cores/core.h"
#include "cores/portable/twofish_schedule.h"
#include "cores/wipe.h"

namespace hwc::x86_64::twofish {

// The serial-mode kernels (twofish_avx2_serial.cpp; contracts: cores/core.h).
void cbc_encrypt(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out,
                 size_t nblocks);
void cfb_encrypt(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out,
                 size_t nblocks);
void ofb(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out,
         size_t nblocks);
void cbc_mac(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in, size_t nblocks);
void cfb8_encrypt(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out,
                  size_t nbytes);

namespace {

// The portable layout: s[j][x] = S-box j then MDS column j, 1 KiB per table,
// then K0..K39. The gathers and loads below index it directly.
using Schedule = portable::TwofishSchedule;
static_assert(sizeof(Schedule::s[0]) == 1024 && sizeof(Schedule::k) == 40 * 4);

inline const Schedule& sched(const KeySchedule& ks) {
    return *std::launder(reinterpret_cast<const Schedule*>(ks.bytes));
}

// ---- scalar: one block in general registers ----------------------------------

inline uint32_t load32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, 4); // x86_64 is little-endian, as Twofish's words are
    return v;
}
inline void store32(uint8_t* p, uint32_t v) { std::memcpy(p, &v, 4); }

// One block as four words.
struct Words {
    uint32_t a, b, c, d;
};

// t0 = g(x) and t1 = g(rotl(y, 8)) (the rotate folded into the choice of
// table per byte) for the scalar cipher. In asm for the byte extraction:
// MOVZBL from the low and high byte registers needs x and y in RAX..RDX
// ("Q") and the high-byte index in a register without REX ("R"), and a
// 16-bit rotate of the copies brings bytes 2 and 3 there too, so the eight
// indices cost ten instructions. GCC's shift-and-mask form of the same C++
// costs about fifteen, with redundant zero-extensions; measured, the asm is
// ~15% faster per block (Cascade Lake VM).
[[gnu::always_inline]] inline void g_pair(const Schedule& s, uint32_t x, uint32_t y, uint32_t& t0,
                                          uint32_t& t1) {
    uint32_t i0, i1;
    asm("movzbl %b[x], %[i0]\n\t"
        "movzbl %h[x], %[i1]\n\t"
        "movl (%[s],%q[i0],4), %[t0]\n\t"
        "xorl 0x400(%[s],%q[i1],4), %[t0]\n\t"
        "movzbl %b[y], %[i0]\n\t"
        "movzbl %h[y], %[i1]\n\t"
        "movl 0x400(%[s],%q[i0],4), %[t1]\n\t"
        "xorl 0x800(%[s],%q[i1],4), %[t1]\n\t"
        "rorl $16, %[x]\n\t"
        "rorl $16, %[y]\n\t"
        "movzbl %b[x], %[i0]\n\t"
        "movzbl %h[x], %[i1]\n\t"
        "xorl 0x800(%[s],%q[i0],4), %[t0]\n\t"
        "xorl 0xc00(%[s],%q[i1],4), %[t0]\n\t"
        "movzbl %b[y], %[i0]\n\t"
        "movzbl %h[y], %[i1]\n\t"
        "xorl 0xc00(%[s],%q[i0],4), %[t1]\n\t"
        "xorl (%[s],%q[i1],4), %[t1]"
        : [t0] "=&r"(t0), [t1] "=&r"(t1), [i0] "=&r"(i0), [i1] "=&R"(i1), [x] "+Q"(x),
          [y] "+Q"(y)
        : [s] "r"(s.s), "m"(s.s));
}

// The 16 rounds, whitening excluded: the callers fold it with their
// chaining XORs. Unrolled in pairs so the Feistel swap is a renaming; on
// return the words are in output order (R2, R3, R0, R1), i.e.
// out = result ^ K4..K7.
[[gnu::always_inline]] inline Words enc_rounds(const Schedule& s, Words w) {
    const uint32_t* k = s.k;
    uint32_t a = w.a, b = w.b, c = w.c, d = w.d;
#pragma GCC unroll 8
    for (int r = 0; r < 16; r += 2) {
        uint32_t t0, t1;
        g_pair(s, a, b, t0, t1);
        c = std::rotr(c ^ (t0 + t1 + k[8 + 2 * r]), 1);
        d = std::rotl(d, 1) ^ (t0 + 2 * t1 + k[9 + 2 * r]);
        g_pair(s, c, d, t0, t1);
        a = std::rotr(a ^ (t0 + t1 + k[10 + 2 * r]), 1);
        b = std::rotl(b, 1) ^ (t0 + 2 * t1 + k[11 + 2 * r]);
    }
    return {c, d, a, b};
}

// Inverse of enc_rounds: takes (R2, R3, R0, R1) after the output whitening
// was removed, returns the block before input whitening.
[[gnu::always_inline]] inline Words dec_rounds(const Schedule& s, Words w) {
    const uint32_t* k = s.k;
    uint32_t c = w.a, d = w.b, a = w.c, b = w.d;
#pragma GCC unroll 8
    for (int r = 14; r >= 0; r -= 2) {
        uint32_t t0, t1;
        g_pair(s, c, d, t0, t1);
        a = std::rotl(a, 1) ^ (t0 + t1 + k[10 + 2 * r]);
        b = std::rotr(b ^ (t0 + 2 * t1 + k[11 + 2 * r]), 1);
        g_pair(s, a, b, t0, t1);
        c = std::rotl(c, 1) ^ (t0 + t1 + k[8 + 2 * r]);
        d = std::rotr(d ^ (t0 + 2 * t1 + k[9 + 2 * r]), 1);
    }
    return {a, b, c, d};
}

[[gnu::always_inline]] inline Words load_words(const uint8_t* p) {
    return {load32(p), load32(p + 4), load32(p + 8), load32(p + 12)};
}
[[gnu::always_inline]] inline void store_words(uint8_t* p, Words w) {
    store32(p, w.a);
    store32(p + 4, w.b);
    store32(p + 8, w.c);
    store32(p + 12, w.d);
}
[[gnu::always_inline]] inline Words xor_words(Words x, Words y) {
    return {x.a ^ y.a, x.b ^ y.b, x.c ^ y.c, x.d ^ y.d};
}

[[gnu::always_inline]] inline Words enc1(const Schedule& s, Words w) {
    const uint32_t* k = s.k;
    w = enc_rounds(s, {w.a ^ k[0], w.b ^ k[1], w.c ^ k[2], w.d ^ k[3]});
    return {w.a ^ k[4], w.b ^ k[5], w.c ^ k[6], w.d ^ k[7]};
}
[[gnu::always_inline]] inline Words dec1(const Schedule& s, Words w) {
    const uint32_t* k = s.k;
    w = dec_rounds(s, {w.a ^ k[4], w.b ^ k[5], w.c ^ k[6], w.d ^ k[7]});
    return {w.a ^ k[0], w.b ^ k[1], w.c ^ k[2], w.d ^ k[3]};
}

// N independent blocks through the scalar cipher, whitening included, their
// rounds interleaved. One block alone is a serial chain of load latencies
// (about 190 cycles per block); N chains side by side let out-of-order
// execution overlap them until the load ports and ALUs are the limit. On
// Zen 5, ECB, fully unrolled: 1 block 7.3 TSC ticks/byte, 2 blocks 4.5,
// 3 blocks 3.5, 4 blocks 3.35, 6 3.36, 8 3.47 (the words start to spill),
// against 4.65 for the 16-block gather engine.
//
// The round loop runs four rounds per iteration, not all sixteen unrolled.
// Alone in a tight loop the fully unrolled step is 4-12% faster, but it is
// several KB of straight code per width and kernel, and inside EVP, where
// other code runs between the calls, short calls paid for that footprint
// (Zen 5, family 26, min of 5-9 processes: a 128-byte ECB update 343-370
// -> 213 ns, a 64-byte Twofish-128-GCM message 343 -> 233 ns; 16 KiB updates
// within 1%; one lone 4-block step 1-4% slower). The one-block
// enc_rounds/dec_rounds above stay unrolled: rolled, the serial modes lost
// 5-6% at 64 bytes and at 16 KiB.
template <bool Enc, size_t N>
[[gnu::always_inline]] inline void crypt_n(const Schedule& s, Words (&w)[N]) {
    const uint32_t* k = s.k;
    uint32_t a[N], b[N], c[N], d[N];
    if constexpr (Enc) {
#pragma GCC unroll 8
        for (size_t j = 0; j < N; ++j) {
            a[j] = w[j].a ^ k[0], b[j] = w[j].b ^ k[1], c[j] = w[j].c ^ k[2], d[j] = w[j].d ^ k[3];
        }
#pragma GCC unroll 2
        for (int r = 0; r < 16; r += 2) {
#pragma GCC unroll 8
            for (size_t j = 0; j < N; ++j) {
                uint32_t t0, t1;
                g_pair(s, a[j], b[j], t0, t1);
                c[j] = std::rotr(c[j] ^ (t0 + t1 + k[8 + 2 * r]), 1);
                d[j] = std::rotl(d[j], 1) ^ (t0 + 2 * t1 + k[9 + 2 * r]);
            }
#pragma GCC unroll 8
            for (size_t j = 0; j < N; ++j) {
                uint32_t t0, t1;
                g_pair(s, c[j], d[j], t0, t1);
                a[j] = std::rotr(a[j] ^ (t0 + t1 + k[10 + 2 * r]), 1);
                b[j] = std::rotl(b[j], 1) ^ (t0 + 2 * t1 + k[11 + 2 * r]);
            }
        }
#pragma GCC unroll 8
        for (size_t j = 0; j < N; ++j) w[j] = {c[j] ^ k[4], d[j] ^ k[5], a[j] ^ k[6], b[j] ^ k[7]};
    } else {
#pragma GCC unroll 8
        for (size_t j = 0; j < N; ++j) {
            c[j] = w[j].a ^ k[4], d[j] = w[j].b ^ k[5], a[j] = w[j].c ^ k[6], b[j] = w[j].d ^ k[7];
        }
#pragma GCC unroll 2
        for (int r = 14; r >= 0; r -= 2) {
#pragma GCC unroll 8
            for (size_t j = 0; j < N; ++j) {
                uint32_t t0, t1;
                g_pair(s, c[j], d[j], t0, t1);
                a[j] = std::rotl(a[j], 1) ^ (t0 + t1 + k[10 + 2 * r]);
                b[j] = std::rotr(b[j] ^ (t0 + 2 * t1 + k[11 + 2 * r]), 1);
            }
#pragma GCC unroll 8
            for (size_t j = 0; j < N; ++j) {
                uint32_t t0, t1;
                g_pair(s, a[j], b[j], t0, t1);
                c[j] = std::rotl(c[j], 1) ^ (t0 + t1 + k[8 + 2 * r]);
                d[j] = std::rotr(d[j] ^ (t0 + 2 * t1 + k[9 + 2 * r]), 1);
            }
        }
#pragma GCC unroll 8
        for (size_t j = 0; j < N; ++j) w[j] = {a[j] ^ k[0], b[j] ^ k[1], c[j] ^ k[2], d[j] ^ k[3]};
    }
}

// ---- AVX2: 8 blocks per set of four YMM registers, word-sliced --------------

[[gnu::always_inline]] inline __m256i vload(const uint8_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}
[[gnu::always_inline]] inline void vstore(uint8_t* p, __m256i v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
}
[[gnu::always_inline]] inline __m256i vxor(__m256i a, __m256i b) { return _mm256_xor_si256(a, b); }
[[gnu::always_inline]] inline __m256i bcast(uint32_t k) {
    return _mm256_set1_epi32(static_cast<int>(k));
}
// Two 16-byte blocks (lo in the low lane).
[[gnu::always_inline]] inline __m256i pair(__m128i lo, __m128i hi) {
    return _mm256_inserti128_si256(_mm256_castsi128_si256(lo), hi, 1);
}
[[gnu::always_inline]] inline __m128i load128(const uint8_t* p) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
[[gnu::always_inline]] inline void store128(uint8_t* p, __m128i v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}

// 4x4 transpose of dwords inside each 128-bit lane. With v[i] holding
// blocks 2i and 2i+1 it yields the four word registers (lane 0: blocks
// 0,2,4,6; lane 1: blocks 1,3,5,7) and back.
[[gnu::always_inline]] inline void transpose(__m256i& x0, __m256i& x1, __m256i& x2, __m256i& x3) {
    const __m256i t0 = _mm256_unpacklo_epi32(x0, x1), t1 = _mm256_unpackhi_epi32(x0, x1);
    const __m256i t2 = _mm256_unpacklo_epi32(x2, x3), t3 = _mm256_unpackhi_epi32(x2, x3);
    x0 = _mm256_unpacklo_epi64(t0, t2);
    x1 = _mm256_unpackhi_epi64(t0, t2);
    x2 = _mm256_unpacklo_epi64(t1, t3);
    x3 = _mm256_unpackhi_epi64(t1, t3);
}

// Byte j of every dword, zero-extended (the table index). Bytes 0 and 3 are
// an AND and a shift; 1 and 2 a PSHUFB, which runs on another port.
struct ByteIdx {
    __m256i b0, b1, b2, b3;
};

[[gnu::always_inline]] inline ByteIdx bytes_of(__m256i x) {
    const __m256i sh1 = _mm256_setr_epi8(1, -1, -1, -1, 5, -1, -1, -1, 9, -1, -1, -1, 13, -1, -1,
                                         -1, 1, -1, -1, -1, 5, -1, -1, -1, 9, -1, -1, -1, 13, -1,
                                         -1, -1);
    const __m256i sh2 = _mm256_setr_epi8(2, -1, -1, -1, 6, -1, -1, -1, 10, -1, -1, -1, 14, -1, -1,
                                         -1, 2, -1, -1, -1, 6, -1, -1, -1, 10, -1, -1, -1, 14, -1,
                                         -1, -1);
    return {_mm256_and_si256(x, _mm256_set1_epi32(0xFF)), _mm256_shuffle_epi8(x, sh1),
            _mm256_shuffle_epi8(x, sh2), _mm256_srli_epi32(x, 24)};
}

[[gnu::always_inline]] inline __m256i lookup(const uint32_t (&t)[256], __m256i idx) {
    return _mm256_i32gather_epi32(reinterpret_cast<const int*>(t), idx, 4);
}

[[gnu::always_inline]] inline __m256i vg0(const Schedule& s, __m256i x) {
    const ByteIdx i = bytes_of(x);
    return vxor(vxor(lookup(s.s[0], i.b0), lookup(s.s[1], i.b1)),
                vxor(lookup(s.s[2], i.b2), lookup(s.s[3], i.b3)));
}
[[gnu::always_inline]] inline __m256i vg1(const Schedule& s, __m256i x) {
    const ByteIdx i = bytes_of(x);
    return vxor(vxor(lookup(s.s[0], i.b3), lookup(s.s[1], i.b0)),
                vxor(lookup(s.s[2], i.b1), lookup(s.s[3], i.b2)));
}

// AVX2 has no 32-bit rotate.
[[gnu::always_inline]] inline __m256i rotl1(__m256i x) {
    return _mm256_or_si256(_mm256_slli_epi32(x, 1), _mm256_srli_epi32(x, 31));
}
[[gnu::always_inline]] inline __m256i rotr1(__m256i x) {
    return _mm256_or_si256(_mm256_srli_epi32(x, 1), _mm256_slli_epi32(x, 31));
}

// 8*S blocks in memory order: v[2*i..] holds blocks 2i, 2i+1 of set i/4.
template <size_t S>
using Blocks = __m256i[4 * S];

// The whole cipher on 8*S blocks in memory order, in registers.
template <size_t S>
[[gnu::always_inline]] inline void encrypt_sets(const Schedule& s, Blocks<S>& v) {
    const uint32_t* k = s.k;
    __m256i a[S], b[S], c[S], d[S];
#pragma GCC unroll 2
    for (size_t j = 0; j < S; ++j) {
        transpose(v[4 * j], v[4 * j + 1], v[4 * j + 2], v[4 * j + 3]);
        a[j] = vxor(v[4 * j], bcast(k[0]));
        b[j] = vxor(v[4 * j + 1], bcast(k[1]));
        c[j] = vxor(v[4 * j + 2], bcast(k[2]));
        d[j] = vxor(v[4 * j + 3], bcast(k[3]));
    }
    // Rolled over round pairs: the body is gather-bound, and unrolling all
    // 16 rounds of two sets only inflates the code.
    for (int r = 0; r < 16; r += 2) {
        const __m256i k0 = bcast(k[8 + 2 * r]), k1 = bcast(k[9 + 2 * r]);
#pragma GCC unroll 2
        for (size_t j = 0; j < S; ++j) {
            const __m256i t0 = vg0(s, a[j]), t1 = vg1(s, b[j]);
            const __m256i f0 = _mm256_add_epi32(_mm256_add_epi32(t0, t1), k0);
            const __m256i f1 =
                _mm256_add_epi32(_mm256_add_epi32(t0, _mm256_add_epi32(t1, t1)), k1);
            c[j] = rotr1(vxor(c[j], f0));
            d[j] = vxor(rotl1(d[j]), f1);
        }
        const __m256i k2 = bcast(k[10 + 2 * r]), k3 = bcast(k[11 + 2 * r]);
#pragma GCC unroll 2
        for (size_t j = 0; j < S; ++j) {
            const __m256i t0 = vg0(s, c[j]), t1 = vg1(s, d[j]);
            const __m256i f0 = _mm256_add_epi32(_mm256_add_epi32(t0, t1), k2);
            const __m256i f1 =
                _mm256_add_epi32(_mm256_add_epi32(t0, _mm256_add_epi32(t1, t1)), k3);
            a[j] = rotr1(vxor(a[j], f0));
            b[j] = vxor(rotl1(b[j]), f1);
        }
    }
#pragma GCC unroll 2
    for (size_t j = 0; j < S; ++j) {
        v[4 * j] = vxor(c[j], bcast(k[4]));
        v[4 * j + 1] = vxor(d[j], bcast(k[5]));
        v[4 * j + 2] = vxor(a[j], bcast(k[6]));
        v[4 * j + 3] = vxor(b[j], bcast(k[7]));
        transpose(v[4 * j], v[4 * j + 1], v[4 * j + 2], v[4 * j + 3]);
    }
}

template <size_t S>
[[gnu::always_inline]] inline void decrypt_sets(const Schedule& s, Blocks<S>& v) {
    const uint32_t* k = s.k;
    __m256i a[S], b[S], c[S], d[S];
#pragma GCC unroll 2
    for (size_t j = 0; j < S; ++j) {
        transpose(v[4 * j], v[4 * j + 1], v[4 * j + 2], v[4 * j + 3]);
        c[j] = vxor(v[4 * j], bcast(k[4]));
        d[j] = vxor(v[4 * j + 1], bcast(k[5]));
        a[j] = vxor(v[4 * j + 2], bcast(k[6]));
        b[j] = vxor(v[4 * j + 3], bcast(k[7]));
    }
    for (int r = 14; r >= 0; r -= 2) {
        const __m256i k2 = bcast(k[10 + 2 * r]), k3 = bcast(k[11 + 2 * r]);
#pragma GCC unroll 2
        for (size_t j = 0; j < S; ++j) {
            const __m256i t0 = vg0(s, c[j]), t1 = vg1(s, d[j]);
            const __m256i f0 = _mm256_add_epi32(_mm256_add_epi32(t0, t1), k2);
            const __m256i f1 =
                _mm256_add_epi32(_mm256_add_epi32(t0, _mm256_add_epi32(t1, t1)), k3);
            a[j] = vxor(rotl1(a[j]), f0);
            b[j] = rotr1(vxor(b[j], f1));
        }
        const __m256i k0 = bcast(k[8 + 2 * r]), k1 = bcast(k[9 + 2 * r]);
#pragma GCC unroll 2
        for (size_t j = 0; j < S; ++j) {
            const __m256i t0 = vg0(s, a[j]), t1 = vg1(s, b[j]);
            const __m256i f0 = _mm256_add_epi32(_mm256_add_epi32(t0, t1), k0);
            const __m256i f1 =
                _mm256_add_epi32(_mm256_add_epi32(t0, _mm256_add_epi32(t1, t1)), k1);
            c[j] = vxor(rotl1(c[j]), f0);
            d[j] = rotr1(vxor(d[j], f1));
        }
    }
#pragma GCC unroll 2
    for (size_t j = 0; j < S; ++j) {
        v[4 * j] = vxor(a[j], bcast(k[0]));
        v[4 * j + 1] = vxor(b[j], bcast(k[1]));
        v[4 * j + 2] = vxor(c[j], bcast(k[2]));
        v[4 * j + 3] = vxor(d[j], bcast(k[3]));
        transpose(v[4 * j], v[4 * j + 1], v[4 * j + 2], v[4 * j + 3]);
    }
}

template <bool Enc, size_t S>
[[gnu::always_inline]] inline void crypt_sets(const Schedule& s, Blocks<S>& v) {
    if constexpr (Enc) encrypt_sets<S>(s, v);
    else decrypt_sets<S>(s, v);
}

// Dword mask selecting, in register i of a group (blocks 2i, 2i+1), the
// blocks below `n`: for masked loads and stores of a partial group.
[[gnu::always_inline]] inline __m256i tail_mask(size_t n, size_t i) {
    const __m256i lane = _mm256_setr_epi32(0, 0, 0, 0, 1, 1, 1, 1);
    const int left = static_cast<int>(n) - 2 * static_cast<int>(i);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(left), lane);
}

} // namespace
} // namespace hwc::x86_64::twofish
