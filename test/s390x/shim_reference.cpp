// SPDX-License-Identifier: Apache-2.0
// OpenSSL default-provider references and granularities for the shim tests.
#include "test/s390x/shim_reference.h"

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

namespace hwc::test::shimref {

std::string aes_name(size_t keylen, const char* mode) {
    return "AES-" + std::to_string(keylen * 8) + "-" + mode;
}

Bytes evp(const std::string& name, const Bytes& key, const Bytes& iv, const Bytes& in, bool enc) {
    EVP_CIPHER* c = fetch_default(name);
    EXPECT_NE(c, nullptr) << name;
    if (c == nullptr) return {};
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    Bytes out(in.size() + 2 * B);
    int n = 0, fin = 0;
    bool ok = EVP_CipherInit_ex2(ctx, c, key.data(), iv.empty() ? nullptr : iv.data(), enc ? 1 : 0,
                                 nullptr) == 1 &&
              EVP_CIPHER_CTX_set_padding(ctx, 0) == 1;
    if (ok && !in.empty())
        ok = EVP_CipherUpdate(ctx, out.data(), &n, in.data(), static_cast<int>(in.size())) == 1;
    ok = ok && EVP_CipherFinal_ex(ctx, out.data() + n, &fin) == 1;
    EXPECT_TRUE(ok) << name << ": " << take_errors();
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    out.resize(static_cast<size_t>(n + fin));
    return out;
}

Sealed evp_gcm(const Bytes& key, const Bytes& iv, const Bytes& aad, const Bytes& pt) {
    const std::string name = aes_name(key.size(), "GCM");
    EVP_CIPHER* c = fetch_default(name);
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    size_t ivlen = iv.size();
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
        OSSL_PARAM_construct_end(),
    };
    Sealed s{Bytes(pt.size() + B), Bytes(B)};
    int n = 0, fin = 0;
    bool ok = c != nullptr && EVP_EncryptInit_ex2(ctx, c, nullptr, nullptr, params) == 1 &&
              EVP_EncryptInit_ex2(ctx, nullptr, key.data(), iv.data(), nullptr) == 1;
    if (ok && !aad.empty())
        ok = EVP_EncryptUpdate(ctx, nullptr, &n, aad.data(), static_cast<int>(aad.size())) == 1;
    n = 0;
    if (ok && !pt.empty())
        ok = EVP_EncryptUpdate(ctx, s.ct.data(), &n, pt.data(), static_cast<int>(pt.size())) == 1;
    ok = ok && EVP_EncryptFinal_ex(ctx, s.ct.data() + n, &fin) == 1 &&
         EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, static_cast<int>(B), s.tag.data()) == 1;
    EXPECT_TRUE(ok) << name << ": " << take_errors();
    s.ct.resize(static_cast<size_t>(n + fin));
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    return s;
}

Bytes evp_cmac(const Bytes& key, const Bytes& msg) {
    EVP_MAC* mac = EVP_MAC_fetch(libctx(), "CMAC", "provider=default");
    EVP_MAC_CTX* ctx = mac ? EVP_MAC_CTX_new(mac) : nullptr;
    std::string cipher = aes_name(key.size(), "CBC");
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, cipher.data(), 0),
        OSSL_PARAM_construct_end(),
    };
    Bytes out(B);
    size_t outl = 0;
    bool ok = ctx != nullptr && EVP_MAC_init(ctx, key.data(), key.size(), params) == 1;
    if (ok && !msg.empty()) ok = EVP_MAC_update(ctx, msg.data(), msg.size()) == 1;
    ok = ok && EVP_MAC_final(ctx, out.data(), &outl, out.size()) == 1;
    EXPECT_TRUE(ok) << "CMAC: " << take_errors();
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    return out;
}

std::string Granularity::label() const {
    std::string s = bytes == 0 ? "never" : std::to_string(bytes) + " bytes";
    if (from_environment)
        s += " (HWCIPHER_SHIM_PARTIAL=" + std::string(cpacf_shim::partial_setting()) + ")";
    return "partial completion: " + s;
}

std::vector<Granularity> granularities() {
    std::vector<Granularity> g{{true, cpacf_shim::partial_budget()}};
    for (size_t b : {0, 16, 48, 80, 24}) g.push_back({false, b});
    return g;
}

} // namespace hwc::test::shimref
