// SPDX-License-Identifier: Apache-2.0
// Stitched AES-GCM for aes-vaes-avx512: CTR on VAES with ZMM registers (32
// blocks per step in 8 registers) and GHASH on VPCLMULQDQ with ZMM registers
// (4 blocks per multiply) in the same pass. Contract: GcmFn in cores/core.h.
//
// Why: with CTR on ZMM at about 0.1 cycle per byte, GHASH is what limits
// GCM; as separate passes (ctr, then ghash-vpclmul-avx2 on YMM) each block is
// also loaded and stored twice. Stitched, the VPCLMULQDQs and the reduction
// run in the issue slots the AES rounds leave, on data already in L1.
//
// GHASH key: ghash-vpclmul-avx2's layout (ghash_vpclmul.h), which is this
// kernel's `gcm_ghash` partner. Its eight power registers pw[0..7] (H^16,
// H^15), (H^14, H^13), ..., (H^2, H^1) lie one after the other, so read as
// four ZMM values they are (H^16..H^13), ..., (H^4..H^1): exactly the powers
// that the four data registers of a 16-block group need, lane by lane. So
// one reduction per 16 blocks, two per step: the key has no room for
// H^17..H^32 (GhashKey is full) and the reduction is cheap next to the 16
// VPCLMULQDQs of a group. Products are schoolbook (4 VPCLMULQDQs per
// register), for ghash_vpclmul.h's reason: no Karatsuba table, and the
// vector ALUs are the busy ones. Register 0 of a group, the only one that
// needs the previous value of y, is multiplied last (rounds 4 and 8 of the
// step), so the other products and the AES rounds hide the reduction before.
//
// Direction: decryption hashes the ciphertext it decrypts (all loads of a
// step come before its stores, so in == out works); encryption hashes the
// previous step's output (software pipelining, as aes_vaes_gcm.cpp) and the
// last step's after the loop. Fewer than 32 blocks at the end run as one
// masked CTR step (aes_vaes512.h's Step) and vpclmul::hash_blocks (YMM, one
// reduction per 16 blocks). Calls of at most kSmall blocks go to
// aes-vaes-avx2's kernel (aes_vaes_gcm.cpp): it reads the ghash-clmul part
// of the same key (VpclmulKey begins with a ClmulKey), and broadcasting 11-15
// round keys and 4 power registers to ZMM costs more than such a call saves.
//
// Counter: GCM's inc32 on the last 4 bytes, never wrapping inside a call
// (the caller splits there). It is kept in every lane with those 4 bytes
// byte-swapped to a native dword (lane l holding +l), so a register's
// counters are one VPADDD and one VPSHUFB, with no carry case.
//
// HWCIPHER_VAES_EMULATE / HWCIPHER_VPCLMUL_EMULATE (the isa-emu test build):
// VAES as in aes_vaes512.h, VPCLMULQDQ on ZMM as four PCLMULQDQs below; the
// root CMakeLists.txt then leaves -mvpclmulqdq off this file, so no EVEX
// VPCLMULQDQ can be emitted. VPCLMULQDQ, PCLMULQDQ and VAES run in constant
// time; the only branches are on public counts.
//
// Compiled with -maes -mvaes -mavx2 -mavx512f -mavx512bw -mavx512vl
// -mvpclmulqdq -mpclmul (root CMakeLists.txt); reached only through the
// aes_vaes_avx512 descriptor, and only when the GCM context's GHASH core is
// ghash-vpclmul-avx2 (cores/modes.h gcm_kernel), whose `needs` add
// VPCLMULQDQ and PCLMULQDQ to the block core's.
#include "cores/x86_64/aes_vaes512.h"

#include <cstring>

#include "cores/x86_64/ghash_clmul.h"
#include "cores/x86_64/ghash_vpclmul.h"

