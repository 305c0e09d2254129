// SPDX-License-Identifier: Apache-2.0
// The EVP-facing state machine shared by SIV and GCM-SIV (see siv_base.h).
#include "provider/modes/siv_base.h"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstring>

#include "provider/module/errors.h"
#include "provider/params/param_table.h"
#include "provider/module/provider.h"

namespace hwc {

bool tags_equal(const uint8_t a[16], const uint8_t b[16]) {
    uint8_t d = 0;
    for (size_t i = 0; i < 16; ++i) d = static_cast<uint8_t>(d | (a[i] ^ b[i]));
    // Fold to one bit without a data-dependent branch before the very end.
    return ((static_cast<unsigned>(d) - 1) >> 8) & 1;
}

SivBaseCtx::SivBaseCtx(const ProvCtx* prov, const AlgorithmRow& row)
    : prov_(prov), row_(&row), core_(prov->cores.for_family(row.family)) {}

SivBaseCtx::~SivBaseCtx() { wipe(tag_, sizeof tag_); }

int SivBaseCtx::init(bool encrypt, const uint8_t* key, size_t keylen, const uint8_t* iv,
                     size_t ivlen, const OSSL_PARAM params[]) {
    encrypt_ = encrypt;
    // A new message starts. An expected tag set before this init (e.g. before
    // the key) still applies; one already checked against a message does not.
    if (data_done_) {
        expected_ = false;
        wipe(tag_, sizeof tag_);
    }
    data_done_ = tag_ready_ = failed_ = false;
    start_message();

    if (key != nullptr) {
        if (keylen != key_bytes(*row_)) {
            HWC_RAISE(prov_, kErrInvalidKeyLength, "key length %zu, expected %zu", keylen,
                      key_bytes(*row_));
            return 0;
        }
        key_set_ = false;
        if (!set_key(key, keylen)) {
            HWC_RAISE(prov_, kErrInvalidKeyLength, "core %s refused the key", core_->name);
            return 0;
        }
        key_set_ = true;
    }
    // SIV has no IV (ivlen 0): EVP may still hand one over; it is ignored.
    if (iv != nullptr && nonce_len() != 0) {
        if (ivlen != nonce_len()) {
            HWC_RAISE(prov_, kErrInvalidIvLength, "nonce length %zu, must be %zu", ivlen,
                      nonce_len());
            return 0;
        }
        set_nonce(iv);
        nonce_set_ = true;
    }
    return set_ctx_params(params);
}

bool SivBaseCtx::ready() {
    if (!key_set_) {
        HWC_RAISE(prov_, kErrNoKeySet);
        return false;
    }
    if (nonce_len() != 0 && !nonce_set_) {
        HWC_RAISE(prov_, kErrNoIvSet, "set the %zu-byte nonce before use", nonce_len());
        return false;
    }
    return true;
}

bool SivBaseCtx::data_step(const uint8_t* in, uint8_t* out, size_t len) {
    if (encrypt_) {
        if (!seal(in, out, len, tag_)) return false;
        tag_ready_ = true;
        failed_ = false;
    } else {
        if (!expected_) {
            HWC_RAISE(prov_, kErrTagNotSet);
            return false;
        }
        if (!open(in, out, len, tag_)) {
            if (len != 0) wipe(out, len); // never release unauthenticated plaintext
            failed_ = true;
            data_done_ = true;
            HWC_RAISE(prov_, kErrTagMismatch);
            return false;
        }
        failed_ = false;
    }
    data_done_ = true;
    return true;
}

int SivBaseCtx::update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
                       size_t inl) {
    *outl = 0;
    if (!ready()) return 0;
    if (out == nullptr) {
        // Associated data: one S2V component (SIV) or more AAD bytes (GCM-SIV).
        if (data_done_) {
            HWC_RAISE(prov_, kErrAadAfterData);
            return 0;
        }
        if (inl != 0 && in == nullptr) {
            HWC_RAISE(prov_, kErrInvalidParam, "no AAD buffer");
            return 0;
        }
        if (!add_aad(in, inl)) return 0;
        *outl = inl;
        return 1;
    }
    if (data_done_ && !speed_) {
        HWC_RAISE(prov_, kErrOneShotData);
        return 0;
    }
    if (outsize < inl) {
        HWC_RAISE(prov_, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", inl, outsize);
        return 0;
    }
    if (inl != 0 && in == nullptr) {
        HWC_RAISE(prov_, kErrInvalidParam, "no input buffer");
        return 0;
    }
    // An empty update is a real (empty) message, unlike OpenSSL 3.0's SIV,
    // which ignores it and then fails final.
    if (!data_step(in, out, inl)) return 0;
    *outl = inl;
    return 1;
}

int SivBaseCtx::final(uint8_t*, size_t* outl, size_t) {
    *outl = 0;
    if (!ready()) return 0;
    // No data update at all: the message is empty (tag over the AAD alone).
    if (!data_done_ && !data_step(nullptr, nullptr, 0)) return 0;
    if (failed_) {
        HWC_RAISE(prov_, kErrTagMismatch);
        return 0;
    }
    return 1;
}

int SivBaseCtx::cipher(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl) {
    if (in == nullptr) return final(out, outl, outsize);
    return update(out, outl, outsize, in, inl);
}

int SivBaseCtx::get_ctx_params(OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    OSSL_PARAM* p;
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, key_bytes(*row_))) {
        HWC_RAISE(prov_, kErrInvalidParam, "keylen");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, nonce_len())) {
        HWC_RAISE(prov_, kErrInvalidParam, "ivlen");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, kTagLen)) {
        HWC_RAISE(prov_, kErrInvalidParam, "taglen");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TAG)) != nullptr) {
        if (!encrypt_) {
            HWC_RAISE(prov_, kErrInvalidParam, "the tag is an output of encryption only");
            return 0;
        }
        if (!tag_ready_) {
            HWC_RAISE(prov_, kErrNotInitialized, "no tag yet: encrypt the message first");
            return 0;
        }
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data_size != kTagLen ||
            !OSSL_PARAM_set_octet_string(p, tag_, kTagLen)) {
            HWC_RAISE(prov_, kErrInvalidTagLength, "the tag is exactly %zu bytes", kTagLen);
            return 0;
        }
    }
    return 1;
}

