// SPDX-License-Identifier: Apache-2.0
// The mode kernels, key schedule and core descriptor of the x86_64 SM4 cores,
// written once over an S-box policy P (see sm4_avx2.h for what P provides):
// ECB, CBC/CFB decryption, CTR, CFB8 decryption, XTS (IEEE and GB) and OCB
// 8..32 blocks at a time on the word-sliced engine; CBC/CFB encryption, OFB,
// CFB8 encryption and CBC-MAC one block at a time in the serial form, on a
// serial engine E (SerialXmm below, or sm4_serial_vl.h's).
//
// Internal linkage throughout (unnamed namespace), like sm4_avx2.h: each
// core's translation unit instantiates its own copy under its own -m flags.
#pragma once

#include "cores/sm4_affine.h"
#include "cores/x86_64/sm4_avx2.h"

namespace hwc::x86_64 {
namespace {
namespace sm4v {

// ---- ECB ---------------------------------------------------------------------

template <class P, size_t Off>
void ecb_kernel(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    const uint32_t* rk = round_keys(ks, Off);
    in_chunks<P>(in, out, n, [&](auto w, const uint8_t* i, uint8_t* o, size_t) {
        crypt_w<P, decltype(w)>(rk, i, o);
    });
}

// ---- serial modes: one block, each word broadcast to all four lanes -----------
//
// Chaining values stay as four broadcast words between blocks: the output
// words (X35, X34, X33, X32) are the next block's input words after at most
// one XOR, so no shuffle sits on the dependency chain; the block is packed
// into memory order only to be stored. The words are kept in the serial
// form of sm4_affine.h (X' = Q X, round keys Pre(rk)).

template <class P>
struct SerialConsts {
    typename P::Serial s;
    X bswap;
};
template <class P>
[[gnu::always_inline]] inline SerialConsts<P> load_serial() {
    return {P::serial(), bcast16<1>(kBswap32)};
}

// Block (memory order) -> four broadcast words in the serial form, and back.
template <class P>
[[gnu::always_inline]] inline void split_words(const SerialConsts<P>& k, X blk, X (&w)[4]) {
    const X v = P::to_q(vshuf(blk, k.bswap), k.s);
    w[0] = _mm_shuffle_epi32(v, 0x00);
    w[1] = _mm_shuffle_epi32(v, 0x55);
    w[2] = _mm_shuffle_epi32(v, 0xaa);
    w[3] = _mm_shuffle_epi32(v, 0xff);
}
template <class P>
[[gnu::always_inline]] inline X join_words(const SerialConsts<P>& k, const X (&w)[4]) {
    const X a = _mm_blend_epi32(w[0], w[1], 0x2);
    const X b = _mm_blend_epi32(w[2], w[3], 0x8);
    return vshuf(P::from_q(_mm_blend_epi32(a, b, 0xc), k.s), k.bswap);
}

// The cipher in the serial form, in place: output word j replaces input
// word j. rkq = Pre(rk_i). Each round also forms the next round's
// inversion input, with the XOR tree arranged so that only two XORs follow
// the rotations: in' = ((X_{j+2} ^ X_{j+3} ^ rk'_{i+1} ^ X_j ^ F0) ^ R^3 F3)
// ^ (R F1 ^ R^2 F1), the first part mostly ready early.
template <class P>
[[gnu::always_inline]] inline void crypt1(const uint32_t* rkq, const SerialConsts<P>& k,
                                          X (&w)[4]) {
    X x0 = w[0], x1 = w[1], x2 = w[2], x3 = w[3];
    const X r8 = ctl<1>(kRotCtl.b[1]), r16 = ctl<1>(kRotCtl.b[2]), r24 = ctl<1>(kRotCtl.b[3]);
    X in = vxor(vxor(vxor(x1, x2), bcast32<1>(rkq[0])), x3);
    // a = X_j; c, d = X_{j+2}, X_{j+3}; knext = the next round's key.
    auto round = [&](X& a, X c, X d, uint32_t knext) {
        X f0, f1, f3;
        P::serial_f(in, k.s, f0, f1, f3);
        const X t3 = vshuf(f3, r24);
        const X s1 = vxor(vshuf(f1, r8), vshuf(f1, r16));
        const X early = vxor(vxor(vxor(c, d), bcast32<1>(knext)), vxor(a, f0));
        in = vxor(vxor(early, t3), s1);
        a = vxor(vxor(a, f0), vxor(s1, t3));
    };
    // The last round forms an input nobody uses, keyed with rk'_0.
    for (unsigned r = 0; r < 32; r += 4) {
        round(x0, x2, x3, rkq[r + 1]);
        round(x1, x3, x0, rkq[r + 2]);
        round(x2, x0, x1, rkq[r + 3]);
        round(x3, x1, x2, rkq[(r + 4) & 31]);
    }
    w[0] = x3;
    w[1] = x2;
    w[2] = x1;
    w[3] = x0;
}

// A serial engine E encrypts one block in the serial form in place:
// E::crypt(ks, k, w). The mode kernels below are written over it; this one
// is crypt1 on AVX2, sm4_serial_vl.h has a shorter round on AVX-512VL.
template <class P>
struct SerialXmm {
    [[gnu::always_inline]] static void crypt(const KeySchedule& ks, const SerialConsts<P>& k,
                                             X (&w)[4]) {
        crypt1(round_keys(ks, kEncQOff), k, w);
    }
};

template <class P, class E, bool Mac>
void cbc_enc_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    if (n == 0) return;
    const SerialConsts<P> k = load_serial<P>();
    X c[4], p[4];
    split_words(k, ld<1>(iv), c);
    for (; n; --n, in += 16) {
        split_words(k, ld<1>(in), p);
        for (unsigned j = 0; j < 4; ++j) c[j] = vxor(c[j], p[j]);
        E::crypt(ks, k, c);
        if constexpr (!Mac) {
            st(out, join_words(k, c));
            out += 16;
        }
    }
    st(iv, join_words(k, c));
}

template <class P, class E>
void cbc_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                 size_t n) {
    cbc_enc_kernel<P, E, false>(ks, iv, in, out, n);
}
template <class P, class E>
void cbc_mac(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, size_t n) {
    cbc_enc_kernel<P, E, true>(ks, iv, in, nullptr, n);
}

template <class P, class E>
void cfb_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                 size_t n) {
    if (n == 0) return;
    const SerialConsts<P> k = load_serial<P>();
    X c[4], p[4];
    split_words(k, ld<1>(iv), c);
    for (; n; --n, in += 16, out += 16) {
        split_words(k, ld<1>(in), p);
        E::crypt(ks, k, c);
        for (unsigned j = 0; j < 4; ++j) c[j] = vxor(c[j], p[j]);
        st(out, join_words(k, c));
    }
    st(iv, join_words(k, c));
}

