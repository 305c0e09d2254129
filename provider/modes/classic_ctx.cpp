// SPDX-License-Identifier: Apache-2.0
// The classic modes' shared state: init/re-init rules, key hygiene, and the
// parameters common to ECB/CBC/CTS/CFB/OFB/CTR (mirroring OpenSSL's default
// provider).
#include "provider/modes/classic_ctx.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include <cstring>

#include "provider/module/errors.h"
#include "provider/params/param_table.h"
#include "provider/module/provider.h"
#include "provider/modes/tls_cbc.h"

namespace hwc {

ClassicCtx::ClassicCtx(const ProvCtx* prov, const AlgorithmRow& row)
    : prov_(prov), row_(&row), core_(prov->cores.for_family(row.family)) {
    std::memset(&ks_, 0, sizeof ks_);
}

ClassicCtx::~ClassicCtx() {
    wipe(&ks_, sizeof ks_);
    wipe(oiv_, sizeof oiv_);
    wipe(iv_, sizeof iv_);
}

namespace {

// Modes whose running IV returns to the original IV on a re-init without a
// new IV (what OpenSSL 3 does for CBC, CFB and OFB; CTR keeps its counter).
bool resets_iv_on_reinit(Mode m) {
    return m == Mode::cbc || m == Mode::cbc_cts || m == Mode::cfb || m == Mode::cfb1 ||
           m == Mode::cfb8 || m == Mode::ofb;
}

} // namespace

int ClassicCtx::init(bool encrypt, const uint8_t* key, size_t keylen, const uint8_t* iv,
                    size_t ivlen, const OSSL_PARAM params[]) {
    encrypt_ = encrypt;
    num_ = 0;
    reset_stream();

    if (iv != nullptr && row_->mode != Mode::ecb) {
        if (ivlen != kBlockSize) {
            HWC_RAISE(prov_, kErrInvalidIvLength, "iv length %zu, expected %zu", ivlen, kBlockSize);
            return 0;
        }
        std::memcpy(oiv_, iv, kBlockSize);
        std::memcpy(iv_, iv, kBlockSize);
        iv_set_ = true;
    } else if (iv == nullptr && iv_set_ && resets_iv_on_reinit(row_->mode)) {
        std::memcpy(iv_, oiv_, kBlockSize);
    }

    if (key != nullptr) {
        if (keylen != key_len()) {
            HWC_RAISE(prov_, kErrInvalidKeyLength, "key length %zu, expected %zu", keylen,
                      key_len());
            return 0;
        }
        wipe(&ks_, sizeof ks_);
        key_set_ = false;
        if (!core_->set_key(ks_, key, keylen)) {
            HWC_RAISE(prov_, kErrInvalidKeyLength, "core %s refused the key", core_->name);
            return 0;
        }
        key_set_ = true;
    }
    return set_ctx_params(params);
}

bool ClassicCtx::ready() const {
    if (!key_set_) {
        HWC_RAISE(prov_, kErrNoKeySet);
        return false;
    }
    if (iv_len() != 0 && !iv_set_) {
        HWC_RAISE(prov_, kErrNoIvSet);
        return false;
    }
    return true;
}

int ClassicCtx::get_ctx_params(OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    OSSL_PARAM* p;
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, key_len())) {
        HWC_RAISE(prov_, kErrInvalidParam, "keylen");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, iv_len())) {
        HWC_RAISE(prov_, kErrInvalidParam, "ivlen");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_PADDING)) != nullptr &&
        !OSSL_PARAM_set_uint(p, padding_ ? 1 : 0)) {
        HWC_RAISE(prov_, kErrInvalidParam, "padding");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_NUM)) != nullptr &&
        !OSSL_PARAM_set_uint(p, num_)) {
        HWC_RAISE(prov_, kErrInvalidParam, "num");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_IV)) != nullptr &&
        !set_octets(p, oiv_, iv_len())) {
        HWC_RAISE(prov_, kErrInvalidParam, "iv");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_UPDATED_IV)) != nullptr &&
        !set_octets(p, iv_, iv_len())) {
        HWC_RAISE(prov_, kErrInvalidParam, "updated-iv");
        return 0;
    }
    // libssl asks for a pointer to the MAC of the record just decrypted; like
    // the default provider, answer with a null pointer before there is one.
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_TLS_MAC)) != nullptr) {
        const uint8_t* mac = tls_mac();
        const bool ok = mac != nullptr ? set_octets(p, mac, tls_mac_size_)
                                       : OSSL_PARAM_set_octet_ptr(p, nullptr, tls_mac_size_) == 1;
        if (!ok) {
            HWC_RAISE(prov_, kErrInvalidParam, "tls-mac");
            return 0;
        }
    }
    return 1;
}

int ClassicCtx::set_ctx_params(const OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    const OSSL_PARAM* p;
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_PADDING)) != nullptr) {
        unsigned int pad;
        if (!OSSL_PARAM_get_uint(p, &pad)) {
            HWC_RAISE(prov_, kErrInvalidParam, "padding");
            return 0;
        }
        padding_ = pad != 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_NUM)) != nullptr) {
        unsigned int num;
        if (!OSSL_PARAM_get_uint(p, &num) || num >= kBlockSize) {
            HWC_RAISE(prov_, kErrInvalidNum, "num must be below %zu", kBlockSize);
            return 0;
        }
        num_ = num;
    }
    // The key length is fixed per algorithm: accept a restatement of it (some
    // applications set it before init) and refuse anything else rather than
    // silently ignoring it.
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != nullptr) {
        size_t keylen;
        if (!OSSL_PARAM_get_size_t(p, &keylen) || keylen != key_len()) {
            HWC_RAISE(prov_, kErrInvalidKeyLength, "key length is fixed at %zu", key_len());
            return 0;
        }
    }
    // TLS record parameters: every classic mode accepts them, as the default
    // provider's do (libssl sets them on every record cipher and fails the
    // handshake otherwise); only CBC acts on them. libssl passes the version
    // as an int, which OSSL_PARAM_get_uint converts.
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_TLS_VERSION)) != nullptr) {
        unsigned int version;
        if (!OSSL_PARAM_get_uint(p, &version)) {
            HWC_RAISE(prov_, kErrInvalidParam, "tls-version");
            return 0;
        }
        tls_version_ = version;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_TLS_MAC_SIZE)) != nullptr) {
        size_t size;
        // No TLS MAC is longer than the largest digest (64 bytes).
        if (!OSSL_PARAM_get_size_t(p, &size) || size > kMaxTlsMacSize) {
            HWC_RAISE(prov_, kErrInvalidParam, "tls-mac-size must be at most %zu", kMaxTlsMacSize);
            return 0;
        }
        tls_mac_size_ = size;
    }
    return 1;
}

// --- parameter lists -----------------------------------------------------------

const OSSL_PARAM* ClassicCtx::gettable_params() {
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, nullptr, 0),
        OSSL_PARAM_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, nullptr, 0),
        OSSL_PARAM_END,
    };
    return list;
}

const OSSL_PARAM* ClassicCtx::settable_params() {
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_USE_BITS, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_TLS_VERSION, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, nullptr),
        OSSL_PARAM_END,
    };
    return list;
}

const OSSL_PARAM* ClassicCtx::cts_gettable_params() {
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, nullptr, 0),
        OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_CTS_MODE, nullptr, 0),
        OSSL_PARAM_END,
    };
    return list;
}

const OSSL_PARAM* ClassicCtx::cts_settable_params() {
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, nullptr),
        OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_CTS_MODE, nullptr, 0),
        OSSL_PARAM_END,
    };
    return list;
}

} // namespace hwc
