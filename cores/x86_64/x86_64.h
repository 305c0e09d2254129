// SPDX-License-Identifier: Apache-2.0
// x86_64 cores. Each lives in its own translation unit compiled with exactly
// the instruction-set flags it needs (root CMakeLists.txt, hwcipher_isa_flags);
// the registry reaches them only through these descriptors, after checking
// `needs` against the CPU probe, so no wider-ISA code runs on older CPUs.
#pragma once

#include "cores/core.h"
#include "cores/ghash.h"

namespace hwc::x86_64 {

extern const BlockCore aes_ni;     // "aes-aesni": AES-NI, 8-way interleaved (aes_ni.cpp)
extern const GhashCore ghash_clmul; // "ghash-clmul": PCLMULQDQ, 4-block aggregated (ghash_clmul.cpp)

} // namespace hwc::x86_64
