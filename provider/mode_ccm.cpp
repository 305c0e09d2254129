// SPDX-License-Identifier: Apache-2.0
// CCM (NIST SP 800-38C, RFC 3610): not implemented yet. Its catalogue rows stay out of the algorithm
// table while `create` is nullptr.
#include "provider/mode_contexts.h"

namespace hwc {

const ModeOps kCcmModeOps = {nullptr, nullptr, nullptr};

} // namespace hwc
