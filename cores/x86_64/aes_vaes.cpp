// SPDX-License-Identifier: Apache-2.0
// aes-vaes-avx2: AES-128/192/256 with VAES on 256-bit vectors (two blocks per
// YMM register, 16 blocks in flight) for the parallel modes: ECB, CBC and CFB
// decryption, CTR, XTS (IEEE 1619 and GB/T 17964), OCB, and (aes_vaes_gcm.cpp)
// the CTR half of stitched GCM. Shared helpers: aes_vaes.h.
//
// The serial modes (CBC/CFB encryption, OFB, CFB8, CBC-MAC, CCM) gain nothing
// from wider vectors (one block at a time on one dependency chain), so this
// core hands them to aes-aesni's kernels, and key setup too: the schedule
// layout is aes-aesni's, which is what makes that possible (the forwarders:
// aes_ni_forward.h, shared with aes-vaes-avx512).
//
// Compiled with -maes -mvaes -mavx2 (root CMakeLists.txt) and reached only
// through the `aes_vaes_avx2` descriptor, which the registry offers when the
// CPU probe reports AES-NI, AVX2 (with OS YMM support) and VAES. No
// 512-bit/EVEX code: see aes_vaes.h for why. VAES and AES-NI instructions
// run in constant time; the only branches are on public counts and counters.
#include "cores/x86_64/aes_vaes.h"

#include <bit>
#include <cstring>

#include "cores/cpu.h"
#include "cores/x86_64/aes_ni_forward.h"
#include "cores/x86_64/x86_64.h"

namespace hwc::x86_64 {
namespace {

using namespace vaes;
using aesni::Counter;
using aesni::counter_block;
using aesni::load_counter;
using aesni::with_rounds;

// ---- ECB -------------------------------------------------------------------

template <unsigned NR, bool Enc>
void ecb_kernel(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    const YmmKeys<NR> rk = broadcast_keys<NR>(Enc ? aes_key(ks).enc : aes_key(ks).dec);
    for_steps(n, [&](auto nb) {
        constexpr size_t NB = decltype(nb)::value, M = kRegs<NB>;
        __m256i b[M];
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) b[j] = _mm256_xor_si256(load_reg<NB>(in, j), rk.k[0]);
        if constexpr (Enc) enc_middle<NR>(rk, b);
        else dec_middle<NR>(rk, b);
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) store_reg<NB>(out, j, last_round<Enc>(b[j], rk.k[NR]));
        in += 16 * NB, out += 16 * NB;
    });
}

// ---- CBC and CFB decryption ----------------------------------------------------

// The ciphertext blocks one position back from those of register j: for
// j = 0 the chaining value and block 0, otherwise an unaligned load 16 bytes
// before the register's own blocks.
template <size_t NB>
[[gnu::always_inline]] inline __m256i previous_reg(__m128i prev, const uint8_t* in, size_t j) {
    if (j == 0) return NB == 1 ? _mm256_zextsi128_si256(prev) : pair(prev, load128(in));
    if (NB % 2 == 1 && j == NB / 2) return _mm256_zextsi128_si256(load128(in + 32 * j - 16));
    return load256(in + 32 * j - 16);
}

// CBC decryption: P_i = D(C_i) ^ C_{i-1}, the XOR folded into the last round
// key. Every result is computed (all input loads done) before the first
// store, so in == out is safe even though the loads are shifted by a block.
template <unsigned NR>
void cbc_dec_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    const YmmKeys<NR> rk = broadcast_keys<NR>(aes_key(ks).dec);
    __m128i prev = load128(iv);
    for_steps(n, [&](auto nb) {
        constexpr size_t NB = decltype(nb)::value, M = kRegs<NB>;
        __m256i b[M];
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) b[j] = _mm256_xor_si256(load_reg<NB>(in, j), rk.k[0]);
        dec_middle<NR>(rk, b);
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j)
            b[j] = vaesdeclast(
                b[j], _mm256_xor_si256(rk.k[NR], previous_reg<NB>(prev, in, j)));
        prev = load128(in + 16 * (NB - 1));
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) store_reg<NB>(out, j, b[j]);
        in += 16 * NB, out += 16 * NB;
    });
    store128(iv, prev);
}

