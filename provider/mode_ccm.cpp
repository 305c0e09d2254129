// SPDX-License-Identifier: Apache-2.0
// CCM (NIST SP 800-38C, RFC 3610) for AES, SM4 and Twofish, with OpenSSL's
// one-shot call sequence and the TLS 1.2 / 1.3 record behaviour libssl uses.
//
// CCM cannot stream: B0 carries the message length, so the caller declares it
// first (update with in == out == NULL), gives the AAD in one call and the
// data in one call of exactly that length; decryption verifies the tag inside
// that call and releases nothing on failure. Final emits nothing. This is the
// default provider's contract (openssl-provider-contract.md §2.4, §5), with
// three deliberate differences where it is unsafe or inconsistent:
//   - a final (or EVP_Cipher(ctx, out, NULL, 0)) with a message whose data
//     call never came verifies/authenticates the empty message when the
//     declared length is 0 and fails otherwise, instead of reporting success
//     for a message whose tag was never checked;
//   - a second AAD call or data call is refused instead of corrupting the MAC;
//   - tag length and L take effect whenever they are set before the message
//     starts (the default provider fixes them at key setup).
// The message's whole blocks go through ccm_encrypt / ccm_decrypt
// (cores/modes.h): the core's fused CTR + CBC-MAC kernel, or its CBC-MAC and
// CTR kernels in L1-sized chunks; the AAD through cbc_mac.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include <cstring>
#include <initializer_list>
#include <new>

#include "cores/modes.h"
#include "provider/errors.h"
#include "provider/mode_contexts.h"
#include "provider/params.h"
#include "provider/provider.h"

namespace hwc {

namespace {

constexpr size_t kTlsAadLen = 13;       // EVP_AEAD_TLS1_AAD_LEN: seq, type, version, length
constexpr size_t kTlsFixedIvLen = 4;    // EVP_CCM_TLS_FIXED_IV_LEN
constexpr size_t kTlsExplicitIvLen = 8; // EVP_CCM_TLS_EXPLICIT_IV_LEN

class CcmCtx final : public CipherCtx {
public:
    CcmCtx(const ProvCtx* prov, const AlgorithmRow& row)
        : prov_(prov), row_(&row), core_(prov->cores.for_family(row.family)) {
        std::memset(&ks_, 0, sizeof ks_);
    }
    ~CcmCtx() override {
        wipe(&ks_, sizeof ks_);
        wipe(mac_, sizeof mac_);
        wipe(tag_, sizeof tag_);
        wipe(nonce_, sizeof nonce_);
        wipe(tls_aad_, sizeof tls_aad_);
    }

    CipherCtx* clone() const override { return new (std::nothrow) CcmCtx(*this); }

