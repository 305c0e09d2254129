// SPDX-License-Identifier: Apache-2.0
// The shared shape of the nonce-misuse-resistant AEADs, SIV (RFC 5297) and
// GCM-SIV (RFC 8452): the tag is computed over the whole message before any
// output exists, so the data arrives in one update (openssl-provider-
// contract.md §2.4). This base owns the EVP-facing state machine: direction,
// AAD-before-data, one data update (unless "speed"), the 16-byte tag (result
// on encrypt, expected value set before decrypt), failure wiping and the
// parameters; mode_siv.cpp and mode_gcm_siv.cpp supply the cryptography.
#pragma once

#include "cores/core.h"
#include "provider/modes/cipher_ctx.h"

namespace hwc {

class SivBaseCtx : public CipherCtx {
public:
    static constexpr size_t kTagLen = 16;

    ~SivBaseCtx() override;

    int init(bool encrypt, const uint8_t* key, size_t keylen, const uint8_t* iv, size_t ivlen,
             const OSSL_PARAM params[]) override;
    int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override;
    int final(uint8_t* out, size_t* outl, size_t outsize) override;
    // EVP_Cipher(): in == NULL finishes, out == NULL is AAD (as the default).
    int cipher(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl) override;
    int get_ctx_params(OSSL_PARAM params[]) override;
    int set_ctx_params(const OSSL_PARAM params[]) override;

    // Parameter lists: SIV mirrors the default provider's AES-SIV; GCM-SIV
    // (3.2+) adds ivlen to the gettable list.
    static const OSSL_PARAM* siv_gettable_params();
    static const OSSL_PARAM* gcm_siv_gettable_params();
    static const OSSL_PARAM* settable_params();

protected:
    SivBaseCtx(const ProvCtx* prov, const AlgorithmRow& row);
    SivBaseCtx(const SivBaseCtx&) = default;

    // ---- what a mode supplies -------------------------------------------------
    virtual size_t nonce_len() const = 0;                   // 0: no nonce (SIV)
    virtual bool set_key(const uint8_t* key, size_t keylen) = 0; // length already checked
    virtual void set_nonce(const uint8_t* nonce) = 0;        // nonce_len() bytes
    virtual void start_message() = 0;                        // forget AAD
    // One AAD update; false (with an error raised) if the mode refuses it.
    virtual bool add_aad(const uint8_t* in, size_t len) = 0;
    // The data step. Neither may consume the AAD state: with "speed" every
    // data update is a separate message under the same AAD. seal returns
    // false (with an error raised, nothing written) if the mode refuses the
    // input, e.g. past a length limit.
    virtual bool seal(const uint8_t* in, uint8_t* out, size_t len, uint8_t tag[kTagLen]) = 0;
    // Decrypts into `out` and compares tags in constant time; on false the
    // caller wipes `out` (a mode refusing the input raises its own error
    // first).
    virtual bool open(const uint8_t* in, uint8_t* out, size_t len, const uint8_t tag[kTagLen]) = 0;

    const ProvCtx* prov_;
    const AlgorithmRow* row_;
    const BlockCore* core_;
    bool key_set_ = false;
    bool nonce_set_ = false;

private:
    bool ready();
    bool data_step(const uint8_t* in, uint8_t* out, size_t len);

    bool encrypt_ = true;
    bool speed_ = false;
    bool data_done_ = false;  // the message's data update has happened
    bool tag_ready_ = false;  // encrypt: tag_ holds the computed tag
    bool expected_ = false;   // decrypt: tag_ holds the expected tag
    bool failed_ = false;     // decrypt: the last data step did not authenticate
    uint8_t tag_[kTagLen] = {};
};

// Constant-time equality of two 16-byte tags (no early exit on a mismatch).
bool tags_equal(const uint8_t a[16], const uint8_t b[16]);

} // namespace hwc