// CFB decryption: P_i = C_i ^ E(C_{i-1}); all cipher inputs are ciphertext.
template <unsigned NR>
void cfb_dec_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    const YmmKeys<NR> rk = broadcast_keys<NR>(aes_key(ks).enc);
    __m128i prev = load128(iv);
    for_steps(n, [&](auto nb) {
        constexpr size_t NB = decltype(nb)::value, M = kRegs<NB>;
        __m256i b[M];
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j)
            b[j] = _mm256_xor_si256(previous_reg<NB>(prev, in, j), rk.k[0]);
        enc_middle<NR>(rk, b);
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j)
            b[j] = vaesenclast(b[j], _mm256_xor_si256(rk.k[NR], load_reg<NB>(in, j)));
        prev = load128(in + 16 * (NB - 1));
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) store_reg<NB>(out, j, b[j]);
        in += 16 * NB, out += 16 * NB;
    });
    store128(iv, prev);
}

// ---- CTR ---------------------------------------------------------------------
//
// The 128-bit big-endian counter is kept as two native 64-bit halves (carry
// from the low half into the high one, wrapping mod 2^128). When no block of
// a step carries out of byte 15 (all but at most 1 step in 16), the
// counters are one byte swap and broadcast of the base plus a 64-bit add per
// register of (2j << 56, (2j+1) << 56), which lands on byte 15 of each lane;
// otherwise each block is built from the native halves. The counter is public
// (the IV), so the branch reveals nothing secret.
template <size_t NB>
[[gnu::always_inline]] inline void counter_regs(Counter& c, __m256i (&b)[kRegs<NB>]) {
    constexpr size_t M = kRegs<NB>;
    if ((c.lo & 0xff) <= 256 - NB) {
        const __m256i base = _mm256_broadcastsi128_si256(counter_block(c.hi, c.lo));
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j)
            b[j] = _mm256_add_epi64(base, _mm256_set_epi64x(static_cast<long long>((2 * j + 1) << 56),
                                                            0, static_cast<long long>((2 * j) << 56),
                                                            0));
    } else {
        auto block = [&](size_t i) {
            const uint64_t lo = c.lo + i;
            return counter_block(c.hi + (lo < c.lo), lo);
        };
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j)
            b[j] = 2 * j + 1 < NB ? pair(block(2 * j), block(2 * j + 1))
                                  : _mm256_zextsi128_si256(block(2 * j));
    }
    const uint64_t lo = c.lo + NB;
    c.hi += lo < c.lo;
    c.lo = lo;
}

template <unsigned NR>
void ctr_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                size_t n) {
    const YmmKeys<NR> rk = broadcast_keys<NR>(aes_key(ks).enc);
    Counter ctr = load_counter(iv);
    for_steps(n, [&](auto nb) {
        constexpr size_t NB = decltype(nb)::value, M = kRegs<NB>;
        __m256i b[M];
        counter_regs<NB>(ctr, b);
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) b[j] = _mm256_xor_si256(b[j], rk.k[0]);
        enc_middle<NR>(rk, b);
        // Each register's output overwrites only its own input (in == out).
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j)
            store_reg<NB>(out, j,
                          vaesenclast(
                              b[j], _mm256_xor_si256(rk.k[NR], load_reg<NB>(in, j))));
        in += 16 * NB, out += 16 * NB;
    });
    store128(iv, counter_block(ctr.hi, ctr.lo));
}

