// SPDX-License-Identifier: Apache-2.0
// aes-aesni OCB kernels (RFC 7253) over whole data blocks. Contract: OcbFn
// and OcbState in cores/core.h.
//
// 8 blocks per step. The offset and the checksum stay in XMM registers for
// the whole call; each block's offset (previous offset ^ L[ntz(i)], the L
// row loaded by index: the block count is public) is folded into round key 0
// on the way in and into the last round key on the way out (aes_ni.h).
//
// Compiled with -maes -msse4.1 (root CMakeLists.txt); reached only through
// the aes_ni descriptor (aes_ni.cpp).
#include <bit>

#include "cores/x86_64/aes_ni.h"

namespace hwc::x86_64::aesni {
namespace {

struct OcbRegs {
    __m128i offset, checksum;
    uint64_t blocks;
    const uint8_t (*l)[kBlockSize];
};

// in == out is safe: a step loads all its input blocks before it stores.
template <unsigned NR, size_t N, bool Enc>
[[gnu::always_inline]] inline void ocb_step(const RoundKeys<NR>& rk, OcbRegs& s,
                                            const uint8_t* in, uint8_t* out) {
    __m128i b[N], ol[N];
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) {
        s.offset = _mm_xor_si128(s.offset, load(s.l[std::countr_zero(++s.blocks)]));
        const __m128i x = load(in + 16 * i);
        if constexpr (Enc) s.checksum = _mm_xor_si128(s.checksum, x);
        b[i] = _mm_xor_si128(x, _mm_xor_si128(s.offset, rk.k[0]));
        ol[i] = _mm_xor_si128(s.offset, rk.k[NR]);
    }
    if constexpr (Enc) {
        enc_middle<NR>(rk, b);
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) store(out + 16 * i, _mm_aesenclast_si128(b[i], ol[i]));
    } else {
        dec_middle<NR>(rk, b);
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) {
            const __m128i p = _mm_aesdeclast_si128(b[i], ol[i]);
            s.checksum = _mm_xor_si128(s.checksum, p);
            store(out + 16 * i, p);
        }
    }
}

template <unsigned NR, bool Enc>
void ocb_kernel(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out,
                size_t n) {
    const RoundKeys<NR> rk = load_keys<NR>(Enc ? aes_key(ks).enc : aes_key(ks).dec);
    OcbRegs s{load(st.offset), load(st.checksum), st.blocks, st.l};
    for (; n >= 8; n -= 8, in += 128, out += 128) ocb_step<NR, 8, Enc>(rk, s, in, out);
    if (n >= 4) {
        ocb_step<NR, 4, Enc>(rk, s, in, out);
        n -= 4, in += 64, out += 64;
    }
    for (; n; --n, in += 16, out += 16) ocb_step<NR, 1, Enc>(rk, s, in, out);
    store(st.offset, s.offset);
    store(st.checksum, s.checksum);
    st.blocks = s.blocks;
}

} // namespace

void ocb_encrypt(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out,
                 size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) {
        ocb_kernel<decltype(nr)::value, true>(ks, st, in, out, n);
    });
}

void ocb_decrypt(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out,
                 size_t n) {
    if (n == 0) return;
    with_rounds(ks, [&](auto nr) {
        ocb_kernel<decltype(nr)::value, false>(ks, st, in, out, n);
    });
}

} // namespace hwc::x86_64::aesni
