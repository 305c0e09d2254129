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
// "ghash-clmul": PCLMULQDQ, 8 blocks per reduction (ghash_clmul.cpp).
extern const GhashCore ghash_clmul;

} // namespace hwc::x86_64
