// SPDX-License-Identifier: Apache-2.0
// Test helpers for CCM (included by test_ccm_*.cpp): one message through
// EVP in OpenSSL's documented CCM call order, for any provider's cipher.
#pragma once

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <memory>
#include <string>

#include "test/support/ossl_env.h"

namespace hwc::test::ccm {

using CtxPtr = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;
inline CtxPtr new_ctx() { return CtxPtr(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free); }

// Never hand EVP a null data pointer for an empty message: in CCM a null
// input means "length declaration" or "final".
inline const uint8_t* nz(const Bytes& b) {
    static const uint8_t dummy[1] = {0};
    return b.empty() ? dummy : b.data();
}

// Setup order of the OpenSSL CCM documentation: nonce and tag lengths
// before the key, then total length, AAD (one call), data (one call).
// `out` receives the output even on failure (to check the wipe).
inline bool run(const EVP_CIPHER* c, bool enc, const Bytes& key, const Bytes& nonce,
                const Bytes& aad, const Bytes& in, size_t taglen, Bytes& tag, Bytes& out,
                bool declare_length = true) {
    CtxPtr ctx = new_ctx();
    out.assign(in.size() + 1, 0xA5);
    int outl = 0;
    if (EVP_CipherInit_ex2(ctx.get(), c, nullptr, nullptr, enc, nullptr) != 1) return false;
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(nonce.size()),
                            nullptr) != 1)
        return false;
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, static_cast<int>(taglen),
                            enc ? nullptr : tag.data()) != 1)
        return false;
    if (EVP_CipherInit_ex2(ctx.get(), nullptr, key.data(), nonce.data(), enc, nullptr) != 1)
        return false;
    if (declare_length &&
        EVP_CipherUpdate(ctx.get(), nullptr, &outl, nullptr, static_cast<int>(in.size())) != 1)
        return false;
    if (!aad.empty() &&
        EVP_CipherUpdate(ctx.get(), nullptr, &outl, aad.data(), static_cast<int>(aad.size())) != 1)
        return false;
    if (EVP_CipherUpdate(ctx.get(), out.data(), &outl, nz(in), static_cast<int>(in.size())) != 1)
        return false;
    if (static_cast<size_t>(outl) != in.size()) return false;
    int fl = -1;
    if (EVP_CipherFinal_ex(ctx.get(), out.data() + outl, &fl) != 1 || fl != 0) return false;
    out.resize(in.size());
    if (enc) {
        tag.assign(taglen, 0);
        if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, static_cast<int>(taglen),
                                tag.data()) != 1)
            return false;
    }
    return true;
}

inline bool encrypt(const EVP_CIPHER* c, const Bytes& key, const Bytes& nonce, const Bytes& aad,
                    const Bytes& pt, size_t taglen, Bytes& ct, Bytes& tag) {
    return run(c, true, key, nonce, aad, pt, taglen, tag, ct);
}

inline bool decrypt(const EVP_CIPHER* c, const Bytes& key, const Bytes& nonce, const Bytes& aad,
                    const Bytes& ct, const Bytes& tag, Bytes& pt) {
    Bytes t = tag;
    return run(c, false, key, nonce, aad, ct, tag.size(), t, pt);
}

// After a failed decryption the first `n` output bytes are either never
// written (run() pre-fills 0xA5) or wiped to zero: no plaintext escapes.
inline bool untouched_or_wiped(const Bytes& b, size_t n) {
    bool zero = true, fill = true;
    for (size_t i = 0; i < n && i < b.size(); ++i) {
        zero = zero && b[i] == 0;
        fill = fill && b[i] == 0xA5;
    }
    return zero || fill;
}

} // namespace hwc::test::ccm
