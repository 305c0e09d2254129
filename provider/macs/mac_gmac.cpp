// SPDX-License-Identifier: Apache-2.0
// GMAC (NIST SP 800-38D: GCM with the message as AAD and no data) as an
// OSSL_OP_MAC over any hwcipher GCM cipher.
//
// Parameters mirror OpenSSL's default GMAC ("cipher", "properties", "key",
// "iv"; "size" = 16), but the cipher runs on hwcipher's own cores, so
// "properties" is accepted and ignored and names that are not one of our GCM
// ciphers are refused. Unlike OpenSSL 3.0, which invents a random IV when
// none is given (and so returns a tag nobody can verify), a missing IV is an
// error, and each IV serves one tag: after final a new IV must be set.
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstring>
#include <new>

#include "provider/module/catalogue.h"
#include "provider/modes/cipher_ctx.h"
#include "provider/module/errors.h"
#include "provider/engines/gcm_engine.h"
#include "provider/macs/mac_ctx.h"
#include "provider/params/param_table.h"
#include "provider/module/provider.h"

namespace hwc {

namespace {

constexpr size_t kGmacSize = 16;
constexpr size_t kMaxIvLen = 1024; // as GCM in mode_gcm.cpp

class GmacCtx final : public MacCtx {
public:
    explicit GmacCtx(const ProvCtx* prov) : prov_(prov) {}
    ~GmacCtx() override { wipe(iv_, sizeof iv_); }

    MacCtx* clone() const override { return new (std::nothrow) GmacCtx(*this); }
    int init(const uint8_t* key, size_t keylen, const OSSL_PARAM params[]) override;
    int update(const uint8_t* in, size_t inl) override;
    int final(uint8_t* out, size_t* outl, size_t outsize) override;
    int get_ctx_params(OSSL_PARAM params[]) override;
    int set_ctx_params(const OSSL_PARAM params[]) override;

private:
    GmacCtx(const GmacCtx&) = default;
    bool set_cipher(const char* name);
    bool set_key(const uint8_t* key, size_t keylen);
    bool set_iv(const uint8_t* iv, size_t ivlen);
    bool begin();