namespace hwc::x86_64::vaes512 {
namespace {

using aesni::aes_key;
using aesni::with_rounds;
using vpclmul::VpclmulKey;

static_assert(kStep == 2 * vpclmul::kGroup, "two GHASH reductions per step");

// Calls of up to this many blocks (64 bytes) take aes-vaes-avx2's kernel.
constexpr size_t kSmall = 4;

// ZMM registers per 16-block GHASH group, and power registers.
constexpr size_t kGroupRegs = vpclmul::kGroup / 4;

// ---- GHASH on ZMM ------------------------------------------------------------------

#if defined(HWCIPHER_VPCLMUL_EMULATE)
// Four PCLMULQDQs with the same immediate, one per 128-bit lane: the SDM's
// definition of EVEX VPCLMULQDQ. Without -mvpclmulqdq (CMakeLists.txt) the
// compiler has only the VEX/legacy PCLMULQDQ for these.
template <int Imm>
[[gnu::always_inline]] inline __m512i clmul512(__m512i a, __m512i b) {
    const __m128i r0 = _mm_clmulepi64_si128(_mm512_castsi512_si128(a),
                                            _mm512_castsi512_si128(b), Imm);
    const __m128i r1 = _mm_clmulepi64_si128(_mm512_extracti32x4_epi32(a, 1),
                                            _mm512_extracti32x4_epi32(b, 1), Imm);
    const __m128i r2 = _mm_clmulepi64_si128(_mm512_extracti32x4_epi32(a, 2),
                                            _mm512_extracti32x4_epi32(b, 2), Imm);
    const __m128i r3 = _mm_clmulepi64_si128(_mm512_extracti32x4_epi32(a, 3),
                                            _mm512_extracti32x4_epi32(b, 3), Imm);
    __m512i r = _mm512_zextsi128_si512(r0);
    r = _mm512_inserti32x4(r, r1, 1);
    r = _mm512_inserti32x4(r, r2, 2);
    return _mm512_inserti32x4(r, r3, 3);
}
#else
template <int Imm>
[[gnu::always_inline]] inline __m512i clmul512(__m512i a, __m512i b) {
    return _mm512_clmulepi64_epi128(a, b, Imm);
}
#endif

// Four blocks at p, each byte-reversed within its lane (reflected).
[[gnu::always_inline]] inline __m512i load4_reflected(const uint8_t* p) {
    const __m512i rev = _mm512_broadcast_i32x4(
        _mm_set_epi8(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    return _mm512_shuffle_epi8(_mm512_loadu_si512(p), rev);
}

// Unreduced sums over the four lanes (as ghash_vpclmul.h's Acc2).
struct Acc4 {
    __m512i lo, mid, hi;
};

[[gnu::always_inline]] inline Acc4 acc4_zero() {
    const __m512i z = _mm512_setzero_si512();
    return {z, z, z};
}

// acc += a * b, lane by lane, schoolbook.
[[gnu::always_inline]] inline void mul_acc4(Acc4& acc, __m512i a, __m512i b) {
    acc.lo = _mm512_xor_si512(acc.lo, clmul512<0x00>(a, b));
    acc.mid = xor3(acc.mid, clmul512<0x01>(a, b), clmul512<0x10>(a, b));
    acc.hi = _mm512_xor_si512(acc.hi, clmul512<0x11>(a, b));
}

[[gnu::always_inline]] inline __m128i lanes_xor4(__m512i v) {
    const __m256i h =
        _mm256_xor_si256(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
    return _mm_xor_si128(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
}

// The sum of the four lanes as a reduced field element (the powers' x^-1
// makes the raw product right without a shift: ghash_clmul.h).
[[gnu::always_inline]] inline __m128i reduce4(const Acc4& acc) {
    const __m128i mid = lanes_xor4(acc.mid);
    const __m128i lo = _mm_xor_si128(lanes_xor4(acc.lo), _mm_slli_si128(mid, 8));
    const __m128i hi = _mm_xor_si128(lanes_xor4(acc.hi), _mm_srli_si128(mid, 8));
    return clmul::fold(hi, lo);
}

// The power registers: hp[m] = (H^(16-4m), ..., H^(13-4m)), see above.
struct Powers {
    __m512i hp[kGroupRegs];
};

[[gnu::always_inline]] inline Powers load_powers(const VpclmulKey& key) {
    Powers p;
#pragma GCC unroll 4
    for (size_t m = 0; m < kGroupRegs; ++m) p.hp[m] = _mm512_loadu_si512(&key.pw[2 * m]);
    return p;
}

// Which register of a group the i-th multiply (0..3) takes: 1, 2, 3, then
// 0, the one carrying y, last.
constexpr size_t group_order(size_t i) { return (i + 1) % kGroupRegs; }

// One whole 16-block group at p into y, not stitched (the encryption
// kernel's last step).
[[gnu::always_inline]] inline __m128i hash_group16(const Powers& pk, __m128i y,
                                                   const uint8_t* p) {
    Acc4 acc = acc4_zero();
#pragma GCC unroll 4
    for (size_t i = 0; i < kGroupRegs; ++i) {
        const size_t m = group_order(i);
        __m512i x = load4_reflected(p + 64 * m);
        if (m == 0) x = _mm512_xor_si512(x, _mm512_zextsi128_si512(y));
        mul_acc4(acc, x, pk.hp[m]);
    }
    return reduce4(acc);
}

// ---- counters ------------------------------------------------------------------------

// Swaps the last 4 bytes of each lane: GCM's big-endian 32-bit field <->
// a native dword (its own inverse).
[[gnu::always_inline]] inline __m512i swap_ctr32(__m512i v) {
    return _mm512_shuffle_epi8(v, _mm512_broadcast_i32x4(_mm_set_epi8(
                                      12, 13, 14, 15, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)));
}

// Counter blocks of the next M registers, XORed with round key 0; c (lane l
// = counter + l, native) advances by nb blocks.
template <size_t M>
[[gnu::always_inline]] inline void counter_regs(__m512i& c, size_t nb, __m512i k0,
                                                __m512i (&b)[M]) {
#pragma GCC unroll 8
    for (size_t j = 0; j < M; ++j) {
        const __m512i step = _mm512_broadcast_i32x4(_mm_set_epi32(static_cast<int>(4 * j), 0, 0, 0));
        b[j] = _mm512_xor_si512(swap_ctr32(_mm512_add_epi32(c, step)), k0);
    }
    c = _mm512_add_epi32(
        c, _mm512_broadcast_i32x4(_mm_set_epi32(static_cast<int>(nb), 0, 0, 0)));
}

// ---- steps ---------------------------------------------------------------------------

// One step: CTR over 32 blocks (in -> out) and, when Hash, GHASH of the 32
// ciphertext blocks at `ct` into y, one 16-block group in rounds 1-4 and
// the other in rounds 5-8 (NR - 1 >= 9 rounds). `ct` is read before `out`
// is written, so decryption may run in place.
template <unsigned NR, bool Hash>
[[gnu::always_inline]] inline void stitched_step(const ZmmKeys<NR>& rk, const Powers& pk,
                                                 __m512i& ctr, __m128i& y, const uint8_t* ct,
                                                 const uint8_t* in, uint8_t* out) {
    __m512i b[kRegs];
    counter_regs<kRegs>(ctr, kStep, rk.k[0], b);
    Acc4 acc = acc4_zero();
    // Register pressure guards (empty asm, no instructions), as in
    // aes_vaes_gcm.cpp: no forwarding of the previous step's output from
    // registers, no regrouping of the product sums into one late tree.
    __asm__("" : "+r"(ct));
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) {
#pragma GCC unroll 8
        for (size_t j = 0; j < kRegs; ++j) b[j] = vaesenc(b[j], rk.k[r]);
        if constexpr (Hash) {
            if (r <= 2 * kGroupRegs) {
                const size_t i = r - 1, g = i / kGroupRegs, m = group_order(i % kGroupRegs);
                __m512i x = load4_reflected(ct + 16 * vpclmul::kGroup * g + 64 * m);
                if (m == 0) x = _mm512_xor_si512(x, _mm512_zextsi128_si512(y));
                mul_acc4(acc, x, pk.hp[m]);
                __asm__("" : "+v"(acc.lo), "+v"(acc.mid), "+v"(acc.hi));
                if (m == 0) {
                    y = reduce4(acc);
                    acc = acc4_zero();
                }
            }
        }
    }
#pragma GCC unroll 8
    for (size_t j = 0; j < kRegs; ++j)
        _mm512_storeu_si512(out + 64 * j,
                            vaesenclast(b[j], _mm512_xor_si512(
                                                  rk.k[NR], _mm512_loadu_si512(in + 64 * j))));
}

// Plain CTR on the n = 1..31 blocks left, one masked step.
template <unsigned NR>
[[gnu::always_inline]] inline void ctr_tail(const ZmmKeys<NR>& rk, __m512i& ctr,
                                            const uint8_t* in, uint8_t* out, size_t n) {
    for_steps(n, [&](auto regs, size_t last) {
        constexpr size_t M = decltype(regs)::value;
        const Step<M> s(last);
        __m512i b[M];
        counter_regs<M>(ctr, s.blocks(), rk.k[0], b);
        middle_rounds<NR, true>(rk, b);
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j)
            s.store(out, j, vaesenclast(b[j], _mm512_xor_si512(rk.k[NR], s.load(in, j))));
    });
}

template <unsigned NR>
void gcm_enc_kernel(const KeySchedule& ks, const VpclmulKey& hk, __m512i& ctr, __m128i& y,
                    const uint8_t* in, uint8_t* out, size_t n) {
    const ZmmKeys<NR> rk = broadcast_keys<NR>(aes_key(ks).enc);
    const Powers pk = load_powers(hk);
    if (n >= kStep) {
        stitched_step<NR, false>(rk, pk, ctr, y, nullptr, in, out);
        n -= kStep, in += 16 * kStep, out += 16 * kStep;
        for (; n >= kStep; n -= kStep, in += 16 * kStep, out += 16 * kStep)
            stitched_step<NR, true>(rk, pk, ctr, y, out - 16 * kStep, in, out);
        y = hash_group16(pk, y, out - 16 * kStep);
        y = hash_group16(pk, y, out - 16 * vpclmul::kGroup);
    }
    if (n != 0) {
        ctr_tail<NR>(rk, ctr, in, out, n);
        y = vpclmul::hash_blocks(hk, y, out, n);
    }
}

template <unsigned NR>
void gcm_dec_kernel(const KeySchedule& ks, const VpclmulKey& hk, __m512i& ctr, __m128i& y,
                    const uint8_t* in, uint8_t* out, size_t n) {
    const ZmmKeys<NR> rk = broadcast_keys<NR>(aes_key(ks).enc);
    const Powers pk = load_powers(hk);
    for (; n >= kStep; n -= kStep, in += 16 * kStep, out += 16 * kStep)
        stitched_step<NR, true>(rk, pk, ctr, y, in, in, out);
    if (n != 0) {
        y = vpclmul::hash_blocks(hk, y, in, n);
        ctr_tail<NR>(rk, ctr, in, out, n);
    }
}

template <bool Enc>
void gcm_entry(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr_bytes[16],
               uint8_t y_bytes[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n <= kSmall) {
        if (Enc) vaes::gcm_encrypt(ks, hk, ctr_bytes, y_bytes, in, out, n);
        else vaes::gcm_decrypt(ks, hk, ctr_bytes, y_bytes, in, out, n);
        return;
    }
    uint32_t be;
    std::memcpy(&be, ctr_bytes + 12, 4);
    const uint32_t n0 = __builtin_bswap32(be);
    // Lane l: the counter block with its field native and l added.
    __m512i ctr = _mm512_add_epi32(
        swap_ctr32(_mm512_broadcast_i32x4(vaes::load128(ctr_bytes))),
        _mm512_set_epi32(3, 0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0));
    __m128i y = clmul::load_reflected(y_bytes);
    const VpclmulKey& key = vpclmul::vpclmul_key(hk);
    with_rounds(ks, [&](auto nr) {
        if constexpr (Enc) gcm_enc_kernel<decltype(nr)::value>(ks, key, ctr, y, in, out, n);
        else gcm_dec_kernel<decltype(nr)::value>(ks, key, ctr, y, in, out, n);
    });
    // The field wraps only at the very end of a call (the caller's split).
    be = __builtin_bswap32(n0 + static_cast<uint32_t>(n));
    std::memcpy(ctr_bytes + 12, &be, 4);
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
