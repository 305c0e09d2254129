// SPDX-License-Identifier: Apache-2.0
// aes-vaes-avx512: AES-128/192/256 with VAES on 512-bit vectors (four blocks
// per ZMM register, 32 blocks in flight) for the parallel modes: ECB, CBC and
// CFB decryption, CTR, XTS (IEEE 1619 and GB/T 17964) and OCB, and stitched
// GCM with VPCLMULQDQ GHASH on ZMM (aes_vaes512_gcm.cpp, paired with
// ghash-vpclmul-avx512's key layout); the serial modes and key setup are
// aes-aesni's, as in aes-vaes-avx2 (aes_ni_forward.h says why), so the key
// schedule is AesNiKey.
//
// Written on its own rather than as templates shared with aes_vaes.cpp: the
// kernels have the same outline, but what differs is what the code is about.
// AVX-512 opmasks let a tail of any 1..31 blocks run as one step of
// ceil(n/4) registers with masked loads and stores (aes_vaes.cpp runs the
// binary digits of the remainder, one dependent pass each); CTR builds its
// counters with a masked carry, XTS picks the next tweak with a two-source
// permute, and VPTERNLOGQ merges three-way XORs. A vector-type abstraction
// over both would hide exactly those operations behind wrappers.
//
// Why 32 blocks: a VAES instruction has a latency of 3-4 cycles and the
// cores with full-width AVX-512 issue two per cycle, so 8 independent
// registers keep the AES units busy; the 15 broadcast round keys and 8 data
// registers still fit the 32 vector registers. Measured against 16 blocks
// (4 registers) on Zen 5: see the core's entry in the README/benchmarks.
//
// Compiled with -maes -mvaes -mavx2 -mavx512f -mavx512bw -mavx512vl (root
// CMakeLists.txt) and reached only through the `aes_vaes_avx512` descriptor,
// which the registry offers when the CPU probe reports AES-NI, AVX2, AVX-512
// F/BW/VL with OS ZMM state, and VAES. VAES and AES-NI instructions run in
// constant time; the only branches are on public counts and counters.
// The VAES operations, round keys and step shapes are in aes_vaes512.h
// (shared with the GCM kernel), included first for the reason it gives.
#include "cores/x86_64/aes_vaes512.h"

#include <bit>
#include <cstring>

#include "cores/cpu.h"
#include "cores/x86_64/aes_vaes.h"
#include "cores/x86_64/aes_ni_forward.h"
#include "cores/x86_64/x86_64.h"

namespace hwc::x86_64 {
namespace {

using aesni::aes_key;
using aesni::Counter;
using aesni::counter_block;
using aesni::load_counter;
using aesni::with_rounds;
using vaes::load128;
using vaes::store128;

using namespace vaes512;

// ---- ECB -------------------------------------------------------------------------

template <unsigned NR, bool Enc>
void ecb_kernel(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    const ZmmKeys<NR> rk = broadcast_keys<NR>(Enc ? aes_key(ks).enc : aes_key(ks).dec);
    for_steps(n, [&](auto regs, size_t last) {
        constexpr size_t M = decltype(regs)::value;
        const Step<M> s(last);
        __m512i b[M];
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) b[j] = _mm512_xor_si512(s.load(in, j), rk.k[0]);
        middle_rounds<NR, Enc>(rk, b);
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) s.store(out, j, last_round<Enc>(b[j], rk.k[NR]));
        in += 16 * s.blocks(), out += 16 * s.blocks();
    });
}

// ---- CBC and CFB decryption --------------------------------------------------------

// The ciphertext blocks one position back from those of register j: for
// j = 0 the chaining value (lane 3 of `prev`, a broadcast) followed by
// blocks 0..2, otherwise a load 16 bytes before the register's own blocks
// (masked like the register itself, so it never reads past the data).
template <size_t M>
[[gnu::always_inline]] inline __m512i previous_reg(const Step<M>& s, __m512i prev,
                                                   const uint8_t* in, size_t j) {
    if (j == 0) return _mm512_alignr_epi64(s.load(in, 0), prev, 6);
    return s.load(in - 16, j);
}

