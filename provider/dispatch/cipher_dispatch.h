// SPDX-License-Identifier: Apache-2.0
// One OSSL_DISPATCH table per catalogue row, generated from templates.
#pragma once

#include <openssl/core.h>

#include <cstddef>

namespace hwc {

// The dispatch table of catalogue row `index` (< kCatalogueSize).
const OSSL_DISPATCH* cipher_dispatch(size_t index);

} // namespace hwc
