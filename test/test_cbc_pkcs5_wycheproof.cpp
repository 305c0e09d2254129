// SPDX-License-Identifier: Apache-2.0
// Wycheproof aes_cbc_pkcs5_test.json through hwcipher's AES-n-CBC with
// padding on: valid cases must encrypt to `ct` and decrypt back; invalid ones
// (bad padding, wrong lengths) must fail to decrypt with a reason queued.
#include <gtest/gtest.h>

#include <openssl/evp.h>

#include <memory>
#include <string>

#include "test/support/json.h"
#include "test/support/ossl_env.h"

namespace {

using namespace hwc::test;

struct Outcome {
    bool ok;
    Bytes out;
};

Outcome run(EVP_CIPHER* c, bool enc, const Bytes& key, const Bytes& iv, const Bytes& in) {
    std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)> ctx(EVP_CIPHER_CTX_new(),
                                                                       EVP_CIPHER_CTX_free);
    Bytes out(in.size() + 32);
    int l = 0, f = 0;
    const bool ok = ctx && EVP_CipherInit_ex2(ctx.get(), c, key.data(), iv.data(), enc, nullptr) &&
                    EVP_CipherUpdate(ctx.get(), out.data(), &l, in.data(), static_cast<int>(in.size())) &&
                    EVP_CipherFinal_ex(ctx.get(), out.data() + l, &f);
    out.resize(ok ? static_cast<size_t>(l + f) : 0);
    return {ok, out};
}

TEST(WycheproofCbcPkcs5, AllGroups) {
    const auto doc = json::load_file(vectors_dir() + "/wycheproof/testvectors_v1/aes_cbc_pkcs5_test.json");
    size_t valid = 0, invalid = 0;
    for (const auto& group : doc["testGroups"].items()) {
        const int bits = static_cast<int>(group["keySize"].num());
        const std::string name = "AES-" + std::to_string(bits) + "-CBC";
        std::unique_ptr<EVP_CIPHER, decltype(&EVP_CIPHER_free)> c(fetch_hwcipher(name), EVP_CIPHER_free);
        ASSERT_TRUE(c) << name;
        for (const auto& t : group["tests"].items()) {
            const int id = static_cast<int>(t["tcId"].num());
            SCOPED_TRACE("tcId " + std::to_string(id) + " " + t["comment"].str());
            const Bytes key = from_hex(t["key"].str()), iv = from_hex(t["iv"].str());
            const Bytes msg = from_hex(t["msg"].str()), ct = from_hex(t["ct"].str());
            const Outcome dec = run(c.get(), false, key, iv, ct);
            if (t["result"].str() == "valid") {
                ++valid;
                const Outcome encd = run(c.get(), true, key, iv, msg);
                ASSERT_TRUE(encd.ok) << take_errors();
                EXPECT_EQ(to_hex(encd.out), to_hex(ct));
                ASSERT_TRUE(dec.ok) << take_errors();
                EXPECT_EQ(to_hex(dec.out), to_hex(msg));
            } else {
                ++invalid;
                EXPECT_FALSE(dec.ok) << "invalid ciphertext decrypted";
                EXPECT_FALSE(take_errors().empty()) << "failure without a reason";
            }
            take_errors();
        }
    }
    // 216 cases in the published file; all of them must have run.
    EXPECT_EQ(valid + invalid, static_cast<size_t>(doc["numberOfTests"].num()));
    EXPECT_GT(valid, 0u);
    EXPECT_GT(invalid, 0u);
    RecordProperty("valid", static_cast<int>(valid));
    RecordProperty("invalid", static_cast<int>(invalid));
}

} // namespace