// ---- XTS -----------------------------------------------------------------------
//
// Tweaks live two per register, (T_i, T_i * alpha), each 128-bit lane an
// independent field element, and are stepped by a power of alpha with
// 64-bit shifts: the field has no carry-less multiply on YMM without
// VPCLMULQDQ. Multiplying by alpha^K (K <= 56) in IEEE order (little-endian
// integer, x^128 = x^7 + x^2 + x + 1) is a left shift by K; the K bits that
// leave the top, read as a polynomial `top`, come back as top * 0x87 carry-
// less, which for a constant is top ^ top << 1 ^ top << 2 ^ top << 7 (and
// stays below bit 64). The bits crossing from the low to the high 64-bit
// half come from the same right shift, so one PSRLQ + PSHUFD (swap halves)
// yields both. The GB/T order is the mirror image: the 16 bytes read as a
// big-endian integer (byte-reversed into the lane), a right shift by K, the
// K bits leaving the bottom folded in at the top as their mirror
// (s ^ s >> 1 ^ s >> 2 ^ s >> 7). Branch-free: tweaks are secret.
//
// The main loop keeps 8 tweak registers (16 consecutive tweaks) and advances
// each by alpha^16, so the 8 updates are independent and spread one per AES
// round. A step's first tweaks (every tail, and the main loop's start) are
// each T * alpha^k from the running T with a per-lane shift count, in parallel.
template <unsigned K, bool Gb>
[[gnu::always_inline]] inline __m256i mul_alpha_k(__m256i t) {
    static_assert(K >= 1 && K <= 56);
    if constexpr (K % 8 == 0) {
        // Whole bytes: the 128-bit byte shifts (PSLLDQ/PSRLDQ) move the lane
        // and extract the leaving bits in one instruction each, two fewer
        // than the 64-bit-halves route below (the main loop's alpha^16).
        constexpr int B = K / 8;
        if constexpr (!Gb) {
            const __m256i top = _mm256_bsrli_epi128(t, 16 - B); // < 2^K, low half
            const __m256i red = _mm256_xor_si256(
                _mm256_xor_si256(_mm256_slli_epi64(top, 1), _mm256_slli_epi64(top, 2)),
                _mm256_slli_epi64(top, 7));
            return _mm256_xor_si256(_mm256_xor_si256(_mm256_bslli_epi128(t, B), top), red);
        } else {
            const __m256i bot = _mm256_bslli_epi128(t, 16 - B); // top K bits, high half
            const __m256i red = _mm256_xor_si256(
                _mm256_xor_si256(_mm256_srli_epi64(bot, 1), _mm256_srli_epi64(bot, 2)),
                _mm256_srli_epi64(bot, 7));
            return _mm256_xor_si256(_mm256_xor_si256(_mm256_bsrli_epi128(t, B), bot), red);
        }
    } else if constexpr (!Gb) {
        const __m256i s = _mm256_shuffle_epi32(_mm256_srli_epi64(t, 64 - K), 0x4e);
        const __m256i top = _mm256_and_si256(s, _mm256_set_epi64x(0, -1, 0, -1));
        const __m256i red = _mm256_xor_si256(
            _mm256_xor_si256(_mm256_slli_epi64(top, 1), _mm256_slli_epi64(top, 2)),
            _mm256_slli_epi64(top, 7));
        return _mm256_xor_si256(_mm256_xor_si256(_mm256_slli_epi64(t, K), s), red);
    } else {
        const __m256i s = _mm256_shuffle_epi32(_mm256_slli_epi64(t, 64 - K), 0x4e);
        const __m256i bot = _mm256_and_si256(s, _mm256_set_epi64x(-1, 0, -1, 0));
        const __m256i red = _mm256_xor_si256(
            _mm256_xor_si256(_mm256_srli_epi64(bot, 1), _mm256_srli_epi64(bot, 2)),
            _mm256_srli_epi64(bot, 7));
        return _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(t, K), s), red);
    }
}

// Tweak register (field order) <-> the bytes XORed with data. IEEE: the same;
// GB: byte-reversed per lane.
template <bool Gb>
[[gnu::always_inline]] inline __m256i tweak_bytes(__m256i t) {
    if constexpr (!Gb) return t;
    const __m256i rev = _mm256_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
                                        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    return _mm256_shuffle_epi8(t, rev);
}

