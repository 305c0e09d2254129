// SPDX-License-Identifier: Apache-2.0
// hwcipher's error reasons and the one function that puts them on OpenSSL's
// error queue (through the core's upcalls, so the library shown is "hwcipher").
#pragma once

#include <openssl/core.h>

namespace hwc {

// Every reason with its text, in the order of their values (from 1).
#define HWC_REASONS(X) \
    X(kErrInvalidKeyLength, "invalid key length") \
    X(kErrInvalidIvLength, "invalid iv length") \
    X(kErrNoKeySet, "no key set") \
    X(kErrNoIvSet, "no iv set") \
    X(kErrOutputBufferTooSmall, "output buffer too small") \
    X(kErrWrongFinalBlockLength, "wrong final block length") \
    X(kErrBadDecrypt, "bad decrypt") \
    X(kErrCtsTooShort, "input shorter than one block (cts needs at least 16 bytes)") \
    X(kErrCtsOneShot, "cts mode takes one update per message") \
    X(kErrInvalidCtsMode, "invalid cts mode (want CS1, CS2 or CS3)") \
    X(kErrInvalidNum, "invalid num") \
    X(kErrInvalidParam, "invalid parameter value") \
    X(kErrNotInitialized, "operation not initialised") \
    X(kErrInternal, "internal error") \
    /* AEAD tags and one-shot modes (SIV, GCM-SIV; usable by any AEAD), CMAC cipher choice. */ \
    X(kErrInvalidTagLength, "invalid tag length") \
    X(kErrTagNotSet, "tag not set (set the expected tag before decrypting)") \
    X(kErrTagNotNeeded, "tag not needed (a tag is set only for decryption)") \
    X(kErrTagMismatch, "tag mismatch (authentication failed)") \
    X(kErrAadAfterData, "aad after data") \
    X(kErrOneShotData, "data already processed (this mode takes one data update per message)") \
    X(kErrUnsupportedCipher, "unsupported cipher") \
    /* XTS data units and key wrap (mode_xts.cpp, mode_wrap.cpp). */ \
    X(kErrInvalidInputLength, "invalid input length") \
    X(kErrXtsDuplicatedKeys, "xts duplicated keys (the data and tweak keys must differ)") \
    X(kErrXtsDataUnitTooLarge, "xts data unit is too large (more than 2^20 blocks)") \
    X(kErrUnwrapFailed, "key unwrap failed (integrity check)") \
    /* CCM message-length rules (mode_ccm.cpp). */ \
    X(kErrCcmLengthNotSet, "ccm: the message length must be declared before the aad") \
    X(kErrCcmLengthMismatch, "ccm: data length differs from the declared length, or does not fit in L bytes") \
    /* GCM IV reuse and TLS 1.2 record limits (mode_gcm.cpp). */ \
    X(kErrIvAlreadyUsed, "iv already used for a finished message (set a new iv)") \
    X(kErrTooManyRecords, "too many records for one key") \
    /* An allocation failed (no exception crosses the C boundary). */ \
    X(kErrOutOfMemory, "out of memory")

enum Reason : int {
    kErrNone, // not a reason: the values start at 1
#define HWC_REASON_ENUM(name, text) name,
    HWC_REASONS(HWC_REASON_ENUM)
#undef HWC_REASON_ENUM
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
