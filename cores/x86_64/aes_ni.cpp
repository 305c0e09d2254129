// SPDX-License-Identifier: Apache-2.0
// aes-aesni: AES-128/192/256 on AES-NI (AESENC/AESDEC/AESIMC/AESKEYGENASSIST):
// key setup, ECB, the chained modes (CBC, CFB, OFB, CTR, CFB8, CBC-MAC), CCM
// (CTR beside CBC-MAC in one loop) and the descriptor. XTS, OCB and the
// stitched GCM kernel have their own units (aes_ni_xts.cpp, aes_ni_ocb.cpp,
// aes_ni_gcm.cpp); shared layout and round helpers are in aes_ni.h.
//
// Compiled with -maes -msse4.1 (root CMakeLists.txt) and reached only through
// the `aes_ni` descriptor, which the registry offers when the CPU probe
// reports kX86Aesni. The stitched GCM slots need PCLMULQDQ too; they are only
// used with ghash-clmul (cores/modes.h gcm_kernel), which needs kX86Pclmul.
//
// Parallel modes (ECB, CBC/CFB/CFB8 decryption, CTR) run 8 blocks at a time,
// then 4, then 1. Serial modes (CBC/CFB encryption, OFB, CBC-MAC, CFB8
// encryption) keep the chaining value in a register and fold the per-block
// XORs into the round keys (aes_ni.h), so the chain is exactly NR AES
// instructions long. AES-NI instructions run in constant time.
#include "cores/x86_64/aes_ni.h"

#include <cstring>

#include "cores/cpu.h"
#include "cores/x86_64/x86_64.h"

namespace hwc::x86_64 {
namespace {

using namespace aesni;

// ---- ECB -------------------------------------------------------------------

template <unsigned NR, size_t N, bool Enc>
[[gnu::always_inline]] inline void ecb_step(const RoundKeys<NR>& rk, const uint8_t* in,
                                            uint8_t* out) {
    __m128i b[N];
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) b[i] = load(in + 16 * i);
    if constexpr (Enc) encrypt_n<NR>(rk, b);
    else decrypt_n<NR>(rk, b);
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) store(out + 16 * i, b[i]);
}

template <unsigned NR, bool Enc>
void ecb_kernel(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(Enc ? aes_key(ks).enc : aes_key(ks).dec);
    for (; n >= 8; n -= 8, in += 128, out += 128) ecb_step<NR, 8, Enc>(rk, in, out);
    if (n >= 4) {
        ecb_step<NR, 4, Enc>(rk, in, out);
        n -= 4, in += 64, out += 64;
    }
    for (; n; --n, in += 16, out += 16) ecb_step<NR, 1, Enc>(rk, in, out);
}

// ---- serial modes: chaining value in a register, XORs folded into keys -------

// CBC encryption. The next block's cipher input, C_i ^ P_{i+1} ^ k0, is
// AESENCLAST(s, klast ^ P_{i+1} ^ k0) straight from the state s, and C_i is
// recovered off the chain as that value ^ (P_{i+1} ^ k0).
template <unsigned NR>
void cbc_enc_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(aes_key(ks).enc);
    __m128i x = _mm_xor_si128(_mm_xor_si128(load(iv), load(in)), rk.k[0]);
    for (; n > 1; --n, in += 16, out += 16) {
        const __m128i s = enc_middle1<NR>(rk, x);
        const __m128i d = _mm_xor_si128(load(in + 16), rk.k[0]);
        x = _mm_aesenclast_si128(s, _mm_xor_si128(rk.k[NR], d));
        store(out, _mm_xor_si128(x, d));
    }
    const __m128i c = _mm_aesenclast_si128(enc_middle1<NR>(rk, x), rk.k[NR]);
    store(out, c);
    store(iv, c);
}

// CBC-MAC: CBC encryption without the output.
template <unsigned NR>
void cbc_mac_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(aes_key(ks).enc);
    __m128i x = _mm_xor_si128(_mm_xor_si128(load(iv), load(in)), rk.k[0]);
    const __m128i kk = _mm_xor_si128(rk.k[NR], rk.k[0]);
    for (; n > 1; --n, in += 16)
        x = _mm_aesenclast_si128(enc_middle1<NR>(rk, x), _mm_xor_si128(kk, load(in + 16)));
    store(iv, _mm_aesenclast_si128(enc_middle1<NR>(rk, x), rk.k[NR]));
}