    int init(bool encrypt, const uint8_t* key, size_t keylen, const uint8_t* iv, size_t ivlen,
             const OSSL_PARAM params[]) override;
    int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override {
        *outl = 0;
        if (outsize < inl) {
            HWC_RAISE(prov_, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", inl, outsize);
            return 0;
        }
        return run(out, outl, in, inl);
    }
    int final(uint8_t* out, size_t* outl, size_t) override {
        // The same entry as update(out, NULL): nothing is ever emitted here.
        static uint8_t dummy;
        size_t ignored = 0;
        *outl = 0;
        return run(out != nullptr ? out : &dummy, &ignored, nullptr, 0);
    }
    // EVP_Cipher(): as the default provider, every successful call reports
    // its input length (length declaration, AAD, data, TLS record alike).
    int cipher(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override {
        if (!update(out, outl, outsize, in, inl)) return 0;
        *outl = inl;
        return 1;
    }
    int get_ctx_params(OSSL_PARAM params[]) override;
    int set_ctx_params(const OSSL_PARAM params[]) override;

    static const OSSL_PARAM* gettable();
    static const OSSL_PARAM* settable();

private:
    CcmCtx(const CcmCtx&) = default;

    // Where the current message is: length declared, AAD absorbed, data done.
    enum class Stage : uint8_t { idle, length, aad, done };

    size_t nonce_len() const { return 15 - L_; }
    size_t key_len() const { return key_bytes(*row_); }

    int run(uint8_t* out, size_t* outl, const uint8_t* in, size_t inl);
    int finish();
    bool declare(size_t mlen);
    bool data(const uint8_t* in, uint8_t* out, size_t len, const uint8_t* expected,
              uint8_t* tag_out);
    int tls_record(uint8_t* out, size_t* outl, const uint8_t* in, size_t len);
    void reset_message() {
        stage_ = Stage::idle;
        wipe(mac_, sizeof mac_);
    }

    void counter_block(uint8_t blk[kBlockSize], uint64_t value) const;
    void begin_mac(bool has_aad);
    void absorb_aad(const uint8_t* a, size_t alen);
    void mac_bytes(const uint8_t* p, size_t len); // whole blocks + a zero-padded tail

    const ProvCtx* prov_;
    const AlgorithmRow* row_;
    const BlockCore* core_;
    KeySchedule ks_;
    bool encrypt_ = true;
    bool key_set_ = false;
    bool iv_set_ = false;
    bool tag_set_ = false;   // decrypt: expected tag in tag_
    bool tag_ready_ = false; // encrypt: computed tag in tag_, readable once
    Stage stage_ = Stage::idle;
    unsigned L_ = 8;         // length-field bytes; the nonce is 15 - L bytes (default 7)
    unsigned M_ = 12;        // tag bytes
    unsigned b0_m_ = 12;     // M encoded in B0 of the current message
    uint64_t msglen_ = 0;
    uint8_t nonce_[kBlockSize] = {};
    uint8_t mac_[kBlockSize] = {};
    uint8_t tag_[kBlockSize] = {};
    uint8_t tls_aad_[kTlsAadLen] = {};
    bool tls_aad_set_ = false;
    size_t tls_pad_ = 0;
};

int CcmCtx::init(bool encrypt, const uint8_t* key, size_t keylen, const uint8_t* iv,
                 size_t ivlen, const OSSL_PARAM params[]) {
    encrypt_ = encrypt;
    reset_message();
    tag_ready_ = false;
    tls_aad_set_ = false;
    // Parameters first, so an "ivlen" given with the IV applies to it.
    if (!set_ctx_params(params)) return 0;
    if (iv != nullptr) {
        if (ivlen != nonce_len()) {
            HWC_RAISE(prov_, kErrInvalidIvLength, "iv length %zu, expected %zu (15 - L)", ivlen,
                      nonce_len());
            return 0;
        }
        std::memcpy(nonce_, iv, ivlen);
        iv_set_ = true;
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
    return 1;
}

// The one state machine behind update, final and EVP_Cipher (the default
// provider routes all three through the same function, so do we).
int CcmCtx::run(uint8_t* out, size_t* outl, const uint8_t* in, size_t inl) {
    *outl = 0;
    if (!key_set_) {
        HWC_RAISE(prov_, kErrNoKeySet);
        return 0;
    }
    if (tls_aad_set_) return tls_record(out, outl, in, inl);
    if (in == nullptr && out != nullptr) return finish();
    if (!iv_set_) {
        HWC_RAISE(prov_, kErrNoIvSet);
        return 0;
    }
    if (stage_ == Stage::done) {
        // EVP_Cipher(ctx, NULL, NULL, 0) after the data is how some legacy
        // code "finalises" any AEAD: accept it without reopening the nonce.
        if (in == nullptr && out == nullptr && inl == 0) return 1;
        HWC_RAISE(prov_, kErrOneShotData, "message complete: set a new iv");
        return 0;
    }
    if (out == nullptr) {
        if (in == nullptr) { // declare the total message length
            if (stage_ == Stage::aad) {
                HWC_RAISE(prov_, kErrCcmLengthNotSet, "length declared after the aad");
                return 0;
            }
            if (!declare(inl)) return 0;
            *outl = inl;
            return 1;
        }
        if (inl == 0) return 1;
        if (stage_ == Stage::idle) {
            HWC_RAISE(prov_, kErrCcmLengthNotSet);
            return 0;
        }
        if (stage_ == Stage::aad) {
            HWC_RAISE(prov_, kErrOneShotData, "ccm takes the aad in one call");
            return 0;
        }
        begin_mac(true);
        absorb_aad(in, inl);
        stage_ = Stage::aad;
        *outl = inl;
        return 1;
    }
    // Data: exactly one call of the declared length (declared now if not yet).
    if (stage_ == Stage::idle && !declare(inl)) return 0;
    if (inl != msglen_) {
        HWC_RAISE(prov_, kErrCcmLengthMismatch, "declared %llu bytes, got %zu",
                  static_cast<unsigned long long>(msglen_), inl);
        return 0;
    }
    if (!data(in, out, inl, encrypt_ ? nullptr : tag_, encrypt_ ? tag_ : nullptr)) return 0;
    *outl = inl;
    return 1;
}

// Final: nothing to emit. A message stopped before its data call is only
// complete if its declared length is 0; then it is finished here.
int CcmCtx::finish() {
    const bool started = stage_ == Stage::length || stage_ == Stage::aad;
    const bool empty_decrypt = !encrypt_ && stage_ == Stage::idle && iv_set_ && tag_set_;
    if (!started && !empty_decrypt) return 1;
    if (started && msglen_ != 0) {
        HWC_RAISE(prov_, kErrCcmLengthMismatch, "declared %llu bytes, no data given",
                  static_cast<unsigned long long>(msglen_));
        return 0;
    }
    if (stage_ == Stage::idle && !declare(0)) return 0;
    static const uint8_t none = 0;
    uint8_t sink = 0;
    return data(&none, &sink, 0, encrypt_ ? nullptr : tag_, encrypt_ ? tag_ : nullptr) ? 1 : 0;
}

bool CcmCtx::declare(size_t mlen) {
    // The length must fit the L-byte field of B0 (2^(8L) - 1 at most).
    if (L_ < 8 && (static_cast<uint64_t>(mlen) >> (8 * L_)) != 0) {
        HWC_RAISE(prov_, kErrCcmLengthMismatch, "%zu bytes do not fit in L = %u bytes", mlen, L_);
        return false;
    }
    msglen_ = mlen;
    stage_ = Stage::length;
    return true;
}

void CcmCtx::counter_block(uint8_t blk[kBlockSize], uint64_t value) const {
    std::memset(blk, 0, kBlockSize);
    blk[0] = static_cast<uint8_t>(L_ - 1);
    std::memcpy(blk + 1, nonce_, nonce_len());
    for (unsigned i = 0; i < L_; ++i) blk[15 - i] = static_cast<uint8_t>(value >> (8 * i));
}

void CcmCtx::begin_mac(bool has_aad) {
    uint8_t b0[kBlockSize];
    counter_block(b0, msglen_);
    b0[0] = static_cast<uint8_t>((has_aad ? 0x40 : 0) | ((M_ - 2) / 2) << 3 | (L_ - 1));
    b0_m_ = M_;
    ecb_encrypt(*core_, ks_, b0, mac_, 1);
}

void CcmCtx::absorb_aad(const uint8_t* a, size_t alen) {
    // First block: the encoded AAD length (SP 800-38C A.2.2), then AAD bytes.
    uint8_t blk[kBlockSize] = {};
    size_t hdr;
    const uint64_t n = alen;
    if (n < 0xFF00) {
        blk[0] = static_cast<uint8_t>(n >> 8);
        blk[1] = static_cast<uint8_t>(n);
        hdr = 2;
    } else if (n <= 0xFFFFFFFFu) {
        blk[0] = 0xFF;
        blk[1] = 0xFE;
        for (int i = 0; i < 4; ++i) blk[2 + i] = static_cast<uint8_t>(n >> (24 - 8 * i));
        hdr = 6;
    } else {
        blk[0] = 0xFF;
        blk[1] = 0xFF;
        for (int i = 0; i < 8; ++i) blk[2 + i] = static_cast<uint8_t>(n >> (56 - 8 * i));
        hdr = 10;
    }
    const size_t first = alen < kBlockSize - hdr ? alen : kBlockSize - hdr;
    std::memcpy(blk + hdr, a, first);
    for (size_t i = 0; i < kBlockSize; ++i) mac_[i] ^= blk[i];
    ecb_encrypt(*core_, ks_, mac_, mac_, 1);
    mac_bytes(a + first, alen - first);
}

void CcmCtx::mac_bytes(const uint8_t* p, size_t len) {
    const size_t blocks = len / kBlockSize;
    cbc_mac(*core_, ks_, mac_, p, blocks);
    const size_t tail = len % kBlockSize;
    if (tail != 0) {
        p += blocks * kBlockSize;
        for (size_t i = 0; i < tail; ++i) mac_[i] ^= p[i];
        ecb_encrypt(*core_, ks_, mac_, mac_, 1);
    }
}

// Encrypts (expected == nullptr; tag to tag_out) or decrypts and verifies
// against `expected` (the first M bytes); on a mismatch the output is wiped.
bool CcmCtx::data(const uint8_t* in, uint8_t* out, size_t len, const uint8_t* expected,
                  uint8_t* tag_out) {
    if (expected != nullptr && !tag_set_) {
        HWC_RAISE(prov_, kErrTagNotSet);
        return false;
    }
    if (stage_ != Stage::aad) begin_mac(false);
    if (b0_m_ != M_) {
        HWC_RAISE(prov_, kErrInvalidTagLength, "tag length changed after the aad");
        reset_message();
        return false;
    }
    // Counter blocks A1, A2, ... The kernels step all 128 bits, but only the
    // low L bytes may change in CCM: they never wrap, because declare()
    // keeps the length below 2^(8L), so the last counter, ceil(len / 16),
    // stays below 2^(8L - 4) and no carry reaches the nonce or flag bytes.
    uint8_t ctr_blk[kBlockSize];
    counter_block(ctr_blk, 1);
    const size_t blocks = len / kBlockSize;
    if (expected == nullptr) ccm_encrypt(*core_, ks_, mac_, ctr_blk, in, out, blocks);
    else ccm_decrypt(*core_, ks_, mac_, ctr_blk, in, out, blocks);
    const size_t tail = len % kBlockSize;
    if (tail != 0) { // the MAC reads the plaintext: `in` before in == out overwrites it
        const uint8_t* tin = in + blocks * kBlockSize;
        uint8_t* tout = out + blocks * kBlockSize;
        uint8_t pad[kBlockSize];
        ecb_encrypt(*core_, ks_, ctr_blk, pad, 1);
        if (expected == nullptr) mac_bytes(tin, tail);
        for (size_t i = 0; i < tail; ++i) tout[i] = static_cast<uint8_t>(tin[i] ^ pad[i]);
        if (expected != nullptr) mac_bytes(tout, tail);
        wipe(pad, sizeof pad);
    }
    uint8_t s0[kBlockSize];
    counter_block(s0, 0);
    ecb_encrypt(*core_, ks_, s0, s0, 1);
    for (size_t i = 0; i < kBlockSize; ++i) s0[i] ^= mac_[i];
    bool ok = true;
    if (expected == nullptr) {
        std::memcpy(tag_out, s0, M_);
        tag_ready_ = true;
    } else {
        ok = CRYPTO_memcmp(s0, expected, M_) == 0;
        if (!ok) wipe(out, len);
        // Decryption consumes the nonce and the expected tag, as the default provider does.
        iv_set_ = false;
        tag_set_ = false;
        wipe(tag_, sizeof tag_);
    }
    wipe(s0, sizeof s0);
    wipe(ctr_blk, sizeof ctr_blk);
    reset_message();
    stage_ = Stage::done;
    if (!ok) HWC_RAISE(prov_, kErrTagMismatch);
    return ok;
}

// One TLS 1.2 record in place: explicit nonce(8) | payload | tag(M).
int CcmCtx::tls_record(uint8_t* out, size_t* outl, const uint8_t* in, size_t len) {
    tls_aad_set_ = false; // consumed by this call, whatever its outcome
    if (in == nullptr || out != in || len < kTlsExplicitIvLen + M_) {
        HWC_RAISE(prov_, kErrInvalidInputLength, "tls record must be in place and hold nonce and tag");
        return 0;
    }
    if (nonce_len() != kTlsFixedIvLen + kTlsExplicitIvLen) {
        HWC_RAISE(prov_, kErrInvalidIvLength, "tls records need a 12-byte nonce");
        return 0;
    }
    const size_t plen = len - kTlsExplicitIvLen - M_;
    const size_t aad_len = size_t(tls_aad_[11]) << 8 | tls_aad_[12];
    if (aad_len != plen) {
        HWC_RAISE(prov_, kErrInvalidInputLength, "record of %zu bytes, aad says %zu", plen, aad_len);
        return 0;
    }
    if (encrypt_) std::memcpy(out, tls_aad_, kTlsExplicitIvLen); // the sequence number
    std::memcpy(nonce_ + kTlsFixedIvLen, in, kTlsExplicitIvLen);
    reset_message();
    if (!declare(plen)) return 0;
    begin_mac(true);
    absorb_aad(tls_aad_, kTlsAadLen);
    stage_ = Stage::aad;
    uint8_t* payload = out + kTlsExplicitIvLen;
    // The expected tag is in the record, not in tag_; records carry their
    // own nonce, so the context's IV state is left as it was.
    const bool saved_iv_set = iv_set_;
    tag_set_ = true;
    const bool ok = data(payload, payload, plen, encrypt_ ? nullptr : payload + plen,
                         encrypt_ ? payload + plen : nullptr);
    tag_set_ = false;
    tag_ready_ = false;
    iv_set_ = saved_iv_set;
    stage_ = Stage::idle;
    if (!ok) return 0;
    *outl = encrypt_ ? len : plen;
    return 1;
}

int CcmCtx::get_ctx_params(OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    OSSL_PARAM* p;
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, key_len())) {
        HWC_RAISE(prov_, kErrInvalidParam, "keylen");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, nonce_len())) {
        HWC_RAISE(prov_, kErrInvalidParam, "ivlen");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, M_)) {
        HWC_RAISE(prov_, kErrInvalidParam, "taglen");
        return 0;
    }
    for (const char* key : {OSSL_CIPHER_PARAM_IV, OSSL_CIPHER_PARAM_UPDATED_IV}) {
        if ((p = param_locate(params, key)) != nullptr && !set_octets(p, nonce_, nonce_len())) {
            HWC_RAISE(prov_, kErrInvalidIvLength, "%s: need %zu bytes", key, nonce_len());
            return 0;
        }
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, tls_pad_)) {
        HWC_RAISE(prov_, kErrInvalidParam, "tlsaadpad");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TAG)) != nullptr) {
        if (!encrypt_ || !tag_ready_) {
            HWC_RAISE(prov_, kErrTagNotSet, "no tag computed (encrypt the data first)");
            return 0;
        }
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == nullptr || p->data_size != M_) {
            HWC_RAISE(prov_, kErrInvalidTagLength, "request exactly the %u-byte tag", M_);
            return 0;
        }
        std::memcpy(p->data, tag_, M_);
        p->return_size = M_;
        // The tag is read once; the nonce must not encrypt another message.
        tag_ready_ = false;
        iv_set_ = false;
        wipe(tag_, sizeof tag_);
        reset_message();
    }
    if ((p = param_locate(params, kParamIvGenerated)) != nullptr && !OSSL_PARAM_set_uint(p, 0)) {
        HWC_RAISE(prov_, kErrInvalidParam, "iv-generated");
        return 0;
    }
    return 1;
}