// mul_alpha_k with K given per lane (in both of its qwords, 0..56): the
// same shifts by a variable count (a count of 64 shifts everything out).
template <bool Gb>
[[gnu::always_inline]] inline __m256i mul_alpha_var(__m256i t, __m256i k) {
    const __m256i rest = _mm256_sub_epi64(_mm256_set1_epi64x(64), k);
    if constexpr (!Gb) {
        const __m256i s = _mm256_shuffle_epi32(_mm256_srlv_epi64(t, rest), 0x4e);
        const __m256i top = _mm256_and_si256(s, _mm256_set_epi64x(0, -1, 0, -1));
        const __m256i red = _mm256_xor_si256(
            _mm256_xor_si256(_mm256_slli_epi64(top, 1), _mm256_slli_epi64(top, 2)),
            _mm256_slli_epi64(top, 7));
        return _mm256_xor_si256(_mm256_xor_si256(_mm256_sllv_epi64(t, k), s), red);
    } else {
        const __m256i s = _mm256_shuffle_epi32(_mm256_sllv_epi64(t, rest), 0x4e);
        const __m256i bot = _mm256_and_si256(s, _mm256_set_epi64x(-1, 0, -1, 0));
        const __m256i red = _mm256_xor_si256(
            _mm256_xor_si256(_mm256_srli_epi64(bot, 1), _mm256_srli_epi64(bot, 2)),
            _mm256_srli_epi64(bot, 7));
        return _mm256_xor_si256(_mm256_xor_si256(_mm256_srlv_epi64(t, k), s), red);
    }
}

// M consecutive tweak registers starting with the tweak in lane 0 of `t`:
// register j holds T * alpha^(2j) and T * alpha^(2j+1), each computed from T
// directly (not from register j-1), so that a short unit's last blocks do
// not wait for a chain of multiplications before their first round.
template <bool Gb, size_t M>
[[gnu::always_inline]] inline void first_tweaks(__m256i t, __m256i (&tw)[M]) {
    const __m256i b = _mm256_broadcastsi128_si256(_mm256_castsi256_si128(t));
#pragma GCC unroll 8
    for (size_t j = 0; j < M; ++j) {
        const long long k = static_cast<long long>(2 * j);
        tw[j] = mul_alpha_var<Gb>(b, _mm256_set_epi64x(k + 1, k + 1, k, k));
    }
}

// first_tweaks for a step of NB blocks whose last block (NB - 1) takes the
// tweak after its own, T * alpha^NB (a decryption with stealing, IEEE 1619
// 5.4.2): only that lane's shift count differs.
template <bool Gb, size_t M, size_t NB>
[[gnu::always_inline]] inline void first_tweaks_swapped(__m256i t, __m256i (&tw)[M]) {
    const __m256i b = _mm256_broadcastsi128_si256(_mm256_castsi256_si128(t));
#pragma GCC unroll 8
    for (size_t j = 0; j < M; ++j) {
        const long long k0 = static_cast<long long>(2 * j + (2 * j == NB - 1 ? 1 : 0));
        const long long k1 = static_cast<long long>(2 * j + 1 + (2 * j + 1 == NB - 1 ? 1 : 0));
        tw[j] = mul_alpha_var<Gb>(b, _mm256_set_epi64x(k1, k1, k0, k0));
    }
}

// One step of NB blocks with tweak registers `tw`, each folded into round
// key 0 and the last round key (aes_ni.h). When Advance, the tweaks of the
// next 16-block step are computed during the rounds into `tw`.
template <unsigned NR, size_t NB, bool Enc, bool Gb, bool Advance>
[[gnu::always_inline]] inline void xts_step(const YmmKeys<NR>& rk, __m256i (&tw)[kRegs<NB>],
                                            const uint8_t* in, uint8_t* out) {
    constexpr size_t M = kRegs<NB>;
    __m256i b[M], tb[M], next[M];
#pragma GCC unroll 8
    for (size_t j = 0; j < M; ++j) {
        tb[j] = tweak_bytes<Gb>(tw[j]);
        b[j] = _mm256_xor_si256(load_reg<NB>(in, j), _mm256_xor_si256(tb[j], rk.k[0]));
    }
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) { // NR - 1 >= 9 rounds: room for 8 updates
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) b[j] = round<Enc>(b[j], rk.k[r]);
        if constexpr (Advance) {
            if (r <= M) next[r - 1] = mul_alpha_k<16, Gb>(tw[r - 1]);
        }
    }