// CFB encryption: C_i = E(C_{i-1}) ^ P_i, and the chain carries C_i ^ k0.
template <unsigned NR>
void cfb_enc_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(aes_key(ks).enc);
    const __m128i kk = _mm_xor_si128(rk.k[NR], rk.k[0]);
    __m128i x = _mm_xor_si128(load(iv), rk.k[0]);
    for (; n; --n, in += 16, out += 16) {
        x = _mm_aesenclast_si128(enc_middle1<NR>(rk, x), _mm_xor_si128(kk, load(in)));
        store(out, _mm_xor_si128(x, rk.k[0]));
    }
    store(iv, _mm_xor_si128(x, rk.k[0]));
}

// OFB: the register S_i = E(S_{i-1}) is carried as S_i ^ k0.
template <unsigned NR>
void ofb_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(aes_key(ks).enc);
    const __m128i kk = _mm_xor_si128(rk.k[NR], rk.k[0]);
    __m128i x = _mm_xor_si128(load(iv), rk.k[0]);
    for (; n; --n, in += 16, out += 16) {
        x = _mm_aesenclast_si128(enc_middle1<NR>(rk, x), kk);
        store(out, _mm_xor_si128(x, _mm_xor_si128(load(in), rk.k[0])));
    }
    store(iv, _mm_xor_si128(x, rk.k[0]));
}

// CFB8 encryption, one block encryption per byte: the shift register never
// leaves its XMM register (shift out byte 0, the ciphertext byte in at 15).
template <unsigned NR>
void cfb8_enc_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(aes_key(ks).enc);
    __m128i reg = load(iv);
    for (; n; --n, ++in, ++out) {
        const __m128i e = _mm_aesenclast_si128(enc_middle1<NR>(rk, _mm_xor_si128(reg, rk.k[0])),
                                               rk.k[NR]);
        // Only byte 0 of c matters: it is shifted up to byte 15.
        const __m128i c = _mm_xor_si128(e, _mm_cvtsi32_si128(*in));
        *out = static_cast<uint8_t>(_mm_cvtsi128_si32(c));
        reg = _mm_or_si128(_mm_srli_si128(reg, 1), _mm_slli_si128(c, 15));
    }
    store(iv, reg);
}

// CFB8 decryption, one byte: as encryption, but the input byte is fed back.
template <unsigned NR>
[[gnu::always_inline]] inline __m128i cfb8_dec_byte(const RoundKeys<NR>& rk, __m128i reg,
                                                    const uint8_t* in, uint8_t* out) {
    const __m128i e = _mm_aesenclast_si128(enc_middle1<NR>(rk, _mm_xor_si128(reg, rk.k[0])),
                                           rk.k[NR]);
    const __m128i c = _mm_cvtsi32_si128(*in);
    *out = static_cast<uint8_t>(_mm_cvtsi128_si32(_mm_xor_si128(e, c)));
    return _mm_or_si128(_mm_srli_si128(reg, 1), _mm_slli_si128(c, 15));
}

// Byte 0 of each of 8 blocks, into bytes 0..7 of the result (the rest is
// don't-care): interleave bytes, then words, then dwords.
[[gnu::always_inline]] inline __m128i gather_byte0(const __m128i (&e)[8]) {
    const __m128i b01 = _mm_unpacklo_epi8(e[0], e[1]), b23 = _mm_unpacklo_epi8(e[2], e[3]);
    const __m128i b45 = _mm_unpacklo_epi8(e[4], e[5]), b67 = _mm_unpacklo_epi8(e[6], e[7]);
    return _mm_unpacklo_epi32(_mm_unpacklo_epi16(b01, b23), _mm_unpacklo_epi16(b45, b67));
}

// The register seen by byte k of a 16-byte group: the 16 ciphertext bytes
// before it, i.e. bytes k..15 of `prev` followed by bytes 0..k-1 of `cur`.
template <int K>
[[gnu::always_inline]] inline __m128i window(__m128i cur, __m128i prev) {
    if constexpr (K == 0) return prev;
    else return _mm_alignr_epi8(cur, prev, K);
}

