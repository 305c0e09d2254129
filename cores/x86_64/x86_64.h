// SPDX-License-Identifier: Apache-2.0
// x86_64 cores. Each lives in translation units compiled with exactly the
// instruction-set flags they need (root CMakeLists.txt, hwcipher_isa_flags);
// the registry reaches them only through these descriptors, after checking
// `needs` against the CPU probe, so no wider-ISA code runs on older CPUs.
#pragma once

#include "cores/core.h"
#include "cores/ghash.h"

namespace hwc::x86_64 {

// "aes-aesni": AES-NI, 8-way interleaved parallel modes, register-resident
// serial ones (aes_ni.cpp, aes_ni_xts.cpp, aes_ni_ocb.cpp), and stitched
// AES-GCM with ghash-clmul (aes_ni_gcm.cpp).
extern const BlockCore aes_ni;
// "aes-vaes-avx2": VAES on YMM (16 blocks in flight) for the parallel modes,
// aes-aesni's kernels for the serial ones (aes_vaes.cpp, aes_vaes_gcm.cpp).
extern const BlockCore aes_vaes_avx2;
// "aes-vaes-avx512": VAES on ZMM (32 blocks in flight) for the parallel modes,
// stitched GCM with VPCLMULQDQ on ZMM paired with ghash-vpclmul-avx512,
// aes-aesni's serial kernels (aes_vaes512.cpp, aes_vaes512_gcm.cpp).
extern const BlockCore aes_vaes_avx512;
// "ghash-vpclmul-avx512": VPCLMULQDQ on ZMM, 32 blocks per reduction
// (ghash_vpclmul512.cpp).
extern const GhashCore ghash_vpclmul_avx512;
// "ghash-vpclmul-avx2": VPCLMULQDQ on YMM, 16 blocks per reduction (ghash_vpclmul.cpp).
extern const GhashCore ghash_vpclmul_avx2;
// "ghash-clmul": PCLMULQDQ, 8 blocks per reduction (ghash_clmul.cpp).
extern const GhashCore ghash_clmul;
// "sm4-aesni-avx2": SM4 S-box via AESENCLAST + affine maps, 32 blocks on AVX2
// for the parallel modes, one on XMM for the serial ones (sm4_aesni_avx2.cpp).
extern const BlockCore sm4_aesni_avx2;
// "sm4-gfni-avx2": SM4 S-box via VGF2P8AFFINEQB + VGF2P8AFFINEINVQB, otherwise
// sm4-aesni-avx2's engine and modes (sm4_avx2.h, sm4_avx2_modes.h; sm4_gfni_avx2.cpp).
extern const BlockCore sm4_gfni_avx2;
// "sm4-gfni-avx512": sm4-gfni-avx2 with the serial modes on AVX-512VL
// (VPTERNLOGD, VPROLD: a shorter round; sm4_serial_vl.h, sm4_gfni_avx512.cpp).
extern const BlockCore sm4_gfni_avx512;
// "twofish-avx2": AVX2 word-sliced Twofish, 16 blocks per step with VPGATHERDD
// (or the scalar cipher where gathers are slow), scalar serial modes
// (twofish_avx2.cpp, twofish_avx2_serial.cpp); not constant-time.
extern const BlockCore twofish_avx2;

} // namespace hwc::x86_64
