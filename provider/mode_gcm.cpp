// SPDX-License-Identifier: Apache-2.0
// GCM (NIST SP 800-38D): not implemented yet. Its catalogue rows stay out of the algorithm
// table while `create` is nullptr.
#include "provider/mode_contexts.h"

namespace hwc {

const ModeOps kGcmModeOps = {nullptr, nullptr, nullptr};

} // namespace hwc
