// SPDX-License-Identifier: Apache-2.0
// aes-aesni: AES-128/192/256 on AES-NI (AESENC/AESDEC/AESIMC/AESKEYGENASSIST).
//
// Compiled with -maes -msse4.1 (root CMakeLists.txt) and reached only through
// the `aes_ni` descriptor, which the registry offers when the CPU probe
// reports kX86Aesni. Everything else in this file has internal linkage, so no
// AES-NI code can leak into callers built for the baseline ISA.
//
// Each kernel is instantiated per round count (10/12/14) so the round loop is
// fully unrolled and the round keys are held in registers for the whole
// buffer (AES-256 with 8 blocks in flight needs more than 16 XMM registers, so
// there the compiler feeds some keys as memory operands). Parallel modes (ECB,
// CBC decryption, CFB decryption, CTR) run 8 blocks at a time, then 4, then 1;
// serial modes (CBC/CFB encryption, OFB) keep the chaining value in a register
// across the whole buffer. AES-NI instructions run in constant time.
#include "cores/x86_64/x86_64.h"

#include "cores/cpu.h"

#include <immintrin.h>
#include <wmmintrin.h>

#include <cstring>
#include <type_traits>

namespace hwc::x86_64 {
namespace {

// KeySchedule layout: 15 encryption round keys, 15 decryption round keys for
// the equivalent inverse cipher (FIPS-197 5.3.5: encryption keys in reverse
// order, the middle ones through InvMixColumns), then the round count.
struct Layout {
    static constexpr size_t enc = 0;
    static constexpr size_t dec = 15 * 16;
    static constexpr size_t rounds = 30 * 16;
    static constexpr size_t end = rounds + 1;
};
static_assert(Layout::end <= kMaxScheduleBytes);
static_assert(alignof(KeySchedule) >= 16);

using R10 = std::integral_constant<unsigned, 10>;
using R12 = std::integral_constant<unsigned, 12>;
using R14 = std::integral_constant<unsigned, 14>;

// Calls f with the schedule's round count as a compile-time constant.
template <class F>
[[gnu::always_inline]] inline void with_rounds(const KeySchedule& ks, F&& f) {
    switch (ks.bytes[Layout::rounds]) {
    case 10: f(R10{}); break;
    case 12: f(R12{}); break;
    default: f(R14{}); break;
    }
}

template <unsigned NR>
struct RoundKeys {
    __m128i k[NR + 1];
};

template <unsigned NR>
[[gnu::always_inline]] inline RoundKeys<NR> load_keys(const KeySchedule& ks, size_t off) {
    RoundKeys<NR> rk;
    const auto* p = reinterpret_cast<const __m128i*>(ks.bytes + off);
#pragma GCC unroll 15
    for (unsigned r = 0; r <= NR; ++r) rk.k[r] = _mm_load_si128(p + r);
    return rk;
}

[[gnu::always_inline]] inline __m128i load(const uint8_t* p) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
[[gnu::always_inline]] inline void store(uint8_t* p, __m128i v) {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v);
}

// N blocks through the cipher, round by round, so the N independent AESENC
// chains overlap in the pipeline.
template <unsigned NR, size_t N>
[[gnu::always_inline]] inline void encrypt_n(const RoundKeys<NR>& rk, __m128i (&b)[N]) {
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) b[i] = _mm_xor_si128(b[i], rk.k[0]);
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) {
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) b[i] = _mm_aesenc_si128(b[i], rk.k[r]);
    }
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) b[i] = _mm_aesenclast_si128(b[i], rk.k[NR]);
}

template <unsigned NR, size_t N>
[[gnu::always_inline]] inline void decrypt_n(const RoundKeys<NR>& rk, __m128i (&b)[N]) {
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) b[i] = _mm_xor_si128(b[i], rk.k[0]);
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) {
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) b[i] = _mm_aesdec_si128(b[i], rk.k[r]);
    }
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) b[i] = _mm_aesdeclast_si128(b[i], rk.k[NR]);
}

template <unsigned NR>
[[gnu::always_inline]] inline __m128i encrypt1(const RoundKeys<NR>& rk, __m128i x) {
    __m128i b[1] = {x};
    encrypt_n<NR>(rk, b);
    return b[0];
}

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
    const RoundKeys<NR> rk = load_keys<NR>(ks, Enc ? Layout::enc : Layout::dec);
    for (; n >= 8; n -= 8, in += 128, out += 128) ecb_step<NR, 8, Enc>(rk, in, out);
    if (n >= 4) {
        ecb_step<NR, 4, Enc>(rk, in, out);
        n -= 4, in += 64, out += 64;
    }
    for (; n; --n, in += 16, out += 16) ecb_step<NR, 1, Enc>(rk, in, out);
}

