// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the test_gcm_* and test_gmac_* files: one-shot and
// split GCM encryption/decryption through EVP, identical for any provider.
#pragma once

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "test/support/ossl_env.h"

namespace hwc::test::gcm {

using CipherPtr = std::unique_ptr<EVP_CIPHER, decltype(&EVP_CIPHER_free)>;
using CtxPtr = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

inline CipherPtr hw(const std::string& name) { return {fetch_hwcipher(name), EVP_CIPHER_free}; }
inline CipherPtr def(const std::string& name) { return {fetch_default(name), EVP_CIPHER_free}; }
inline CtxPtr new_ctx() { return {EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free}; }

// Chunk sizes for feeding `total` bytes: one piece when `split` is false,
// otherwise random pieces (some empty, some crossing block boundaries).
inline std::vector<size_t> pieces(size_t total, bool split) {
    std::vector<size_t> out;
    if (!split) {
        out.push_back(total);
        return out;
    }
    size_t left = total;
    while (left != 0) {
        const size_t n = std::min(left, random_below(3) == 0 ? random_below(4) : random_below(70));
        out.push_back(n);
        left -= n;
    }
    return out;
}

// A GCM block, and X * Y in GF(2^128) in GCM's bit order (bit 0 is the MSB
// of byte 0), bit-serial as SP 800-38D Algorithm 1 writes it: the reference
// the GHASH tests check against and the arithmetic that solves for IVs.
using Block = std::array<uint8_t, 16>;

inline Block gf_mul(const Block& x, const Block& y) {
    Block z{}, v = y;
    for (int i = 0; i < 128; ++i) {
        if ((x[i / 8] >> (7 - i % 8)) & 1)
            for (int k = 0; k < 16; ++k) z[k] ^= v[k];
        const bool lsb = v[15] & 1;
        for (int k = 15; k > 0; --k) v[k] = static_cast<uint8_t>((v[k] >> 1) | (v[k - 1] << 7));
        v[0] >>= 1;
        if (lsb) v[0] ^= 0xE1;
    }
    return z;
}

struct Message {
    Bytes key, iv, aad, in; // in: plaintext (encrypt) or ciphertext (decrypt)
};

// Initialises ctx for GCM with any IV length (set before the IV, as apps do).
inline bool gcm_init(EVP_CIPHER_CTX* ctx, const EVP_CIPHER* c, const Bytes& key, const Bytes& iv,
                     bool enc) {
    if (!EVP_CipherInit_ex(ctx, c, nullptr, nullptr, nullptr, enc ? 1 : 0)) return false;
    if (iv.size() != 12 &&
        EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(iv.size()), nullptr) <= 0)
        return false;
    return EVP_CipherInit_ex(ctx, nullptr, nullptr, key.data(), iv.data(), enc ? 1 : 0) == 1;
}

// Feeds AAD then data in pieces; `inplace` works on a copy of the input.
inline bool feed(EVP_CIPHER_CTX* ctx, const Message& m, Bytes& out, bool split, bool inplace) {
    size_t off = 0;
    for (size_t n : pieces(m.aad.size(), split)) {
        int outl = -1;
        if (!EVP_CipherUpdate(ctx, nullptr, &outl, m.aad.data() + off, static_cast<int>(n)))
            return false;
        if (outl != static_cast<int>(n)) return false;
        off += n;
    }
    out = m.in;
    if (!inplace) std::fill(out.begin(), out.end(), 0xEE);
    off = 0;
    for (size_t n : pieces(m.in.size(), split)) {
        int outl = -1;
        const uint8_t* src = inplace ? out.data() + off : m.in.data() + off;
        if (!EVP_CipherUpdate(ctx, out.data() + off, &outl, src, static_cast<int>(n))) return false;
        if (outl != static_cast<int>(n)) return false;
        off += n;
    }
    return true;
}

inline bool encrypt(const EVP_CIPHER* c, const Message& m, Bytes& ct, Bytes& tag,
                    size_t taglen = 16, bool split = false, bool inplace = false) {
    CtxPtr ctx = new_ctx();
    if (!gcm_init(ctx.get(), c, m.key, m.iv, true) || !feed(ctx.get(), m, ct, split, inplace))
        return false;
    uint8_t fin[16];
    int outl = -1;
    if (!EVP_CipherFinal_ex(ctx.get(), fin, &outl) || outl != 0) return false;
    tag.assign(taglen, 0);
    return EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, static_cast<int>(taglen),
                               tag.data()) == 1;
}

// True only when the tag verifies; `pt` holds what update released.
inline bool decrypt(const EVP_CIPHER* c, const Message& m, const Bytes& tag, Bytes& pt,
                    bool split = false, bool inplace = false) {
    CtxPtr ctx = new_ctx();
    if (!gcm_init(ctx.get(), c, m.key, m.iv, false)) return false;
    Bytes t = tag;
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, static_cast<int>(t.size()),
                            t.data()) != 1)
        return false;
    if (!feed(ctx.get(), m, pt, split, inplace)) return false;
    uint8_t fin[16];
    int outl = -1;
    return EVP_CipherFinal_ex(ctx.get(), fin, &outl) == 1 && outl == 0;
}

} // namespace hwc::test::gcm
