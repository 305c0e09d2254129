// SPDX-License-Identifier: Apache-2.0
// The parameters and key rules the cipher MACs share (cipher_mac.h).
#include "provider/macs/cipher_mac.h"

#include <openssl/params.h>

#include "provider/module/errors.h"
#include "provider/module/provider.h"

namespace hwc {

int CipherMacCtx::init(const uint8_t* key, size_t keylen, const OSSL_PARAM params[]) {
    if (!set_ctx_params(params)) return 0;
    if (key != nullptr) return install_key(key, keylen) ? 1 : 0;
    if (!need_key()) return 0;
    restart(); // with the previous key
    return 1;
}

void CipherMacCtx::no_key_set() const {
    HWC_RAISE(prov_, kErrNoKeySet, "%s: no key set", mac_);
}

bool CipherMacCtx::install_key(const uint8_t* key, size_t keylen) {
    if (row_ == nullptr)
        return HWC_FAIL(prov_, kErrNotInitialized, "%s: set the cipher before the key", mac_);
    if (keylen != key_bytes(*row_)) {
        forget_key();
        return HWC_FAIL(prov_, kErrInvalidKeyLength, "%s with %s takes a %zu-byte key, not %zu",
                        mac_, row_->names, key_bytes(*row_), keylen);
    }
    const BlockCore* core = prov_->cores.for_family(row_->family);
    if (core == nullptr || !schedule(*core, key, keylen))
        return HWC_FAIL(prov_, kErrInvalidKeyLength, "core %s refused the key",
                        core != nullptr ? core->name : "(none)");
    restart();
    return true;
}

bool CipherMacCtx::set_properties(const OSSL_PARAM& p) {
    return p.data_type == OSSL_PARAM_UTF8_STRING ||
           HWC_FAIL(prov_, kErrInvalidParam, "properties must be a UTF-8 string");
}

bool CipherMacCtx::set_cipher(const OSSL_PARAM& p) {
    const char* name = nullptr;
    if (!OSSL_PARAM_get_utf8_string_ptr(&p, &name) || name == nullptr)
        return HWC_FAIL(prov_, kErrInvalidParam, "cipher must be a UTF-8 string");
    const AlgorithmRow* row = find_algorithm(name);
    if (row == nullptr)
        return HWC_FAIL(prov_, kErrUnsupportedCipher, "%s: hwcipher has no cipher named %s", mac_,
                        name);
    if (row->mode != mode_)
        return HWC_FAIL(prov_, kErrUnsupportedCipher,
                        "%s needs a %s-mode cipher (e.g. AES-128-%s), %s is not one", mac_,
                        mode_name_, mode_name_, name);
    if (row != row_) {
        forget_key(); // the old key schedule means nothing to another cipher
        row_ = row;
    }
    return true;
}

bool CipherMacCtx::set_key(const OSSL_PARAM& p) {
    const void* key = nullptr;
    size_t keylen = 0;
    if (!OSSL_PARAM_get_octet_string_ptr(&p, &key, &keylen))
        return HWC_FAIL(prov_, kErrInvalidParam, "key must be an octet string");
    return install_key(static_cast<const uint8_t*>(key), keylen);
}

} // namespace hwc
