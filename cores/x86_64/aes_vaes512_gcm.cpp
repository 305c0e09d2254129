// SPDX-License-Identifier: Apache-2.0
// Stitched AES-GCM for aes-vaes-avx512: CTR on VAES with ZMM registers (32
// blocks per step in 8 registers) and GHASH on VPCLMULQDQ with ZMM registers
// (4 blocks per multiply) in the same pass. Contract: GcmFn in cores/core.h.
//
// Why: with CTR on ZMM at about 0.16 cycle per byte, GHASH is what limits
// GCM; as separate passes (ctr, then ghash-vpclmul-avx512) each block is
// also loaded and stored twice. Stitched, the VPCLMULQDQs and the reduction
// run in the issue slots the AES rounds leave, on data already in L1. On
// Zen 4 a VPCLMULQDQ (YMM or ZMM alike) takes about one VAES issue slot and
// occupies its unit for two cycles, so the multiplies are the cost that
// counts beside the rounds: three per register of four blocks in the steps
// (Karatsuba; the key halves' XOR is formed per call, the data's costs two
// unpacks and an XOR per pair of registers, cheaper than the fourth
// multiply), four in a tail (schoolbook, its powers read at any
// offset), and one reduction per 32 blocks. Beside them, every other vector
// operation of a step (counters, the last round's XOR, byte reflection,
// Karatsuba halves, product sums, the reduction) takes 512-bit slots on the
// two pipes that do not run AES; at ~80 such operations per step they are
// near their limit too (Zen 4, measured with an rdtsc loop of the step's
// instruction mix), so the steps take two registers per hashing round and
// sum their products with one three-input XOR per half (VPTERNLOGQ): 12
// fewer XORs per step, ~6% on both key sizes at 16 KiB; the pair's middle
// terms take one unpacked operand (4 fewer operations per step: ~1% on
// AES-128, ~2.5% on AES-256).
//
// GHASH: ghash-vpclmul-avx512's key and helpers (ghash_vpclmul512.h), that
// core being this kernel's `gcm_ghash` partner: H^32..H^1 in descending
// order, so the key's 64-byte units are exactly the powers that the eight
// data registers of a step need, lane by lane, and a tail of n blocks reads
// H^n..H^1 from the same table at an unaligned offset. A step hashes two
// registers after each of rounds 1, 3, 5 and 7; register 0, the only one
// that needs the previous value of y, is multiplied last (round 7), and its
// reduction overlaps the last rounds and the next step's first ones.
//
// Direction: decryption hashes the ciphertext it decrypts (all loads of a
// step come before its stores, so in == out works); encryption hashes the
// previous step's output (software pipelining, as aes_vaes_gcm.cpp) and the
// last step's after the loop. Fewer than 32 blocks at the end, and short
// calls, run as one masked CTR step (aes_vaes512.h's Step) and one masked
// GHASH group: a 4-block call is one register through the rounds and four
// multiplies, with no other set-up than the round keys' broadcasts.
//
// Counter: GCM's inc32 on the last 4 bytes, never wrapping inside a call
// (the caller splits there). While the last byte does not carry within a
// step, a register's counter blocks are the big-endian block plus constants
// in its last byte (one VPADDD); otherwise the 32-bit field is byte-swapped
// to a native dword, added to and swapped back (lane l holding +l).
//
// HWCIPHER_VAES_EMULATE / HWCIPHER_VPCLMUL_EMULATE (the isa-emu test build):
// VAES as in aes_vaes512.h, VPCLMULQDQ on ZMM as four PCLMULQDQs
// (ghash_vpclmul512.h); the root CMakeLists.txt then leaves -mvpclmulqdq off
// this file, so no EVEX VPCLMULQDQ can be emitted. VPCLMULQDQ, PCLMULQDQ and
// VAES run in constant time; the only branches are on public counts and the
// (public) counter.
//
// Compiled with -maes -mvaes -mavx2 -mavx512f -mavx512bw -mavx512vl
// -mvpclmulqdq -mpclmul (root CMakeLists.txt); reached only through the
// aes_vaes_avx512 descriptor, and only when the GCM context's GHASH core is
// ghash-vpclmul-avx512 (cores/modes.h gcm_kernel), whose `needs` add
// VPCLMULQDQ and PCLMULQDQ to the block core's.
#include "cores/x86_64/aes_vaes512.h"