template <unsigned NR, int Base>
[[gnu::always_inline]] inline __m128i cfb8_keystream8(const RoundKeys<NR>& rk, __m128i cur,
                                                      __m128i prev) {
    __m128i b[8] = {window<Base + 0>(cur, prev), window<Base + 1>(cur, prev),
                    window<Base + 2>(cur, prev), window<Base + 3>(cur, prev),
                    window<Base + 4>(cur, prev), window<Base + 5>(cur, prev),
                    window<Base + 6>(cur, prev), window<Base + 7>(cur, prev)};
    encrypt_n<NR>(rk, b);
    return gather_byte0(b);
}

// CFB8 decryption is parallel: the register for every byte is made of
// ciphertext only, which is all known. Per 16 bytes, the 16 registers are
// byte-shifted windows over the previous and the current ciphertext block
// (PALIGNR), 16 encryptions give the 16 keystream bytes, and the current
// block is loaded before the plaintext is stored (in == out).
template <unsigned NR>
void cfb8_dec_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(aes_key(ks).enc);
    __m128i reg = load(iv);
    for (; n >= 16; n -= 16, in += 16, out += 16) {
        const __m128i cur = load(in);
        const __m128i lo = cfb8_keystream8<NR, 0>(rk, cur, reg);
        const __m128i hi = cfb8_keystream8<NR, 8>(rk, cur, reg);
        store(out, _mm_xor_si128(cur, _mm_unpacklo_epi64(lo, hi)));
        reg = cur;
    }
    for (; n; --n, ++in, ++out) reg = cfb8_dec_byte<NR>(rk, reg, in, out);
    store(iv, reg);
}

// ---- parallel modes ------------------------------------------------------------

// CBC decryption: P_i = D(C_i) ^ C_{i-1}, the XOR folded into the last round
// key. Every ciphertext block of a group is loaded before any output is
// stored, so in == out is safe.
template <unsigned NR, size_t N>
[[gnu::always_inline]] inline void cbc_dec_step(const RoundKeys<NR>& rk, __m128i& prev,
                                                const uint8_t* in, uint8_t* out) {
    __m128i c[N], b[N];
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) {
        c[i] = load(in + 16 * i);
        b[i] = _mm_xor_si128(c[i], rk.k[0]);
    }
    dec_middle<NR>(rk, b);
    b[0] = _mm_aesdeclast_si128(b[0], _mm_xor_si128(rk.k[NR], prev));
#pragma GCC unroll 8
    for (size_t i = 1; i < N; ++i)
        b[i] = _mm_aesdeclast_si128(b[i], _mm_xor_si128(rk.k[NR], c[i - 1]));
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) store(out + 16 * i, b[i]);
    prev = c[N - 1];
}

template <unsigned NR>
void cbc_dec_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(aes_key(ks).dec);
    __m128i prev = load(iv);
    for (; n >= 8; n -= 8, in += 128, out += 128) cbc_dec_step<NR, 8>(rk, prev, in, out);
    if (n >= 4) {
        cbc_dec_step<NR, 4>(rk, prev, in, out);
        n -= 4, in += 64, out += 64;
    }
    for (; n; --n, in += 16, out += 16) cbc_dec_step<NR, 1>(rk, prev, in, out);
    store(iv, prev);
}

// CFB decryption: P_i = C_i ^ E(C_{i-1}); the cipher inputs are all known.
template <unsigned NR, size_t N>
[[gnu::always_inline]] inline void cfb_dec_step(const RoundKeys<NR>& rk, __m128i& prev,
                                                const uint8_t* in, uint8_t* out) {
    __m128i c[N], b[N];
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) c[i] = load(in + 16 * i);
    b[0] = _mm_xor_si128(prev, rk.k[0]);
#pragma GCC unroll 8
    for (size_t i = 1; i < N; ++i) b[i] = _mm_xor_si128(c[i - 1], rk.k[0]);
    enc_middle<NR>(rk, b);
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i)
        store(out + 16 * i, _mm_aesenclast_si128(b[i], _mm_xor_si128(rk.k[NR], c[i])));
    prev = c[N - 1];
}

