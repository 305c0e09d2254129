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

namespace {

void raise_v(const OSSL_CORE_HANDLE* handle, const char* file, int line, const char* where,
             int reason, const char* fmt, va_list ap) {
    const Upcalls& up = upcalls();
    if (handle == nullptr || up.new_error == nullptr || up.vset_error == nullptr) return;
    up.new_error(handle);
    if (up.set_error_debug != nullptr) up.set_error_debug(handle, file, line, where);
    up.vset_error(handle, static_cast<uint32_t>(reason), fmt, ap);
}

} // namespace

void raise_error(const ProvCtx* prov, const char* file, int line, const char* where, int reason,
                 const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    raise_v(prov != nullptr ? prov->handle : nullptr, file, line, where, reason, fmt, ap);
    va_end(ap);
}

void raise_error(const OSSL_CORE_HANDLE* handle, const char* file, int line, const char* where,
                 int reason, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    raise_v(handle, file, line, where, reason, fmt, ap);
    va_end(ap);
}

namespace thunks {
void out_of_memory(const ProvCtx* prov, const char* what) noexcept {
    HWC_RAISE(prov, kErrOutOfMemory, "%s", what);
}
} // namespace thunks

} // namespace hwc