#pragma GCC unroll 8
    for (size_t j = 0; j < M; ++j)
        store_reg<NB>(out, j, last_round<Enc>(b[j], _mm256_xor_si256(tb[j], rk.k[NR])));
    if constexpr (Advance) {
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) tw[j] = next[j];
    }
}

// The running tweak comes and goes in a register (bytes as XORed with the
// data, lane 0), so that the unit kernel below starts from E(key 2, iv)
// without a store and reload; returns the tweak after the last block. When
// `tail` (0..15) bytes follow the `n` >= 1 whole blocks, the stolen pair
// comes last, in the same call: a decryption's last whole block takes the
// tweak after its own in its step (first_tweaks_swapped), and the pair the
// tweak that is left (the returned tweak is then meaningless). Out of line:
// one copy per direction, standard and key size serves every caller.
template <unsigned NR, bool Enc, bool Gb>
[[gnu::noinline]] __m128i xts_kernel(const KeySchedule& ks, __m128i tweak, const uint8_t* in,
                                     uint8_t* out, size_t n, size_t tail) {
    const YmmKeys<NR> rk = broadcast_keys<NR>(Enc ? aes_key(ks).enc : aes_key(ks).dec);
    // The running tweak, field order, in lane 0.
    __m256i t = tweak_bytes<Gb>(_mm256_zextsi128_si256(tweak));
    // A decryption with stealing keeps its last block for a tail step.
    const bool swap = tail != 0 && !Enc;
    const size_t keep = swap ? 1 : 0;
    if (n >= kStep + keep) {
        __m256i tw[8];
        first_tweaks<Gb>(t, tw);
        for (; n >= kStep + keep; n -= kStep, in += 16 * kStep, out += 16 * kStep)
            xts_step<NR, 16, Enc, Gb, true>(rk, tw, in, out);
        t = tw[0]; // computed ahead for a step that did not come
    }
    size_t left = n;
    auto step = [&](auto nb) {
        constexpr size_t NB = decltype(nb)::value, M = kRegs<NB>;
        __m256i tw[M];
        left -= NB;
        if (swap && left == 0) {
            first_tweaks_swapped<Gb, M, NB>(t, tw);
            if constexpr (NB > 1) t = mul_alpha_k<NB - 1, Gb>(t); // the last block's own
        } else {
            first_tweaks<Gb>(t, tw);
            // T * alpha^NB in lane 0: the last register's lane 0 holds
            // T * alpha^(NB - 1) for an odd NB, T * alpha^(NB - 2) for an even one.
            t = NB % 2 == 1 ? mul_alpha_k<1, Gb>(tw[M - 1]) : mul_alpha_k<2, Gb>(tw[M - 1]);
        }
        xts_step<NR, NB, Enc, Gb, false>(rk, tw, in, out);
        in += 16 * NB, out += 16 * NB;
    };
    // What is left (under 16 blocks, or 16 with a swapped last block) in at
    // most two steps, the last one as wide as it is (a 6-block unit: one
    // step of 6, not 4 + 2), its tweaks in parallel from its start.
    for (; n >= kStep; n -= kStep) step(Nb<16>{});
    if (n > 8) step(Nb<8>{}), n -= 8;
    switch (n) {
    case 1: step(Nb<1>{}); break;
    case 2: step(Nb<2>{}); break;
    case 3: step(Nb<3>{}); break;
    case 4: step(Nb<4>{}); break;
    case 5: step(Nb<5>{}); break;
    case 6: step(Nb<6>{}); break;
    case 7: step(Nb<7>{}); break;
    case 8: step(Nb<8>{}); break;
    default: break;
    }
    const __m128i next = _mm256_castsi256_si128(tweak_bytes<Gb>(t));
    if (tail != 0) {
        // The stolen pair: the output's tail, then block m-1 through `next`
        // (aes_ni.h), on XMM.
        const uint8_t* last_in = in - 16;
        uint8_t* last_out = out - 16;
        __m128i b = _mm_xor_si128(aesni::xts_steal_mix(last_in, last_out, tail),
                                  _mm_xor_si128(next, _mm256_castsi256_si128(rk.k[0])));
#pragma GCC unroll 13
        for (unsigned r = 1; r < NR; ++r)
            b = Enc ? _mm_aesenc_si128(b, _mm256_castsi256_si128(rk.k[r]))
                    : _mm_aesdec_si128(b, _mm256_castsi256_si128(rk.k[r]));
        const __m128i kl = _mm_xor_si128(next, _mm256_castsi256_si128(rk.k[NR]));
        store128(last_out, Enc ? _mm_aesenclast_si128(b, kl) : _mm_aesdeclast_si128(b, kl));
    }
    return next;
}

