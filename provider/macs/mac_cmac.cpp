// SPDX-License-Identifier: Apache-2.0
// CMAC (NIST SP 800-38B) as an OSSL_OP_MAC over any hwcipher CBC cipher.
//
// Parameters mirror OpenSSL's default CMAC ("cipher", "properties", "key";
// "size" and "block-size"), but the cipher is run on hwcipher's own core:
// "properties" is accepted and ignored, and a cipher that is not one of our
// CBC ciphers is refused (OpenSSL 3.0 accepts ECB or GCM names and computes
// something that is not CMAC).
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <new>

#include "provider/module/catalogue.h"
#include "provider/engines/cmac_engine.h"
#include "provider/module/errors.h"
#include "provider/macs/mac_ctx.h"
#include "provider/params/param_table.h"
#include "provider/module/provider.h"

namespace hwc {

namespace {

class CmacCtx final : public MacCtx {
public:
    explicit CmacCtx(const ProvCtx* prov) : prov_(prov) {}
    ~CmacCtx() override = default; // CmacKey and CmacState wipe themselves

    MacCtx* clone() const override { return new (std::nothrow) CmacCtx(*this); }
    int init(const uint8_t* key, size_t keylen, const OSSL_PARAM params[]) override;
    int update(const uint8_t* in, size_t inl) override;
    int final(uint8_t* out, size_t* outl, size_t outsize) override;
    int get_ctx_params(OSSL_PARAM params[]) override;
    int set_ctx_params(const OSSL_PARAM params[]) override;

private:
    CmacCtx(const CmacCtx&) = default;
    bool set_cipher(const char* name);
    bool set_key(const uint8_t* key, size_t keylen);

    const ProvCtx* prov_;
    const AlgorithmRow* row_ = nullptr; // the CBC cipher, once named
    CmacKey key_;
    CmacState state_;
};

bool CmacCtx::set_cipher(const char* name) {
    const AlgorithmRow* row = find_algorithm(name);
    if (row == nullptr) {
        HWC_RAISE(prov_, kErrUnsupportedCipher, "CMAC: hwcipher has no cipher named %s", name);
        return false;
    }
    if (row->mode != Mode::cbc) {
        HWC_RAISE(prov_, kErrUnsupportedCipher,
                  "CMAC needs a CBC-mode cipher (e.g. AES-128-CBC), %s is not one", name);
        return false;
    }
    if (row != row_) {
        // A different cipher: the old key schedule means nothing to it.
        key_.clear();
        state_.reset();
        row_ = row;
    }
    return true;
}

bool CmacCtx::set_key(const uint8_t* key, size_t keylen) {
    if (row_ == nullptr) {
        HWC_RAISE(prov_, kErrNotInitialized, "CMAC: set the cipher before the key");
        return false;
    }
    if (keylen != key_bytes(*row_)) {
        HWC_RAISE(prov_, kErrInvalidKeyLength, "CMAC with %s takes a %zu-byte key, not %zu",
                  row_->names, key_bytes(*row_), keylen);
        key_.clear();
        return false;
    }
    const BlockCore* core = prov_->cores.for_family(row_->family);
    if (!key_.set(core, key, keylen)) {
        HWC_RAISE(prov_, kErrInvalidKeyLength, "core %s refused the key",
                  core != nullptr ? core->name : "(none)");
        return false;
    }
    state_.reset();
    return true;
}

int CmacCtx::init(const uint8_t* key, size_t keylen, const OSSL_PARAM params[]) {
    if (!set_ctx_params(params)) return 0;
    if (key != nullptr) return set_key(key, keylen) ? 1 : 0;
    if (!key_.ready()) {
        HWC_RAISE(prov_, kErrNoKeySet, "CMAC: no key set");
        return 0;
    }
    state_.reset(); // restart with the previous key
    return 1;
}

int CmacCtx::update(const uint8_t* in, size_t inl) {
    if (!key_.ready()) {
        HWC_RAISE(prov_, kErrNoKeySet, "CMAC: no key set");
        return 0;
    }
    state_.update(key_, in, inl);
    return 1;
}

int CmacCtx::final(uint8_t* out, size_t* outl, size_t outsize) {
    if (!key_.ready()) {
        HWC_RAISE(prov_, kErrNoKeySet, "CMAC: no key set");
        return 0;
    }
    if (outsize < kBlockSize) {
        HWC_RAISE(prov_, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", kBlockSize, outsize);
        return 0;
    }
    state_.final(key_, out);
    *outl = kBlockSize;
    return 1;
}

int CmacCtx::get_ctx_params(OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    // Every hwcipher block cipher has 16-byte blocks, so the MAC is 16 bytes
    // whatever the cipher.
    for (const char* key : {OSSL_MAC_PARAM_SIZE, OSSL_MAC_PARAM_BLOCK_SIZE}) {
        OSSL_PARAM* p = param_locate(params, key);
        if (p != nullptr && !OSSL_PARAM_set_size_t(p, kBlockSize)) {
            HWC_RAISE(prov_, kErrInvalidParam, "%s", key);
            return 0;
        }
    }
    return 1;
}

int CmacCtx::set_ctx_params(const OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    const OSSL_PARAM* p;
    // "properties" selects how OpenSSL would fetch the cipher; hwcipher runs
    // its own core, so only the type is checked.
    if ((p = param_locate(params, OSSL_MAC_PARAM_PROPERTIES)) != nullptr &&
        p->data_type != OSSL_PARAM_UTF8_STRING) {
        HWC_RAISE(prov_, kErrInvalidParam, "properties must be a UTF-8 string");
        return 0;
    }
    // The cipher before the key, whatever their order in the array.
    if ((p = param_locate(params, OSSL_MAC_PARAM_CIPHER)) != nullptr) {
        const char* name = nullptr;
        if (!OSSL_PARAM_get_utf8_string_ptr(p, &name) || name == nullptr) {
            HWC_RAISE(prov_, kErrInvalidParam, "cipher must be a UTF-8 string");
            return 0;
        }
        if (!set_cipher(name)) return 0;
    }
    if ((p = param_locate(params, OSSL_MAC_PARAM_KEY)) != nullptr) {
        const void* key = nullptr;
        size_t keylen = 0;
        if (!OSSL_PARAM_get_octet_string_ptr(p, &key, &keylen)) {
            HWC_RAISE(prov_, kErrInvalidParam, "key must be an octet string");
            return 0;
        }
        if (!set_key(static_cast<const uint8_t*>(key), keylen)) return 0;
    }
    return 1;
}

const OSSL_PARAM* cmac_gettable_ctx_params() {
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_size_t(OSSL_MAC_PARAM_SIZE, nullptr),
        OSSL_PARAM_size_t(OSSL_MAC_PARAM_BLOCK_SIZE, nullptr),
        OSSL_PARAM_END,
    };
    return list;
}

const OSSL_PARAM* cmac_settable_ctx_params() {
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_CIPHER, nullptr, 0),
        OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_PROPERTIES, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_MAC_PARAM_KEY, nullptr, 0),
        OSSL_PARAM_END,
    };
    return list;
}

} // namespace

const MacOps kCmacOps = {
    "CMAC",
    [](const ProvCtx* prov) -> MacCtx* { return new (std::nothrow) CmacCtx(prov); },
    nullptr,
    nullptr,
    &cmac_gettable_ctx_params,
    &cmac_settable_ctx_params,
};

} // namespace hwc
