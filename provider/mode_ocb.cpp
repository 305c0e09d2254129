// SPDX-License-Identifier: Apache-2.0
// OCB (RFC 7253): not implemented yet. Its catalogue rows stay out of the algorithm
// table while `create` is nullptr.
#include "provider/mode_contexts.h"

namespace hwc {

const ModeOps kOcbModeOps = {nullptr, nullptr, nullptr};

} // namespace hwc
