// SPDX-License-Identifier: Apache-2.0
// OSSL_OP_MAC dispatch tables, one per MAC in kMacs.
#pragma once

#include <openssl/core.h>

#include <cstddef>

#include "provider/macs/mac_ctx.h"

namespace hwc {

inline const MacOps* const kMacs[] = {&kCmacOps, &kGmacOps};
inline constexpr size_t kMacCount = sizeof(kMacs) / sizeof(kMacs[0]);

const OSSL_DISPATCH* mac_dispatch(size_t index);

} // namespace hwc
