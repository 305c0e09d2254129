// SPDX-License-Identifier: Apache-2.0
// aarch64 cores: ARMv8 Crypto Extensions (AES, PMULL), SM4E/SM4EKEY, SM4 on
// NEON (through AESE, or plain) for CPUs without SM4E, and Twofish in
// hand-written assembly. Each is listed in cores/registry.cpp and
// chosen only where cores/cpu.cpp found its HWCAP bits.
#pragma once

#include "cores/core.h"
#include "cores/ghash.h"

namespace hwc::aarch64 {

extern const BlockCore aes_ce;       // "aes-armv8-ce": AESE/AESMC, AESD/AESIMC (aes_ce.cpp)
extern const BlockCore aes_ce_eor3;  // "aes-armv8-ce-eor3": the same, EOR3 in CTR/GCM (aes_ce_eor3.cpp)
extern const GhashCore ghash_pmull;  // "ghash-pmull": PMULL/PMULL2, powers of H (ghash_pmull.cpp)
extern const BlockCore sm4_ce;       // "sm4-armv8-ce": SM4E/SM4EKEY (sm4_ce.cpp)
extern const BlockCore sm4_neon_aes; // "sm4-neon-aes": S-box through AESE (sm4_neon_aes.cpp)
extern const BlockCore sm4_neon;     // "sm4-neon": plain NEON, TBL S-box (sm4_neon.cpp)
extern const BlockCore twofish_asm;  // "twofish-arm64-asm": twofish_arm64.S

} // namespace hwc::aarch64
