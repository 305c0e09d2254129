// SPDX-License-Identifier: Apache-2.0
// ghash-vpclmul-avx512: GHASH (NIST SP 800-38D 6.4) on VPCLMULQDQ with ZMM
// registers, four blocks per register and 32 blocks per reduction; the
// GHASH partner of aes-vaes-avx512's stitched GCM kernel, which reads the
// same key. Representation, key layout and helpers: ghash_vpclmul512.h.
//
// Compiled with -mavx2 -mavx512f -mavx512bw -mavx512vl -mpclmul and
// -mvpclmulqdq (not in the HWCIPHER_VPCLMUL_EMULATE build: root
// CMakeLists.txt) and reached only through the `ghash_vpclmul_avx512`
// descriptor (needs AVX-512 F/BW/VL, VPCLMULQDQ and PCLMULQDQ).
#include "cores/x86_64/ghash_vpclmul512.h"

#include "cores/wipe.h"
#include "cores/x86_64/ghash_vpclmul.h"
#include "cores/x86_64/x86_64.h"

namespace hwc::x86_64 {

namespace vpclmul512 {

__m128i hash_blocks(const Vpclmul512Key& key, __m128i y, const uint8_t* in, size_t nblocks) {
    for (; nblocks >= kPowers; nblocks -= kPowers, in += 16 * kPowers)
        y = hash_group32(key, y, in);
    if (nblocks != 0) y = hash_tail(key, y, in, nblocks);
    return y;
}

} // namespace vpclmul512

namespace {

using namespace vpclmul512;

// Below this many blocks XMM code is as fast (clmul::hash_few): no lane
// folding to pay for.
constexpr size_t kVectorMin = 4;

// a * b lane by lane (Karatsuba, bk = halves_xor4(b)), each lane reduced on
// its own: four products of stored powers, each again a stored power
// (ghash_clmul.h).
__m512i mul_lanes(__m512i a, __m512i b, __m512i bk) {
    Acc4 acc = acc4_zero();
    mul_acc4k(acc, a, b, bk);
    __m512i lo, hi;
    fold_mid(karatsuba_mid(acc), lo, hi);
    // clmul::fold, per lane.
    const __m512i k = _mm512_set1_epi64(static_cast<long long>(0xc200000000000000ull));
    const __m512i fa = clmul512<0x00>(lo, k), fb = clmul512<0x01>(lo, k);
    const __m512i fc = clmul512<0x00>(fa, k);
    return xor3_512(xor3_512(hi, lo, fb), fc, _mm512_shuffle_epi32(fa, _MM_PERM_BADC));
}

// Key setup is on the per-message path of callers that re-key every
// message (`openssl speed -aead` does), and the powers' chain of dependent
// products is what it waits for, so the chain is kept short: H^2, H^4, H^8
// and H^16 by squaring (two carry-less products, the cross terms of a
// square vanish), H^3 and H^12 by one product each, all on XMM; then with
// u[i] = (H^(4i+4), ..., H^(4i+1)), which is key unit 7 - i, four per ZMM
// multiply: u[1..3] = u[0] * H^4, H^8, H^12 and u[4..7] = u[0..3] * H^16.
// Products of stored powers are stored powers again (ghash_clmul.h).

__m128i mul1(__m128i a, __m128i b) {
    clmul::Acc acc = clmul::acc_zero();
    clmul::mul_acc(acc, a, b, clmul::halves_xor(b));
    return clmul::reduce(acc);
}

__m128i square1(__m128i a) {
    return clmul::fold(_mm_clmulepi64_si128(a, a, 0x11), _mm_clmulepi64_si128(a, a, 0x00));
}

void ghash_set_key(GhashKey& key, const uint8_t h[16]) {
    const __m128i h1 = clmul::first_power(h);
    const __m128i h2 = square1(h1), h4 = square1(h2), h8 = square1(h4), h16 = square1(h8);
    const __m128i h3 = mul1(h2, h1), h12 = mul1(h8, h4);
    __m512i u[kUnits];
    u[0] = _mm512_inserti32x4(_mm512_inserti32x4(_mm512_inserti32x4(
                                  _mm512_castsi128_si512(h4), h3, 1), h2, 2), h1, 3);
    const __m128i step[3] = {h4, h8, h12};
    for (size_t i = 1; i < 4; ++i) {
        const __m512i b = _mm512_broadcast_i32x4(step[i - 1]);
        u[i] = mul_lanes(u[0], b, halves_xor4(b));
    }
    const __m512i b16 = _mm512_broadcast_i32x4(h16), b16k = halves_xor4(b16);
    for (size_t i = 0; i < 4; ++i) u[4 + i] = mul_lanes(u[i], b16, b16k);
    Vpclmul512Key& kd = key512(key);
    for (size_t m = 0; m < kUnits; ++m) _mm512_store_si512(&kd.pw[m], u[kUnits - 1 - m]);
    secure_wipe(u, sizeof(u));
}

void ghash_update(const GhashKey& key, uint8_t y[16], const uint8_t* in, size_t nblocks) {
    if (nblocks == 0) return;
    const Vpclmul512Key& kd = key512(key);
    const __m128i y0 = clmul::load_reflected(y);
    clmul::store_reflected(
        y, nblocks < kVectorMin
               ? clmul::hash_few(reinterpret_cast<const __m128i*>(kd.pw), kPowers, y0, in,
                                   nblocks)
               : hash_blocks(kd, y0, in, nblocks));
}

void ghash_finish(const GhashKey& key, const uint8_t y[16], const uint8_t* in, size_t nblocks,
                  const uint8_t mask[16], uint8_t tag[16]) {
    const __m128i* pw = reinterpret_cast<const __m128i*>(key512(key).pw);
    clmul::finish_tag(pw, kPowers, y, in, nblocks, mask, tag);
}

} // namespace

extern const GhashCore ghash_vpclmul_avx512 = {
    .name = "ghash-vpclmul-avx512",
    .hardware = true,
    .needs = kX86Avx2 | kX86Avx512 | kX86Pclmul | vpclmul::kVpclmulFeature,
    .set_key = ghash_set_key,
    .update = ghash_update,
    .finish = ghash_finish,
};

} // namespace hwc::x86_64
