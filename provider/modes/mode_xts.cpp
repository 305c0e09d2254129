// SPDX-License-Identifier: Apache-2.0
// XTS (IEEE 1619, NIST SP 800-38E) for AES-128/256, SM4 and Twofish-128/256.
//
// OpenSSL's data-unit semantics: every update is one whole data unit of 16
// bytes to 2^20 blocks, enciphered under the tweak given as the IV; the tweak
// is not advanced between updates (two updates with the same IV give the same
// output), and final emits nothing. A partial last block uses ciphertext
// stealing. The key is data key || tweak key; identical halves are refused
// when encrypting (OpenSSL 3's default provider allows them for decryption,
// so existing data stays readable, and so does hwcipher).
// SM4-XTS has OpenSSL 3.2's "xts_standard" parameter: "GB" (GB/T 17964-2021,
// OpenSSL's default for SM4-XTS) or "IEEE". The bulk work is the XTS kernel
// of cores/modes.h: one call per data unit over all its whole blocks.
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include <cstring>
#include <new>

#include "cores/modes.h"
#include "provider/module/errors.h"
#include "provider/modes/mode_contexts.h"
#include "provider/params/param_table.h"
#include "provider/module/provider.h"

namespace hwc {

namespace {

// IEEE Std 1619-2018 and SP 800-38E: at most 2^20 blocks per data unit.
constexpr size_t kMaxDataUnitBlocks = size_t(1) << 20;

// OSSL_CIPHER_PARAM_XTS_STANDARD arrived in OpenSSL 3.2; its name is fixed.
constexpr const char* kParamXtsStandard = "xts_standard";

// ASCII case-insensitive equality (OPENSSL_strcasecmp is not in every 3.0.x).
bool equals_nocase(const char* a, const char* b) {
    for (; *a != '\0' && *b != '\0'; ++a, ++b) {
        const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c; };
        if (lower(*a) != lower(*b)) return false;
    }
    return *a == *b;
}

class XtsCtx final : public CipherCtx {
public:
    XtsCtx(const ProvCtx* prov, const AlgorithmRow& row)
        : prov_(prov), row_(&row), core_(prov->cores.for_family(row.family)),
          // OpenSSL's SM4-XTS starts in GB mode; everything else is IEEE only.
          gb_(row.family == Family::sm4) {
        std::memset(&data_ks_, 0, sizeof data_ks_);
        std::memset(&tweak_ks_, 0, sizeof tweak_ks_);
    }
    ~XtsCtx() override { clear_keys(); }

    CipherCtx* clone() const override { return new (std::nothrow) XtsCtx(*this); }

