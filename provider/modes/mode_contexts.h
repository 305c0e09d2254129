// SPDX-License-Identifier: Apache-2.0
// The mode families, one file each; mode_ops() in cipher_ctx.cpp maps every
// Mode to one of these.
#pragma once

#include "provider/modes/cipher_ctx.h"

namespace hwc {

extern const ModeOps kBlockModeOps;  // ECB, CBC          (mode_block.cpp)
extern const ModeOps kCtsModeOps;    // CBC-CTS           (mode_cts.cpp)
extern const ModeOps kStreamModeOps; // CFB*, OFB, CTR    (mode_stream.cpp)
extern const ModeOps kGcmModeOps;    // GCM               (mode_gcm.cpp)
extern const ModeOps kCcmModeOps;    // CCM               (mode_ccm.cpp)
extern const ModeOps kOcbModeOps;    // OCB               (mode_ocb.cpp)
extern const ModeOps kSivModeOps;    // SIV               (mode_siv.cpp)
extern const ModeOps kGcmSivModeOps; // GCM-SIV           (mode_gcm_siv.cpp)
extern const ModeOps kXtsModeOps;    // XTS               (mode_xts.cpp)
extern const ModeOps kWrapModeOps;   // KW, KWP, -INV     (mode_wrap.cpp)

} // namespace hwc