template <class P, class E>
void ofb(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const SerialConsts<P> k = load_serial<P>();
    X s[4];
    split_words(k, ld<1>(iv), s);
    for (; n; --n, in += 16, out += 16) {
        E::crypt(ks, k, s);
        st(out, vxor(ld<1>(in), join_words(k, s)));
    }
    st(iv, join_words(k, s));
}

// CFB8, one block encryption per byte; the shift register stays in an XMM
// register (byte 0 shifted out, the ciphertext byte in at 15). The keystream
// byte is byte 0 of the output block.
template <class P, class E>
[[gnu::always_inline]] inline X cfb8_byte(const KeySchedule& ks, const SerialConsts<P>& k, X reg,
                                          const uint8_t* in, uint8_t* out, bool encrypt) {
    X w[4];
    split_words(k, reg, w);
    E::crypt(ks, k, w);
    const uint32_t ks_byte = static_cast<uint32_t>(_mm_cvtsi128_si32(join_words(k, w))) & 0xff;
    const uint8_t c = static_cast<uint8_t>(*in ^ ks_byte);
    const uint8_t fb = encrypt ? c : *in;
    *out = c;
    return _mm_or_si128(_mm_srli_si128(reg, 1), _mm_slli_si128(_mm_cvtsi32_si128(fb), 15));
}

template <class P, class E>
void cfb8_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                  size_t n) {
    if (n == 0) return;
    const SerialConsts<P> k = load_serial<P>();
    X reg = ld<1>(iv);
    for (; n; --n, ++in, ++out) reg = cfb8_byte<P, E>(ks, k, reg, in, out, true);
    st(iv, reg);
}

