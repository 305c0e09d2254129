// SPDX-License-Identifier: Apache-2.0
// Stitched AES-GCM on AES-NI and PCLMULQDQ: AES-CTR and GHASH (ghash-clmul's
// key layout and helpers, ghash_clmul.h) in one pass, 8 blocks per step.
// Contract: GcmFn in cores/core.h.
//
// Why stitch: AESENC and PCLMULQDQ issue to different execution ports, and
// the AES rounds of 8 counter blocks and the multiplies of 8 GHASH blocks
// are independent dependency chains, so issuing them side by side lets each
// fill cycles the other leaves idle; GHASH also reads ciphertext that is
// still in L1 instead of making a second pass. Each AES round of the 8
// blocks is followed by the GHASH product of one block (8 products, summed
// unreduced, one reduction per step). Decryption hashes the ciphertext it is
// decrypting. Encryption cannot hash a step's output before it exists, so it
// is software-pipelined: each step hashes the previous step's output while
// encrypting the next 8 blocks, and the last step's output is hashed after
// the loop. Fewer than 8 blocks at the end go through plain CTR and
// clmul::hash_blocks.
//
// Counter: GCM's inc32 steps the last 4 bytes as a big-endian integer, which
// is kept native (and never wraps inside a call: the caller splits there).
// When its low byte does not carry within the step (31 steps in 32), the 8
// counter blocks are one PINSRD of the base plus PADDD of i << 24, which
// lands on byte 15; otherwise each block gets its own PINSRD. The counter is
// public, so the branch leaks nothing.
//
// Compiled with -maes -mpclmul -msse4.1 (root CMakeLists.txt); reached only
// through the aes_ni descriptor, and only when the GCM context's GHASH core
// is ghash-clmul (cores/modes.h gcm_kernel), whose `needs` guarantee
// PCLMULQDQ.
#include "cores/x86_64/aes_ni.h"
#include "cores/x86_64/ghash_clmul.h"

#include <cstring>

namespace hwc::x86_64::aesni {
namespace {

using namespace clmul;

constexpr size_t kStep = 8;
static_assert(kStep == kAggregate, "one GHASH reduction per step");

struct Ctr32 {
    __m128i block; // the counter block; its last 4 bytes are rebuilt from n
    uint32_t n;    // GCM's 32-bit counter, native
};

template <size_t N>
[[gnu::always_inline]] inline void next_counters(Ctr32& c, __m128i (&b)[N]) {
    if ((c.n & 0xff) <= 256 - N) {
        const __m128i base =
            _mm_insert_epi32(c.block, static_cast<int>(__builtin_bswap32(c.n)), 3);
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i)
            b[i] = _mm_add_epi32(base, _mm_set_epi32(static_cast<int>(i << 24), 0, 0, 0));
    } else {
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) {
            const uint32_t be = __builtin_bswap32(c.n + static_cast<uint32_t>(i));
            b[i] = _mm_insert_epi32(c.block, static_cast<int>(be), 3);
        }
    }
    c.n += static_cast<uint32_t>(N);
}

// Plain CTR on N blocks (the tail of a call), data XOR folded into the last
// round key (aes_ni.h).
template <unsigned NR, size_t N>
[[gnu::always_inline]] inline void ctr_step(const __m128i* k, Ctr32& ctr, const uint8_t* in,
                                            uint8_t* out) {
    __m128i b[N];
    next_counters(ctr, b);
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) b[i] = _mm_xor_si128(b[i], k[0]);
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) {
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) b[i] = _mm_aesenc_si128(b[i], k[r]);
    }
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i)
        store(out + 16 * i, _mm_aesenclast_si128(b[i], _mm_xor_si128(k[NR], load(in + 16 * i))));
}

template <unsigned NR>
void ctr_tail(const __m128i* k, Ctr32& ctr, const uint8_t* in, uint8_t* out, size_t n) {
    if (n >= 4) {
        ctr_step<NR, 4>(k, ctr, in, out);
        n -= 4, in += 64, out += 64;
    }
    for (; n; --n, in += 16, out += 16) ctr_step<NR, 1>(k, ctr, in, out);
}

