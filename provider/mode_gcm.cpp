// SPDX-License-Identifier: Apache-2.0
// GCM (NIST SP 800-38D) for every GCM catalogue row, with OpenSSL's default
// provider's semantics: IV states (given, generated, used up by final),
// streaming AAD and data, tag set/get, the TLS 1.2 record mode
// (tlsaad/tlsivfixed/tlsivgen/tlsivinv) and the EVP_Cipher() byte counts.
// The arithmetic lives in gcm_engine.cpp.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <cstring>
#include <new>

#include "provider/errors.h"
#include "provider/gcm_engine.h"
#include "provider/mode_contexts.h"
#include "provider/params.h"
#include "provider/provider.h"

namespace hwc {

namespace {

constexpr size_t kDefaultIvLen = 12;
// OpenSSL accepts 1..128-byte IVs; hwcipher takes up to 1 KiB (8192 bits),
// which covers every IV length the standards and test suites use.
constexpr size_t kMaxIvLen = 1024;
constexpr size_t kTagLen = 16;
constexpr size_t kTlsAadLen = 13;       // seq(8) | type | version(2) | length(2)
constexpr size_t kTlsExplicitIvLen = 8; // nonce_explicit carried in each record
constexpr size_t kTlsFixedIvLen = 4;    // salt from the key block

class GcmCtx final : public CipherCtx {
public:
    GcmCtx(const ProvCtx* prov, const AlgorithmRow& row) : prov_(prov), row_(&row) {}
    ~GcmCtx() override {
        wipe(iv_, sizeof iv_);
        wipe(tag_, sizeof tag_);
        wipe(tls_aad_, sizeof tls_aad_);
    }

    CipherCtx* clone() const override { return new (std::nothrow) GcmCtx(*this); }