// ---- OCB -----------------------------------------------------------------------
//
// Offsets are a serial XOR chain (Offset_i = Offset_{i-1} ^ L[ntz(i)], the
// L row loaded by index: the block count is public), computed in an XMM
// register and paired into YMM registers; each is folded into round key 0
// and the last round key. The checksum is summed per lane and the two lanes
// XORed at the end. in == out is safe: each register's output overwrites
// only its own input.
template <unsigned NR, bool Enc>
void ocb_kernel(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out,
                size_t n) {
    const YmmKeys<NR> rk = broadcast_keys<NR>(Enc ? aes_key(ks).enc : aes_key(ks).dec);
    __m128i offset = load128(st.offset);
    __m256i sum = _mm256_zextsi128_si256(load128(st.checksum));
    uint64_t blocks = st.blocks;
    const uint8_t(*l)[kBlockSize] = st.l;
    for_steps(n, [&](auto nb) {
        constexpr size_t NB = decltype(nb)::value, M = kRegs<NB>;
        __m256i b[M], o[M];
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) {
            offset = _mm_xor_si128(offset, load128(l[std::countr_zero(++blocks)]));
            if (2 * j + 1 < NB) {
                const __m128i first = offset;
                offset = _mm_xor_si128(offset, load128(l[std::countr_zero(++blocks)]));
                o[j] = pair(first, offset);
            } else {
                o[j] = _mm256_zextsi128_si256(offset);
            }
            const __m256i x = load_reg<NB>(in, j);
            if constexpr (Enc) sum = _mm256_xor_si256(sum, x);
            b[j] = _mm256_xor_si256(x, _mm256_xor_si256(o[j], rk.k[0]));
        }
        if constexpr (Enc) enc_middle<NR>(rk, b);
        else dec_middle<NR>(rk, b);
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) {
            __m256i p = last_round<Enc>(b[j], _mm256_xor_si256(o[j], rk.k[NR]));
            if constexpr (!Enc) {
                // An odd last register's upper lane is not a block.
                if (2 * j + 1 == NB) p = _mm256_zextsi128_si256(_mm256_castsi256_si128(p));
                sum = _mm256_xor_si256(sum, p);
            }
            store_reg<NB>(out, j, p);
        }
        in += 16 * NB, out += 16 * NB;
    });
    store128(st.offset, offset);
    store128(st.checksum, _mm_xor_si128(_mm256_castsi256_si128(sum),
                                        _mm256_extracti128_si256(sum, 1)));
    st.blocks = blocks;
}

// ---- slot entry points: the instantiation for the schedule's round count ------