    const ProvCtx* prov_;
    const AlgorithmRow* row_ = nullptr; // the GCM cipher, once named
    GcmEngine eng_;
    uint8_t iv_[kMaxIvLen] = {};
    size_t ivlen_ = 0;
    bool iv_set_ = false;  // an IV not yet used by a final
    bool started_ = false; // the engine runs a message under iv_
};

bool GmacCtx::set_cipher(const char* name) {
    const AlgorithmRow* row = find_algorithm(name);
    if (row == nullptr) {
        HWC_RAISE(prov_, kErrUnsupportedCipher, "GMAC: hwcipher has no cipher named %s", name);
        return false;
    }
    if (row->mode != Mode::gcm) {
        HWC_RAISE(prov_, kErrUnsupportedCipher,
                  "GMAC needs a GCM-mode cipher (e.g. AES-128-GCM), %s is not one", name);
        return false;
    }
    if (row != row_) {
        eng_.clear(); // the old key schedule means nothing to another cipher
        started_ = false;
        row_ = row;
    }
    return true;
}

bool GmacCtx::set_key(const uint8_t* key, size_t keylen) {
    if (row_ == nullptr) {
        HWC_RAISE(prov_, kErrNotInitialized, "GMAC: set the cipher before the key");
        return false;
    }
    started_ = false;
    if (keylen != key_bytes(*row_)) {
        eng_.clear();
        HWC_RAISE(prov_, kErrInvalidKeyLength, "GMAC with %s takes a %zu-byte key, not %zu",
                  row_->names, key_bytes(*row_), keylen);
        return false;
    }
    const BlockCore* core = prov_->cores.for_family(row_->family);
    if (!eng_.set_key(*core, *prov_->cores.ghash, key, keylen)) {
        HWC_RAISE(prov_, kErrInvalidKeyLength, "core %s refused the key", core->name);
        return false;
    }
    return true;
}

bool GmacCtx::set_iv(const uint8_t* iv, size_t ivlen) {
    if (ivlen == 0 || ivlen > kMaxIvLen) {
        HWC_RAISE(prov_, kErrInvalidIvLength, "GMAC iv length %zu, allowed 1..%zu", ivlen,
                  kMaxIvLen);
        return false;
    }
    std::memcpy(iv_, iv, ivlen);
    ivlen_ = ivlen;
    iv_set_ = true;
    started_ = false;
    return true;
}

// Starts the message on first use, once cipher, key and IV are all there.
bool GmacCtx::begin() {
    if (started_) return true;
    if (!eng_.has_key()) {
        HWC_RAISE(prov_, kErrNoKeySet, "GMAC: no key set");
        return false;
    }
    if (!iv_set_) {
        HWC_RAISE(prov_, kErrNoIvSet, "GMAC needs an iv for every tag (param \"iv\")");
        return false;
    }
    eng_.start(iv_, ivlen_);
    started_ = true;
    return true;
}

int GmacCtx::init(const uint8_t* key, size_t keylen, const OSSL_PARAM params[]) {
    if (!set_ctx_params(params)) return 0;
    if (key != nullptr) return set_key(key, keylen) ? 1 : 0;
    if (!eng_.has_key()) {
        HWC_RAISE(prov_, kErrNoKeySet, "GMAC: no key set");
        return 0;
    }
    started_ = false; // restart; the IV must still be unused (or newly set)
    return 1;
}

int GmacCtx::update(const uint8_t* in, size_t inl) {
    if (inl == 0) return 1;
    if (!begin()) return 0;
    if (!eng_.aad(in, inl)) {
        HWC_RAISE(prov_, kErrInvalidInputLength, "GMAC message too long");
        return 0;
    }
    return 1;
}

int GmacCtx::final(uint8_t* out, size_t* outl, size_t outsize) {
    if (!begin()) return 0;
    if (outsize < kGmacSize) {
        HWC_RAISE(prov_, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", kGmacSize, outsize);
        return 0;
    }
    eng_.finish(out);
    *outl = kGmacSize;
    started_ = false;
    iv_set_ = false; // one tag per IV
    return 1;
}

int GmacCtx::get_ctx_params(OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    OSSL_PARAM* p = param_locate(params, OSSL_MAC_PARAM_SIZE);
    if (p != nullptr && !OSSL_PARAM_set_size_t(p, kGmacSize)) {
        HWC_RAISE(prov_, kErrInvalidParam, "size");
        return 0;
    }
    return 1;
}

int GmacCtx::set_ctx_params(const OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    const OSSL_PARAM* p;
    if ((p = param_locate(params, OSSL_MAC_PARAM_PROPERTIES)) != nullptr &&
        p->data_type != OSSL_PARAM_UTF8_STRING) {
        HWC_RAISE(prov_, kErrInvalidParam, "properties must be a UTF-8 string");
        return 0;
    }
    // Cipher, then key, then IV, whatever their order in the array.
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
    if ((p = param_locate(params, OSSL_MAC_PARAM_IV)) != nullptr) {
        const void* iv = nullptr;
        size_t ivlen = 0;
        if (!OSSL_PARAM_get_octet_string_ptr(p, &iv, &ivlen) || iv == nullptr) {
            HWC_RAISE(prov_, kErrInvalidParam, "iv must be an octet string");
            return 0;
        }
        if (!set_iv(static_cast<const uint8_t*>(iv), ivlen)) return 0;
    }
    return 1;
}

int gmac_get_params(OSSL_PARAM params[]) {
    OSSL_PARAM* p = param_locate(params, OSSL_MAC_PARAM_SIZE);
    return p == nullptr || OSSL_PARAM_set_size_t(p, kGmacSize) ? 1 : 0;
}

const OSSL_PARAM* gmac_gettable_params() {
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_size_t(OSSL_MAC_PARAM_SIZE, nullptr),
        OSSL_PARAM_END,
    };
    return list;
}

// The default GMAC lists no context parameters to get (get_ctx_params still
// answers "size").
const OSSL_PARAM* gmac_gettable_ctx_params() {
    static const OSSL_PARAM list[] = {OSSL_PARAM_END};
    return list;
}

const OSSL_PARAM* gmac_settable_ctx_params() {
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_CIPHER, nullptr, 0),
        OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_PROPERTIES, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_MAC_PARAM_KEY, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_MAC_PARAM_IV, nullptr, 0),
        OSSL_PARAM_END,
    };
    return list;
}

} // namespace

const MacOps kGmacOps = {
    "GMAC:1.0.9797.3.4",
    [](const ProvCtx* prov) -> MacCtx* { return new (std::nothrow) GmacCtx(prov); },
    &gmac_get_params,
    &gmac_gettable_params,
    &gmac_gettable_ctx_params,
    &gmac_settable_ctx_params,
};

} // namespace hwc
