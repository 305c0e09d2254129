// SPDX-License-Identifier: Apache-2.0
// ghash-vpclmul-avx2: GHASH (NIST SP 800-38D 6.4) on VPCLMULQDQ with YMM
// registers, two blocks per register and 16 blocks per reduction.
// Representation, key layout and helpers: ghash_vpclmul.h.
//
// Compiled with -mavx2 -mvpclmulqdq -mpclmul (root CMakeLists.txt) and
// reached only through the `ghash_vpclmul_avx2` descriptor (needs AVX2,
// VPCLMULQDQ and PCLMULQDQ).
#include "cores/x86_64/ghash_vpclmul.h"

#include "cores/wipe.h"
#include "cores/x86_64/x86_64.h"

namespace hwc::x86_64 {

namespace vpclmul {

__m128i hash_blocks(const VpclmulKey& key, __m128i y, const uint8_t* in, size_t nblocks) {
    for (; nblocks >= kGroup; nblocks -= kGroup, in += 16 * kGroup) y = hash_group16(key, y, in);
    if (nblocks != 0) y = hash_group(key, y, in, nblocks);
    return y;
}

} // namespace vpclmul

namespace {

using namespace vpclmul;

// Below this many blocks hash_few's XMM code is as fast: a short input
// fills few vector registers, and the XMM path has no lane folding to pay for.
constexpr size_t kVectorMin = 4;

// ghash-clmul's set_key gives H^1..H^8 (each * x^-1, in ghash_clmul.h's
// layout, in a scratch key); the product of two stored powers is again a
// stored power (ghash_clmul.cpp), so H^9..H^16 are H^8 times the first
// eight and H^17..H^32 are H^16 times the first sixteen: each level's
// products independent of each other, two multiplies deep.
void ghash_set_key(GhashKey& key, const uint8_t h[16]) {
    GhashKey scratch;
    ghash_clmul.set_key(scratch, h);
    const clmul::ClmulKey& ck = clmul::clmul_key(scratch);
    __m128i p[kPowers], kar[kPowers];
    for (size_t i = 0; i < clmul::kAggregate; ++i) {
        p[i] = _mm_load_si128(&ck.pw[i]);
        kar[i] = _mm_load_si128(&ck.kar[i]);
    }
    for (size_t base = clmul::kAggregate; base < kPowers; base *= 2) {
        for (size_t i = base; i < 2 * base; ++i) {
            clmul::Acc acc = clmul::acc_zero();
            clmul::mul_acc(acc, p[i - base], p[base - 1], kar[base - 1]);
            p[i] = clmul::reduce(acc);
            kar[i] = clmul::halves_xor(p[i]);
        }
    }
    // p[i] holds H^(i+1): pw[c] takes H^(32-2c) and H^(31-2c).
    VpclmulKey& kd = vpclmul_key(key);
    for (size_t c = 0; c < kPowers / 2; ++c)
        _mm256_store_si256(&kd.pw[c], _mm256_inserti128_si256(
                                          _mm256_castsi128_si256(p[kPowers - 1 - 2 * c]),
                                          p[kPowers - 2 - 2 * c], 1));
    secure_wipe(p, sizeof(p));
    secure_wipe(kar, sizeof(kar));
    secure_wipe(&scratch, sizeof(scratch));
}

void ghash_update(const GhashKey& key, uint8_t y[16], const uint8_t* in, size_t nblocks) {
    if (nblocks == 0) return;
    const VpclmulKey& kd = vpclmul_key(key);
    const __m128i y0 = clmul::load_reflected(y);
    clmul::store_reflected(y, nblocks < kVectorMin ? hash_few(kd, y0, in, nblocks)
                                                   : hash_blocks(kd, y0, in, nblocks));
}

} // namespace

extern const GhashCore ghash_vpclmul_avx2 = {
    .name = "ghash-vpclmul-avx2",
    .hardware = true,
    .needs = kX86Avx2 | kX86Pclmul | kVpclmulFeature,
    .set_key = ghash_set_key,
    .update = ghash_update,
};

} // namespace hwc::x86_64