int SivBaseCtx::set_ctx_params(const OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    const OSSL_PARAM* p;
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != nullptr) {
        size_t keylen;
        if (!OSSL_PARAM_get_size_t(p, &keylen) || keylen != key_bytes(*row_)) {
            HWC_RAISE(prov_, kErrInvalidKeyLength, "key length is fixed at %zu", key_bytes(*row_));
            return 0;
        }
    }
    // The nonce length is fixed (0 for SIV, 12 for GCM-SIV). It is not in the
    // settable list, but EVP_CTRL_AEAD_SET_IVLEN arrives as "ivlen" all the
    // same: refuse a value we cannot honour instead of ignoring it.
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != nullptr) {
        size_t ivlen;
        if (!OSSL_PARAM_get_size_t(p, &ivlen) || ivlen != nonce_len()) {
            HWC_RAISE(prov_, kErrInvalidIvLength, "the nonce length is fixed at %zu", nonce_len());
            return 0;
        }
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_SPEED)) != nullptr) {
        unsigned int speed;
        if (!OSSL_PARAM_get_uint(p, &speed)) {
            HWC_RAISE(prov_, kErrInvalidParam, "speed");
            return 0;
        }
        speed_ = speed != 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TAG)) != nullptr) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data_size != kTagLen || p->data == nullptr) {
            HWC_RAISE(prov_, kErrInvalidTagLength, "the tag is exactly %zu bytes", kTagLen);
            return 0;
        }
        if (encrypt_) {
            HWC_RAISE(prov_, kErrTagNotNeeded);
            return 0;
        }
        std::memcpy(tag_, p->data, kTagLen);
        expected_ = true;
    }
    return 1;
}

const OSSL_PARAM* SivBaseCtx::siv_gettable_params() {
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
        OSSL_PARAM_END,
    };
    return list;
}

const OSSL_PARAM* SivBaseCtx::gcm_siv_gettable_params() {
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
        OSSL_PARAM_END,
    };
    return list;
}

const OSSL_PARAM* SivBaseCtx::settable_params() {
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_SPEED, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
        OSSL_PARAM_END,
    };
    return list;
}

} // namespace hwc