    int init(bool encrypt, const uint8_t* key, size_t keylen, const uint8_t* iv, size_t ivlen,
             const OSSL_PARAM params[]) override;
    int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override;
    int final(uint8_t*, size_t* outl, size_t) override {
        *outl = 0;
        return 1;
    }
    // EVP_Cipher(): the same one-data-unit operation; a NULL input (the
    // "final" call of EVP_Cipher) fails, as with the default provider.
    int cipher(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override {
        return update(out, outl, outsize, in, inl);
    }
    int get_ctx_params(OSSL_PARAM params[]) override;
    int set_ctx_params(const OSSL_PARAM params[]) override;

private:
    XtsCtx(const XtsCtx&) = default;

    size_t key_len() const { return key_bytes(*row_); }
    void clear_keys() {
        wipe(&data_ks_, sizeof data_ks_);
        wipe(&tweak_ks_, sizeof tweak_ks_);
        key_set_ = false;
    }
    void crypt(const uint8_t* in, uint8_t* out, size_t len);
    void blocks(uint8_t tweak[kBlockSize], const uint8_t* in, uint8_t* out, size_t n) const;

    const ProvCtx* prov_;
    const AlgorithmRow* row_;
    const BlockCore* core_;
    bool gb_;
    bool encrypt_ = true;
    bool key_set_ = false;
    bool iv_set_ = false;
    bool equal_halves_ = false; // the key in use has identical halves (decrypt only)
    uint8_t iv_[kBlockSize] = {};
    KeySchedule data_ks_;  // key 1: enciphers the data
    KeySchedule tweak_ks_; // key 2: enciphers the tweak
};

int XtsCtx::init(bool encrypt, const uint8_t* key, size_t keylen, const uint8_t* iv,
                 size_t ivlen, const OSSL_PARAM params[]) {
    encrypt_ = encrypt;
    if (iv != nullptr) {
        if (ivlen != kBlockSize) {
            HWC_RAISE(prov_, kErrInvalidIvLength, "iv length %zu, expected %zu", ivlen, kBlockSize);
            return 0;
        }
        std::memcpy(iv_, iv, kBlockSize);
        iv_set_ = true;
    }
    if (key != nullptr) {
        if (keylen != key_len()) {
            HWC_RAISE(prov_, kErrInvalidKeyLength, "key length %zu, expected %zu", keylen,
                      key_len());
            return 0;
        }
        clear_keys();
        const size_t half = keylen / 2;
        // Equal halves turn XTS into a mode with known weaknesses (the tweak
        // encryption and data encryption share a key); CRYPTO_memcmp because
        // the comparison must not reveal how much of the key matches.
        equal_halves_ = CRYPTO_memcmp(key, key + half, half) == 0;
        if (equal_halves_ && encrypt) {
            HWC_RAISE(prov_, kErrXtsDuplicatedKeys);
            return 0;
        }
        if (!core_->set_key(data_ks_, key, half) || !core_->set_key(tweak_ks_, key + half, half)) {
            clear_keys();
            HWC_RAISE(prov_, kErrInvalidKeyLength, "core %s refused the key", core_->name);
            return 0;
        }
        key_set_ = true;
    } else if (encrypt && key_set_ && equal_halves_) {
        // A context keyed for decryption with equal halves must not become
        // an encryptor through a key-less re-init.
        HWC_RAISE(prov_, kErrXtsDuplicatedKeys);
        return 0;
    }
    return set_ctx_params(params);
}

void XtsCtx::blocks(uint8_t tweak[kBlockSize], const uint8_t* in, uint8_t* out,
                    size_t n) const {
    if (encrypt_) xts_encrypt(*core_, data_ks_, tweak, in, out, n, gb_);
    else xts_decrypt(*core_, data_ks_, tweak, in, out, n, gb_);
}

// One data unit of `len` >= 16 bytes.
void XtsCtx::crypt(const uint8_t* in, uint8_t* out, size_t len) {
    const size_t tail = len % kBlockSize;
    // Hardware that derives the tweak itself takes a whole-block unit in one
    // call; stealing needs the running tweak, so it goes the long way.
    if (tail == 0 && !gb_ &&
        xts_unit(*core_, data_ks_, tweak_ks_, iv_, in, out, len / kBlockSize, encrypt_))
        return;

    uint8_t tweak[kBlockSize];
    xts_tweak(*core_, tweak_ks_, iv_, tweak);

    // With a partial last block, the last whole block takes part in the
    // stealing and is handled below with it.
    const size_t whole = len / kBlockSize - (tail != 0 ? 1 : 0);
    blocks(tweak, in, out, whole);

    if (tail != 0) {
        const uint8_t* last_in = in + whole * kBlockSize; // last whole block, then the tail
        uint8_t* last_out = out + whole * kBlockSize;
        uint8_t a[kBlockSize];
        uint8_t b[kBlockSize];
        if (encrypt_) {
            // CC = E(P_{m-1}) under T_{m-1}; the tail of the ciphertext is
            // CC's head, and P_m padded with CC's remainder is enciphered
            // under T_m into block m-1.
            blocks(tweak, last_in, a, 1); // tweak becomes T_m
            std::memcpy(b, last_in + kBlockSize, tail);
            std::memcpy(b + tail, a + tail, kBlockSize - tail);
            std::memcpy(last_out + kBlockSize, a, tail);
            blocks(tweak, b, last_out, 1);
        } else {
            // Decryption needs T_m before T_{m-1}: block m-1 was enciphered
            // under T_m.
            uint8_t next[kBlockSize];
            std::memcpy(next, tweak, kBlockSize);
            generic::xts_mul_alpha(next, gb_);
            blocks(next, last_in, a, 1);
            std::memcpy(b, last_in + kBlockSize, tail);
            std::memcpy(b + tail, a + tail, kBlockSize - tail);
            std::memcpy(last_out + kBlockSize, a, tail);
            blocks(tweak, b, last_out, 1);
            wipe(next, sizeof next);
        }
        wipe(a, sizeof a);
        wipe(b, sizeof b);
    }
    wipe(tweak, sizeof tweak);
}

int XtsCtx::update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl) {
    *outl = 0;
    if (outsize < inl) {
        HWC_RAISE(prov_, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", inl, outsize);
        return 0;
    }
    if (!key_set_) {
        HWC_RAISE(prov_, kErrNoKeySet);
        return 0;
    }
    if (!iv_set_) {
        HWC_RAISE(prov_, kErrNoIvSet);
        return 0;
    }
    // Zero bytes is not a data unit either: the default provider fails it too.
    if (in == nullptr || out == nullptr || inl < kBlockSize) {
        HWC_RAISE(prov_, kErrInvalidInputLength, "an xts data unit is at least %zu bytes, got %zu",
                  kBlockSize, in == nullptr ? size_t(0) : inl);
        return 0;
    }
    if (inl > kMaxDataUnitBlocks * kBlockSize) {
        HWC_RAISE(prov_, kErrXtsDataUnitTooLarge, "%zu bytes", inl);
        return 0;
    }
    crypt(in, out, inl);
    *outl = inl;
    return 1;
}

int XtsCtx::get_ctx_params(OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    OSSL_PARAM* p;
    // The default provider's generic answers: padding 1, num 0, and the IV
    // unchanged by processing (each update restarts from it).
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, key_len())) {
        HWC_RAISE(prov_, kErrInvalidParam, "keylen");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, kBlockSize)) {
        HWC_RAISE(prov_, kErrInvalidParam, "ivlen");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_PADDING)) != nullptr &&
        !OSSL_PARAM_set_uint(p, 1)) {
        HWC_RAISE(prov_, kErrInvalidParam, "padding");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_NUM)) != nullptr &&
        !OSSL_PARAM_set_uint(p, 0)) {
        HWC_RAISE(prov_, kErrInvalidParam, "num");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_IV)) != nullptr &&
        !set_octets(p, iv_, kBlockSize)) {
        HWC_RAISE(prov_, kErrInvalidParam, "iv");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_UPDATED_IV)) != nullptr &&
        !set_octets(p, iv_, kBlockSize)) {
        HWC_RAISE(prov_, kErrInvalidParam, "updated-iv");
        return 0;
    }
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_TLS_MAC)) != nullptr &&
        !OSSL_PARAM_set_octet_ptr(p, nullptr, 0)) {
        HWC_RAISE(prov_, kErrInvalidParam, "tls-mac");
        return 0;
    }
    return 1;
}

