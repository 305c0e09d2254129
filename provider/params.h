// SPDX-License-Identifier: Apache-2.0
// Finding a parameter by name in an OSSL_PARAM array, the way
// OSSL_PARAM_locate does (the first entry whose key is equal), but inline,
// with an inline comparison: parameter names are short and most differ
// from the one sought in their first few characters.
//
// Why: get_ctx_params/set_ctx_params look up every key they know, and EVP
// calls them several times per AEAD message (the IV length at each nonce,
// the tag, the tag length), usually with a one-entry array. Through
// OSSL_PARAM_locate that was about 100 instructions per key -- some 900 of a
// 64-byte GCM message's 2,800 -- for what is mostly a one-byte comparison.
#pragma once

#include <openssl/core.h>

namespace hwc {

// OSSL_CIPHER_PARAM_AEAD_IV_GENERATED of OpenSSL 3.4+ headers, spelled out so
// that every supported release builds the same parameter lists (the default
// provider of 3.5 lists it for GCM and CCM).
constexpr const char* kParamIvGenerated = "iv-generated";
// OSSL_CIPHER_PARAM_ENCRYPT_THEN_MAC of OpenSSL 3.6+ (an algorithm flag the
// default provider lists for every cipher; 0 for all of hwcipher's).
constexpr const char* kParamEncryptThenMac = "encrypt-then-mac";

inline bool param_key_is(const char* a, const char* b) {
    while (*a != '\0' && *a == *b) {
        ++a;
        ++b;
    }
    return *a == *b;
}

inline OSSL_PARAM* param_locate(OSSL_PARAM* params, const char* key) {
    if (params == nullptr) return nullptr;
    for (OSSL_PARAM* p = params; p->key != nullptr; ++p)
        if (param_key_is(p->key, key)) return p;
    return nullptr;
}

inline const OSSL_PARAM* param_locate(const OSSL_PARAM* params, const char* key) {
    return param_locate(const_cast<OSSL_PARAM*>(params), key);
}

} // namespace hwc