    int init(bool encrypt, const uint8_t* key, size_t keylen, const uint8_t* iv, size_t ivlen,
             const OSSL_PARAM params[]) override;
    int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override;
    int final(uint8_t* out, size_t* outl, size_t outsize) override;
    int cipher(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override;
    int get_ctx_params(OSSL_PARAM params[]) override;
    int set_ctx_params(const OSSL_PARAM params[]) override;

private:
    // IV life cycle, as OpenSSL's: none yet; given but not applied; applied
    // to the running message; used up by final (a new IV must come first).
    enum class IvState : uint8_t { none, buffered, active, finished };

    GcmCtx(const GcmCtx&) = default;

    bool begin_message();
    int finish_message();
    int tls_record(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl);
    bool set_iv_fixed(const OSSL_PARAM* p);
    bool iv_gen(uint8_t* out, size_t olen);
    bool iv_inv(const uint8_t* in, size_t inl);
    void increment_invocation();

    const ProvCtx* prov_;
    const AlgorithmRow* row_;
    GcmEngine eng_;
    bool encrypt_ = false;
    IvState iv_state_ = IvState::none;
    size_t ivlen_ = kDefaultIvLen;
    uint8_t iv_[kMaxIvLen] = {};
    uint8_t tag_[kTagLen] = {};
    size_t taglen_ = kTagLen;
    bool tag_set_ = false;   // decrypt: expected tag given
    bool tag_ready_ = false; // encrypt: tag of the last finished message available
    // TLS 1.2 record mode.
    bool iv_gen_ = false;    // tlsivfixed given: the IV is fixed part + invocation field
    // "iv-generated" (OpenSSL 3.4+): the provider made this IV (random, or the
    // TLS fixed part + generated field) since the last init, as the default
    // provider reports it.
    bool iv_generated_ = false;
    bool tls_aad_set_ = false;
    uint8_t tls_aad_[kTlsAadLen] = {};
    size_t tls_aad_pad_ = 0;
    uint64_t tls_records_ = 0;
};

int GcmCtx::init(bool encrypt, const uint8_t* key, size_t keylen, const uint8_t* iv,
                 size_t ivlen, const OSSL_PARAM params[]) {
    encrypt_ = encrypt;
    iv_generated_ = false;
    if (iv != nullptr) {
        if (ivlen == 0 || ivlen > kMaxIvLen) {
            HWC_RAISE(prov_, kErrInvalidIvLength, "gcm iv length %zu, allowed 1..%zu", ivlen,
                      kMaxIvLen);
            return 0;
        }
        ivlen_ = ivlen;
        std::memcpy(iv_, iv, ivlen);
        iv_state_ = IvState::buffered;
        tag_ready_ = false;
    }
    if (key != nullptr) {
        if (keylen != key_bytes(*row_)) {
            HWC_RAISE(prov_, kErrInvalidKeyLength, "key length %zu, expected %zu", keylen,
                      key_bytes(*row_));
            return 0;
        }
        const BlockCore* core = prov_->cores.for_family(row_->family);
        if (!eng_.set_key(*core, *prov_->cores.ghash, key, keylen)) {
            HWC_RAISE(prov_, kErrInvalidKeyLength, "core %s refused the key", core->name);
            return 0;
        }
        tls_records_ = 0;
        tag_ready_ = false;
        // A message under the old key cannot continue under the new one.
        if (iv_state_ == IvState::active) iv_state_ = IvState::buffered;
    }
    return set_ctx_params(params);
}

// Makes sure a message is running: applies a buffered IV, or generates a
// random one when encrypting without any (as the default provider does, and
// only for IVs of at least 96 bits).
bool GcmCtx::begin_message() {
    if (!eng_.has_key()) {
        HWC_RAISE(prov_, kErrNoKeySet);
        return false;
    }
    switch (iv_state_) {
    case IvState::active: return true;
    case IvState::finished:
        HWC_RAISE(prov_, kErrIvAlreadyUsed);
        return false;
    case IvState::none:
        if (!encrypt_) {
            HWC_RAISE(prov_, kErrNoIvSet, "decryption needs the iv");
            return false;
        }
        if (ivlen_ < kDefaultIvLen) {
            HWC_RAISE(prov_, kErrNoIvSet, "cannot generate an iv shorter than 12 bytes");
            return false;
        }
        if (RAND_bytes_ex(prov_->libctx, iv_, ivlen_, 0) <= 0) {
            HWC_RAISE(prov_, kErrInternal, "random iv generation failed");
            return false;
        }
        iv_generated_ = true;
        [[fallthrough]];
    case IvState::buffered:
        eng_.start(iv_, ivlen_);
        iv_state_ = IvState::active;
        tag_ready_ = false;
        return true;
    }
    return false;
}

int GcmCtx::update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl) {
    *outl = 0;
    if (tls_aad_set_) return tls_record(out, outl, outsize, in, inl);
    if (inl == 0) return 1;
    if (in == nullptr) {
        HWC_RAISE(prov_, kErrInvalidParam, "no input");
        return 0;
    }
    if (out != nullptr && outsize < inl) {
        HWC_RAISE(prov_, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", inl, outsize);
        return 0;
    }
    if (!begin_message()) return 0;
    if (out == nullptr) {
        if (!eng_.aad(in, inl)) {
            if (eng_.data_started())
                HWC_RAISE(prov_, kErrAadAfterData);
            else
                HWC_RAISE(prov_, kErrInvalidInputLength, "aad longer than 2^61 - 1 bytes");
            return 0;
        }
    } else if (!eng_.crypt(in, out, inl, encrypt_)) {
        HWC_RAISE(prov_, kErrInvalidInputLength, "more than 2^36 - 32 bytes under one iv");
        return 0;
    }
    *outl = inl;
    return 1;
}

int GcmCtx::finish_message() {
    if (!begin_message()) return 0;
    if (!encrypt_ && !tag_set_) {
        HWC_RAISE(prov_, kErrTagNotSet);
        return 0;
    }
    uint8_t tag[kTagLen];
    eng_.finish(tag);
    iv_state_ = IvState::finished;
    if (encrypt_) {
        std::memcpy(tag_, tag, kTagLen);
        taglen_ = kTagLen;
        tag_ready_ = true;
        wipe(tag, sizeof tag);
        return 1;
    }
    // Constant time; the expected tag is used once.
    const bool ok = CRYPTO_memcmp(tag, tag_, taglen_) == 0;
    wipe(tag, sizeof tag);
    wipe(tag_, sizeof tag_);
    tag_set_ = false;
    if (!ok) {
        HWC_RAISE(prov_, kErrTagMismatch);
        return 0;
    }
    return 1;
}

int GcmCtx::final(uint8_t*, size_t* outl, size_t) {
    *outl = 0;
    return finish_message();
}

// EVP_Cipher(): in == NULL finalises, out == NULL is AAD; success reports
// the input length (0 for the final call), like the default provider, which
// reports the whole record also for TLS decryption.
int GcmCtx::cipher(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl) {
    *outl = 0;
    if (outsize < inl) {
        HWC_RAISE(prov_, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", inl, outsize);
        return 0;
    }
    size_t n = 0;
    int ok;
    if (tls_aad_set_)
        ok = tls_record(out, &n, outsize, in, inl);
    else if (in == nullptr)
        ok = finish_message();
    else
        ok = update(out, &n, outsize, in, inl);
    if (!ok) return 0;
    *outl = inl;
    return 1;
}

// ---- TLS 1.2 records ------------------------------------------------------

// The last 8 IV bytes count records (big-endian).
void GcmCtx::increment_invocation() {
    for (size_t i = ivlen_; i > ivlen_ - kTlsExplicitIvLen; --i)
        if (++iv_[i - 1] != 0) break;
}

bool GcmCtx::iv_gen(uint8_t* out, size_t olen) {
    if (!iv_gen_ || !eng_.has_key() || ivlen_ < kTlsExplicitIvLen) {
        HWC_RAISE(prov_, kErrNoIvSet, "tlsivgen needs a key and tlsivfixed");
        return false;
    }
    if (olen == 0 || olen > ivlen_) olen = ivlen_;
    eng_.start(iv_, ivlen_);
    iv_state_ = IvState::active;
    tag_ready_ = false;
    std::memcpy(out, iv_ + ivlen_ - olen, olen);
    increment_invocation();
    return true;
}

bool GcmCtx::iv_inv(const uint8_t* in, size_t inl) {
    if (!iv_gen_ || !eng_.has_key() || encrypt_) {
        HWC_RAISE(prov_, kErrNoIvSet, "tlsivinv needs a key, tlsivfixed and decryption");
        return false;
    }
    if (inl == 0 || inl > ivlen_) {
        HWC_RAISE(prov_, kErrInvalidIvLength, "tlsivinv length %zu", inl);
        return false;
    }
    std::memcpy(iv_ + ivlen_ - inl, in, inl);
    eng_.start(iv_, ivlen_);
    iv_state_ = IvState::active;
    return true;
}

// One whole record, in place: explicit nonce (8) | payload | tag (16).
int GcmCtx::tls_record(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
                       size_t inl) {
    tls_aad_set_ = false; // the AAD belongs to this one call, whatever happens
    *outl = 0;
    if (in == nullptr || out != in || inl < kTlsExplicitIvLen + kTagLen || outsize < inl) {
        HWC_RAISE(prov_, kErrInvalidInputLength,
                  "a tls record is one in-place update of at least 24 bytes");
        return 0;
    }
    if (encrypt_) {
        // No more than 2^64 - 1 records under one key (IV uniqueness).
        if (tls_records_ == UINT64_MAX) {
            HWC_RAISE(prov_, kErrTooManyRecords);
            return 0;
        }
        if (!iv_gen(out, kTlsExplicitIvLen)) return 0;
        ++tls_records_;
    } else if (!iv_inv(in, kTlsExplicitIvLen)) {
        return 0;
    }
    const size_t payload = inl - kTlsExplicitIvLen - kTagLen;
    uint8_t* body = out + kTlsExplicitIvLen;
    bool ok = eng_.aad(tls_aad_, kTlsAadLen) && eng_.crypt(body, body, payload, encrypt_);
    if (ok) {
        uint8_t tag[kTagLen];
        eng_.finish(tag);
        if (encrypt_) {
            std::memcpy(body + payload, tag, kTagLen);
            *outl = inl;
        } else if (CRYPTO_memcmp(tag, body + payload, kTagLen) == 0) {
            *outl = payload;
        } else {
            ok = false;
        }
        wipe(tag, sizeof tag);
    }
    iv_state_ = IvState::finished;
    if (!ok) {
        // Never release unauthenticated plaintext.
        if (!encrypt_) wipe(body, payload);
        HWC_RAISE(prov_, encrypt_ ? kErrInvalidInputLength : kErrTagMismatch);
        return 0;
    }
    return 1;
}

bool GcmCtx::set_iv_fixed(const OSSL_PARAM* p) {
    if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == nullptr) return false;
    const auto* data = static_cast<const uint8_t*>(p->data);
    const size_t len = p->data_size;
    // EVP passes the ctrl's -1 through as SIZE_MAX: take the whole IV.
    if (len == SIZE_MAX) {
        std::memcpy(iv_, data, ivlen_);
        iv_gen_ = iv_generated_ = true;
        return true;
    }
    if (len < kTlsFixedIvLen || len > ivlen_ || ivlen_ - len < kTlsExplicitIvLen) return false;
    std::memcpy(iv_, data, len);
    if (encrypt_ && RAND_bytes_ex(prov_->libctx, iv_ + len, ivlen_ - len, 0) <= 0) return false;
    iv_gen_ = iv_generated_ = true;
    return true;
}

// ---- parameters -------------------------------------------------------------

int GcmCtx::get_ctx_params(OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    OSSL_PARAM* p;
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, key_bytes(*row_))) {
        HWC_RAISE(prov_, kErrInvalidParam, "keylen");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, ivlen_)) {
        HWC_RAISE(prov_, kErrInvalidParam, "ivlen");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, taglen_)) {
        HWC_RAISE(prov_, kErrInvalidParam, "taglen");
        return 0;
    }
    for (const char* key : {OSSL_CIPHER_PARAM_IV, OSSL_CIPHER_PARAM_UPDATED_IV}) {
        if ((p = param_locate(params, key)) == nullptr) continue;
        if (iv_state_ == IvState::none) {
            HWC_RAISE(prov_, kErrNoIvSet);
            return 0;
        }
        if (!set_octets(p, iv_, ivlen_)) {
            HWC_RAISE(prov_, kErrInvalidIvLength, "%s needs %zu bytes", key, ivlen_);
            return 0;
        }
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TAG)) != nullptr) {
        const size_t sz = p->data_size;
        if (!encrypt_ || !tag_ready_) {
            HWC_RAISE(prov_, kErrTagNotSet, "the tag is available after encryption's final");
            return 0;
        }
        if (sz == 0 || sz > kTagLen || !OSSL_PARAM_set_octet_string(p, tag_, sz)) {
            HWC_RAISE(prov_, kErrInvalidTagLength, "tag length %zu, allowed 1..16", sz);
            return 0;
        }
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, tls_aad_pad_)) {
        HWC_RAISE(prov_, kErrInvalidParam, "tlsaadpad");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN)) != nullptr) {
        if (p->data == nullptr || p->data_type != OSSL_PARAM_OCTET_STRING ||
            !iv_gen(static_cast<uint8_t*>(p->data), p->data_size)) {
            HWC_RAISE(prov_, kErrInvalidParam, "tlsivgen");
            return 0;
        }
    }
    if ((p = param_locate(params, kParamIvGenerated)) != nullptr &&
        !OSSL_PARAM_set_uint(p, iv_generated_ ? 1 : 0)) {
        HWC_RAISE(prov_, kErrInvalidParam, "iv-generated");
        return 0;
    }
    return 1;
}

