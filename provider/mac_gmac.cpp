// SPDX-License-Identifier: Apache-2.0
// GMAC (NIST SP 800-38D) over any hwcipher GCM cipher: not implemented yet.
// Left out of the MAC table while `create` is nullptr.
#include "provider/mac_ctx.h"

namespace hwc {

const MacOps kGmacOps = {"GMAC:1.0.9797.3.4", nullptr, nullptr, nullptr, nullptr, nullptr};

} // namespace hwc
