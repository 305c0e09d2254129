// SPDX-License-Identifier: Apache-2.0
// XTS (IEEE 1619, NIST SP 800-38E): not implemented yet. Its catalogue rows stay out of the algorithm
// table while `create` is nullptr.
#include "provider/mode_contexts.h"

namespace hwc {

const ModeOps kXtsModeOps = {nullptr, nullptr, nullptr};

} // namespace hwc