// CFB8 decryption is parallel: the register seen by each byte holds only
// ciphertext, all of it known. Per 16 bytes the 16 registers are windows
// over (previous 16 ciphertext bytes || these 16), encrypted as one 16-block
// chunk; the last 0..15 bytes go one at a time.
template <class P, class E>
void cfb8_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                  size_t n) {
    if (n == 0) return;
    const uint32_t* rk = round_keys(ks, kEncOff);
    X reg = ld<1>(iv);
    if (n >= 16) {
        alignas(32) uint8_t win[32], blk[256];
        for (; n >= 16; n -= 16, in += 16, out += 16) {
            st(win, reg);
            reg = ld<1>(in);
            st(win + 16, reg);
            for (unsigned j = 0; j < 16; ++j) std::memcpy(blk + 16 * j, win + j, 16);
            crypt_w<P, W16>(rk, blk, blk);
            for (unsigned j = 0; j < 16; ++j)
                out[j] = static_cast<uint8_t>(win[16 + j] ^ blk[16 * j]);
        }
        secure_wipe(blk, sizeof blk);
    }
    if (n != 0) {
        const SerialConsts<P> k = load_serial<P>();
        for (; n; --n, ++in, ++out) reg = cfb8_byte<P, E>(ks, k, reg, in, out, false);
    }
    st(iv, reg);
}

// ---- parallel modes ------------------------------------------------------------

// Row r of set s holds block b = 4Ls + r (and b + 4 for YMM); block b's
// offset in bytes:
template <unsigned L>
constexpr size_t row_off(size_t s, unsigned r) { return 16 * (4 * L * s + r); }

// CBC decryption: P_b = D(C_b) ^ C_{b-1}. Rows are stored last to first
// (crypt_rows), so with in == out every C_{b-1} a row needs is still
// unwritten, except for row 0 of each set, whose pair (C_{4Ls-1}, C_{4Ls+3})
// is loaded up front; so is the next chaining value.
template <class P>
void cbc_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                 size_t n) {
    if (n == 0) return;
    const uint32_t* rk = round_keys(ks, kDecOff);
    X prev = ld<1>(iv);
    in_chunks<P>(in, out, n, [&](auto w, const uint8_t* i, uint8_t* o, size_t m) {
        using W = decltype(w);
        constexpr unsigned L = W::L;
        constexpr size_t S = W::S;
        const Consts<P, L> k = load_consts<P, L>();
        Vec<L> p0[S];
        for (size_t s = 0; s < S; ++s) {
            const X lo = s == 0 ? prev : ld<1>(i + row_off<L>(s, 0) - 16);
            if constexpr (L == 1) p0[s] = lo;
            else p0[s] = _mm256_set_m128i(ld<1>(i + row_off<L>(s, 3)), lo);
        }
        const X next = ld<1>(i + 16 * (m - 1));
        crypt_rows<P, L, S>(
            rk, k, [&](size_t s, unsigned r) { return ld<L>(i + row_off<L>(s, r)); },
            [&](size_t s, unsigned r, Vec<L> v) {
                const Vec<L> c = r == 0 ? p0[s] : ld<L>(i + row_off<L>(s, r) - 16);
                st(o + row_off<L>(s, r), vxor(v, c));
            });
        prev = next;
    });
    st(iv, prev);
}

// CFB decryption: P_b = C_b ^ E(C_{b-1}); the cipher inputs are all known.
template <class P>
void cfb_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                 size_t n) {
    if (n == 0) return;
    const uint32_t* rk = round_keys(ks, kEncOff);
    X prev = ld<1>(iv);
    in_chunks<P>(in, out, n, [&](auto w, const uint8_t* i, uint8_t* o, size_t m) {
        using W = decltype(w);
        constexpr unsigned L = W::L;
        const Consts<P, L> k = load_consts<P, L>();
        const X next = ld<1>(i + 16 * (m - 1));
        crypt_rows<P, L, W::S>(
            rk, k,
            [&](size_t s, unsigned r) -> Vec<L> {
                if (s != 0 || r != 0) return ld<L>(i + row_off<L>(s, r) - 16);
                if constexpr (L == 1) return prev;
                else return _mm256_set_m128i(ld<1>(i + 48), prev);
            },
            [&](size_t s, unsigned r, Vec<L> v) {
                st(o + row_off<L>(s, r), vxor(v, ld<L>(i + row_off<L>(s, r))));
            });
        prev = next;
    });
    st(iv, prev);
}

