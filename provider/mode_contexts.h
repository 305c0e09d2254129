// SPDX-License-Identifier: Apache-2.0
// The mode families, one file each; mode_ops() in cipher_ctx.cpp maps every
// Mode to one of these.
#pragma once

#include "provider/cipher_ctx.h"

namespace hwc {

extern const ModeOps kBlockModeOps;  // ECB, CBC          (mode_block.cpp)
extern const ModeOps kCtsModeOps;    // CBC-CTS           (mode_cts.cpp)
extern const ModeOps kStreamModeOps; // CFB*, OFB, CTR    (mode_stream.cpp)

} // namespace hwc