// CBC decryption: P_i = D(C_i) ^ C_{i-1}, the XOR folded into the last round
// key. Every input load of a step comes before its first store, so in == out
// is safe although the chaining loads are shifted by a block.
template <unsigned NR>
void cbc_dec_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    const ZmmKeys<NR> rk = broadcast_keys<NR>(aes_key(ks).dec);
    __m128i prev = load128(iv);
    for_steps(n, [&](auto regs, size_t last) {
        constexpr size_t M = decltype(regs)::value;
        const Step<M> s(last);
        __m512i b[M];
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) b[j] = _mm512_xor_si512(s.load(in, j), rk.k[0]);
        middle_rounds<NR, false>(rk, b);
        const __m512i p = _mm512_broadcast_i32x4(prev);
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j)
            b[j] = vaesdeclast(b[j], _mm512_xor_si512(rk.k[NR], previous_reg(s, p, in, j)));
        prev = load128(in + 16 * (s.blocks() - 1));
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) s.store(out, j, b[j]);
        in += 16 * s.blocks(), out += 16 * s.blocks();
    });
    store128(iv, prev);
}

// CFB decryption: P_i = C_i ^ E(C_{i-1}); every cipher input is ciphertext.
template <unsigned NR>
void cfb_dec_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    const ZmmKeys<NR> rk = broadcast_keys<NR>(aes_key(ks).enc);
    __m128i prev = load128(iv);
    for_steps(n, [&](auto regs, size_t last) {
        constexpr size_t M = decltype(regs)::value;
        const Step<M> s(last);
        const __m512i p = _mm512_broadcast_i32x4(prev);
        __m512i b[M];
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j)
            b[j] = _mm512_xor_si512(previous_reg(s, p, in, j), rk.k[0]);
        middle_rounds<NR, true>(rk, b);
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j)
            b[j] = vaesenclast(b[j], _mm512_xor_si512(rk.k[NR], s.load(in, j)));
        prev = load128(in + 16 * (s.blocks() - 1));
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) s.store(out, j, b[j]);
        in += 16 * s.blocks(), out += 16 * s.blocks();
    });
    store128(iv, prev);
}

// ---- CTR ---------------------------------------------------------------------------
//
// The 128-bit big-endian counter is kept as two native 64-bit halves
// (wrapping mod 2^128). When no block of a step carries out of byte 15 (7
// steps in 8 at most), a register's counters are the byte-swapped base,
// broadcast, plus (4j+l) << 56 in the high 64 bits of lane l, which lands on
// byte 15. Otherwise they are built natively: the base (lo, hi) in every
// lane, 4j+l added to the low halves, the lanes whose low half wrapped get
// one added to their high half under a mask, then a byte swap per lane. The
// counter is public (the IV), so the branch reveals nothing secret.
[[gnu::always_inline]] inline long long ll(uint64_t v) { return static_cast<long long>(v); }

template <size_t M>
[[gnu::always_inline]] inline void counter_regs(Counter& c, size_t nb, __m512i (&b)[M]) {
    if ((c.lo & 0xff) <= 256 - 4 * M) {
        const __m512i base = _mm512_broadcast_i32x4(counter_block(c.hi, c.lo));
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j)
            b[j] = _mm512_add_epi64(base, _mm512_set_epi64(ll((4 * j + 3) << 56), 0,
                                                           ll((4 * j + 2) << 56), 0,
                                                           ll((4 * j + 1) << 56), 0,
                                                           ll((4 * j) << 56), 0));
    } else {
        const __m512i base =
            _mm512_broadcast_i32x4(_mm_set_epi64x(ll(c.hi), ll(c.lo)));
        const __m512i bswap = _mm512_broadcast_i32x4(
            _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) {
            __m512i v = _mm512_add_epi64(
                base, _mm512_set_epi64(0, ll(4 * j + 3), 0, ll(4 * j + 2), 0, ll(4 * j + 1), 0,
                                       ll(4 * j)));
            // Low halves (even elements) that wrapped: carry into the odd one above.
            const __mmask8 carry = _mm512_cmplt_epu64_mask(v, base) & 0x55;
            v = _mm512_mask_sub_epi64(v, static_cast<__mmask8>(carry << 1), v,
                                      _mm512_set1_epi64(-1));
            b[j] = _mm512_shuffle_epi8(v, bswap);
        }
    }
    const uint64_t lo = c.lo + nb;
    c.hi += lo < c.lo;
    c.lo = lo;
}

