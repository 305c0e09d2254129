// SPDX-License-Identifier: Apache-2.0
// The base of the AEAD contexts (CCM, OCB, GCM, and SIV/GCM-SIV through
// siv_base.h): the tag -- computed on encryption, expected on decryption --
// and its length; and TlsAeadCtx, the TLS 1.2 record parameters CCM and GCM
// take, with their shared rows.
#pragma once

#include <cstring>

#include "provider/params/cipher_params.h"

namespace hwc {

// The OR of the XORs of a's and b's first and last W-sized windows: zero
// exactly when their first n bytes are equal (sizeof(W) <= n <= 2 sizeof(W)).
template <class W>
W window_diff(const uint8_t* a, const uint8_t* b, size_t n) {
    W a0, a1, b0, b1;
    std::memcpy(&a0, a, sizeof(W));
    std::memcpy(&b0, b, sizeof(W));
    std::memcpy(&a1, a + n - sizeof(W), sizeof(W));
    std::memcpy(&b1, b + n - sizeof(W), sizeof(W));
    return (a0 ^ b0) | (a1 ^ b1);
}

// Whether the first n (4..16) bytes of two tags are equal, in constant time
// (the length is public; the bytes only pass through XOR and OR), with no
// library call per message.
inline bool tags_equal(const uint8_t* a, const uint8_t* b, size_t n) {
    return (n >= 8 ? window_diff<uint64_t>(a, b, n) : window_diff<uint32_t>(a, b, n)) == 0;
}

class AeadCtx : public KeyedCtx {
public:
    AeadCtx(const ProvCtx* prov, const AlgorithmRow& row, size_t taglen)
        : KeyedCtx(prov, row), taglen_(taglen) {}
    ~AeadCtx() override { wipe(tag_, sizeof tag_); }

    // EVP_Cipher(): in == NULL finishes, out == NULL is AAD, as update/final.
    int cipher(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override {
        return in == nullptr ? final(out, outl, outsize) : update(out, outl, outsize, in, inl);
    }

    size_t tag_length() const { return taglen_; } // "taglen"

protected:
    AeadCtx(const AeadCtx&) = default;

    uint8_t tag_[kBlockSize] = {};
    size_t taglen_;
    bool tag_set_ = false;   // decrypt: the expected tag is in tag_
    bool tag_ready_ = false; // encrypt: the computed tag is in tag_
};

// CCM and GCM in TLS 1.2 record mode: "tlsaad" makes the next update one
// whole record, in place: explicit nonce | payload | tag.
class TlsAeadCtx : public AeadCtx {
public:
    static constexpr size_t kTlsAadLen = 13;       // seq(8) | type | version(2) | length(2)
    static constexpr size_t kTlsFixedIvLen = 4;    // the salt from the key block
    static constexpr size_t kTlsExplicitIvLen = 8; // the nonce part each record carries

    using AeadCtx::AeadCtx;
    ~TlsAeadCtx() override { wipe(tls_aad_, sizeof tls_aad_); }

    size_t tls_aad_pad() const { return tls_aad_pad_; } // "tlsaadpad"

    // Rows (kTlsAeadGets, kTlsAeadSets).
    virtual bool set_tls_aad(const OSSL_PARAM& p) = 0;
    virtual bool set_tls_iv_fixed(const OSSL_PARAM& p) = 0;
    virtual bool set_tls_iv_inv(const OSSL_PARAM& p) = 0;
    virtual bool get_tls_iv_gen(OSSL_PARAM& p) = 0;
    // "iv-generated" (OpenSSL 3.4+): 1 when the provider made this IV (random,
    // or the TLS fixed part + generated field) since the last init, as the
    // default provider reports it; CCM nonces always come from the caller.
    bool get_iv_generated(OSSL_PARAM& p) { return OSSL_PARAM_set_uint(&p, iv_generated_ ? 1 : 0) == 1; }

protected:
    TlsAeadCtx(const TlsAeadCtx&) = default;

    // Keeps the record's AAD with its length field reduced to the payload's
    // (the record counts the explicit nonce and, received, the tag of
    // `tag_len` bytes); a record too short for them is refused with
    // `too_short`.
    bool take_tls_aad(const OSSL_PARAM& p, size_t tag_len, int too_short);

    uint8_t tls_aad_[kTlsAadLen] = {};
    bool tls_aad_set_ = false; // the next update is one whole TLS record
    size_t tls_aad_pad_ = 0;
    bool iv_generated_ = false;
};

// A nonce-based AEAD family F's own rows: "tag" answered by F::get_tag,
// "tag" and "ivlen" accepted by F::set_tag and F::set_ivlen.
template <class F>
inline constexpr std::array kTagGets{
    CipherGetter{OSSL_CIPHER_PARAM_AEAD_TAG, kOctets, member<&F::get_tag>}};
template <class F>
inline constexpr std::array kTagSets{
    CipherSetter{OSSL_CIPHER_PARAM_AEAD_TAG, kOctets, member<&F::set_tag>},
    CipherSetter{OSSL_CIPHER_PARAM_AEAD_IVLEN, kSizeT, member<&F::set_ivlen>}};

// The default provider's TLS rows for CCM and GCM.
inline constexpr std::array kTlsAeadGets{
    CipherGetter{OSSL_CIPHER_PARAM_AEAD_TLS1_AAD_PAD, kSizeT, &cipher_rows::get_tls_aad_pad},
    CipherGetter{OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, kOctets,
                 member<&TlsAeadCtx::get_tls_iv_gen>},
    CipherGetter{kParamIvGenerated, kUint, member<&TlsAeadCtx::get_iv_generated>},
};
inline constexpr std::array kTlsAeadSets{
    CipherSetter{OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, kOctets, member<&TlsAeadCtx::set_tls_aad>},
    CipherSetter{OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED, kOctets,
                 member<&TlsAeadCtx::set_tls_iv_fixed>},
    CipherSetter{OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV, kOctets,
                 member<&TlsAeadCtx::set_tls_iv_inv>},
};

} // namespace hwc
