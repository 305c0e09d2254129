// SPDX-License-Identifier: Apache-2.0
// The shared cipher parameter rows (cipher_params.h).
#include "provider/params/cipher_params.h"

#include <openssl/params.h>

#include <cstring>

#include "provider/modes/aead_ctx.h"
#include "provider/module/errors.h"

namespace hwc::cipher_rows {

namespace {

// An IV-like answer as an octet string (a copy) or an octet pointer (legacy
// EVP_CIPHER_CTX_iv()), whichever the caller asked for.
bool set_octets(OSSL_PARAM& p, const uint8_t* data, size_t len) {
    if (p.data_type == OSSL_PARAM_OCTET_PTR) return OSSL_PARAM_set_octet_ptr(&p, data, len) == 1;
    return OSSL_PARAM_set_octet_string(&p, data, len) == 1;
}

// A size_t parameter (what EVP asks with, per AEAD message: "ivlen",
// "taglen") is stored here, as OSSL_PARAM_set_size_t would store it; other
// shapes go through it.
[[gnu::noinline]] bool size_answer_general(KeyedCtx& c, OSSL_PARAM& p, size_t value,
                                           const char* what) {
    return OSSL_PARAM_set_size_t(&p, value) || HWC_FAIL(c.prov(), kErrInvalidParam, "%s", what);
}

inline bool size_answer(KeyedCtx& c, OSSL_PARAM& p, size_t value, const char* what) {
    if (p.data_type == OSSL_PARAM_UNSIGNED_INTEGER && p.data_size == sizeof value &&
        p.data != nullptr) {
        std::memcpy(p.data, &value, sizeof value);
        p.return_size = sizeof value;
        return true;
    }
    return size_answer_general(c, p, value, what);
}

bool uint_answer(KeyedCtx& c, OSSL_PARAM& p, unsigned value, const char* what) {
    return OSSL_PARAM_set_uint(&p, value) || HWC_FAIL(c.prov(), kErrInvalidParam, "%s", what);
}

bool iv_answer(KeyedCtx& c, OSSL_PARAM& p, bool updated) {
    return set_octets(p, c.iv_param(updated), c.iv_length()) ||
           HWC_FAIL(c.prov(), kErrInvalidParam, "%s", p.key);
}

bool nonce_answer(KeyedCtx& c, OSSL_PARAM& p, bool updated) {
    const uint8_t* nonce = c.iv_param(updated);
    if (nonce == nullptr) return HWC_FAIL(c.prov(), kErrNoIvSet);
    return set_octets(p, nonce, c.iv_length()) ||
           HWC_FAIL(c.prov(), kErrInvalidIvLength, "%s: need %zu bytes", p.key, c.iv_length());
}

} // namespace

bool get_keylen(KeyedCtx& c, OSSL_PARAM& p) { return size_answer(c, p, c.key_len(), "keylen"); }
bool get_ivlen(KeyedCtx& c, OSSL_PARAM& p) { return size_answer(c, p, c.iv_length(), "ivlen"); }
bool get_padding(KeyedCtx& c, OSSL_PARAM& p) { return uint_answer(c, p, c.padding(), "padding"); }
bool get_num(KeyedCtx& c, OSSL_PARAM& p) { return uint_answer(c, p, c.num(), "num"); }
bool get_iv(KeyedCtx& c, OSSL_PARAM& p) { return iv_answer(c, p, false); }
bool get_updated_iv(KeyedCtx& c, OSSL_PARAM& p) { return iv_answer(c, p, true); }
bool get_nonce(KeyedCtx& c, OSSL_PARAM& p) { return nonce_answer(c, p, false); }
bool get_updated_nonce(KeyedCtx& c, OSSL_PARAM& p) { return nonce_answer(c, p, true); }

// libssl asks for a pointer to the MAC of the record just decrypted; like
// the default provider, answer with a null pointer before there is one.
bool get_tls_mac(KeyedCtx& c, OSSL_PARAM& p) {
    const uint8_t* mac = c.tls_mac();
    const bool ok = mac != nullptr ? set_octets(p, mac, c.tls_mac_size())
                                   : OSSL_PARAM_set_octet_ptr(&p, nullptr, c.tls_mac_size()) == 1;
    return ok || HWC_FAIL(c.prov(), kErrInvalidParam, "tls-mac");
}

bool get_taglen(KeyedCtx& c, OSSL_PARAM& p) {
    return size_answer(c, p, static_cast<AeadCtx&>(c).tag_length(), "taglen");
}

bool get_tls_aad_pad(KeyedCtx& c, OSSL_PARAM& p) {
    return size_answer(c, p, static_cast<TlsAeadCtx&>(c).tls_aad_pad(), "tlsaadpad");
}

bool check_keylen(KeyedCtx& c, const OSSL_PARAM& p) {
    size_t keylen;
    return (OSSL_PARAM_get_size_t(&p, &keylen) && keylen == c.key_len()) ||
           HWC_FAIL(c.prov(), kErrInvalidKeyLength, "key length is fixed at %zu", c.key_len());
}

} // namespace hwc::cipher_rows