template <unsigned NR>
void cfb_dec_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(aes_key(ks).enc);
    __m128i prev = load(iv);
    for (; n >= 8; n -= 8, in += 128, out += 128) cfb_dec_step<NR, 8>(rk, prev, in, out);
    if (n >= 4) {
        cfb_dec_step<NR, 4>(rk, prev, in, out);
        n -= 4, in += 64, out += 64;
    }
    for (; n; --n, in += 16, out += 16) cfb_dec_step<NR, 1>(rk, prev, in, out);
    store(iv, prev);
}

// CTR: the 128-bit big-endian counter is kept as two native 64-bit halves
// (carry from the low half into the high one, wrapping mod 2^128). A group
// of N blocks whose counters differ only in the last byte (no carry out of
// byte 15: the common case, 31 groups in 32) is one byte swap of the base
// and N 64-bit adds of i << 56, which lands on byte 15; otherwise each block
// is built from the native halves. The counter is public (the IV), so the
// branch reveals nothing secret.
template <size_t N>
[[gnu::always_inline]] inline void counter_blocks(Counter& ctr, __m128i (&b)[N]) {
    if ((ctr.lo & 0xff) <= 256 - N) {
        const __m128i base = counter_block(ctr.hi, ctr.lo);
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i)
            b[i] = _mm_add_epi64(base, _mm_set_epi64x(static_cast<long long>(i << 56), 0));
    } else {
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) {
            const uint64_t lo = ctr.lo + i;
            b[i] = counter_block(ctr.hi + (lo < ctr.lo), lo);
        }
    }
    const uint64_t lo = ctr.lo + N;
    ctr.hi += lo < ctr.lo;
    ctr.lo = lo;
}

// The data XOR is folded into the last round key.
template <unsigned NR, size_t N>
[[gnu::always_inline]] inline void ctr_step(const RoundKeys<NR>& rk, Counter& ctr,
                                            const uint8_t* in, uint8_t* out) {
    __m128i b[N];
    counter_blocks(ctr, b);
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) b[i] = _mm_xor_si128(b[i], rk.k[0]);
    enc_middle<NR>(rk, b);
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i)
        store(out + 16 * i, _mm_aesenclast_si128(b[i], _mm_xor_si128(rk.k[NR], load(in + 16 * i))));
}

template <unsigned NR>
void ctr_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(aes_key(ks).enc);
    Counter ctr = load_counter(iv);
    for (; n >= 8; n -= 8, in += 128, out += 128) ctr_step<NR, 8>(rk, ctr, in, out);
    if (n >= 4) {
        ctr_step<NR, 4>(rk, ctr, in, out);
        n -= 4, in += 64, out += 64;
    }
    for (; n; --n, in += 16, out += 16) ctr_step<NR, 1>(rk, ctr, in, out);
    store(iv, counter_block(ctr.hi, ctr.lo));
}

// ---- CCM: CTR and CBC-MAC in one round loop -----------------------------------
//
// CBC-MAC is one serial chain of NR AESENCs per block (its XORs folded into
// the last round key, as in cbc_mac_kernel), so it leaves the AES unit idle
// for most of each instruction's latency. Each iteration runs one MAC block
// and one independent CTR block through the same rounds, which fills part of
// that idle time: the pair costs about what the MAC block alone does, where
// separate passes pay for the CTR pass on top (AES-128-CCM, 16 KiB messages
// through EVP on a Cascade Lake Xeon: 18.5 us fused, 23.4 us in two passes).
//
// The MAC is over the plaintext. Encryption has it before the CTR block is
// done; decryption gets P_i from CTR block i, so there the CTR block in the
// loop is one ahead: iteration i finishes P_{i+1} in time to fold it into
// the last round of MAC block i. Both read a block before writing it, so
// in == out works.

// The counter block, then +1 (128-bit, like ctr_kernel).
[[gnu::always_inline]] inline __m128i next_block(Counter& ctr) {
    const __m128i b = counter_block(ctr.hi, ctr.lo);
    ctr.hi += ++ctr.lo == 0;
    return b;
}

