// SPDX-License-Identifier: Apache-2.0
// The base of the AEAD contexts (CCM, OCB, GCM, and SIV/GCM-SIV through
// siv_base.h): the tag -- computed on encryption, expected on decryption --
// its length, and the TLS 1.2 record AAD that CCM and GCM take.
#pragma once

#include "provider/modes/keyed_ctx.h"

namespace hwc {

class AeadCtx : public KeyedCtx {
public:
    static constexpr size_t kTlsAadLen = 13;       // seq(8) | type | version(2) | length(2)
    static constexpr size_t kTlsFixedIvLen = 4;    // the salt from the key block
    static constexpr size_t kTlsExplicitIvLen = 8; // the nonce part each record carries

    AeadCtx(const ProvCtx* prov, const AlgorithmRow& row, size_t taglen)
        : KeyedCtx(prov, row), taglen_(taglen) {}
    ~AeadCtx() override;

    // EVP_Cipher(): in == NULL finishes, out == NULL is AAD, as update/final.
    int cipher(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override {
        return in == nullptr ? final(out, outl, outsize) : update(out, outl, outsize, in, inl);
    }

    size_t tag_length() const { return taglen_; }  // "taglen"
    size_t tls_aad_pad() const { return tls_aad_pad_; } // "tlsaadpad"

protected:
    AeadCtx(const AeadCtx&) = default;

    // "tlsaad": keeps the record's 13-byte AAD with its length field reduced
    // to the payload's (the record counts the explicit nonce and, received,
    // the tag of `tag_len` bytes); a record too short for them is refused
    // with `too_short`.
    bool take_tls_aad(const OSSL_PARAM& p, size_t tag_len, int too_short);

    uint8_t tag_[kBlockSize] = {};
    size_t taglen_;
    bool tag_set_ = false;   // decrypt: the expected tag is in tag_
    bool tag_ready_ = false; // encrypt: the computed tag is in tag_
    uint8_t tls_aad_[kTlsAadLen] = {};
    bool tls_aad_set_ = false; // the next update is one whole TLS record
    size_t tls_aad_pad_ = 0;
};

} // namespace hwc