// One step: CTR over 8 blocks (in -> out) and, when Hash, GHASH of the 8
// ciphertext blocks at `ct` into y, one product per AES round (NR - 1 >= 9
// middle rounds cover all 8). The round keys and powers of H are memory
// operands: 8 AES states and the GHASH sums fill the 16 XMM registers.
// `ct` is read before `out` is written, so decryption may run in place.
template <unsigned NR, bool Hash>
[[gnu::always_inline]] inline void stitched_step(const __m128i* k, const ClmulKey& hk,
                                                 Ctr32& ctr, __m128i& y, const uint8_t* ct,
                                                 const uint8_t* in, uint8_t* out) {
    __m128i b[kStep];
    next_counters(ctr, b);
#pragma GCC unroll 8
    for (size_t i = 0; i < kStep; ++i) b[i] = _mm_xor_si128(b[i], k[0]);
    Acc acc = acc_zero();
    // Register pressure guards (empty asm, no instructions). Hiding where
    // `ct` points stops GCC from forwarding the previous step's output from
    // registers (it would keep those 8 blocks live across the loop and spill);
    // pinning the sums after each product stops it from regrouping the XORs
    // into one tree at the end, which keeps every product live at once.
    __asm__("" : "+r"(ct));
#pragma GCC unroll 13
    for (unsigned r = 1; r < NR; ++r) {
#pragma GCC unroll 8
        for (size_t i = 0; i < kStep; ++i) b[i] = _mm_aesenc_si128(b[i], k[r]);
        if constexpr (Hash) {
            if (r <= kStep) {
                const size_t j = r - 1;
                __m128i x = load_reflected(ct + 16 * j);
                if (j == 0) x = _mm_xor_si128(x, y);
                mul_acc_power(acc, x, hk, kStep - 1 - j);
                __asm__("" : "+x"(acc.lo), "+x"(acc.mid), "+x"(acc.hi));
            }
        }
    }
    if constexpr (Hash) y = reduce(acc);
#pragma GCC unroll 8
    for (size_t i = 0; i < kStep; ++i)
        store(out + 16 * i, _mm_aesenclast_si128(b[i], _mm_xor_si128(k[NR], load(in + 16 * i))));
}

template <unsigned NR>
void gcm_enc_kernel(const KeySchedule& ks, const GhashKey& hkey, Ctr32& ctr, __m128i& y,
                    const uint8_t* in, uint8_t* out, size_t n) {
    const __m128i* k = aes_key(ks).enc;
    const ClmulKey& hk = clmul_key(hkey);
    if (n >= kStep) {
        stitched_step<NR, false>(k, hk, ctr, y, nullptr, in, out);
        n -= kStep, in += 16 * kStep, out += 16 * kStep;
        for (; n >= kStep; n -= kStep, in += 16 * kStep, out += 16 * kStep)
            stitched_step<NR, true>(k, hk, ctr, y, out - 16 * kStep, in, out);
        y = hash_blocks(hk, y, out - 16 * kStep, kStep);
    }
    ctr_tail<NR>(k, ctr, in, out, n);
    y = hash_blocks(hk, y, out, n);
}

template <unsigned NR>
void gcm_dec_kernel(const KeySchedule& ks, const GhashKey& hkey, Ctr32& ctr, __m128i& y,
                    const uint8_t* in, uint8_t* out, size_t n) {
    const __m128i* k = aes_key(ks).enc;
    const ClmulKey& hk = clmul_key(hkey);
    for (; n >= kStep; n -= kStep, in += 16 * kStep, out += 16 * kStep)
        stitched_step<NR, true>(k, hk, ctr, y, in, in, out);
    y = hash_blocks(hk, y, in, n);
    ctr_tail<NR>(k, ctr, in, out, n);
}

template <bool Enc>
void gcm_entry(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr_bytes[16],
               uint8_t y_bytes[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    uint32_t be;
    std::memcpy(&be, ctr_bytes + 12, 4);
    Ctr32 ctr{load(ctr_bytes), __builtin_bswap32(be)};
    __m128i y = load_reflected(y_bytes);
    with_rounds(ks, [&](auto nr) {
        if constexpr (Enc) gcm_enc_kernel<decltype(nr)::value>(ks, hk, ctr, y, in, out, n);
        else gcm_dec_kernel<decltype(nr)::value>(ks, hk, ctr, y, in, out, n);
    });
    store(ctr_bytes, _mm_insert_epi32(ctr.block, static_cast<int>(__builtin_bswap32(ctr.n)), 3));
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

} // namespace hwc::x86_64::aesni