template <unsigned NR>
void ctr_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                size_t n) {
    const ZmmKeys<NR> rk = broadcast_keys<NR>(aes_key(ks).enc);
    Counter ctr = load_counter(iv);
    for_steps(n, [&](auto regs, size_t last) {
        constexpr size_t M = decltype(regs)::value;
        const Step<M> s(last);
        __m512i b[M];
        counter_regs(ctr, s.blocks(), b);
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) b[j] = _mm512_xor_si512(b[j], rk.k[0]);
        middle_rounds<NR, true>(rk, b);
        // Each register's output overwrites only its own input (in == out).
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j)
            s.store(out, j, vaesenclast(b[j], _mm512_xor_si512(rk.k[NR], s.load(in, j))));
        in += 16 * s.blocks(), out += 16 * s.blocks();
    });
    store128(iv, counter_block(ctr.hi, ctr.lo));
}

// ---- XTS -------------------------------------------------------------------------
//
// Tweaks live four per register, (T, T*alpha, T*alpha^2, T*alpha^3), each
// lane an independent field element, stepped by a power of alpha with
// shifts (no carry-less multiply is assumed: VPCLMULQDQ is not in `needs`).
// The arithmetic is aes_vaes.cpp's (mul_alpha_k there explains it): IEEE
// order is a left shift of the little-endian lane with the leaving bits
// folded back times 0x87, GB/T order the mirror image on the byte-reversed
// lane. Branch-free: tweaks are secret.
//
// The main loop keeps 8 tweak registers (32 consecutive tweaks) and advances
// each by alpha^32, one register per AES round.
template <unsigned K, bool Gb>
[[gnu::always_inline]] inline __m512i mul_alpha_k(__m512i t) {
    static_assert(K >= 1 && K <= 56);
    if constexpr (K % 8 == 0) {
        // Whole bytes: 128-bit byte shifts move the lane and extract the
        // leaving bits in one instruction each.
        constexpr int B = K / 8;
        if constexpr (!Gb) {
            const __m512i top = _mm512_bsrli_epi128(t, 16 - B); // < 2^K, low half
            return xor3(xor3(_mm512_bslli_epi128(t, B), top, _mm512_slli_epi64(top, 1)),
                        _mm512_slli_epi64(top, 2), _mm512_slli_epi64(top, 7));
        } else {
            const __m512i bot = _mm512_bslli_epi128(t, 16 - B); // top K bits, high half
            return xor3(xor3(_mm512_bsrli_epi128(t, B), bot, _mm512_srli_epi64(bot, 1)),
                        _mm512_srli_epi64(bot, 2), _mm512_srli_epi64(bot, 7));
        }
    } else if constexpr (!Gb) {
        // The bits leaving each 64-bit half, swapped to the other half: in
        // the high half they cross from the low one, in the low half they
        // are the bits that left the lane, folded back times 0x87.
        const __m512i s = _mm512_shuffle_epi32(_mm512_srli_epi64(t, 64 - K), _MM_PERM_BADC);
        const __m512i top = _mm512_maskz_mov_epi64(0x55, s);
        return xor3(xor3(_mm512_slli_epi64(t, K), s, _mm512_slli_epi64(top, 1)),
                    _mm512_slli_epi64(top, 2), _mm512_slli_epi64(top, 7));
    } else {
        const __m512i s = _mm512_shuffle_epi32(_mm512_slli_epi64(t, 64 - K), _MM_PERM_BADC);
        const __m512i bot = _mm512_maskz_mov_epi64(0xaa, s);
        return xor3(xor3(_mm512_srli_epi64(t, K), s, _mm512_srli_epi64(bot, 1)),
                    _mm512_srli_epi64(bot, 2), _mm512_srli_epi64(bot, 7));
    }
}