int GcmCtx::set_ctx_params(const OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    const OSSL_PARAM* p;
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TAG)) != nullptr) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == nullptr) {
            HWC_RAISE(prov_, kErrInvalidParam, "tag must be an octet string");
            return 0;
        }
        if (p->data_size == 0 || p->data_size > kTagLen) {
            HWC_RAISE(prov_, kErrInvalidTagLength, "tag length %zu, allowed 1..16", p->data_size);
            return 0;
        }
        if (encrypt_) {
            HWC_RAISE(prov_, kErrTagNotNeeded);
            return 0;
        }
        std::memcpy(tag_, p->data, p->data_size);
        taglen_ = p->data_size;
        tag_set_ = true;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_IVLEN)) != nullptr) {
        size_t sz;
        if (!OSSL_PARAM_get_size_t(p, &sz) || sz == 0 || sz > kMaxIvLen) {
            HWC_RAISE(prov_, kErrInvalidIvLength, "gcm iv length allowed 1..%zu", kMaxIvLen);
            return 0;
        }
        ivlen_ = sz;
        iv_state_ = IvState::none;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD)) != nullptr) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == nullptr ||
            p->data_size != kTlsAadLen) {
            HWC_RAISE(prov_, kErrInvalidParam, "tlsaad must be %zu bytes", kTlsAadLen);
            return 0;
        }
        uint8_t aad[kTlsAadLen];
        std::memcpy(aad, p->data, kTlsAadLen);
        // The record length counts the explicit nonce (and, when
        // decrypting, the tag); GCM authenticates the payload length.
        size_t len = (size_t{aad[kTlsAadLen - 2]} << 8) | aad[kTlsAadLen - 1];
        const size_t overhead = kTlsExplicitIvLen + (encrypt_ ? 0 : kTagLen);
        if (len < overhead) {
            HWC_RAISE(prov_, kErrInvalidParam, "tlsaad record length %zu too short", len);
            return 0;
        }
        len -= overhead;
        aad[kTlsAadLen - 2] = static_cast<uint8_t>(len >> 8);
        aad[kTlsAadLen - 1] = static_cast<uint8_t>(len);
        std::memcpy(tls_aad_, aad, kTlsAadLen);
        tls_aad_set_ = true;
        tls_aad_pad_ = kTagLen;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED)) != nullptr &&
        !set_iv_fixed(p)) {
        HWC_RAISE(prov_, kErrInvalidIvLength, "tlsivfixed: 4..ivlen-8 bytes (or -1: whole iv)");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV)) != nullptr) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == nullptr ||
            !iv_inv(static_cast<const uint8_t*>(p->data), p->data_size))
            return 0;
    }
    return 1;
}

const OSSL_PARAM* gcm_gettable() {
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, nullptr, 0),
        OSSL_PARAM_uint(kParamIvGenerated, nullptr),
        OSSL_PARAM_END,
    };
    return list;
}

const OSSL_PARAM* gcm_settable() {
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, nullptr, 0),
        OSSL_PARAM_END,
    };
    return list;
}

CipherCtx* create_gcm(const ProvCtx* prov, const AlgorithmRow& row) {
    return new (std::nothrow) GcmCtx(prov, row);
}

} // namespace

const ModeOps kGcmModeOps = {create_gcm, gcm_gettable, gcm_settable};

} // namespace hwc
