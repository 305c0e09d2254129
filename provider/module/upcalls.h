// SPDX-License-Identifier: Apache-2.0
// The libcrypto core functions hwcipher calls back into (taken from the `in`
// dispatch table at init; identical for every instance of the provider).
#pragma once

#include <openssl/core_dispatch.h>

namespace hwc {

struct Upcalls {
    OSSL_FUNC_core_new_error_fn* new_error = nullptr;
    OSSL_FUNC_core_set_error_debug_fn* set_error_debug = nullptr;
    OSSL_FUNC_core_vset_error_fn* vset_error = nullptr;
    OSSL_FUNC_core_get_params_fn* get_params = nullptr;
};

Upcalls& upcalls();

} // namespace hwc