// CTR: the 128-bit big-endian counter as native halves hi:lo. Counter
// blocks are built directly in the word-sliced layout: words 0..2 are the
// same for every block of a chunk unless its low 32 bits wrap inside it, and
// word 3 is a broadcast plus the block's position (set s, element e holds
// block 4Ls + e). A wrapping chunk (rare) builds every word from the 128-bit
// sum. The counter is public (the IV), so the branch reveals nothing secret.
template <unsigned L>
[[gnu::always_inline]] inline Vec<L> positions(size_t s) {
    if constexpr (L == 1)
        return _mm_add_epi32(_mm_setr_epi32(0, 1, 2, 3), bcast32<1>(static_cast<uint32_t>(4 * s)));
    else
        return _mm256_add_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
                                bcast32<2>(static_cast<uint32_t>(8 * s)));
}

template <class P>
void ctr(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const uint32_t* rk = round_keys(ks, kEncOff);
    uint64_t hi, lo;
    std::memcpy(&hi, iv, 8);
    std::memcpy(&lo, iv + 8, 8);
    hi = __builtin_bswap64(hi);
    lo = __builtin_bswap64(lo);
    in_chunks<P>(in, out, n, [&](auto w, const uint8_t* i, uint8_t* o, size_t m) {
        using W = decltype(w);
        constexpr unsigned L = W::L;
        constexpr size_t S = W::S, N = 4 * L * S;
        const Consts<P, L> k = load_consts<P, L>();
        Vec<L> x[S][4];
        if (static_cast<uint32_t>(lo) <= 0xffffffffu - (N - 1)) {
            for (size_t s = 0; s < S; ++s) {
                x[s][0] = bcast32<L>(static_cast<uint32_t>(hi >> 32));
                x[s][1] = bcast32<L>(static_cast<uint32_t>(hi));
                x[s][2] = bcast32<L>(static_cast<uint32_t>(lo >> 32));
                x[s][3] = vadd32(bcast32<L>(static_cast<uint32_t>(lo)), positions<L>(s));
            }
        } else {
            alignas(32) uint32_t wd[4][N];
            for (size_t b = 0; b < N; ++b) {
                const uint64_t l = lo + b, h = hi + (l < lo);
                wd[0][b] = static_cast<uint32_t>(h >> 32);
                wd[1][b] = static_cast<uint32_t>(h);
                wd[2][b] = static_cast<uint32_t>(l >> 32);
                wd[3][b] = static_cast<uint32_t>(l);
            }
            for (size_t s = 0; s < S; ++s)
                for (unsigned j = 0; j < 4; ++j)
                    x[s][j] = ldc<L>(wd[j] + 4 * L * s);
        }
        crypt_state<P, L, S>(rk, k, x, [&](size_t s, unsigned r, Vec<L> v) {
            st(o + row_off<L>(s, r), vxor(v, ld<L>(i + row_off<L>(s, r))));
        });
        const uint64_t l = lo + m;
        hi += l < lo;
        lo = l;
    });
    hi = __builtin_bswap64(hi);
    lo = __builtin_bswap64(lo);
    std::memcpy(iv, &hi, 8);
    std::memcpy(iv + 8, &lo, 8);
}

// ---- XTS -----------------------------------------------------------------------

// One-bit tweak steps on the tweak as two native 64-bit halves (both rules
// are defined in cores/portable/generic_xts.cpp); branch-free, the tweak is
// secret. IEEE 1619: little-endian, shift left, 0x87 into byte 0. GB/T
// 17964: bit-reflected big-endian, shift right, 0xE1 into byte 0.
struct Tweak {
    uint64_t a, b; // IEEE: a = low half, b = high; GB: a = bytes 0..7, b = 8..15 (big-endian)
};

template <bool Gb>
Tweak load_tweak(const uint8_t t[16]) {
    Tweak x;
    std::memcpy(&x.a, t, 8);
    std::memcpy(&x.b, t + 8, 8);
    if constexpr (Gb) x = {__builtin_bswap64(x.a), __builtin_bswap64(x.b)};
    return x;
}
template <bool Gb>
void store_tweak(uint8_t t[16], Tweak x) {
    if constexpr (Gb) x = {__builtin_bswap64(x.a), __builtin_bswap64(x.b)};
    std::memcpy(t, &x.a, 8);
    std::memcpy(t + 8, &x.b, 8);
}
template <bool Gb>
Tweak mul_x(Tweak x) {
    if constexpr (Gb) {
        const uint64_t carry = x.b & 1;
        return {(x.a >> 1) ^ ((uint64_t{0xE1} << 56) & (0 - carry)), (x.b >> 1) | (x.a << 63)};
    } else {
        const uint64_t carry = x.b >> 63;
        return {(x.a << 1) ^ (0x87 & (0 - carry)), (x.b << 1) | (x.a >> 63)};
    }
}

