// SPDX-License-Identifier: Apache-2.0
// Stitched AES-GCM for aes-vaes-avx2: CTR on VAES (16 blocks per step in 8
// YMM registers) with GHASH on 128-bit PCLMULQDQ (ghash-clmul's key layout
// and helpers, ghash_clmul.h) in the same pass. Contract: GcmFn in
// cores/core.h.
//
// Why stitch, and why XMM GHASH: see aes_ni_gcm.cpp for the first; the
// second is that VPCLMULQDQ cannot be executed on the development machine or
// under QEMU 7.2 (aes_vaes.h), so no 256/512-bit GHASH is written. Per step,
// the 16 GHASH products (ghash-clmul keeps H^1..H^8, so two aggregated
// groups of 8, each with one reduction) are spread two per AES round over
// rounds 1..8; the first group is reduced after round 4 so that its result,
// which the second group's first block needs, is ready early. Decryption
// hashes the ciphertext it decrypts; encryption hashes the previous step's
// output (software pipelining, as aes_ni_gcm.cpp), the last step's after the
// loop. Fewer than 16 blocks at the end go through plain CTR in 8/4/2/1-block
// steps and clmul::hash_blocks.
//
// Counter: GCM's inc32 on the last 4 bytes, kept native (never wrapping
// inside a call: the caller splits there). When its low byte does not carry
// within the step, the counter registers are the broadcast base plus
// (2j << 24, (2j+1) << 24) in dword 3 of the lanes; otherwise each block is
// built with its own PINSRD. The counter is public, so the branch leaks
// nothing.
//
// Compiled with -maes -mvaes -mavx2 -mpclmul (root CMakeLists.txt); reached
// only through the aes_vaes_avx2 descriptor, and only when the GCM context's
// GHASH core is ghash-clmul (cores/modes.h gcm_kernel).
#include "cores/x86_64/aes_vaes.h"
#include "cores/x86_64/ghash_clmul.h"

#include <cstring>

namespace hwc::x86_64::vaes {
namespace {

using namespace clmul;
using aesni::with_rounds;

static_assert(kStep == 2 * kAggregate, "two GHASH reductions per step");

struct Ctr32 {
    __m128i block; // the counter block; its last 4 bytes are rebuilt from n
    uint32_t n;    // GCM's 32-bit counter, native
};

[[gnu::always_inline]] inline __m128i ctr_block(const Ctr32& c, uint32_t i) {
    return _mm_insert_epi32(c.block, static_cast<int>(__builtin_bswap32(c.n + i)), 3);
}

template <size_t NB>
[[gnu::always_inline]] inline void next_counters(Ctr32& c, __m256i (&b)[kRegs<NB>]) {
    constexpr size_t M = kRegs<NB>;
    if ((c.n & 0xff) <= 256 - NB) {
        const __m256i base = _mm256_broadcastsi128_si256(ctr_block(c, 0));
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j)
            b[j] = _mm256_add_epi32(base, _mm256_set_epi32(static_cast<int>((2 * j + 1) << 24), 0,
                                                           0, 0, static_cast<int>((2 * j) << 24),
                                                           0, 0, 0));
    } else {
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) {
            const uint32_t i = static_cast<uint32_t>(2 * j);
            b[j] = 2 * j + 1 < NB ? pair(ctr_block(c, i), ctr_block(c, i + 1))
                                  : _mm256_zextsi128_si256(ctr_block(c, i));
        }
    }
    c.n += static_cast<uint32_t>(NB);
}

// Plain CTR on NB blocks (the tail of a call), data XOR folded into the last
// round key.
template <unsigned NR, size_t NB>
[[gnu::always_inline]] inline void ctr_step(const YmmKeys<NR>& rk, Ctr32& ctr, const uint8_t* in,
                                            uint8_t* out) {
    constexpr size_t M = kRegs<NB>;
    __m256i b[M];
    next_counters<NB>(ctr, b);
#pragma GCC unroll 8
    for (size_t j = 0; j < M; ++j) b[j] = _mm256_xor_si256(b[j], rk.k[0]);
    enc_middle<NR>(rk, b);
#pragma GCC unroll 8
    for (size_t j = 0; j < M; ++j)
        store_reg<NB>(out, j,
                      vaesenclast(b[j],
                                               _mm256_xor_si256(rk.k[NR], load_reg<NB>(in, j))));
}

template <unsigned NR>
void ctr_tail(const YmmKeys<NR>& rk, Ctr32& ctr, const uint8_t* in, uint8_t* out, size_t n) {
    for_steps(n, [&](auto nb) {
        constexpr size_t NB = decltype(nb)::value;
        ctr_step<NR, NB>(rk, ctr, in, out);
        in += 16 * NB, out += 16 * NB;
    });
}

