// SPDX-License-Identifier: Apache-2.0
// AES-GCM-SIV known answers through EVP: Wycheproof aes_gcm_siv_test.json
// (128- and 256-bit keys, with RFC 8452's own vectors flagged Ktv, counter
// wrap cases and modified tags) and pyca's aes-192-gcm-siv.txt. Valid cases
// must encrypt to the expected ciphertext and tag and decrypt back; invalid
// ones must fail to decrypt and release no plaintext.
#include <gtest/gtest.h>

#include <openssl/evp.h>

#include <string>

#include "test/support/json.h"
#include "test/support/ossl_env.h"
#include "test/support/vectors.h"

namespace hwc::test {
namespace {

std::string gcm_siv_name(size_t keylen) { return "AES-" + std::to_string(keylen * 8) + "-GCM-SIV"; }

struct Result {
    bool ok = false;
    Bytes out, tag;
    std::string err;
};

// One message: AAD split in two updates (GCM-SIV concatenates them), data in
// one update, final; the tag is read (encrypt) or set before the data (decrypt).
Result run(const EVP_CIPHER* c, bool enc, const Bytes& key, const Bytes& nonce, const Bytes& aad,
           const Bytes& in, const Bytes& tag = {}) {
    Result r;
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    int outl = 0, fl = 0;
    r.out.assign(in.size() + 1, 0xa5);
    bool ok = EVP_CipherInit_ex2(ctx, c, key.data(), nonce.data(), enc ? 1 : 0, nullptr) == 1;
    if (ok && !enc)
        ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(tag.size()),
                                 const_cast<uint8_t*>(tag.data())) == 1;
    const size_t half = random_below(aad.size() + 1);
    ok = ok && EVP_CipherUpdate(ctx, nullptr, &outl, aad.data(), static_cast<int>(half)) == 1;
    ok = ok && EVP_CipherUpdate(ctx, nullptr, &outl, aad.data() + half, static_cast<int>(aad.size() - half)) == 1;
    ok = ok && EVP_CipherUpdate(ctx, r.out.data(), &outl, in.data(), static_cast<int>(in.size())) == 1 &&
         outl == static_cast<int>(in.size());
    ok = ok && EVP_CipherFinal_ex(ctx, r.out.data() + in.size(), &fl) == 1 && fl == 0;
    if (ok && enc) {
        r.tag.assign(16, 0);
        ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, r.tag.data()) == 1;
    }
    if (!ok) {
        r.err = take_errors();
        for (size_t i = 0; !enc && i < in.size(); ++i)
            if (r.out[i] != 0 && r.out[i] != 0xa5) {
                r.err += " [plaintext byte released at " + std::to_string(i) + "]";
                break;
            }
    }
    r.out.resize(in.size());
    r.ok = ok;
    EVP_CIPHER_CTX_free(ctx);
    return r;
}

TEST(GcmSivWycheproof, AesGcmSivTest) {
    const json::Value doc = json::load_file(vec::path("wycheproof/testvectors_v1/aes_gcm_siv_test.json"));
    const json::Value& groups = doc["testGroups"];
    size_t valid = 0, invalid = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
        const json::Value& tests = groups[g]["tests"];
        for (size_t t = 0; t < tests.size(); ++t) {
            const json::Value& tc = tests[t];
            SCOPED_TRACE("tcId " + std::to_string(static_cast<int>(tc["tcId"].num())) + " " + tc["comment"].str());
            const Bytes key = from_hex(tc["key"].str()), iv = from_hex(tc["iv"].str());
            const Bytes aad = from_hex(tc["aad"].str()), msg = from_hex(tc["msg"].str());
            const Bytes ct = from_hex(tc["ct"].str()), tag = from_hex(tc["tag"].str());
            const bool is_valid = tc["result"].str() == "valid";
            vec::Cipher c(fetch_hwcipher, gcm_siv_name(key.size()));
            ASSERT_TRUE(c) << gcm_siv_name(key.size()) << " missing";
            if (is_valid) {
                const Result e = run(c.c, true, key, iv, aad, msg);
                ASSERT_TRUE(e.ok) << e.err;
                EXPECT_EQ(to_hex(e.out), to_hex(ct));
                EXPECT_EQ(to_hex(e.tag), to_hex(tag));
            }
            const Result d = run(c.c, false, key, iv, aad, ct, tag);
            if (is_valid) {
                EXPECT_TRUE(d.ok) << d.err;
                EXPECT_EQ(to_hex(d.out), to_hex(msg));
                ++valid;
            } else {
                EXPECT_FALSE(d.ok);
                EXPECT_EQ(d.err.find("plaintext byte released"), std::string::npos) << d.err;
                ++invalid;
            }
        }
    }
    EXPECT_EQ(valid, 136u);
    EXPECT_EQ(invalid, 66u);
}

TEST(GcmSivPyca, Aes192GcmSiv) {
    const auto recs = vec::parse_rsp(vec::path("pyca-cryptography/ciphers/AES/GCM-SIV/aes-192-gcm-siv.txt"));
    vec::Cipher c(fetch_hwcipher, "AES-192-GCM-SIV");
    ASSERT_TRUE(c);
    size_t n = 0;
    for (const auto& r : recs) {
        SCOPED_TRACE(r.where());
        const Bytes key = r.hex("KEY"), iv = r.hex("IV");
        const Bytes aad = r.has("AAD") ? r.hex("AAD") : Bytes{};
        const Bytes pt = r.has("PLAINTEXT") ? r.hex("PLAINTEXT") : Bytes{};
        const Bytes ct = r.has("CIPHERTEXT") ? r.hex("CIPHERTEXT") : Bytes{};
        const Bytes tag = r.hex("TAG");
        ASSERT_EQ(key.size(), 24u);
        const Result e = run(c.c, true, key, iv, aad, pt);
        ASSERT_TRUE(e.ok) << e.err;
        EXPECT_EQ(to_hex(e.out), to_hex(ct));
        EXPECT_EQ(to_hex(e.tag), to_hex(tag));
        const Result d = run(c.c, false, key, iv, aad, ct, tag);
        ASSERT_TRUE(d.ok) << d.err;
        EXPECT_EQ(to_hex(d.out), to_hex(pt));
        Bytes bad = tag;
        bad[random_below(16)] ^= static_cast<uint8_t>(1u << random_below(8));
        EXPECT_FALSE(run(c.c, false, key, iv, aad, ct, bad).ok);
        take_errors();
        ++n;
    }
    EXPECT_EQ(n, 46u);
}

} // namespace
} // namespace hwc::test