// The chunk's tweaks are written to a stack buffer (wiped on return), then
// folded in on the way in and out: block b = tw_b ^ E(P_b ^ tw_b).
template <class P, bool Gb, size_t Off>
void xts_kernel(const KeySchedule& ks, uint8_t tweak[16], const uint8_t* in, uint8_t* out,
                size_t n) {
    if (n == 0) return;
    const uint32_t* rk = round_keys(ks, Off);
    alignas(32) uint8_t tw[kMaxChunkBytes] = {};
    Tweak t = load_tweak<Gb>(tweak);
    in_chunks<P>(in, out, n, [&](auto w, const uint8_t* i, uint8_t* o, size_t m) {
        using W = decltype(w);
        constexpr unsigned L = W::L;
        const Consts<P, L> k = load_consts<P, L>();
        for (size_t b = 0; b < m; ++b) {
            store_tweak<Gb>(tw + 16 * b, t);
            t = mul_x<Gb>(t);
        }
        crypt_rows<P, L, W::S>(
            rk, k,
            [&](size_t s, unsigned r) {
                return vxor(ld<L>(i + row_off<L>(s, r)), ld<L>(tw + row_off<L>(s, r)));
            },
            [&](size_t s, unsigned r, Vec<L> v) {
                st(o + row_off<L>(s, r), vxor(v, ld<L>(tw + row_off<L>(s, r))));
            });
    });
    store_tweak<Gb>(tweak, t);
    secure_wipe(&t, sizeof t);
    secure_wipe(tw, sizeof tw);
}

// ---- OCB -------------------------------------------------------------------------

// OcbState contract in cores/core.h. A chunk's offsets (Offset_i =
// Offset_{i-1} ^ L[ntz(i)], i public) go to a stack buffer like XTS tweaks;
// the checksum is summed over the plaintext blocks in memory (before the
// chunk for encryption, after it for decryption), so a padded tail adds
// nothing to it.
template <class P, bool Encrypt>
void ocb_kernel(const KeySchedule& ks, OcbState& st_, const uint8_t* in, uint8_t* out,
                size_t n) {
    if (n == 0) return;
    const uint32_t* rk = round_keys(ks, Encrypt ? kEncOff : kDecOff);
    alignas(32) uint8_t off[kMaxChunkBytes] = {};
    X offset = ld<1>(st_.offset), sum = ld<1>(st_.checksum);
    uint64_t idx = st_.blocks;
    in_chunks<P>(in, out, n, [&](auto w, const uint8_t* i, uint8_t* o, size_t m) {
        using W = decltype(w);
        constexpr unsigned L = W::L;
        const Consts<P, L> k = load_consts<P, L>();
        for (size_t b = 0; b < m; ++b) {
            offset = vxor(offset, ld<1>(st_.l[__builtin_ctzll(++idx)]));
            st(off + 16 * b, offset);
            if constexpr (Encrypt) sum = vxor(sum, ld<1>(i + 16 * b));
        }
        crypt_rows<P, L, W::S>(
            rk, k,
            [&](size_t s, unsigned r) {
                return vxor(ld<L>(i + row_off<L>(s, r)), ld<L>(off + row_off<L>(s, r)));
            },
            [&](size_t s, unsigned r, Vec<L> v) {
                st(o + row_off<L>(s, r), vxor(v, ld<L>(off + row_off<L>(s, r))));
            });
        if constexpr (!Encrypt)
            for (size_t b = 0; b < m; ++b) sum = vxor(sum, ld<1>(o + 16 * b));
    });
    st(st_.offset, offset);
    st(st_.checksum, sum);
    st_.blocks = idx;
    secure_wipe(off, sizeof off);
}

// ---- key schedule --------------------------------------------------------------

// System parameter FK and CK_i (byte j, most significant first, is
// (4i + j) * 7 mod 256): constants of the standard.
constexpr uint32_t kFK[4] = {0xa3b1bac6, 0x56aa3350, 0x677d9197, 0xb27022dc};
constexpr uint32_t ck(unsigned i) {
    uint32_t v = 0;
    for (unsigned j = 0; j < 4; ++j) v = (v << 8) | (((4 * i + j) * 7) & 0xff);
    return v;
}
static_assert(ck(0) == 0x00070e15 && ck(31) == 0x646b7279);