int CcmCtx::set_ctx_params(const OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    const OSSL_PARAM* p;
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TAG)) != nullptr) {
        const size_t n = p->data_size;
        if (p->data_type != OSSL_PARAM_OCTET_STRING || n < 4 || n > 16 || (n & 1) != 0) {
            HWC_RAISE(prov_, kErrInvalidTagLength, "ccm tags are 4, 6, ..., 16 bytes, not %zu", n);
            return 0;
        }
        if (p->data != nullptr) {
            if (encrypt_) {
                HWC_RAISE(prov_, kErrTagNotNeeded);
                return 0;
            }
            std::memcpy(tag_, p->data, n);
            tag_set_ = true;
        }
        M_ = static_cast<unsigned>(n);
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != nullptr) {
        size_t sz;
        if (!OSSL_PARAM_get_size_t(p, &sz) || sz < 7 || sz > 13) {
            HWC_RAISE(prov_, kErrInvalidIvLength, "ccm nonces are 7..13 bytes (L = 8..2)");
            return 0;
        }
        const unsigned l = static_cast<unsigned>(15 - sz);
        if (l != L_) { // a nonce of the old length no longer fits
            L_ = l;
            iv_set_ = false;
            reset_message();
        }
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD)) != nullptr) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == nullptr ||
            p->data_size != kTlsAadLen) {
            HWC_RAISE(prov_, kErrInvalidParam, "tlsaad must be %zu bytes", kTlsAadLen);
            return 0;
        }
        uint8_t aad[kTlsAadLen];
        std::memcpy(aad, p->data, kTlsAadLen);
        // The length field counts the explicit nonce (and, received, the tag):
        // authenticate the payload length instead.
        size_t len = size_t(aad[11]) << 8 | aad[12];
        const size_t strip = kTlsExplicitIvLen + (encrypt_ ? 0 : M_);
        if (len < strip) {
            HWC_RAISE(prov_, kErrInvalidInputLength, "tls record length %zu too short", len);
            return 0;
        }
        len -= strip;
        aad[11] = static_cast<uint8_t>(len >> 8);
        aad[12] = static_cast<uint8_t>(len);
        std::memcpy(tls_aad_, aad, kTlsAadLen);
        tls_aad_set_ = true;
        tls_pad_ = M_;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED)) != nullptr) {
        if (p->data_type != OSSL_PARAM_OCTET_STRING || p->data == nullptr ||
            p->data_size != kTlsFixedIvLen) {
            HWC_RAISE(prov_, kErrInvalidIvLength, "tlsivfixed must be %zu bytes", kTlsFixedIvLen);
            return 0;
        }
        std::memcpy(nonce_, p->data, kTlsFixedIvLen);
    }
    if (param_locate(params, OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV) != nullptr) {
        // Listed because the default provider lists it; CCM records carry
        // their explicit nonce, so there is nothing to install.
        HWC_RAISE(prov_, kErrInvalidParam, "tlsivinv is a GCM parameter");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != nullptr) {
        size_t keylen;
        if (!OSSL_PARAM_get_size_t(p, &keylen) || keylen != key_len()) {
            HWC_RAISE(prov_, kErrInvalidKeyLength, "key length is fixed at %zu", key_len());
            return 0;
        }
    }
    return 1;
}

// The default provider's AEAD lists (AES-CCM in OpenSSL 3.0).
const OSSL_PARAM* CcmCtx::gettable() {
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, nullptr, 0),
        OSSL_PARAM_uint(kParamIvGenerated, nullptr), // always 0: CCM nonces come from the caller
        OSSL_PARAM_END,
    };
    return list;
}

const OSSL_PARAM* CcmCtx::settable() {
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

} // namespace

const ModeOps kCcmModeOps = {
    [](const ProvCtx* prov, const AlgorithmRow& row) -> CipherCtx* {
        return new (std::nothrow) CcmCtx(prov, row);
    },
    &CcmCtx::gettable,
    &CcmCtx::settable,
};

} // namespace hwc