// Tweak register (field order) <-> the bytes XORed with data. IEEE: the same;
// GB: byte-reversed per lane.
template <bool Gb>
[[gnu::always_inline]] inline __m512i tweak_bytes(__m512i t) {
    if constexpr (!Gb) return t;
    return _mm512_shuffle_epi8(t, _mm512_broadcast_i32x4(_mm_set_epi8(
                                      0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15)));
}

// mul_alpha_k with K given per lane (in both of its qwords, 0..56).
template <bool Gb>
[[gnu::always_inline]] inline __m512i mul_alpha_var(__m512i t, __m512i k) {
    const __m512i rest = _mm512_sub_epi64(_mm512_set1_epi64(64), k);
    if constexpr (!Gb) {
        const __m512i s = _mm512_shuffle_epi32(_mm512_srlv_epi64(t, rest), _MM_PERM_BADC);
        const __m512i top = _mm512_maskz_mov_epi64(0x55, s);
        return xor3(xor3(_mm512_sllv_epi64(t, k), s, _mm512_slli_epi64(top, 1)),
                    _mm512_slli_epi64(top, 2), _mm512_slli_epi64(top, 7));
    } else {
        const __m512i s = _mm512_shuffle_epi32(_mm512_sllv_epi64(t, rest), _MM_PERM_BADC);
        const __m512i bot = _mm512_maskz_mov_epi64(0xaa, s);
        return xor3(xor3(_mm512_srlv_epi64(t, k), s, _mm512_srli_epi64(bot, 1)),
                    _mm512_srli_epi64(bot, 2), _mm512_srli_epi64(bot, 7));
    }
}

// M consecutive tweak registers starting with the tweak in lane 0 of `t`,
// register j holding T * alpha^(4j) .. T * alpha^(4j+3), each computed from T
// directly (aes_vaes.cpp's first_tweaks explains why).
template <bool Gb, size_t M>
[[gnu::always_inline]] inline void first_tweaks(__m512i t, __m512i (&tw)[M]) {
    const __m512i b = _mm512_broadcast_i32x4(_mm512_castsi512_si128(t));
#pragma GCC unroll 8
    for (size_t j = 0; j < M; ++j) {
        const long long k = static_cast<long long>(4 * j);
        tw[j] = mul_alpha_var<Gb>(
            b, _mm512_set_epi64(k + 3, k + 3, k + 2, k + 2, k + 1, k + 1, k, k));
    }
}

// One step with tweak registers `tw`, each folded into round key 0 and the
// last round key (aes_ni.h). When Advance, the tweaks of the next full step
// are computed during the rounds into `tw`.
template <unsigned NR, bool Enc, bool Gb, bool Advance, size_t M>
[[gnu::always_inline]] inline void xts_step(const ZmmKeys<NR>& rk, const Step<M>& s,
                                            __m512i (&tw)[M], const uint8_t* in, uint8_t* out) {
    __m512i b[M], tb[M], next[M];
#pragma GCC unroll 8
    for (size_t j = 0; j < M; ++j) {
        tb[j] = tweak_bytes<Gb>(tw[j]);
        b[j] = xor3(s.load(in, j), tb[j], rk.k[0]);
    }
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) { // NR - 1 >= 9 rounds: room for 8 updates
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) b[j] = round<Enc>(b[j], rk.k[r]);
        if constexpr (Advance) {
            if (r <= M) next[r - 1] = mul_alpha_k<4 * kRegs, Gb>(tw[r - 1]);
        }
    }
#pragma GCC unroll 8
    for (size_t j = 0; j < M; ++j)
        s.store(out, j, last_round<Enc>(b[j], _mm512_xor_si512(tb[j], rk.k[NR])));
    if constexpr (Advance) {
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) tw[j] = next[j];
    }
}

