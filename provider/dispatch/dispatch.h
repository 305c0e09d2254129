// SPDX-License-Identifier: Apache-2.0
// The generated OSSL_DISPATCH tables: one per catalogue row (OSSL_OP_CIPHER),
// one per MAC in kMacs (OSSL_OP_MAC).
#pragma once

#include <openssl/core.h>

#include <cstddef>

#include "provider/macs/mac_ctx.h"

namespace hwc {

inline const MacOps* const kMacs[] = {&kCmacOps, &kGmacOps};
inline constexpr size_t kMacCount = sizeof(kMacs) / sizeof(kMacs[0]);

// The dispatch table of catalogue row `index` (< kCatalogueSize).
const OSSL_DISPATCH* cipher_dispatch(size_t index);
const OSSL_DISPATCH* mac_dispatch(size_t index);

} // namespace hwc
