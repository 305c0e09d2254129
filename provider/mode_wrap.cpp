// SPDX-License-Identifier: Apache-2.0
// key wrap KW/KWP and inverse variants (RFC 3394, RFC 5649, NIST SP 800-38F): not implemented yet. Its catalogue rows stay out of the algorithm
// table while `create` is nullptr.
#include "provider/mode_contexts.h"

namespace hwc {

const ModeOps kWrapModeOps = {nullptr, nullptr, nullptr};

} // namespace hwc