// The running tweak comes and goes in a register (bytes as XORed with the
// data), as in aes_vaes.cpp; returns the tweak after the last block.
template <unsigned NR, bool Enc, bool Gb>
[[gnu::noinline]] __m128i xts_kernel(const KeySchedule& ks, __m128i tweak, const uint8_t* in,
                                     uint8_t* out, size_t n) {
    const ZmmKeys<NR> rk = broadcast_keys<NR>(Enc ? aes_key(ks).enc : aes_key(ks).dec);
    // The running tweak, field order, in lane 0.
    __m512i t = tweak_bytes<Gb>(_mm512_castsi128_si512(tweak));
    if (n >= kStep) {
        __m512i tw[kRegs];
        first_tweaks<Gb>(t, tw);
        const Step<kRegs> s(4);
        for (; n >= kStep; n -= kStep, in += 16 * kStep, out += 16 * kStep)
            xts_step<NR, Enc, Gb, true>(rk, s, tw, in, out);
        t = tw[0]; // computed ahead for a step that did not come
    }
    if (n == 0) return _mm512_castsi512_si128(tweak_bytes<Gb>(t));
    for_steps(n, [&](auto regs, size_t last) {
        constexpr size_t M = decltype(regs)::value;
        const Step<M> s(last);
        __m512i tw[M];
        first_tweaks<Gb>(t, tw);
        xts_step<NR, Enc, Gb, false>(rk, s, tw, in, out);
        // The next tweak: lane `last` of (tw[M-1], tw[M-1] * alpha^4), the
        // count being public. Qwords 8.. of the permute are the second source.
        const __m512i after = mul_alpha_k<4, Gb>(tw[M - 1]);
        const long long q = static_cast<long long>(2 * last);
        t = _mm512_permutex2var_epi64(tw[M - 1], _mm512_set_epi64(0, 0, 0, 0, 0, 0, q + 1, q),
                                      after);
    });
    return _mm512_castsi512_si128(tweak_bytes<Gb>(t));
}

// ---- OCB -------------------------------------------------------------------------
//
// Offset_i = Offset_{i-1} ^ L[ntz(i)] (the L row loaded by index: the block
// count is public). Each offset is folded into round key 0 and the last
// round key; the checksum is summed per lane and the lanes XORed at the end.
// in == out is safe: each register's output overwrites only its own input.
//
// Computing the offsets as that serial chain costs one dependent XOR per
// block, which at 32 blocks per step is about as long as the AES rounds. So
// the main loop runs on steps that start at a multiple of 32 blocks: there
// ntz(s + i) = ntz(i) for i < 32, and the step's offsets are its start
// offset XOR a fixed pattern (XOR of L[ntz(m)], m = 1..i), built once per
// call, plus, in the last lane only, L[ntz(s + 32)]. Blocks before the first
// such boundary and after the last whole step use the serial chain.

// Four blocks in lanes 0..3.
[[gnu::always_inline]] inline __m512i lanes4(__m128i o0, __m128i o1, __m128i o2, __m128i o3) {
    return _mm512_inserti64x4(
        _mm512_castsi256_si512(_mm256_inserti128_si256(_mm256_castsi128_si256(o0), o1, 1)),
        _mm256_inserti128_si256(_mm256_castsi128_si256(o2), o3, 1), 1);
}

// One step with offsets o[j] ^ base, `base` being common to the step's
// blocks and passed already XORed into round key 0 (`first`) and the last
// round key (`last`); `sum` collects the plaintext.
template <unsigned NR, bool Enc, size_t M>
[[gnu::always_inline]] inline __m512i ocb_step(const ZmmKeys<NR>& rk, const Step<M>& s,
                                               const __m512i (&o)[M], __m512i first,
                                               __m512i last, __m512i sum, const uint8_t* in,
                                               uint8_t* out) {
    __m512i b[M];
#pragma GCC unroll 8
    for (size_t j = 0; j < M; ++j) {
        const __m512i x = s.load(in, j);
        if constexpr (Enc) sum = _mm512_xor_si512(sum, x);
        b[j] = xor3(x, o[j], first);
    }
    middle_rounds<NR, Enc>(rk, b);
#pragma GCC unroll 8
    for (size_t j = 0; j < M; ++j) {
        const __m512i p = last_round<Enc>(b[j], _mm512_xor_si512(o[j], last));
        if constexpr (!Enc) sum = _mm512_xor_si512(sum, s.only_blocks(j, p));
        s.store(out, j, p);
    }
    return sum;
}

