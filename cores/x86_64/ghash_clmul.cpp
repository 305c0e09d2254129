// SPDX-License-Identifier: Apache-2.0
// ghash-clmul: GHASH (NIST SP 800-38D 6.4) on PCLMULQDQ, 8 blocks per
// reduction. Representation, key layout and helpers: ghash_clmul.h.
//
// Compiled with -mpclmul -mssse3 (root CMakeLists.txt) and reached only
// through the `ghash_clmul` descriptor (needs kX86Pclmul).
#include "cores/x86_64/ghash_clmul.h"

#include "cores/cpu.h"
#include "cores/wipe.h"
#include "cores/x86_64/x86_64.h"

namespace hwc::x86_64 {

namespace clmul {

__m128i hash_blocks(const ClmulKey& key, __m128i y, const uint8_t* in, size_t nblocks) {
    for (; nblocks >= kAggregate; nblocks -= kAggregate, in += kAggregate * 16) {
        Acc acc = acc_zero();
        mul_acc_power(acc, _mm_xor_si128(y, load_reflected(in)), key, kAggregate - 1);
#pragma GCC unroll 8
        for (size_t i = 1; i < kAggregate; ++i)
            mul_acc_power(acc, load_reflected(in + 16 * i), key, kAggregate - 1 - i);
        y = reduce(acc);
    }
    if (nblocks != 0) {
        Acc acc = acc_zero();
        mul_acc_power(acc, _mm_xor_si128(y, load_reflected(in)), key, nblocks - 1);
        for (size_t i = 1; i < nblocks; ++i)
            mul_acc_power(acc, load_reflected(in + 16 * i), key, nblocks - 1 - i);
        y = reduce(acc);
    }
    return y;
}

} // namespace clmul

namespace {

using namespace clmul;

// Only the first power needs first_power's shifting multiply: a bulk
// product of two stored powers is (H^i x^-1)(H^j x^-1) x = H^(i+j) x^-1,
// another stored power (ghash_clmul.h). The powers are formed in a tree
// (depth 3 after H^1, not 7): key setup is on the per-message path of
// callers that re-key every message.
void ghash_set_key(GhashKey& key, const uint8_t h[16]) {
    static_assert(kAggregate == 8);
    auto mul = [](__m128i a, __m128i b) {
        Acc acc = acc_zero();
        mul_acc(acc, a, b, halves_xor(b));
        return reduce(acc);
    };
    __m128i p[kAggregate];
    p[0] = first_power(h);
    p[1] = mul(p[0], p[0]);
    p[2] = mul(p[1], p[0]);
    p[3] = mul(p[1], p[1]);
    for (size_t i = 4; i < kAggregate; ++i) p[i] = mul(p[3], p[i - 4]);
    ClmulKey& kd = clmul_key(key);
    for (size_t i = 0; i < kAggregate; ++i) {
        _mm_store_si128(&kd.pw[i], p[i]);
        _mm_store_si128(&kd.kar[i], halves_xor(p[i]));
    }
    secure_wipe(p, sizeof(p)); // powers of H: key material, as in the vector cores
}

void ghash_update(const GhashKey& key, uint8_t y[16], const uint8_t* in, size_t nblocks) {
    if (nblocks == 0) return;
    store_reflected(y, hash_blocks(clmul_key(key), load_reflected(y), in, nblocks));
}

// This core's powers ascend: H^2 and H^1 in the descending order finish_tag reads.
void ghash_finish(const GhashKey& key, const uint8_t y[16], const uint8_t* in, size_t nblocks,
                  const uint8_t mask[16], uint8_t tag[16]) {
    const ClmulKey& kd = clmul_key(key);
    const __m128i desc[2] = {_mm_load_si128(&kd.pw[1]), _mm_load_si128(&kd.pw[0])};
    finish_tag(desc, 2, y, in, nblocks, mask, tag);
}

} // namespace

extern const GhashCore ghash_clmul = {
    .name = "ghash-clmul",
    .hardware = true,
    .needs = kX86Pclmul,
    .set_key = ghash_set_key,
    .update = ghash_update,
    .finish = ghash_finish,
};

} // namespace hwc::x86_64