int XtsCtx::set_ctx_params(const OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    const OSSL_PARAM* p;
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != nullptr) {
        size_t keylen;
        if (!OSSL_PARAM_get_size_t(p, &keylen) || keylen != key_len()) {
            HWC_RAISE(prov_, kErrInvalidKeyLength, "key length is fixed at %zu", key_len());
            return 0;
        }
    }
    if ((p = param_locate(params, kParamXtsStandard)) != nullptr) {
        const char* s = nullptr;
        if (p->data_type != OSSL_PARAM_UTF8_STRING || !OSSL_PARAM_get_utf8_string_ptr(p, &s)) {
            HWC_RAISE(prov_, kErrInvalidParam, "xts_standard must be a string");
            return 0;
        }
        if (equals_nocase(s, "IEEE")) {
            gb_ = false;
        } else if (equals_nocase(s, "GB") && row_->family == Family::sm4) {
            gb_ = true;
        } else {
            HWC_RAISE(prov_, kErrInvalidParam, "xts_standard \"%s\" (want %s)", s,
                      row_->family == Family::sm4 ? "\"GB\" or \"IEEE\""
                                                  : "\"IEEE\"; GB is for SM4-XTS");
            return 0;
        }
    }
    return 1;
}

const OSSL_PARAM* xts_gettable_params() {
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

// AES-XTS lists keylen; SM4-XTS lists xts_standard. The list is per mode
// family, so both are here (xts_standard accepts only "IEEE" outside SM4).
const OSSL_PARAM* xts_settable_params() {
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
        OSSL_PARAM_utf8_string(kParamXtsStandard, nullptr, 0),
        OSSL_PARAM_END,
    };
    return list;
}

} // namespace

const ModeOps kXtsModeOps = {
    [](const ProvCtx* prov, const AlgorithmRow& row) -> CipherCtx* {
        return new (std::nothrow) XtsCtx(prov, row);
    },
    &xts_gettable_params,
    &xts_settable_params,
};

} // namespace hwc