#include <cstring>

#include "cores/x86_64/ghash_clmul.h"
#include "cores/x86_64/ghash_vpclmul512.h"

namespace hwc::x86_64::vaes512 {
namespace {

using aesni::aes_key;
using aesni::with_rounds;
using namespace vpclmul512;

static_assert(kStep == kPowers && kRegs == kUnits, "one GHASH reduction per step");

// Calls of at least this many blocks align their output first (gcm_kernel):
// below it the extra masked step costs about what the split lines do.
constexpr size_t kPeelFrom = 4 * kStep;

// The powers of a step: unit m of the key, H^(32-4m)..H^(29-4m), for
// register m (read from the key where they are used: the compiler then
// takes them as memory operands and keeps the registers for the rounds),
// and, formed once per call, the Karatsuba halves of the two registers that
// pair p hashes together (pair_regs): those of the first in the low
// quadword of each lane, those of the second in the high one.
constexpr size_t kPairs = kRegs / 2;

struct PairRegs {
    size_t m0, m1;
};
// Pair p: registers 1-2, 3-4, 5-6, then 7-0 (0, with y, last).
constexpr PairRegs pair_regs(size_t p) { return {group_order(2 * p), group_order(2 * p + 1)}; }

struct Powers {
    const Vpclmul512Key& key;
    __m512i k[kPairs];

    [[gnu::always_inline]] explicit Powers(const Vpclmul512Key& kd) : key(kd) {
#pragma GCC unroll 4
        for (size_t p = 0; p < kPairs; ++p)
            k[p] = _mm512_unpacklo_epi64(halves_xor4(h(pair_regs(p).m0)),
                                         halves_xor4(h(pair_regs(p).m1)));
    }
    [[gnu::always_inline]] __m512i h(size_t m) const { return _mm512_load_si512(&key.pw[m]); }
};

// ---- counters ------------------------------------------------------------------------

// GCM's counter: the counter block, whose last 4 bytes are rebuilt from n,
// GCM's 32-bit counter of the next block (native).
struct Ctr32 {
    __m128i block;
    uint32_t n;
};

[[gnu::always_inline]] inline __m128i ctr_block(const Ctr32& c) {
    return _mm_insert_epi32(c.block, static_cast<int>(__builtin_bswap32(c.n)), 3);
}

// Swaps the last 4 bytes of each lane: GCM's big-endian 32-bit field <->
// a native dword (its own inverse).
[[gnu::always_inline]] inline __m512i swap_ctr32(__m512i v) {
    return _mm512_shuffle_epi8(v, _mm512_broadcast_i32x4(_mm_set_epi8(
                                      12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)));
}

// `v` in dword 3 of lane l, times (l + 1) + a: the per-lane offsets.
[[gnu::always_inline]] inline __m512i lane_dword3(uint32_t a, uint32_t v) {
    const auto e = [&](uint32_t l) { return static_cast<int>(a + v * l); };
    return _mm512_set_epi32(e(3), 0, 0, 0, e(2), 0, 0, 0, e(1), 0, 0, 0, e(0), 0, 0, 0);
}

// Counter blocks of the next M registers (nb = 1..4M of them real), XORed
// with round key 0; c advances by nb.
template <size_t M>
[[gnu::always_inline]] inline void counter_regs(Ctr32& c, size_t nb, __m512i k0,
                                                __m512i (&b)[M]) {
    const __m512i block = _mm512_broadcast_i32x4(ctr_block(c));
    if ((c.n & 0xff) + nb <= 256) {
        // No carry out of the last byte: add in big-endian, to that byte.
        const __m512i base = _mm512_add_epi32(block, lane_dword3(0, 1u << 24));
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j)
            b[j] = _mm512_xor_si512(
                _mm512_add_epi32(base, lane_dword3(static_cast<uint32_t>(4 * j) << 24, 0)), k0);
    } else {
        const __m512i base = _mm512_add_epi32(swap_ctr32(block), lane_dword3(0, 1));
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j)
            b[j] = _mm512_xor_si512(
                swap_ctr32(_mm512_add_epi32(base, lane_dword3(static_cast<uint32_t>(4 * j), 0))),
                k0);
    }
    c.n += static_cast<uint32_t>(nb);
}