template <unsigned NR, bool Enc>
void ccm_kernel(const KeySchedule& ks, uint8_t mac[16], uint8_t iv[16], const uint8_t* in,
                uint8_t* out, size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(aes_key(ks).enc);
    Counter ctr = load_counter(iv);
    const __m128i k0last = _mm_xor_si128(rk.k[0], rk.k[NR]);
    __m128i x; // MAC block input, whitened: chain ^ P_i ^ k0
    if constexpr (Enc) {
        x = _mm_xor_si128(_mm_xor_si128(load(mac), load(in)), rk.k[0]);
        for (size_t i = 0; i < n; ++i, in += 16, out += 16) {
            const __m128i p = load(in);
            __m128i b[2] = {x, _mm_xor_si128(next_block(ctr), rk.k[0])};
            enc_middle<NR>(rk, b);
            store(out, _mm_aesenclast_si128(b[1], _mm_xor_si128(rk.k[NR], p)));
            x = i + 1 < n ? _mm_aesenclast_si128(b[0], _mm_xor_si128(k0last, load(in + 16)))
                          : _mm_aesenclast_si128(b[0], rk.k[NR]);
        }
    } else {
        // P_0 alone, then MAC block i beside CTR block i + 1.
        __m128i c[1] = {_mm_xor_si128(next_block(ctr), rk.k[0])};
        enc_middle<NR>(rk, c);
        __m128i p = _mm_aesenclast_si128(c[0], _mm_xor_si128(rk.k[NR], load(in)));
        store(out, p);
        x = _mm_xor_si128(_mm_xor_si128(load(mac), p), rk.k[0]);
        for (size_t i = 0; i < n; ++i, in += 16, out += 16) {
            if (i + 1 == n) {
                __m128i b[1] = {x};
                enc_middle<NR>(rk, b);
                x = _mm_aesenclast_si128(b[0], rk.k[NR]);
                break;
            }
            __m128i b[2] = {x, _mm_xor_si128(next_block(ctr), rk.k[0])};
            enc_middle<NR>(rk, b);
            p = _mm_aesenclast_si128(b[1], _mm_xor_si128(rk.k[NR], load(in + 16)));
            store(out + 16, p);
            x = _mm_aesenclast_si128(b[0], _mm_xor_si128(k0last, p));
        }
    }
    store(mac, x);
    store(iv, counter_block(ctr.hi, ctr.lo));
}

// ---- slot entry points: the instantiation for the schedule's round count ------

void aes_encrypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    with_rounds(ks, [&](auto nr) { ecb_kernel<decltype(nr)::value, true>(ks, in, out, n); });
}
// XTS's E(key 2, iv) for a unit the unit kernels do not take (ciphertext
// stealing): one block on XMM, which the VAES cores use as well rather than
// broadcasting every round key for it.
void aes_xts_tweak(const KeySchedule& ks, const uint8_t iv[16], uint8_t tweak[16]) {
    with_rounds(ks, [&](auto nr) { store(tweak, xts_first_tweak<decltype(nr)::value>(ks, iv)); });
}
void aes_decrypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    with_rounds(ks, [&](auto nr) { ecb_kernel<decltype(nr)::value, false>(ks, in, out, n); });
}
void aes_cbc_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { cbc_enc_kernel<decltype(nr)::value>(ks, iv, in, out, n); });
}
void aes_cbc_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { cbc_dec_kernel<decltype(nr)::value>(ks, iv, in, out, n); });
}
void aes_cfb_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { cfb_enc_kernel<decltype(nr)::value>(ks, iv, in, out, n); });
}
void aes_cfb_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { cfb_dec_kernel<decltype(nr)::value>(ks, iv, in, out, n); });
}
void aes_ofb(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { ofb_kernel<decltype(nr)::value>(ks, iv, in, out, n); });
}
void aes_ctr(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { ctr_kernel<decltype(nr)::value>(ks, iv, in, out, n); });
}
void aes_cfb8_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                      size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { cfb8_enc_kernel<decltype(nr)::value>(ks, iv, in, out, n); });
}
void aes_cfb8_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                      size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { cfb8_dec_kernel<decltype(nr)::value>(ks, iv, in, out, n); });
}
void aes_cbc_mac(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { cbc_mac_kernel<decltype(nr)::value>(ks, iv, in, n); });
}
void aes_ccm_encrypt(const KeySchedule& ks, uint8_t mac[16], uint8_t iv[16], const uint8_t* in,
                     uint8_t* out, size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { ccm_kernel<decltype(nr)::value, true>(ks, mac, iv, in, out, n); });
}
void aes_ccm_decrypt(const KeySchedule& ks, uint8_t mac[16], uint8_t iv[16], const uint8_t* in,
                     uint8_t* out, size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { ccm_kernel<decltype(nr)::value, false>(ks, mac, iv, in, out, n); });
}

