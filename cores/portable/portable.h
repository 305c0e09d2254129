// SPDX-License-Identifier: Apache-2.0
// Portable block cores: always available, no CPU features required.
//
// aes-portable and sm4-portable are bitsliced and constant-time (no
// secret-indexed memory access, no secret-dependent branches).
// twofish-portable is table based and NOT constant-time: its key-dependent
// S-box tables are indexed by secret data (see cores/portable/twofish.cpp).
// Each core fills only set_key/encrypt_blocks/decrypt_blocks; the mode slots
// are nullptr, so the generic kernels of cores/portable/generic_modes.cpp run.
#pragma once

#include "cores/core.h"
#include "cores/ghash.h"

namespace hwc::portable {

extern const BlockCore aes;      // "aes-portable": AES-128/192/256, bitsliced, 4 blocks per batch
extern const BlockCore sm4;      // "sm4-portable": SM4, bitsliced, 16 blocks per batch
extern const BlockCore twofish;  // "twofish-portable": table-driven, not constant-time

extern const GhashCore ghash;    // "ghash-portable": multiply-based, constant-time (ghash_ct.cpp)

} // namespace hwc::portable