// acc (first: acc =) a * b + c * d, lane by lane, Karatsuba, with
// bdk = (b's halves' XOR, d's halves' XOR) in the low and high quadword of
// each lane: the data's halves' XORs are formed the same way, for both
// registers at once (two unpacks and one XOR), and each product half of the
// two registers is summed with one three-input XOR.
[[gnu::always_inline]] inline void mul2_acc4k(Acc4& acc, bool first, __m512i a, __m512i b,
                                              __m512i c, __m512i d, __m512i bdk) {
    const __m512i lo0 = clmul512<0x00>(a, b), lo1 = clmul512<0x00>(c, d);
    const __m512i hi0 = clmul512<0x11>(a, b), hi1 = clmul512<0x11>(c, d);
    const __m512i acx = _mm512_xor_si512(_mm512_unpacklo_epi64(a, c), _mm512_unpackhi_epi64(a, c));
    const __m512i mi0 = clmul512<0x00>(acx, bdk), mi1 = clmul512<0x11>(acx, bdk);
    if (first) {
        acc.lo = _mm512_xor_si512(lo0, lo1);
        acc.hi = _mm512_xor_si512(hi0, hi1);
        acc.mid = _mm512_xor_si512(mi0, mi1);
    } else {
        acc.lo = xor3_512(acc.lo, lo0, lo1);
        acc.hi = xor3_512(acc.hi, hi0, hi1);
        acc.mid = xor3_512(acc.mid, mi0, mi1);
    }
}

// ---- steps ---------------------------------------------------------------------------

// One step: CTR over 32 blocks (in -> out) and, when Hash, GHASH of the 32
// ciphertext blocks at `ct` into y, two registers after each of rounds 1,
// 3, 5 and 7 (NR - 1 >= 9 rounds), register 0 last, then one reduction.
// `ct` is read before `out` is written, so decryption may run in place.
template <unsigned NR, bool Hash>
[[gnu::always_inline]] inline void stitched_step(const ZmmKeys<NR>& rk, const Powers& pk,
                                                 Ctr32& ctr, __m128i& y, const uint8_t* ct,
                                                 const uint8_t* in, uint8_t* out) {
    __m512i b[kRegs];
    counter_regs<kRegs>(ctr, kStep, rk.k[0], b);
    [[maybe_unused]] Acc4 acc;
    // Register pressure guards (empty asm, no instructions), as in
    // aes_vaes_gcm.cpp: no forwarding of the previous step's output from
    // registers, no regrouping of the product sums into one late tree.
    __asm__("" : "+r"(ct));
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) {
#pragma GCC unroll 8
        for (size_t j = 0; j < kRegs; ++j) b[j] = vaesenc(b[j], rk.k[r]);
        if constexpr (Hash) {
            if (r % 2 == 1 && r < 2 * kPairs) {
                const size_t p = r / 2;
                const size_t m0 = pair_regs(p).m0, m1 = pair_regs(p).m1;
                const __m512i x0 = reflect4(_mm512_loadu_si512(ct + 64 * m0));
                __m512i x1 = reflect4(_mm512_loadu_si512(ct + 64 * m1));
                if (m1 == 0) x1 = _mm512_xor_si512(x1, _mm512_zextsi128_si512(y));
                mul2_acc4k(acc, p == 0, x0, pk.h(m0), x1, pk.h(m1), pk.k[p]);
                __asm__("" : "+v"(acc.lo), "+v"(acc.mid), "+v"(acc.hi));
                if (m1 == 0) y = reduce4(karatsuba_mid(acc));
            }
        }
    }
#pragma GCC unroll 8
    for (size_t j = 0; j < kRegs; ++j)
        _mm512_storeu_si512(out + 64 * j,
                            vaesenclast(b[j], _mm512_xor_si512(
                                                  rk.k[NR], _mm512_loadu_si512(in + 64 * j))));
}

