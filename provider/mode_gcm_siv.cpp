// SPDX-License-Identifier: Apache-2.0
// GCM-SIV (RFC 8452): not implemented yet. Its catalogue rows stay out of the algorithm
// table while `create` is nullptr.
#include "provider/mode_contexts.h"

namespace hwc {

const ModeOps kGcmSivModeOps = {nullptr, nullptr, nullptr};

} // namespace hwc