void aes_encrypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    with_rounds(ks, [&](auto nr) { ecb_kernel<decltype(nr)::value, true>(ks, in, out, n); });
}
void aes_decrypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    with_rounds(ks, [&](auto nr) { ecb_kernel<decltype(nr)::value, false>(ks, in, out, n); });
}

// ---- serial modes: chaining value stays in a register ------------------------

template <unsigned NR>
void cbc_enc_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(ks, Layout::enc);
    __m128i c = load(iv);
    for (; n; --n, in += 16, out += 16) {
        c = encrypt1<NR>(rk, _mm_xor_si128(c, load(in)));
        store(out, c);
    }
    store(iv, c);
}

template <unsigned NR>
void cfb_enc_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(ks, Layout::enc);
    __m128i c = load(iv);
    for (; n; --n, in += 16, out += 16) {
        c = _mm_xor_si128(encrypt1<NR>(rk, c), load(in));
        store(out, c);
    }
    store(iv, c);
}

template <unsigned NR>
void ofb_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(ks, Layout::enc);
    __m128i s = load(iv);
    for (; n; --n, in += 16, out += 16) {
        s = encrypt1<NR>(rk, s);
        store(out, _mm_xor_si128(s, load(in)));
    }
    store(iv, s);
}

// ---- parallel modes ------------------------------------------------------------

// CBC decryption: every ciphertext block of a group is loaded before any
// output is stored, so in == out is safe.
template <unsigned NR, size_t N>
[[gnu::always_inline]] inline void cbc_dec_step(const RoundKeys<NR>& rk, __m128i& prev,
                                                const uint8_t* in, uint8_t* out) {
    __m128i c[N], b[N];
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) b[i] = c[i] = load(in + 16 * i);
    decrypt_n<NR>(rk, b);
    store(out, _mm_xor_si128(b[0], prev));
#pragma GCC unroll 8
    for (size_t i = 1; i < N; ++i) store(out + 16 * i, _mm_xor_si128(b[i], c[i - 1]));
    prev = c[N - 1];
}

template <unsigned NR>
void cbc_dec_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(ks, Layout::dec);
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
    b[0] = prev;
#pragma GCC unroll 8
    for (size_t i = 1; i < N; ++i) b[i] = c[i - 1];
    encrypt_n<NR>(rk, b);
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) store(out + 16 * i, _mm_xor_si128(b[i], c[i]));
    prev = c[N - 1];
}

template <unsigned NR>
void cfb_dec_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(ks, Layout::enc);
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
// (carry from the low half into the high one, wrapping mod 2^128) and turned
// into a block by a per-lane byte swap. The counter is public (the IV), so
// the carry branch reveals nothing secret.
struct Counter {
    uint64_t hi, lo;
};

[[gnu::always_inline]] inline __m128i counter_block(Counter& ctr, __m128i bswap64) {
    const __m128i v = _mm_set_epi64x(static_cast<long long>(ctr.lo),
                                     static_cast<long long>(ctr.hi));
    if (++ctr.lo == 0) ++ctr.hi;
    return _mm_shuffle_epi8(v, bswap64);
}

template <unsigned NR, size_t N>
[[gnu::always_inline]] inline void ctr_step(const RoundKeys<NR>& rk, Counter& ctr,
                                            __m128i bswap64, const uint8_t* in, uint8_t* out) {
    __m128i b[N];
    if (ctr.lo <= ~uint64_t{0} - N) {
        // No carry out of the low half within this group: add in a vector
        // (low half in lane 0) and byte-reverse the whole block.
        const __m128i rev = _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        const __m128i base = _mm_set_epi64x(static_cast<long long>(ctr.hi),
                                            static_cast<long long>(ctr.lo));
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i)
            b[i] = _mm_shuffle_epi8(_mm_add_epi64(base, _mm_set_epi64x(0, static_cast<long long>(i))),
                                    rev);
        ctr.lo += N;
    } else {
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) b[i] = counter_block(ctr, bswap64);
    }
    encrypt_n<NR>(rk, b);
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) store(out + 16 * i, _mm_xor_si128(b[i], load(in + 16 * i)));
}

