// SPDX-License-Identifier: Apache-2.0
// hwcipher's reason strings and error raising through the core's upcalls.
#include "provider/module/errors.h"

#include <cstdarg>

#include "provider/dispatch/thunks.h"
#include "provider/module/provider.h"

namespace hwc {

const OSSL_ITEM kReasonStrings[] = {
#define HWC_REASON_ITEM(name, text) {name, const_cast<char*>(text)},
    HWC_REASONS(HWC_REASON_ITEM)
#undef HWC_REASON_ITEM
    {0, nullptr},
};

void raise_error(const OSSL_CORE_HANDLE* handle, const char* file, int line, const char* where,
                 int reason, const char* fmt, ...) {
    const Upcalls& up = upcalls();
    if (handle == nullptr || up.new_error == nullptr || up.vset_error == nullptr) return;
    up.new_error(handle);
    if (up.set_error_debug != nullptr) up.set_error_debug(handle, file, line, where);
    va_list ap;
    va_start(ap, fmt);
    up.vset_error(handle, static_cast<uint32_t>(reason), fmt, ap);
    va_end(ap);
}

const OSSL_CORE_HANDLE* error_handle(const ProvCtx* prov) {
    return prov != nullptr ? prov->handle : nullptr;
}

namespace thunks {
void out_of_memory(const ProvCtx* prov, const char* what) noexcept {
    HWC_RAISE(prov, kErrOutOfMemory, "%s", what);
}
} // namespace thunks

} // namespace hwc
