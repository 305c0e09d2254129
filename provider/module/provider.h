// SPDX-License-Identifier: Apache-2.0
// The provider context: what one loaded instance of hwcipher knows (the core
// handle for upcalls, the detected CPU, the chosen cores, the algorithm table),
// and the libcrypto core functions hwcipher calls back into.
#pragma once

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/crypto.h>

#include <atomic>
#include <string>
#include <vector>

#include "cores/registry.h"

namespace hwc {

// Taken from the `in` dispatch table at init; identical for every instance.
struct Upcalls {
    OSSL_FUNC_core_new_error_fn* new_error = nullptr;
    OSSL_FUNC_core_set_error_debug_fn* set_error_debug = nullptr;
    OSSL_FUNC_core_vset_error_fn* vset_error = nullptr;
    OSSL_FUNC_core_get_params_fn* get_params = nullptr;
};

Upcalls& upcalls();

struct ProvCtx {
    const OSSL_CORE_HANDLE* handle = nullptr;
    OSSL_LIB_CTX* libctx = nullptr;          // child of the loading library context (RAND)
    uint32_t cpu_features = 0;
    CoreSelection cores{};
    std::string core_report;                 // "aes=aes-portable,sm4=...,twofish=..."
    std::string cpu_report;                  // "x86-aesni,x86-pclmul,..." (features seen)
    std::string buildinfo;                   // version, commit, OpenSSL headers, cores
    // Settings that could not be used ("hwcipher-config-errors"): a bad
    // HWCIPHER_CORES / `cores =` (the automatic selection is kept), an
    // unwritable HWCIPHER_TRACE. Empty when there is none.
    std::string config_errors;
    std::vector<std::string> properties;     // per catalogue row, kept alive for `ciphers`
    std::vector<std::string> descriptions;   // per catalogue row
    std::vector<OSSL_ALGORITHM> ciphers;     // nullptr-terminated OSSL_OP_CIPHER table
    std::vector<OSSL_ALGORITHM> macs;        // nullptr-terminated OSSL_OP_MAC table
    // Cipher contexts created so far ("hwcipher-contexts"): a debugging aid
    // that lets tests see which provider served e.g. libssl's records.
    mutable std::atomic<uint64_t> contexts_created{0};
    // "strict-iv" (HWCIPHER_STRICT_IV, or the provider's config section):
    // the classic modes refuse to run without an IV instead of using the
    // default provider's zero IV.
    bool strict_iv = false;
    // HWCIPHER_TRACE's file (provider/trace.h), opened at init and only
    // written afterwards; -1 = off. Inherited by fork(), closed on exec.
    int trace_fd = -1;
};

} // namespace hwc
