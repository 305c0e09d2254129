// SPDX-License-Identifier: Apache-2.0
// CMAC (NIST SP 800-38B) over any hwcipher CBC cipher: not implemented yet.
// Left out of the MAC table while `create` is nullptr.
#include "provider/mac_ctx.h"

namespace hwc {

const MacOps kCmacOps = {"CMAC", nullptr, nullptr, nullptr, nullptr, nullptr};

} // namespace hwc