// CTR on the n = 1..31 blocks of one masked step; the output is also left
// in b.
template <unsigned NR, size_t M>
[[gnu::always_inline]] inline void ctr_tail(const ZmmKeys<NR>& rk, Ctr32& ctr,
                                            const uint8_t* in, uint8_t* out, const Step<M>& s,
                                            __m512i (&b)[M]) {
    counter_regs<M>(ctr, s.blocks(), rk.k[0], b);
    middle_rounds<NR, true>(rk, b);
#pragma GCC unroll 8
    for (size_t j = 0; j < M; ++j) {
        b[j] = vaesenclast(b[j], _mm512_xor_si512(rk.k[NR], s.load(in, j)));
        s.store(out, j, b[j]);
    }
}

// The last n = 1..31 blocks of a call (or all of a short one): decryption
// hashes the ciphertext before it is overwritten, encryption the output.
template <unsigned NR, bool Enc>
[[gnu::always_inline]] inline void gcm_tail(const ZmmKeys<NR>& rk, const Vpclmul512Key& key,
                                            Ctr32& ctr, __m128i& y, const uint8_t* in,
                                            uint8_t* out, size_t n) {
    for_steps(n, [&](auto regs, size_t last) {
        constexpr size_t M = decltype(regs)::value;
        const Step<M> s(last);
        __m512i c[M];
        if constexpr (!Enc) y = hash_tail(key, y, in, s.blocks());
        ctr_tail<NR, M>(rk, ctr, in, out, s, c);
        if constexpr (Enc) y = hash_regs(key, y, c, s.blocks());
    });
}

template <unsigned NR, bool Enc>
void gcm_kernel(const KeySchedule& ks, const Vpclmul512Key& key, Ctr32& ctr, __m128i& y,
                const uint8_t* in, uint8_t* out, size_t n) {
    const ZmmKeys<NR> rk = broadcast_keys<NR>(aes_key(ks).enc);
    // A ZMM load or store that is not 64-byte aligned touches two cache
    // lines: a long call whose output is 16-byte aligned (a malloc'd buffer,
    // as `openssl speed` uses, in place) runs its first 1-3 blocks as a
    // masked step so that the steps' stores, the encryption's GHASH loads
    // and, in place, the data loads are all aligned (Zen 4, 16 KiB in place
    // at 48 mod 64: ~13% faster; at 1 KiB the extra step costs as much).
    const size_t mis = reinterpret_cast<uintptr_t>(out) % 64;
    if (n >= kPeelFrom && mis % 16 == 0 && mis != 0) {
        const size_t k = (64 - mis) / 16;
        gcm_tail<NR, Enc>(rk, key, ctr, y, in, out, k);
        n -= k, in += 16 * k, out += 16 * k;
    }
    if (n >= kStep) {
        const Powers pk(key);
        if constexpr (Enc) {
            stitched_step<NR, false>(rk, pk, ctr, y, nullptr, in, out);
            n -= kStep, in += 16 * kStep, out += 16 * kStep;
            for (; n >= kStep; n -= kStep, in += 16 * kStep, out += 16 * kStep)
                stitched_step<NR, true>(rk, pk, ctr, y, out - 16 * kStep, in, out);
            y = hash_group32(key, y, out - 16 * kStep);
        } else {
            for (; n >= kStep; n -= kStep, in += 16 * kStep, out += 16 * kStep)
                stitched_step<NR, true>(rk, pk, ctr, y, in, in, out);
        }
    }
    if (n != 0) gcm_tail<NR, Enc>(rk, key, ctr, y, in, out, n);
}

template <bool Enc>
void gcm_entry(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr_bytes[16],
               uint8_t y_bytes[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    uint32_t be;
    std::memcpy(&be, ctr_bytes + 12, 4);
    Ctr32 ctr{vaes::load128(ctr_bytes), __builtin_bswap32(be)};
    __m128i y = clmul::load_reflected(y_bytes);
    const Vpclmul512Key& key = key512(hk);
    with_rounds(ks, [&](auto nr) {
        gcm_kernel<decltype(nr)::value, Enc>(ks, key, ctr, y, in, out, n);
    });
    vaes::store128(ctr_bytes, ctr_block(ctr));
    clmul::store_reflected(y_bytes, y);
}

} // namespace

void gcm_encrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                 uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks) {
    gcm_entry<true>(ks, hk, ctr, y, in, out, nblocks);
}

void gcm_decrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                 uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks) {
    gcm_entry<false>(ks, hk, ctr, y, in, out, nblocks);
}

} // namespace hwc::x86_64::vaes512
