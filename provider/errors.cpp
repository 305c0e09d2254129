// SPDX-License-Identifier: Apache-2.0
// hwcipher's reason strings and error raising through the core's upcalls.
#include "provider/errors.h"

#include <cstdarg>

#include "provider/upcalls.h"
#include "provider/provider.h"

namespace hwc {

const OSSL_ITEM kReasonStrings[] = {
    {kErrInvalidKeyLength, const_cast<char*>("invalid key length")},
    {kErrInvalidIvLength, const_cast<char*>("invalid iv length")},
    {kErrNoKeySet, const_cast<char*>("no key set")},
    {kErrNoIvSet, const_cast<char*>("no iv set")},
    {kErrOutputBufferTooSmall, const_cast<char*>("output buffer too small")},
    {kErrWrongFinalBlockLength, const_cast<char*>("wrong final block length")},
    {kErrBadDecrypt, const_cast<char*>("bad decrypt")},
    {kErrCtsTooShort, const_cast<char*>("input shorter than one block (cts needs at least 16 bytes)")},
    {kErrCtsOneShot, const_cast<char*>("cts mode takes one update per message")},
    {kErrInvalidCtsMode, const_cast<char*>("invalid cts mode (want CS1, CS2 or CS3)")},
    {kErrInvalidNum, const_cast<char*>("invalid num")},
    {kErrInvalidParam, const_cast<char*>("invalid parameter value")},
    {kErrNotInitialized, const_cast<char*>("operation not initialised")},
    {kErrInternal, const_cast<char*>("internal error")},
    {0, nullptr},
};

void raise_error(const ProvCtx* prov, const char* file, int line, const char* where, int reason,
                 const char* fmt, ...) {
    const Upcalls& up = upcalls();
    if (prov == nullptr || up.new_error == nullptr || up.vset_error == nullptr) return;
    up.new_error(prov->handle);
    if (up.set_error_debug != nullptr) up.set_error_debug(prov->handle, file, line, where);
    va_list ap;
    va_start(ap, fmt);
    up.vset_error(prov->handle, static_cast<uint32_t>(reason), fmt, ap);
    va_end(ap);
}

} // namespace hwc