template <unsigned NR, bool Enc>
void ocb_kernel(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out,
                size_t n) {
    const ZmmKeys<NR> rk = broadcast_keys<NR>(Enc ? aes_key(ks).enc : aes_key(ks).dec);
    __m128i offset = load128(st.offset);
    __m512i sum = _mm512_maskz_mov_epi64(0x03, _mm512_castsi128_si512(load128(st.checksum)));
    uint64_t blocks = st.blocks;
    const uint8_t(*l)[kBlockSize] = st.l;
    // The step works on local copies of the running state: the lambda is
    // not always inlined, and a chain through its captured variables would
    // go through memory (store forwarding) once per block.
    auto serial_step = [&](auto regs, size_t last) {
        constexpr size_t M = decltype(regs)::value;
        const Step<M> s(last);
        __m128i off = offset;
        uint64_t count = blocks;
        auto next_offset = [&] {
            off = _mm_xor_si128(off, load128(l[std::countr_zero(++count)]));
            return off;
        };
        __m512i o[M];
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) {
            const size_t lanes = j + 1 < M ? 4 : last;
            const __m128i o0 = next_offset();
            const __m128i o1 = lanes > 1 ? next_offset() : o0;
            const __m128i o2 = lanes > 2 ? next_offset() : o1;
            const __m128i o3 = lanes > 3 ? next_offset() : o2;
            o[j] = lanes4(o0, o1, o2, o3);
        }
        offset = off;
        blocks = count;
        sum = ocb_step<NR, Enc>(rk, s, o, rk.k[0], rk.k[NR], sum, in, out);
        in += 16 * s.blocks(), out += 16 * s.blocks();
    };
    // The pattern pays for itself from two aligned steps on.
    const size_t head = (kStep - blocks % kStep) % kStep;
    if (n >= head + 2 * kStep) {
        for_steps(head, serial_step); // head < kStep: one step at most
        n -= head;
        // The pattern, register j holding P[4j+1..4j+4], where P[i] =
        // L[ntz(1)] ^ ... ^ L[ntz(i)]. Step m flips bit ntz(m) of the Gray
        // code m ^ (m >> 1), so P[i] is the XOR of L[k] over the set bits k
        // of i ^ (i >> 1); with ntz(4j+1) = ntz(4j+3) = 0, ntz(4j+2) = 1 and
        // ntz(4j+4) = 2 + ntz(j+1), register j is P[4j] (some of L1..L4) ^
        // (L0, L0^L1, L1, L1 ^ L[2+ntz(j+1)]). Each register is a few XORs
        // of broadcast rows, none waiting on another (31 serial XORs and a
        // trip through the stack before). Lane 3 of the last register
        // leaves out L[ntz(s + kStep)], which each step adds.
        __m512i q[kRegs];
        {
            __m512i lb[5];
#pragma GCC unroll 5
            for (size_t k = 0; k < 5; ++k) lb[k] = _mm512_broadcast_i32x4(load128(l[k]));
            // (L0, L0^L1, L1, L1): masks select 64-bit elements, two a lane.
            const __m512i w = _mm512_mask_mov_epi64(
                _mm512_mask_xor_epi64(lb[1], 0x0c, lb[0], lb[1]), 0x03, lb[0]);
#pragma GCC unroll 8
            for (size_t j = 0; j < kRegs; ++j) {
                const size_t g = 4 * j ^ 2 * j; // Gray code of 4j
                __m512i r = w;
                if (j + 1 < kRegs)
                    r = _mm512_mask_xor_epi64(r, 0xc0, r, lb[2 + std::countr_zero(j + 1)]);
                for (size_t k = 1; k < 5; ++k)
                    if (g >> k & 1) r = _mm512_xor_si512(r, lb[k]);
                q[j] = r;
            }
        }
        const Step<kRegs> s(4);
        // The step's start offset goes into its two keys once (two XORs a
        // step, not one per register), the pattern being the o[j].
        const __m128i p_last = _mm512_extracti32x4_epi32(q[kRegs - 1], 3);
        for (; n >= kStep; n -= kStep, in += 16 * kStep, out += 16 * kStep) {
            blocks += kStep;
            const __m128i l_step = load128(l[std::countr_zero(blocks)]);
            __m512i o[kRegs];
#pragma GCC unroll 8
            for (size_t j = 0; j + 1 < kRegs; ++j) o[j] = q[j];
            o[kRegs - 1] =
                _mm512_xor_si512(q[kRegs - 1], _mm512_maskz_broadcast_i32x4(0xf000, l_step));
            const __m512i base = _mm512_broadcast_i32x4(offset);
            sum = ocb_step<NR, Enc>(rk, s, o, _mm512_xor_si512(base, rk.k[0]),
                                    _mm512_xor_si512(base, rk.k[NR]), sum, in, out);
            // The step's last offset: base ^ P[kStep - 1] ^ L[ntz(s + kStep)].
            offset = _mm_ternarylogic_epi64(offset, p_last, l_step, 0x96);
        }
    }
    for_steps(n, serial_step);
    const __m256i half =
        _mm256_xor_si256(_mm512_castsi512_si256(sum), _mm512_extracti64x4_epi64(sum, 1));
    store128(st.offset, offset);
    store128(st.checksum,
             _mm_xor_si128(_mm256_castsi256_si128(half), _mm256_extracti128_si256(half, 1)));
    st.blocks = blocks;
}

