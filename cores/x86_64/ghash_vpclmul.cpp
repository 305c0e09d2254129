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

// Below this many blocks clmul::hash_few's XMM code is as fast: a short input
// fills few vector registers, and the XMM path has no lane folding to pay for.
constexpr size_t kVectorMin = 4;

// Key setup is on the per-message path of callers that re-key every
// message (`openssl speed -aead` does), so the 16 powers are formed two per
// YMM multiply, level by level: q[i] = (H^(2i+2), H^(2i+1)) is the power
// register pw[7 - i], and q[i + k/2] = q[i] * (H^k, H^k) for k = 2, 4, 8
// (1, 2, then 4 independent multiplies). The product of two stored powers
// is again a stored power (ghash_clmul.h), so each is one carry-less
// product and one reduction per lane.

// a * b lane by lane (Karatsuba: bk = b0 ^ b1 in the low half of each
// lane), each lane reduced on its own.
__m256i mul_lanes(__m256i a, __m256i b, __m256i bk) {
    const __m256i lo = clmul256<0x00>(a, b), hi = clmul256<0x11>(a, b);
    const __m256i ak = _mm256_xor_si256(a, _mm256_shuffle_epi32(a, 0x4e));
    const __m256i mid = _mm256_xor_si256(clmul256<0x00>(ak, bk), _mm256_xor_si256(lo, hi));
    const __m256i l = _mm256_xor_si256(lo, _mm256_bslli_epi128(mid, 8));
    const __m256i h = _mm256_xor_si256(hi, _mm256_bsrli_epi128(mid, 8));
    // clmul::fold, per lane.
    const __m256i k = _mm256_set1_epi64x(static_cast<long long>(0xc200000000000000ull));
    const __m256i fa = clmul256<0x00>(l, k), fb = clmul256<0x01>(l, k);
    const __m256i fc = clmul256<0x00>(fa, k);
    return _mm256_xor_si256(_mm256_xor_si256(_mm256_xor_si256(h, l), _mm256_xor_si256(fb, fc)),
                            _mm256_shuffle_epi32(fa, 0x4e));
}

void ghash_set_key(GhashKey& key, const uint8_t h[16]) {
    const __m128i h1 = clmul::first_power(h);
    clmul::Acc acc = clmul::acc_zero();
    clmul::mul_acc(acc, h1, h1, clmul::halves_xor(h1));
    const __m128i h2 = clmul::reduce(acc);
    __m256i q[kPowerRegs];
    q[0] = _mm256_inserti128_si256(_mm256_castsi128_si256(h2), h1, 1);
    for (size_t n = 1; n < kPowerRegs; n *= 2) {
        // (H^2n, H^2n): lane 0 of q[n - 1], in both lanes.
        const __m256i b = _mm256_permute2x128_si256(q[n - 1], q[n - 1], 0x00);
        const __m256i bk = _mm256_xor_si256(b, _mm256_shuffle_epi32(b, 0x4e));
        for (size_t i = 0; i < n; ++i) q[n + i] = mul_lanes(q[i], b, bk);
    }
    VpclmulKey& kd = vpclmul_key(key);
    for (size_t m = 0; m < kPowerRegs; ++m) _mm256_store_si256(&kd.pw[m], q[kPowerRegs - 1 - m]);
    secure_wipe(q, sizeof(q));
}

void ghash_update(const GhashKey& key, uint8_t y[16], const uint8_t* in, size_t nblocks) {
    if (nblocks == 0) return;
    const VpclmulKey& kd = vpclmul_key(key);
    const __m128i y0 = clmul::load_reflected(y);
    clmul::store_reflected(
        y, nblocks < kVectorMin
               ? clmul::hash_few(reinterpret_cast<const __m128i*>(kd.pw), kGroup, y0, in,
                                 nblocks)
               : hash_blocks(kd, y0, in, nblocks));
}

void ghash_finish(const GhashKey& key, const uint8_t y[16], const uint8_t* in, size_t nblocks,
                  const uint8_t mask[16], uint8_t tag[16]) {
    const __m128i* pw = reinterpret_cast<const __m128i*>(vpclmul_key(key).pw);
    clmul::finish_tag(pw, kGroup, y, in, nblocks, mask, tag);
}

} // namespace

extern const GhashCore ghash_vpclmul_avx2 = {
    .name = "ghash-vpclmul-avx2",
    .hardware = true,
    .needs = kX86Avx2 | kX86Pclmul | kVpclmulFeature,
    .set_key = ghash_set_key,
    .update = ghash_update,
    .finish = ghash_finish,
};

} // namespace hwc::x86_64
