// SPDX-License-Identifier: Apache-2.0
// Test helpers for OCB (included by test_ocb_*.cpp): one message through EVP
// with AAD and data fed in caller-chosen pieces, recording every outl.
#pragma once

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "test/support/ossl_env.h"

namespace hwc::test::ocb {

using CtxPtr = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;
inline CtxPtr new_ctx() { return CtxPtr(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free); }

struct Result {
    bool ok = false;
    Bytes out;              // ciphertext or plaintext (all of it, final included)
    Bytes tag;              // encrypt: the tag read after final
    std::vector<int> outls; // per update call, then final
};

// `aad_cuts` / `data_cuts` are piece sizes (the rest goes in a last piece).
inline Result run(const EVP_CIPHER* c, bool enc, const Bytes& key, const Bytes& nonce,
                  const Bytes& aad, const Bytes& in, size_t taglen, const Bytes& tag_in,
                  const std::vector<size_t>& aad_cuts = {},
                  const std::vector<size_t>& data_cuts = {}) {
    Result r;
    CtxPtr ctx = new_ctx();
    EVP_CIPHER_CTX* x = ctx.get();
    if (EVP_CipherInit_ex2(x, c, nullptr, nullptr, enc, nullptr) != 1) return r;
    if (nonce.size() != 12 &&
        EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(nonce.size()), nullptr) != 1)
        return r;
    if (EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(taglen), nullptr) != 1)
        return r;
    if (!enc && EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(tag_in.size()),
                                    const_cast<uint8_t*>(tag_in.data())) != 1)
        return r;
    if (EVP_CipherInit_ex2(x, nullptr, key.data(), nonce.data(), enc, nullptr) != 1) return r;
    auto feed = [&](const Bytes& src, const std::vector<size_t>& cuts, bool is_aad) {
        size_t off = 0;
        auto one = [&](size_t n) {
            int outl = 0;
            const size_t at = r.out.size();
            if (!is_aad) r.out.resize(at + n + 16);
            if (EVP_CipherUpdate(x, is_aad ? nullptr : r.out.data() + at, &outl,
                                 src.data() + off, static_cast<int>(n)) != 1)
                return false;
            if (!is_aad) r.out.resize(at + static_cast<size_t>(outl));
            r.outls.push_back(outl);
            off += n;
            return true;
        };
        for (size_t p : cuts)
            if (!one(std::min(p, src.size() - off))) return false;
        return off == src.size() || one(src.size() - off);
    };
    if (!aad.empty() && !feed(aad, aad_cuts, true)) return r;
    if (!in.empty() && !feed(in, data_cuts, false)) return r;
    const size_t at = r.out.size();
    r.out.resize(at + 16);
    int fl = 0;
    if (EVP_CipherFinal_ex(x, r.out.data() + at, &fl) != 1) return r;
    r.out.resize(at + fl);
    r.outls.push_back(fl);
    if (enc) {
        r.tag.assign(taglen, 0);
        if (EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, static_cast<int>(taglen), r.tag.data()) != 1)
            return r;
    }
    r.ok = true;
    return r;
}

// Random cut points for a buffer of `n` bytes (0..3 pieces before the rest).
inline std::vector<size_t> random_cuts(size_t n) {
    std::vector<size_t> cuts;
    const size_t k = random_below(4);
    for (size_t i = 0; i < k && n != 0; ++i) cuts.push_back(random_below(n / 2 + 1));
    return cuts;
}

} // namespace hwc::test::ocb