// ---- slot entry points: the instantiation for the schedule's round count ------
//
// Below a few blocks a call is bound by the latency of one pass through the
// rounds, which is longer for a ZMM VAES chain than for a YMM one (Zen 5,
// measured per kernel call: ECB, CBC/CFB decryption 5-15 % slower on ZMM up
// to 7 blocks, XTS and OCB up to 4; CTR never). Those calls go to
// aes-vaes-avx2's kernels, through its descriptor (same key schedule).
constexpr size_t kYmmBelow = 8;    // ECB, CBC and CFB decryption
constexpr size_t kYmmUpTo = 4;     // XTS, OCB

void zmm_encrypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    if (n < kYmmBelow) return aes_vaes_avx2.encrypt_blocks(ks, in, out, n);
    with_rounds(ks, [&](auto nr) { ecb_kernel<decltype(nr)::value, true>(ks, in, out, n); });
}
void zmm_decrypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    if (n < kYmmBelow) return aes_vaes_avx2.decrypt_blocks(ks, in, out, n);
    with_rounds(ks, [&](auto nr) { ecb_kernel<decltype(nr)::value, false>(ks, in, out, n); });
}
void zmm_cbc_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    if (n < kYmmBelow) return aes_vaes_avx2.cbc_decrypt(ks, iv, in, out, n);
    with_rounds(ks, [&](auto nr) { cbc_dec_kernel<decltype(nr)::value>(ks, iv, in, out, n); });
}
void zmm_cfb_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    if (n < kYmmBelow) return aes_vaes_avx2.cfb_decrypt(ks, iv, in, out, n);
    with_rounds(ks, [&](auto nr) { cfb_dec_kernel<decltype(nr)::value>(ks, iv, in, out, n); });
}
void zmm_ctr(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) { ctr_kernel<decltype(nr)::value>(ks, iv, in, out, n); });
}
template <bool Enc, bool Gb>
void zmm_xts(const KeySchedule& ks, uint8_t tweak[16], const uint8_t* in, uint8_t* out,
             size_t n) {
    if (n <= kYmmUpTo) {
        const ChainFn ymm = Gb ? (Enc ? aes_vaes_avx2.xts_gb_encrypt : aes_vaes_avx2.xts_gb_decrypt)
                               : (Enc ? aes_vaes_avx2.xts_encrypt : aes_vaes_avx2.xts_decrypt);
        return ymm(ks, tweak, in, out, n);
    }
    with_rounds(ks, [&](auto nr) {
        store128(tweak, xts_kernel<decltype(nr)::value, Enc, Gb>(ks, load128(tweak), in, out, n));
    });
}
// A whole IEEE unit from the iv, as aes_vaes.cpp's: E(key 2, iv) on XMM,
// then the blocks (up to kYmmUpTo on aes-vaes-avx2's kernel).
template <bool Enc>
bool zmm_xts_unit(const KeySchedule& data_ks, const KeySchedule& tweak_ks, const uint8_t iv[16],
                  const uint8_t* in, uint8_t* out, size_t n) {
    if (n <= kYmmUpTo)
        return (Enc ? aes_vaes_avx2.xts_unit_encrypt : aes_vaes_avx2.xts_unit_decrypt)(
            data_ks, tweak_ks, iv, in, out, n);
    with_rounds(data_ks, [&](auto nr) {
        constexpr unsigned NR = decltype(nr)::value;
        xts_kernel<NR, Enc, false>(data_ks, aesni::xts_first_tweak<NR>(tweak_ks, iv), in, out, n);
    });
    return true;
}
template <bool Enc>
void zmm_ocb(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out, size_t n) {
    if (n <= kYmmUpTo)
        return (Enc ? aes_vaes_avx2.ocb_encrypt : aes_vaes_avx2.ocb_decrypt)(ks, st, in, out, n);
    with_rounds(ks, [&](auto nr) { ocb_kernel<decltype(nr)::value, Enc>(ks, st, in, out, n); });
}

} // namespace