// One step: CTR over 16 blocks (in -> out) and, when Hash, GHASH of the 16
// ciphertext blocks at `ct` into y. `ct` is read before `out` is written, so
// decryption may run in place.
template <unsigned NR, bool Hash>
[[gnu::always_inline]] inline void stitched_step(const YmmKeys<NR>& rk, const ClmulKey& hk,
                                                 Ctr32& ctr, __m128i& y, const uint8_t* ct,
                                                 const uint8_t* in, uint8_t* out) {
    constexpr size_t M = kRegs<kStep>;
    __m256i b[M];
    next_counters<kStep>(ctr, b);
#pragma GCC unroll 8
    for (size_t j = 0; j < M; ++j) b[j] = _mm256_xor_si256(b[j], rk.k[0]);
    Acc acc = acc_zero();
    // Register pressure guards (empty asm, no instructions), as in
    // aes_ni_gcm.cpp: no forwarding of the previous step's output from
    // registers, no regrouping of the product sums into one late tree.
    __asm__("" : "+r"(ct));
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) {
#pragma GCC unroll 8
        for (size_t j = 0; j < M; ++j) b[j] = vaesenc(b[j], rk.k[r]);
        if constexpr (Hash) {
            if (r <= kStep / 2) { // NR - 1 >= 9 rounds: room for 8 pairs
#pragma GCC unroll 2
                for (size_t h = 0; h < 2; ++h) {
                    const size_t i = 2 * (r - 1) + h, g = i % kAggregate;
                    __m128i x = load_reflected(ct + 16 * i);
                    if (g == 0) x = _mm_xor_si128(x, y);
                    mul_acc_power(acc, x, hk, kAggregate - 1 - g);
                    __asm__("" : "+x"(acc.lo), "+x"(acc.mid), "+x"(acc.hi));
                    if (g == kAggregate - 1) {
                        y = reduce(acc);
                        acc = acc_zero();
                    }
                }
            }
        }
    }
#pragma GCC unroll 8
    for (size_t j = 0; j < M; ++j)
        store256(out + 32 * j,
                 vaesenclast(b[j], _mm256_xor_si256(rk.k[NR], load256(in + 32 * j))));
}

template <unsigned NR>
void gcm_enc_kernel(const KeySchedule& ks, const GhashKey& hkey, Ctr32& ctr, __m128i& y,
                    const uint8_t* in, uint8_t* out, size_t n) {
    const YmmKeys<NR> rk = broadcast_keys<NR>(aes_key(ks).enc);
    const ClmulKey& hk = clmul_key(hkey);
    if (n >= kStep) {
        stitched_step<NR, false>(rk, hk, ctr, y, nullptr, in, out);
        n -= kStep, in += 16 * kStep, out += 16 * kStep;
        for (; n >= kStep; n -= kStep, in += 16 * kStep, out += 16 * kStep)
            stitched_step<NR, true>(rk, hk, ctr, y, out - 16 * kStep, in, out);
        y = hash_blocks(hk, y, out - 16 * kStep, kStep);
    }
    ctr_tail<NR>(rk, ctr, in, out, n);
    y = hash_blocks(hk, y, out, n);
}

template <unsigned NR>
void gcm_dec_kernel(const KeySchedule& ks, const GhashKey& hkey, Ctr32& ctr, __m128i& y,
                    const uint8_t* in, uint8_t* out, size_t n) {
    const YmmKeys<NR> rk = broadcast_keys<NR>(aes_key(ks).enc);
    const ClmulKey& hk = clmul_key(hkey);
    for (; n >= kStep; n -= kStep, in += 16 * kStep, out += 16 * kStep)
        stitched_step<NR, true>(rk, hk, ctr, y, in, in, out);
    y = hash_blocks(hk, y, in, n);
    ctr_tail<NR>(rk, ctr, in, out, n);
}

template <bool Enc>
void gcm_entry(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr_bytes[16],
               uint8_t y_bytes[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    uint32_t be;
    std::memcpy(&be, ctr_bytes + 12, 4);
    Ctr32 ctr{load128(ctr_bytes), __builtin_bswap32(be)};
    __m128i y = load_reflected(y_bytes);
    with_rounds(ks, [&](auto nr) {
        if constexpr (Enc) gcm_enc_kernel<decltype(nr)::value>(ks, hk, ctr, y, in, out, n);
        else gcm_dec_kernel<decltype(nr)::value>(ks, hk, ctr, y, in, out, n);
    });
    store128(ctr_bytes, ctr_block(ctr, 0));
    store_reflected(y_bytes, y);
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

} // namespace hwc::x86_64::vaes
