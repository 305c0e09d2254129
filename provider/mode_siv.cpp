// SPDX-License-Identifier: Apache-2.0
// SIV (RFC 5297): not implemented yet. Its catalogue rows stay out of the algorithm
// table while `create` is nullptr.
#include "provider/mode_contexts.h"

namespace hwc {

const ModeOps kSivModeOps = {nullptr, nullptr, nullptr};

} // namespace hwc
