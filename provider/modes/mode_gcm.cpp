// SPDX-License-Identifier: Apache-2.0
// GCM (NIST SP 800-38D) for every GCM catalogue row, with OpenSSL's default
// provider's semantics: IV states (given, generated, used up by final),
// streaming AAD and data, tag set/get, the TLS 1.2 record mode
// (tlsaad/tlsivfixed/tlsivgen/tlsivinv) and the EVP_Cipher() byte counts.
// The arithmetic lives in gcm_engine.cpp.
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/rand.h>

#include <cstring>

#include "provider/engines/gcm_engine.h"
#include "provider/modes/aead_ctx.h"
#include "provider/modes/mode_contexts.h"
#include "provider/module/errors.h"
#include "provider/module/provider.h"
#include "provider/params/cipher_params.h"

namespace hwc {

namespace {

constexpr size_t kDefaultIvLen = 12;
constexpr size_t kMaxIvLen = GcmEngine::kMaxIvLen;
constexpr size_t kTagLen = 16;

// The engine runs on KeyedCtx's key schedule; the IV, up to kMaxIvLen
// bytes, is iv_buf_.
class GcmCtx final : public FamilyCtx<GcmCtx, TlsAeadCtx> {
public:
    GcmCtx(const ProvCtx* prov, const AlgorithmRow& row) : FamilyCtx(prov, row, kTagLen) {}
    ~GcmCtx() override { wipe_all(iv_buf_, key_); }