void vaes_encrypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { ecb_kernel<decltype(nr)::value, true>(ks, in, out, n); });
}
void vaes_decrypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { ecb_kernel<decltype(nr)::value, false>(ks, in, out, n); });
}
void vaes_cbc_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                      size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { cbc_dec_kernel<decltype(nr)::value>(ks, iv, in, out, n); });
}
void vaes_cfb_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                      size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { cfb_dec_kernel<decltype(nr)::value>(ks, iv, in, out, n); });
}
void vaes_ctr(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { ctr_kernel<decltype(nr)::value>(ks, iv, in, out, n); });
}
template <bool Enc, bool Gb>
void vaes_xts(const KeySchedule& ks, uint8_t tweak[16], const uint8_t* in, uint8_t* out,
              size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) {
        store128(tweak,
                 xts_kernel<decltype(nr)::value, Enc, Gb>(ks, load128(tweak), in, out, n, 0));
    });
}
// A whole IEEE unit from the iv: E(key 2, iv) on XMM (aes_ni.h), then the
// blocks. Both halves of a key have the same length, hence one round count.
template <bool Enc>
bool vaes_xts_unit(const KeySchedule& data_ks, const KeySchedule& tweak_ks, const uint8_t iv[16],
                   const uint8_t* in, uint8_t* out, size_t n) {
    with_rounds(data_ks, [&](auto nr) {
        constexpr unsigned NR = decltype(nr)::value;
        xts_kernel<NR, Enc, false>(data_ks, aesni::xts_first_tweak<NR>(tweak_ks, iv), in, out, n,
                                   0);
    });
    return true;
}
// A unit of any length >= 16 bytes: whole blocks and the stolen pair in one
// kernel call.
template <bool Enc>
bool vaes_xts_unit_any(const KeySchedule& data_ks, const KeySchedule& tweak_ks,
                       const uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t len) {
    with_rounds(data_ks, [&](auto nr) {
        constexpr unsigned NR = decltype(nr)::value;
        xts_kernel<NR, Enc, false>(data_ks, aesni::xts_first_tweak<NR>(tweak_ks, iv), in, out,
                                   len / 16, len % 16);
    });
    return true;
}
template <bool Enc>
void vaes_ocb(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { ocb_kernel<decltype(nr)::value, Enc>(ks, st, in, out, n); });
}

} // namespace

extern const BlockCore aes_vaes_avx2 = {
    .name = "aes-vaes-avx2",
    .family = Family::aes,
    .hardware = true,
    // AES-NI for the serial kernels it borrows from aes-aesni; kVaesFeature
    // is kX86Vaes except in the HWCIPHER_VAES_EMULATE test build (aes_vaes.h).
    .needs = kX86Aesni | kX86Avx2 | kVaesFeature,
    .set_key = ni_set_key,
    .encrypt_blocks = vaes_encrypt,
    .decrypt_blocks = vaes_decrypt,
    .cbc_encrypt = ni_cbc_encrypt,
    .cbc_decrypt = vaes_cbc_decrypt,
    .cfb_encrypt = ni_cfb_encrypt,
    .cfb_decrypt = vaes_cfb_decrypt,
    .ofb = ni_ofb,
    .ctr = vaes_ctr,
    .cfb8_encrypt = ni_cfb8_encrypt,
    // CFB8 decryption is parallel, but over bytes: aes-aesni already runs
    // it 16 keystream blocks per 16 bytes from one register's windows.
    .cfb8_decrypt = ni_cfb8_decrypt,
    .cbc_mac = ni_cbc_mac,
    .xts_encrypt = vaes_xts<true, false>,
    .xts_decrypt = vaes_xts<false, false>,
    .xts_gb_encrypt = vaes_xts<true, true>,
    .xts_gb_decrypt = vaes_xts<false, true>,
    .xts_tweak = ni_xts_tweak,
    .xts_unit_encrypt = vaes_xts_unit<true>,
    .xts_unit_decrypt = vaes_xts_unit<false>,
    .xts_unit_any_encrypt = vaes_xts_unit_any<true>,
    .xts_unit_any_decrypt = vaes_xts_unit_any<false>,
    .ocb_encrypt = vaes_ocb<true>,
    .ocb_decrypt = vaes_ocb<false>,
    // Stitched GCM pairs with ghash-clmul (its `needs` bring PCLMULQDQ).
    .gcm_ghash = &ghash_clmul,
    .gcm_encrypt = vaes::gcm_encrypt,
    .gcm_decrypt = vaes::gcm_decrypt,
    .ccm_encrypt = ni_ccm_encrypt,
    .ccm_decrypt = ni_ccm_decrypt,
    .ccm_free_counters = true,
};

} // namespace hwc::x86_64
