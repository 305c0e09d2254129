// SPDX-License-Identifier: Apache-2.0
// The AES-CE key schedule as stored in a KeySchedule, shared by the block and
// mode kernels (aes_ce.cpp) and the stitched GCM kernel (aes_ce_gcm.cpp),
// plus the round helpers both build on.
//
// Only translation units compiled with -march=armv8-a+crypto may include this
// header (the helpers use the AES intrinsics). The helpers sit in an unnamed
// namespace so each such unit gets its own private copy: an inline function
// with external linkage could otherwise be merged by the linker into a
// baseline-ISA caller.
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cores/core.h"

namespace hwc::aarch64 {

// enc: rounds+1 round keys in AESE order. dec: the equivalent inverse cipher's
// round keys in AESD order (InvMixColumns applied to the middle ones).
struct AesCeKey {
    uint8_t enc[15][kBlockSize];
    uint8_t dec[15][kBlockSize];
    uint32_t rounds; // 10, 12 or 14
};
static_assert(sizeof(AesCeKey) <= kMaxScheduleBytes);

inline const AesCeKey& aes_ce_key(const KeySchedule& ks) {
    return *reinterpret_cast<const AesCeKey*>(ks.bytes);
}
inline AesCeKey& aes_ce_key(KeySchedule& ks) { return *reinterpret_cast<AesCeKey*>(ks.bytes); }

namespace {

// ARM splits an AES round differently from FIPS-197: AESE is
// AddRoundKey+SubBytes+ShiftRows, AESMC is MixColumns. So NR rounds are
// AESE/AESMC pairs with keys 0..NR-2, one last AESE with key NR-1 and a plain
// XOR with key NR. The helpers below stop before that final XOR
// ("open" state), because most modes merge it with another XOR they need
// anyway (data, offset, chaining value) or fold it into the next block's
// first key.

// All NR+1 round keys of one direction, loaded once per call so the hot
// loops never touch the schedule in memory (full unrolling keeps them in
// registers: 11..15 of the 32 vector registers).
template <unsigned NR>
struct AesCeRounds {
    uint8x16_t k[NR + 1];
};

template <unsigned NR>
[[gnu::always_inline]] inline AesCeRounds<NR> aes_ce_load(const uint8_t (&keys)[15][kBlockSize]) {
    AesCeRounds<NR> rk;
#pragma GCC unroll 15
    for (unsigned r = 0; r <= NR; ++r) rk.k[r] = vld1q_u8(keys[r]);
    return rk;
}

// N independent blocks through rounds 0..NR-1, round key 0 replaced by `k0`
// (callers fold other XORs into it): AESE/AESMC with the enc schedule, or the
// inverse cipher's AESD/AESIMC with the dec schedule. Round by round across
// the blocks, each AESE (AESD) immediately followed by its AESMC (AESIMC) so
// cores can fuse the pair.
template <bool Encrypt>
[[gnu::always_inline]] inline uint8x16_t aes_ce_round(uint8x16_t x, uint8x16_t k) {
    return Encrypt ? vaesmcq_u8(vaeseq_u8(x, k)) : vaesimcq_u8(vaesdq_u8(x, k));
}

template <bool Encrypt, unsigned NR, size_t N>
[[gnu::always_inline]] inline void aes_ce_crypt_open(const AesCeRounds<NR>& rk, uint8x16_t k0,
                                                     uint8x16_t (&b)[N]) {
#pragma GCC unroll 16
    for (size_t i = 0; i < N; ++i) b[i] = aes_ce_round<Encrypt>(b[i], k0);
#pragma GCC unroll 13
    for (unsigned r = 1; r + 1 < NR; ++r) {
#pragma GCC unroll 16
        for (size_t i = 0; i < N; ++i) b[i] = aes_ce_round<Encrypt>(b[i], rk.k[r]);
    }
#pragma GCC unroll 16
    for (size_t i = 0; i < N; ++i)
        b[i] = Encrypt ? vaeseq_u8(b[i], rk.k[NR - 1]) : vaesdq_u8(b[i], rk.k[NR - 1]);
}

template <unsigned NR, size_t N>
[[gnu::always_inline]] inline void aes_ce_encrypt_open(const AesCeRounds<NR>& rk,
                                                       uint8x16_t (&b)[N]) {
    aes_ce_crypt_open<true>(rk, rk.k[0], b);
}

// One block, first round key `k0`, final XOR left open.
template <unsigned NR>
[[gnu::always_inline]] inline uint8x16_t aes_ce_encrypt1_open(const AesCeRounds<NR>& rk,
                                                              uint8x16_t k0, uint8x16_t x) {
    uint8x16_t b[1] = {x};
    aes_ce_crypt_open<true>(rk, k0, b);
    return b[0];
}

// Calls f(std::integral_constant<unsigned, NR>{}) for the key's round count,
// so each kernel is instantiated once per AES key size.
template <class F>
[[gnu::always_inline]] inline void aes_ce_with_rounds(const AesCeKey& key, F&& f) {
    switch (key.rounds) {
    case 10: f(std::integral_constant<unsigned, 10>{}); break;
    case 12: f(std::integral_constant<unsigned, 12>{}); break;
    default: f(std::integral_constant<unsigned, 14>{}); break;
    }
}

} // namespace
} // namespace hwc::aarch64
