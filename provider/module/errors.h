// SPDX-License-Identifier: Apache-2.0
// hwcipher's error reasons and the one function that puts them on OpenSSL's
// error queue (through the core's upcalls, so the library shown is "hwcipher").
#pragma once

#include <openssl/core.h>

namespace hwc {

enum Reason : int {
    kErrInvalidKeyLength = 1,
    kErrInvalidIvLength,
    kErrNoKeySet,
    kErrNoIvSet,
    kErrOutputBufferTooSmall,
    kErrWrongFinalBlockLength,
    kErrBadDecrypt,
    kErrCtsTooShort,
    kErrCtsOneShot,
    kErrInvalidCtsMode,
    kErrInvalidNum,
    kErrInvalidParam,
    kErrNotInitialized,
    kErrInternal,
    // AEAD tags and one-shot modes (SIV, GCM-SIV; usable by any AEAD), CMAC cipher choice.
    kErrInvalidTagLength,
    kErrTagNotSet,
    kErrTagNotNeeded,
    kErrTagMismatch,
    kErrAadAfterData,
    kErrOneShotData,
    kErrUnsupportedCipher,
    // XTS data units and key wrap (mode_xts.cpp, mode_wrap.cpp).
    kErrInvalidInputLength,
    kErrXtsDuplicatedKeys,
    kErrXtsDataUnitTooLarge,
    kErrUnwrapFailed,
    // CCM message-length rules (mode_ccm.cpp).
    kErrCcmLengthNotSet,
    kErrCcmLengthMismatch,
    // GCM IV reuse and TLS 1.2 record limits (mode_gcm.cpp).
    kErrIvAlreadyUsed,
    kErrTooManyRecords,
    // An allocation failed (no exception crosses the C boundary).
    kErrOutOfMemory,
};

// {reason, text} pairs for get_reason_strings, {0, nullptr}-terminated.
extern const OSSL_ITEM kReasonStrings[];

struct ProvCtx;

// Raise `reason` with an optional printf-style detail. `where` is the
// function name shown by ERR_print_errors.
void raise_error(const ProvCtx* prov, const char* file, int line, const char* where, int reason,
                 const char* fmt = nullptr, ...);
// The same before a provider context exists (OSSL_provider_init).
void raise_error(const OSSL_CORE_HANDLE* handle, const char* file, int line, const char* where,
                 int reason, const char* fmt = nullptr, ...);

} // namespace hwc

#define HWC_RAISE(prov, reason, ...) \
    ::hwc::raise_error((prov), __FILE__, __LINE__, __func__, (reason), ##__VA_ARGS__)

// HWC_RAISE as an expression that is false: `return HWC_FAIL(prov_, reason);`
// in a function returning bool or int (0), `ok || HWC_FAIL(...)` in a check.
#define HWC_FAIL(prov, reason, ...) (HWC_RAISE(prov, reason, ##__VA_ARGS__), false)