// ---- key schedule --------------------------------------------------------------
//
// Key setup is on the per-message path of some callers (a context re-keyed
// for every message), so AES-128 and AES-256 expand in XMM registers, a whole
// round key per step: with the previous key's words w0..w3, the next key is
// (w0, w0^w1, w0^w1^w2, w0^w1^w2^w3) (two byte-shifts and XORs) XORed with
// the broadcast word AESKEYGENASSIST derives (RotWord(SubWord(w)) ^ Rcon, or
// SubWord(w) alone for AES-256's odd keys). Rcon is an immediate operand, so
// each step is instantiated with its constant. AES-192's six-word stride does
// not line up with 128-bit keys; it runs the word-by-word FIPS-197 loop.

[[gnu::always_inline]] inline __m128i prefix_xor(__m128i w) {
    w = _mm_xor_si128(w, _mm_slli_si128(w, 4));
    return _mm_xor_si128(w, _mm_slli_si128(w, 8));
}

// The next key from `prev` (four words back) and `last` (the key just made):
// AESKEYGENASSIST's dword 3 is RotWord(SubWord(last.w3)) ^ Rcon, dword 2
// SubWord(last.w3).
template <int Rcon>
[[gnu::always_inline]] inline __m128i next_key_rot(__m128i prev, __m128i last) {
    const __m128i a = _mm_shuffle_epi32(_mm_aeskeygenassist_si128(last, Rcon), 0xff);
    return _mm_xor_si128(prefix_xor(prev), a);
}
[[gnu::always_inline]] inline __m128i next_key_sub(__m128i prev, __m128i last) {
    const __m128i a = _mm_shuffle_epi32(_mm_aeskeygenassist_si128(last, 0), 0xaa);
    return _mm_xor_si128(prefix_xor(prev), a);
}

void expand128(__m128i (&k)[15], const uint8_t* key) {
    k[0] = load(key);
    k[1] = next_key_rot<0x01>(k[0], k[0]);
    k[2] = next_key_rot<0x02>(k[1], k[1]);
    k[3] = next_key_rot<0x04>(k[2], k[2]);
    k[4] = next_key_rot<0x08>(k[3], k[3]);
    k[5] = next_key_rot<0x10>(k[4], k[4]);
    k[6] = next_key_rot<0x20>(k[5], k[5]);
    k[7] = next_key_rot<0x40>(k[6], k[6]);
    k[8] = next_key_rot<0x80>(k[7], k[7]);
    k[9] = next_key_rot<0x1b>(k[8], k[8]);
    k[10] = next_key_rot<0x36>(k[9], k[9]);
}

void expand256(__m128i (&k)[15], const uint8_t* key) {
    k[0] = load(key);
    k[1] = load(key + 16);
    k[2] = next_key_rot<0x01>(k[0], k[1]);
    k[3] = next_key_sub(k[1], k[2]);
    k[4] = next_key_rot<0x02>(k[2], k[3]);
    k[5] = next_key_sub(k[3], k[4]);
    k[6] = next_key_rot<0x04>(k[4], k[5]);
    k[7] = next_key_sub(k[5], k[6]);
    k[8] = next_key_rot<0x08>(k[6], k[7]);
    k[9] = next_key_sub(k[7], k[8]);
    k[10] = next_key_rot<0x10>(k[8], k[9]);
    k[11] = next_key_sub(k[9], k[10]);
    k[12] = next_key_rot<0x20>(k[10], k[11]);
    k[13] = next_key_sub(k[11], k[12]);
    k[14] = next_key_rot<0x40>(k[12], k[13]);
}