extern const BlockCore aes_vaes_avx512 = {
    .name = "aes-vaes-avx512",
    .family = Family::aes,
    .hardware = true,
    // AES-NI for the serial kernels borrowed from aes-aesni, AVX2 for
    // aes-vaes-avx2's GCM kernel (short calls); kVaesFeature is kX86Vaes
    // except in the HWCIPHER_VAES_EMULATE test build (aes_vaes.h).
    .needs = kX86Aesni | kX86Avx2 | kX86Avx512 | vaes::kVaesFeature,
    .set_key = ni_set_key,
    .encrypt_blocks = zmm_encrypt,
    .decrypt_blocks = zmm_decrypt,
    .cbc_encrypt = ni_cbc_encrypt,
    .cbc_decrypt = zmm_cbc_decrypt,
    .cfb_encrypt = ni_cfb_encrypt,
    .cfb_decrypt = zmm_cfb_decrypt,
    .ofb = ni_ofb,
    .ctr = zmm_ctr,
    .cfb8_encrypt = ni_cfb8_encrypt,
    .cfb8_decrypt = ni_cfb8_decrypt,
    .cbc_mac = ni_cbc_mac,
    .xts_encrypt = zmm_xts<true, false>,
    .xts_decrypt = zmm_xts<false, false>,
    .xts_gb_encrypt = zmm_xts<true, true>,
    .xts_gb_decrypt = zmm_xts<false, true>,
    .xts_tweak = ni_xts_tweak,
    .xts_unit_encrypt = zmm_xts_unit<true>,
    .xts_unit_decrypt = zmm_xts_unit<false>,
    .ocb_encrypt = zmm_ocb<true>,
    .ocb_decrypt = zmm_ocb<false>,
    // Stitched GCM on ZMM (aes_vaes512_gcm.cpp), which reads
    // ghash-vpclmul-avx512's GhashKey layout; that core's `needs` (VPCLMULQDQ,
    // PCLMULQDQ) guard the kernel, which runs only with it.
    .gcm_ghash = &ghash_vpclmul_avx512,
    .gcm_encrypt = vaes512::gcm_encrypt,
    .gcm_decrypt = vaes512::gcm_decrypt,
    .ccm_encrypt = ni_ccm_encrypt,
    .ccm_decrypt = ni_ccm_decrypt,
    .ccm_free_counters = true,
};

} // namespace hwc::x86_64
