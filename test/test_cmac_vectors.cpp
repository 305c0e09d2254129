// SPDX-License-Identifier: Apache-2.0
// CMAC known answers through EVP_MAC: NIST CAVP CMACGen/CMACVer, Wycheproof
// aes_cmac_test.json and the SP 800-38B examples (pyca), each MAC computed
// with the input split at a pseudo-random point so streaming is exercised.
#include <gtest/gtest.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <string>

#include "test/support/json.h"
#include "test/support/ossl_env.h"
#include "test/support/vectors.h"

namespace hwc::test {
namespace {

std::string aes_cbc(size_t keylen) { return "AES-" + std::to_string(keylen * 8) + "-CBC"; }

// CMAC of `msg` under `key` by hwcipher, fed in two updates split at `split`.
// Returns false (with the OpenSSL errors in `err`) if any step fails.
bool hw_cmac(const std::string& cipher, const Bytes& key, const Bytes& msg, size_t split,
             Bytes& tag, std::string& err) {
    EVP_MAC* mac = EVP_MAC_fetch(libctx(), "CMAC", "provider=hwcipher");
    if (mac == nullptr) {
        err = "CMAC not offered by hwcipher: " + take_errors();
        return false;
    }
    EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, const_cast<char*>(cipher.c_str()), 0),
        OSSL_PARAM_construct_end()};
    tag.assign(16, 0);
    size_t outl = 0;
    if (split > msg.size()) split = msg.size();
    const bool ok = ctx != nullptr && EVP_MAC_init(ctx, key.data(), key.size(), params) == 1 &&
                    EVP_MAC_update(ctx, msg.data(), split) == 1 &&
                    EVP_MAC_update(ctx, msg.data() + split, msg.size() - split) == 1 &&
                    EVP_MAC_final(ctx, tag.data(), &outl, tag.size()) == 1 && outl == 16;
    if (!ok) err = take_errors();
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    return ok;
}

Bytes prefix(const Bytes& b, size_t n) { return Bytes(b.begin(), b.begin() + std::min(n, b.size())); }

// ---- NIST CAVP ---------------------------------------------------------------

// The message field, cut to Mlen bytes (an empty message is written "00").
Bytes cavp_msg(const vec::Record& r) {
    Bytes m = r.hex("MSG");
    m.resize(std::stoul(r.get("MLEN")));
    return m;
}

class CmacCavpGen : public testing::TestWithParam<int> {};

TEST_P(CmacCavpGen, AllRecords) {
    const int bits = GetParam();
    const auto recs = vec::parse_rsp(vec::path("nist-cavp/cmac/CMACGenAES" + std::to_string(bits) + ".rsp"));
    size_t n = 0;
    for (const auto& r : recs) {
        SCOPED_TRACE(r.where());
        const Bytes key = r.hex("KEY");
        ASSERT_EQ(key.size() * 8, size_t(bits));
        const Bytes msg = cavp_msg(r);
        const size_t tlen = std::stoul(r.get("TLEN"));
        Bytes tag;
        std::string err;
        ASSERT_TRUE(hw_cmac(aes_cbc(key.size()), key, msg, random_below(msg.size() + 1), tag, err)) << err;
        EXPECT_EQ(to_hex(prefix(tag, tlen)), to_hex(r.hex("MAC")));
        ++n;
    }
    EXPECT_EQ(n, bits == 192 ? 144u : 96u) << "records consumed";
}
INSTANTIATE_TEST_SUITE_P(Aes, CmacCavpGen, testing::Values(128, 192, 256));

class CmacCavpVer : public testing::TestWithParam<int> {};