// SubWord of a key word (bytes in memory order, read as a little-endian
// uint32): AESKEYGENASSIST applies the S-box to dword 1 of its source into
// dword 0 of its result, in constant time.
uint32_t sub_word(uint32_t w) {
    const __m128i v = _mm_set_epi32(0, 0, static_cast<int>(w), 0);
    return static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_aeskeygenassist_si128(v, 0)));
}

// FIPS-197 5.2 word by word for Nk = 6. With words read little-endian from
// memory, RotWord ([a0,a1,a2,a3] -> [a1,a2,a3,a0]) is a right rotation by 8
// and Rcon lands in the low byte.
void expand192(__m128i (&k)[15], const uint8_t* key) {
    static constexpr uint8_t kRcon[8] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80};
    alignas(16) uint32_t w[52];
    std::memcpy(w, key, 24);
    for (unsigned i = 6, rc = 0; i < 52; i += 6, ++rc) {
        const uint32_t s = sub_word(w[i - 1]);
        w[i] = w[i - 6] ^ ((s >> 8) | (s << 24)) ^ kRcon[rc];
        for (unsigned j = 1; j < 6 && i + j < 52; ++j) w[i + j] = w[i + j - 6] ^ w[i + j - 1];
    }
    for (unsigned r = 0; r <= 12; ++r)
        k[r] = _mm_load_si128(reinterpret_cast<const __m128i*>(w + 4 * r));
    secure_wipe(w, sizeof w);
}

bool aes_set_key(KeySchedule& ks, const uint8_t* key, size_t keylen) {
    AesNiKey& k = aes_key(ks);
    unsigned nr;
    switch (keylen) {
    case 16: nr = 10; expand128(k.enc, key); break;
    case 24: nr = 12; expand192(k.enc, key); break;
    case 32: nr = 14; expand256(k.enc, key); break;
    default: return false;
    }
    k.dec[0] = k.enc[nr];
    for (unsigned r = 1; r < nr; ++r) k.dec[r] = _mm_aesimc_si128(k.enc[nr - r]);
    k.dec[nr] = k.enc[0];
    k.rounds = static_cast<uint8_t>(nr);
    return true;
}

} // namespace

extern const BlockCore aes_ni = {
    .name = "aes-aesni",
    .family = Family::aes,
    .hardware = true,
    .needs = kX86Aesni,
    .set_key = aes_set_key,
    .encrypt_blocks = aes_encrypt,
    .decrypt_blocks = aes_decrypt,
    .cbc_encrypt = aes_cbc_encrypt,
    .cbc_decrypt = aes_cbc_decrypt,
    .cfb_encrypt = aes_cfb_encrypt,
    .cfb_decrypt = aes_cfb_decrypt,
    .ofb = aes_ofb,
    .ctr = aes_ctr,
    .cfb8_encrypt = aes_cfb8_encrypt,
    .cfb8_decrypt = aes_cfb8_decrypt,
    .cbc_mac = aes_cbc_mac,
    .xts_encrypt = aesni::xts_encrypt,
    .xts_decrypt = aesni::xts_decrypt,
    .xts_tweak = aes_xts_tweak,
    .xts_unit_encrypt = aesni::xts_unit_encrypt,
    .xts_unit_decrypt = aesni::xts_unit_decrypt,
    .xts_unit_any_encrypt = aesni::xts_unit_any_encrypt,
    .xts_unit_any_decrypt = aesni::xts_unit_any_decrypt,
    .ocb_encrypt = aesni::ocb_encrypt,
    .ocb_decrypt = aesni::ocb_decrypt,
    .gcm_ghash = &ghash_clmul,
    .gcm_encrypt = aesni::gcm_encrypt,
    .gcm_decrypt = aesni::gcm_decrypt,
    .ccm_encrypt = aes_ccm_encrypt,
    .ccm_decrypt = aes_ccm_decrypt,
    .ccm_free_counters = true,
};

} // namespace hwc::x86_64
