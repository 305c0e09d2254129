// SPDX-License-Identifier: Apache-2.0
// hwcipher's reason strings and error raising through the core's upcalls.
#include "provider/module/errors.h"

#include <cstdarg>

#include "provider/dispatch/thunks.h"
#include "provider/module/upcalls.h"
#include "provider/module/provider.h"

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
    {kErrInvalidTagLength, const_cast<char*>("invalid tag length")},
    {kErrTagNotSet, const_cast<char*>("tag not set (set the expected tag before decrypting)")},
    {kErrTagNotNeeded, const_cast<char*>("tag not needed (a tag is set only for decryption)")},
    {kErrTagMismatch, const_cast<char*>("tag mismatch (authentication failed)")},
    {kErrAadAfterData, const_cast<char*>("aad after data")},
    {kErrOneShotData, const_cast<char*>("data already processed (this mode takes one data update per message)")},
    {kErrUnsupportedCipher, const_cast<char*>("unsupported cipher")},
    {kErrInvalidInputLength, const_cast<char*>("invalid input length")},
    {kErrXtsDuplicatedKeys, const_cast<char*>("xts duplicated keys (the data and tweak keys must differ)")},
    {kErrXtsDataUnitTooLarge, const_cast<char*>("xts data unit is too large (more than 2^20 blocks)")},
    {kErrUnwrapFailed, const_cast<char*>("key unwrap failed (integrity check)")},
    {kErrCcmLengthNotSet, const_cast<char*>("ccm: the message length must be declared before the aad")},
    {kErrCcmLengthMismatch, const_cast<char*>("ccm: data length differs from the declared length, or does not fit in L bytes")},
    {kErrIvAlreadyUsed, const_cast<char*>("iv already used for a finished message (set a new iv)")},
    {kErrTooManyRecords, const_cast<char*>("too many records for one key")},
    {kErrOutOfMemory, const_cast<char*>("out of memory")},
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

namespace thunks {
void out_of_memory(const ProvCtx* prov, const char* what) noexcept {
    HWC_RAISE(prov, kErrOutOfMemory, "%s", what);
}
} // namespace thunks

void raise_error(const OSSL_CORE_HANDLE* handle, const char* file, int line, const char* where,
                 int reason, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    raise_v(handle, file, line, where, reason, fmt, ap);
    va_end(ap);
}

} // namespace hwc