    int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override;
    int final(uint8_t*, size_t* outl, size_t) override {
        *outl = 0;
        return finish_message();
    }
    int cipher(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override;
    const uint8_t* iv_param(bool) const override {
        return iv_state_ == IvState::none ? nullptr : iv_buf_;
    }

    bool get_tag(OSSL_PARAM& p);
    bool set_tag(const OSSL_PARAM& p);
    bool set_ivlen(const OSSL_PARAM& p);
    // Records are refused "invalid parameter" when too short for nonce and tag.
    bool set_tls_aad(const OSSL_PARAM& p) override {
        return take_tls_aad(p, kTagLen, kErrInvalidParam);
    }
    bool set_tls_iv_fixed(const OSSL_PARAM& p) override;
    bool set_tls_iv_inv(const OSSL_PARAM& p) override;
    bool get_tls_iv_gen(OSSL_PARAM& p) override;

private:
    // IV life cycle, as OpenSSL's: none yet; given but not applied; applied
    // to the running message; used up by final (a new IV must come first).
    enum class IvState : uint8_t { none, buffered, active, finished };

    void restart() override { iv_generated_ = false; }
    bool set_iv(const uint8_t* iv, size_t ivlen) override;
    bool schedule_key(const uint8_t* key, size_t keylen) override;
    bool same_key(const uint8_t* key, size_t keylen) override;
    void rekeyed();
    bool begin_message();
    int finish_message();
    int tls_record(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl);
    bool iv_gen(uint8_t* out, size_t olen);
    bool iv_inv(const uint8_t* in, size_t inl);

    GcmEngine eng_;
    // The key scheduled into ks_ and eng_ (key_len_ bytes; 0: none), so that
    // an init passing the same key again keeps the schedule, H and its
    // powers (`openssl speed -aead` and many applications pass the key with
    // every message's IV); compared in constant time.
    uint8_t key_[32] = {};
    size_t key_len_ = 0;
    IvState iv_state_ = IvState::none;
    uint8_t iv_buf_[kMaxIvLen] = {};
    // TLS 1.2 record mode.
    bool iv_gen_ = false;    // tlsivfixed given: the IV is fixed part + invocation field
    uint64_t tls_records_ = 0;

public:
    // The default provider's AES-GCM lists (OpenSSL 3.0): it neither lists nor
    // checks "keylen" on set.
    static constexpr ContextTables kParams{
        join(kCipherGets, kAeadGets, kTagGets<GcmCtx>, kTlsAeadGets),
        join(without(kCipherSets, {OSSL_CIPHER_PARAM_KEYLEN}), kTagSets<GcmCtx>, kTlsAeadSets)};
};

bool GcmCtx::set_iv(const uint8_t* iv, size_t ivlen) {
    if (ivlen == 0 || ivlen > kMaxIvLen)
        return HWC_FAIL(prov_, kErrInvalidIvLength, "gcm iv length %zu, allowed 1..%zu", ivlen,
                        kMaxIvLen);
    ivlen_ = ivlen;
    std::memcpy(iv_buf_, iv, ivlen);
    iv_state_ = IvState::buffered;
    tag_ready_ = false;
    return true;
}

bool GcmCtx::schedule_key(const uint8_t* key, size_t keylen) {
    wipe(key_, sizeof key_);
    key_len_ = 0;
    if (!eng_.set_key(*core_, *prov_->cores.ghash, ks_, key, keylen)) return refused();
    if (keylen <= sizeof key_) {
        std::memcpy(key_, key, keylen);
        key_len_ = keylen;
    }
    rekeyed();
    return true;
}

bool GcmCtx::same_key(const uint8_t* key, size_t keylen) {
    if (key_len_ == 0 || keylen != key_len_ || CRYPTO_memcmp(key, key_, keylen) != 0)
        return false;
    rekeyed();
    return true;
}

// What setting a key does to the message state, new key or the same again.
void GcmCtx::rekeyed() {
    tls_records_ = 0;
    tag_ready_ = false;
    // A message under the old key cannot continue under the new one.
    if (iv_state_ == IvState::active) iv_state_ = IvState::buffered;
}

// Makes sure a message is running: applies a buffered IV, or generates a
// random one when encrypting without any (as the default provider does, and
// only for IVs of at least 96 bits).
bool GcmCtx::begin_message() {
    if (!need_key()) return false;
    switch (iv_state_) {
    case IvState::active: return true;
    case IvState::finished:
        return HWC_FAIL(prov_, kErrIvAlreadyUsed);
    case IvState::none:
        if (!encrypt_) return HWC_FAIL(prov_, kErrNoIvSet, "decryption needs the iv");
        if (ivlen_ < kDefaultIvLen)
            return HWC_FAIL(prov_, kErrNoIvSet, "cannot generate an iv shorter than 12 bytes");
        if (RAND_bytes_ex(prov_->libctx, iv_buf_, ivlen_, 0) <= 0)
            return HWC_FAIL(prov_, kErrInternal, "random iv generation failed");
        iv_generated_ = true;
        [[fallthrough]];
    case IvState::buffered:
        eng_.start(iv_buf_, ivlen_);
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
    if (in == nullptr) return HWC_FAIL(prov_, kErrInvalidParam, "no input");
    if (out != nullptr && !need_output(inl, outsize)) return 0;
    if (!begin_message()) return 0;
    if (out == nullptr && !eng_.aad(in, inl)) {
        if (eng_.data_started()) return HWC_FAIL(prov_, kErrAadAfterData);
        return HWC_FAIL(prov_, kErrInvalidInputLength, "aad longer than 2^61 - 1 bytes");
    }
    if (out != nullptr && !eng_.crypt(ks_, in, out, inl, encrypt_))
        return HWC_FAIL(prov_, kErrInvalidInputLength, "more than 2^36 - 32 bytes under one iv");
    *outl = inl;
    return 1;
}

int GcmCtx::finish_message() {
    if (!begin_message()) return 0;
    if (!encrypt_ && !tag_set_) return HWC_FAIL(prov_, kErrTagNotSet);
    iv_state_ = IvState::finished;
    if (encrypt_) {
        eng_.finish(ks_, tag_);
        taglen_ = kTagLen;
        tag_ready_ = true;
        return 1;
    }
    uint8_t tag[kTagLen];
    eng_.finish(ks_, tag);
    // Constant time; the expected tag is used once.
    const bool ok = CRYPTO_memcmp(tag, tag_, taglen_) == 0;
    wipe_all(tag, tag_);
    tag_set_ = false;
    if (!ok) return HWC_FAIL(prov_, kErrTagMismatch);
    return 1;
}

// EVP_Cipher(): in == NULL finalises, out == NULL is AAD; success reports
// the input length (0 for the final call), like the default provider, which
// reports the whole record also for TLS decryption.
int GcmCtx::cipher(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl) {
    *outl = 0;
    if (!need_output(inl, outsize)) return 0;
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

bool GcmCtx::iv_gen(uint8_t* out, size_t olen) {
    if (!iv_gen_ || !key_set_ || ivlen_ < kTlsExplicitIvLen)
        return HWC_FAIL(prov_, kErrNoIvSet, "tlsivgen needs a key and tlsivfixed");
    if (olen == 0 || olen > ivlen_) olen = ivlen_;
    eng_.start(iv_buf_, ivlen_);
    iv_state_ = IvState::active;
    tag_ready_ = false;
    std::memcpy(out, iv_buf_ + ivlen_ - olen, olen);
    // The last 8 IV bytes count records (big-endian).
    for (size_t i = ivlen_; i > ivlen_ - kTlsExplicitIvLen; --i)
        if (++iv_buf_[i - 1] != 0) break;
    return true;
}

bool GcmCtx::iv_inv(const uint8_t* in, size_t inl) {
    if (!iv_gen_ || !key_set_ || encrypt_)
        return HWC_FAIL(prov_, kErrNoIvSet, "tlsivinv needs a key, tlsivfixed and decryption");
    if (inl == 0 || inl > ivlen_)
        return HWC_FAIL(prov_, kErrInvalidIvLength, "tlsivinv length %zu", inl);
    std::memcpy(iv_buf_ + ivlen_ - inl, in, inl);
    eng_.start(iv_buf_, ivlen_);
    iv_state_ = IvState::active;
    return true;
}

// One whole record, in place: explicit nonce (8) | payload | tag (16).
int GcmCtx::tls_record(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
                       size_t inl) {
    tls_aad_set_ = false; // the AAD belongs to this one call, whatever happens
    *outl = 0;
    if (in == nullptr || out != in || inl < kTlsExplicitIvLen + kTagLen || outsize < inl)
        return HWC_FAIL(prov_, kErrInvalidInputLength,
                        "a tls record is one in-place update of at least 24 bytes");
    if (encrypt_) {
        // No more than 2^64 - 1 records under one key (IV uniqueness).
        if (tls_records_ == UINT64_MAX) return HWC_FAIL(prov_, kErrTooManyRecords);
        if (!iv_gen(out, kTlsExplicitIvLen)) return 0;
        ++tls_records_;
    } else if (!iv_inv(in, kTlsExplicitIvLen)) {
        return 0;
    }
    const size_t payload = inl - kTlsExplicitIvLen - kTagLen;
    uint8_t* body = out + kTlsExplicitIvLen;
    bool ok = eng_.aad(tls_aad_, kTlsAadLen) && eng_.crypt(ks_, body, body, payload, encrypt_);
    if (ok) {
        uint8_t tag[kTagLen];
        eng_.finish(ks_, tag);
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
        return HWC_FAIL(prov_, encrypt_ ? kErrInvalidInputLength : kErrTagMismatch);
    }
    return 1;
}

// ---- parameters -------------------------------------------------------------

bool GcmCtx::get_tag(OSSL_PARAM& p) {
    const size_t sz = p.data_size;
    if (!encrypt_ || !tag_ready_)
        return HWC_FAIL(prov_, kErrTagNotSet, "the tag is available after encryption's final");
    if (sz == 0 || sz > kTagLen || !OSSL_PARAM_set_octet_string(&p, tag_, sz))
        return HWC_FAIL(prov_, kErrInvalidTagLength, "tag length %zu, allowed 1..16", sz);
    return true;
}

bool GcmCtx::get_tls_iv_gen(OSSL_PARAM& p) {
    return (p.data != nullptr && p.data_type == OSSL_PARAM_OCTET_STRING &&
            iv_gen(static_cast<uint8_t*>(p.data), p.data_size)) ||
           HWC_FAIL(prov_, kErrInvalidParam, "tlsivgen");
}

bool GcmCtx::set_tag(const OSSL_PARAM& p) {
    if (p.data_type != OSSL_PARAM_OCTET_STRING || p.data == nullptr)
        return HWC_FAIL(prov_, kErrInvalidParam, "tag must be an octet string");
    if (p.data_size == 0 || p.data_size > kTagLen)
        return HWC_FAIL(prov_, kErrInvalidTagLength, "tag length %zu, allowed 1..16", p.data_size);
    if (encrypt_) return HWC_FAIL(prov_, kErrTagNotNeeded);
    std::memcpy(tag_, p.data, p.data_size);
    taglen_ = p.data_size;
    tag_set_ = true;
    return true;
}

bool GcmCtx::set_ivlen(const OSSL_PARAM& p) {
    size_t sz;
    if (!OSSL_PARAM_get_size_t(&p, &sz) || sz == 0 || sz > kMaxIvLen)
        return HWC_FAIL(prov_, kErrInvalidIvLength, "gcm iv length allowed 1..%zu", kMaxIvLen);
    ivlen_ = sz;
    iv_state_ = IvState::none;
    return true;
}

// The fixed part of the IV; when encrypting, the invocation field starts
// random. EVP passes the ctrl's -1 through as SIZE_MAX: the whole IV.
bool GcmCtx::set_tls_iv_fixed(const OSSL_PARAM& p) {
    const size_t len = p.data_size;
    const bool whole = len == SIZE_MAX;
    bool ok = p.data_type == OSSL_PARAM_OCTET_STRING && p.data != nullptr &&
              (whole || (len >= kTlsFixedIvLen && len <= ivlen_ &&
                         ivlen_ - len >= kTlsExplicitIvLen));
    if (ok) {
        std::memcpy(iv_buf_, p.data, whole ? ivlen_ : len);
        ok = whole || !encrypt_ || RAND_bytes_ex(prov_->libctx, iv_buf_ + len, ivlen_ - len, 0) > 0;
    }
    if (!ok)
        return HWC_FAIL(prov_, kErrInvalidIvLength,
                        "tlsivfixed: 4..ivlen-8 bytes (or -1: whole iv)");
    iv_gen_ = iv_generated_ = true;
    return true;
}

bool GcmCtx::set_tls_iv_inv(const OSSL_PARAM& p) {
    return p.data_type == OSSL_PARAM_OCTET_STRING && p.data != nullptr &&
           iv_inv(static_cast<const uint8_t*>(p.data), p.data_size);
}

} // namespace

const ModeOps kGcmModeOps = mode_ops_for<GcmCtx>();

} // namespace hwc