TEST_P(CmacCavpVer, PassAndFail) {
    const int bits = GetParam();
    const auto recs = vec::parse_rsp(vec::path("nist-cavp/cmac/CMACVerAES" + std::to_string(bits) + ".rsp"));
    size_t pass = 0, fail = 0;
    for (const auto& r : recs) {
        SCOPED_TRACE(r.where());
        const Bytes key = r.hex("KEY");
        const Bytes msg = cavp_msg(r);
        const size_t tlen = std::stoul(r.get("TLEN"));
        Bytes tag;
        std::string err;
        ASSERT_TRUE(hw_cmac(aes_cbc(key.size()), key, msg, random_below(msg.size() + 1), tag, err)) << err;
        const bool verified = prefix(tag, tlen) == r.hex("MAC");
        const std::string& result = r.get("RESULT");
        ASSERT_FALSE(result.empty());
        if (result[0] == 'P') {
            EXPECT_TRUE(verified);
            ++pass;
        } else {
            EXPECT_FALSE(verified) << result;
            ++fail;
        }
    }
    EXPECT_EQ(pass, 48u);
    EXPECT_EQ(fail, 192u);
}
INSTANTIATE_TEST_SUITE_P(Aes, CmacCavpVer, testing::Values(128, 256));

// ---- Wycheproof --------------------------------------------------------------

TEST(CmacWycheproof, AesCmacTest) {
    const json::Value doc = json::load_file(vec::path("wycheproof/testvectors_v1/aes_cmac_test.json"));
    const json::Value& groups = doc["testGroups"];
    size_t valid = 0, invalid = 0, refused_keys = 0;
    for (size_t g = 0; g < groups.size(); ++g) {
        const json::Value& grp = groups[g];
        const size_t key_bits = static_cast<size_t>(grp["keySize"].num());
        const size_t tag_bytes = static_cast<size_t>(grp["tagSize"].num()) / 8;
        const json::Value& tests = grp["tests"];
        for (size_t t = 0; t < tests.size(); ++t) {
            const json::Value& tc = tests[t];
            SCOPED_TRACE("tcId " + std::to_string(static_cast<int>(tc["tcId"].num())));
            const Bytes key = from_hex(tc["key"].str());
            const Bytes msg = from_hex(tc["msg"].str());
            const Bytes expect = from_hex(tc["tag"].str());
            const bool is_valid = tc["result"].str() == "valid";
            Bytes tag;
            std::string err;
            const bool aes_key = key_bits == 128 || key_bits == 192 || key_bits == 256;
            // A key size AES does not have: hwcipher must refuse it (try the
            // nearest AES size, so the cipher exists and only the key is wrong).
            const std::string cipher = aes_key ? aes_cbc(key.size()) : "AES-128-CBC";
            const bool ok = hw_cmac(cipher, key, msg, random_below(msg.size() + 1), tag, err);
            if (!aes_key) {
                EXPECT_FALSE(ok) << "a " << key_bits << "-bit key must be refused";
                EXPECT_FALSE(is_valid);
                ++refused_keys;
                ++invalid;
                continue;
            }
            ASSERT_TRUE(ok) << err;
            const bool verified = prefix(tag, tag_bytes) == expect;
            EXPECT_EQ(verified, is_valid);
            ++(is_valid ? valid : invalid);
        }
    }
    EXPECT_EQ(valid + invalid, static_cast<size_t>(doc["numberOfTests"].num()));
    EXPECT_EQ(valid, 63u);
    EXPECT_EQ(refused_keys, 5u); // 0-, 8-, 64-, 160- and 320-bit keys
}

// ---- SP 800-38B examples (pyca) ------------------------------------------------

TEST(CmacPyca, Sp80038bExamples) {
    size_t n = 0;
    for (const char* f : {"aes128", "aes192", "aes256"}) {
        const auto recs = vec::parse_rsp(vec::path(std::string("pyca-cryptography/CMAC/nist-800-38b-") + f + ".txt"));
        for (const auto& r : recs) {
            SCOPED_TRACE(r.where());
            const Bytes key = r.hex("KEY");
            const Bytes msg = r.hex("MESSAGE");
            Bytes tag;
            std::string err;
            for (size_t split = 0; split <= msg.size(); split += 7) {
                ASSERT_TRUE(hw_cmac(aes_cbc(key.size()), key, msg, split, tag, err)) << err;
                EXPECT_EQ(to_hex(tag), to_hex(r.hex("OUTPUT")));
            }
            ++n;
        }
    }
    EXPECT_EQ(n, 12u);
}

} // namespace
} // namespace hwc::test