constexpr uint32_t rotl32(uint32_t x, unsigned k) { return (x << k) | (x >> (32 - k)); }

// K_0..3 = MK ^ FK; rk_i = K_{i+4} = K_i ^ L'(tau(K_{i+1} ^ K_{i+2} ^ K_{i+3} ^
// CK_i)), L'(B) = B ^ (B <<< 13) ^ (B <<< 23). tau runs on the vector S-box
// (a broadcast word, so a ShiftRows permutation moves nothing): constant
// time. The serial kernels' keys Pre(rk_i) follow.
template <class P>
bool set_key(KeySchedule& ks, const uint8_t* key, size_t keylen) {
    if (keylen != 16) return false;
    const auto t = P::template tables<1>();
    uint32_t kw[4], rk[32];
    for (unsigned i = 0; i < 4; ++i) {
        uint32_t v;
        std::memcpy(&v, key + 4 * i, 4);
        kw[i] = __builtin_bswap32(v) ^ kFK[i];
    }
    for (unsigned r = 0; r < 32; ++r) {
        const uint32_t x = kw[(r + 1) & 3] ^ kw[(r + 2) & 3] ^ kw[(r + 3) & 3] ^ ck(r);
        const uint32_t b = static_cast<uint32_t>(
            _mm_cvtsi128_si32(P::template sbox<1>(bcast32<1>(x), t)));
        kw[r & 3] ^= b ^ rotl32(b, 13) ^ rotl32(b, 23);
        rk[r] = kw[r & 3];
    }
    for (unsigned r = 0; r < 32; ++r) {
        std::memcpy(ks.bytes + kEncOff + 4 * r, &rk[r], 4);
        std::memcpy(ks.bytes + kDecOff + 4 * r, &rk[31 - r], 4);
    }
    const typename P::Serial s = P::serial();
    const X pre_c = _mm_set1_epi8(static_cast<char>(sm4alg::kPreC));
    for (unsigned r = 0; r < 32; r += 4)
        st(ks.bytes + kEncQOff + 4 * r,
           vxor(P::to_q(_mm_loadu_si128(reinterpret_cast<const X*>(rk + r)), s), pre_c));
    // rk'_r ^ rk'_{r+1} and the same rotated by 16 (the last entry unused).
    const uint32_t* rkq = round_keys(ks, kEncQOff);
    for (unsigned r = 0; r < 32; ++r) {
        const uint32_t d = r < 31 ? rkq[r] ^ rkq[r + 1] : 0;
        const uint32_t d2 = rotl32(d, 16);
        std::memcpy(ks.bytes + kEncDkOff + 4 * r, &d, 4);
        std::memcpy(ks.bytes + kEncDk2Off + 4 * r, &d2, 4);
    }
    secure_wipe(kw, sizeof kw);
    secure_wipe(rk, sizeof rk);
    return true;
}

// ---- the descriptor -----------------------------------------------------------

template <class P, class E = SerialXmm<P>>
constexpr BlockCore make_core(const char* name, uint32_t needs,
                              bool (*set_key_fn)(KeySchedule&, const uint8_t*, size_t)) {
    return BlockCore{
        .name = name,
        .family = Family::sm4,
        .hardware = true,
        .needs = needs,
        .set_key = set_key_fn,
        .encrypt_blocks = ecb_kernel<P, kEncOff>,
        .decrypt_blocks = ecb_kernel<P, kDecOff>,
        .cbc_encrypt = cbc_encrypt<P, E>,
        .cbc_decrypt = cbc_decrypt<P>,
        .cfb_encrypt = cfb_encrypt<P, E>,
        .cfb_decrypt = cfb_decrypt<P>,
        .ofb = ofb<P, E>,
        .ctr = ctr<P>,
        .cfb8_encrypt = cfb8_encrypt<P, E>,
        .cfb8_decrypt = cfb8_decrypt<P, E>,
        .cbc_mac = cbc_mac<P, E>,
        .xts_encrypt = xts_kernel<P, false, kEncOff>,
        .xts_decrypt = xts_kernel<P, false, kDecOff>,
        .xts_gb_encrypt = xts_kernel<P, true, kEncOff>,
        .xts_gb_decrypt = xts_kernel<P, true, kDecOff>,
        .ocb_encrypt = ocb_kernel<P, true>,
        .ocb_decrypt = ocb_kernel<P, false>,
    };
}

} // namespace sm4v
} // namespace
} // namespace hwc::x86_64