template <unsigned NR>
void ctr_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(ks, Layout::enc);
    // Byte order within each 64-bit lane reversed: native halves <-> big-endian.
    const __m128i bswap64 = _mm_set_epi8(8, 9, 10, 11, 12, 13, 14, 15, 0, 1, 2, 3, 4, 5, 6, 7);
    Counter ctr;
    std::memcpy(&ctr.hi, iv, 8);
    std::memcpy(&ctr.lo, iv + 8, 8);
    ctr.hi = __builtin_bswap64(ctr.hi);
    ctr.lo = __builtin_bswap64(ctr.lo);
    for (; n >= 8; n -= 8, in += 128, out += 128) ctr_step<NR, 8>(rk, ctr, bswap64, in, out);
    if (n >= 4) {
        ctr_step<NR, 4>(rk, ctr, bswap64, in, out);
        n -= 4, in += 64, out += 64;
    }
    for (; n; --n, in += 16, out += 16) ctr_step<NR, 1>(rk, ctr, bswap64, in, out);
    const uint64_t hi = __builtin_bswap64(ctr.hi), lo = __builtin_bswap64(ctr.lo);
    std::memcpy(iv, &hi, 8);
    std::memcpy(iv + 8, &lo, 8);
}

// Slot entry points: pick the instantiation for the schedule's round count.
#define HWC_AESNI_CHAIN_SLOT(slot, kernel)                                                 \
    void slot(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,     \
              size_t n) {                                                                 \
        if (n == 0) return;                                                               \
        with_rounds(ks, [&](auto nr) { kernel<decltype(nr)::value>(ks, iv, in, out, n); }); \
    }
HWC_AESNI_CHAIN_SLOT(aes_cbc_encrypt, cbc_enc_kernel)
HWC_AESNI_CHAIN_SLOT(aes_cbc_decrypt, cbc_dec_kernel)
HWC_AESNI_CHAIN_SLOT(aes_cfb_encrypt, cfb_enc_kernel)
HWC_AESNI_CHAIN_SLOT(aes_cfb_decrypt, cfb_dec_kernel)
HWC_AESNI_CHAIN_SLOT(aes_ofb, ofb_kernel)
HWC_AESNI_CHAIN_SLOT(aes_ctr, ctr_kernel)
#undef HWC_AESNI_CHAIN_SLOT

// ---- key schedule --------------------------------------------------------------

// SubWord of a key word (bytes in memory order, read as a little-endian
// uint32). AESKEYGENASSIST applies the S-box to dword 1 of its source into
// dword 0 of its result, in constant time; RotWord and Rcon are applied by
// the caller.
uint32_t sub_word(uint32_t w) {
    const __m128i v = _mm_set_epi32(0, 0, static_cast<int>(w), 0);
    return static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_aeskeygenassist_si128(v, 0)));
}

void secure_wipe(void* p, size_t n) {
    volatile uint8_t* v = static_cast<volatile uint8_t*>(p);
    while (n--) *v++ = 0;
}

bool aes_set_key(KeySchedule& ks, const uint8_t* key, size_t keylen) {
    if (keylen != 16 && keylen != 24 && keylen != 32) return false;
    const unsigned nk = static_cast<unsigned>(keylen / 4);
    const unsigned nr = nk + 6;
    const unsigned total = 4 * (nr + 1);
    // FIPS-197 5.2 word by word. With words read little-endian from memory,
    // RotWord ([a0,a1,a2,a3] -> [a1,a2,a3,a0]) is a right rotation by 8 and
    // Rcon lands in the low byte.
    static constexpr uint8_t kRcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10,
                                          0x20, 0x40, 0x80, 0x1b, 0x36};
    alignas(16) uint32_t w[60];
    std::memcpy(w, key, keylen);
    for (unsigned i = nk; i < total; ++i) {
        uint32_t t = w[i - 1];
        if (i % nk == 0) {
            const uint32_t s = sub_word(t);
            t = ((s >> 8) | (s << 24)) ^ kRcon[i / nk - 1];
        } else if (nk == 8 && i % nk == 4) {
            t = sub_word(t);
        }
        w[i] = w[i - nk] ^ t;
    }
    auto* enc = reinterpret_cast<__m128i*>(ks.bytes + Layout::enc);
    auto* dec = reinterpret_cast<__m128i*>(ks.bytes + Layout::dec);
    for (unsigned r = 0; r <= nr; ++r)
        _mm_store_si128(enc + r, _mm_load_si128(reinterpret_cast<const __m128i*>(w + 4 * r)));
    _mm_store_si128(dec, _mm_load_si128(enc + nr));
    for (unsigned r = 1; r < nr; ++r) _mm_store_si128(dec + r, _mm_aesimc_si128(enc[nr - r]));
    _mm_store_si128(dec + nr, _mm_load_si128(enc));
    ks.bytes[Layout::rounds] = static_cast<uint8_t>(nr);
    secure_wipe(w, sizeof w);
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
};

} // namespace hwc::x86_64
