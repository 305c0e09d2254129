// SPDX-License-Identifier: Apache-2.0
// GCM known answers through hwcipher: Wycheproof AES-GCM and SM4-GCM (every
// group; invalid cases must fail), NIST CAVP gcmEncryptExtIV* / gcmDecrypt*
// (IVs of 8, 96 and 1024 bits, tags of 32..128 bits) and the RFC 8998
// SM4-GCM example.
#include <gtest/gtest.h>

#include <string>

#include "test/support/json.h"
#include "test/support/vectors.h"
#include "test/test_gcm_util.h"

namespace hwc::test {
namespace {

using namespace gcm;

std::string wycheproof(const std::string& file) {
    return vec::path("wycheproof/testvectors_v1/" + file);
}

// Runs one Wycheproof AEAD file whose key sizes map to `name_for(bits)`.
// Returns the number of tests run.
template <typename NameFor>
size_t run_wycheproof_aead(const std::string& file, NameFor name_for) {
    const json::Value doc = json::load_file(wycheproof(file));
    size_t count = 0, invalid = 0;
    for (const json::Value& g : doc["testGroups"].items()) {
        const std::string name = name_for(static_cast<int>(g["keySize"].num()));
        CipherPtr c = hw(name);
        EXPECT_NE(c, nullptr) << name;
        if (!c) continue;
        const size_t taglen = static_cast<size_t>(g["tagSize"].num()) / 8;
        for (const json::Value& t : g["tests"].items()) {
            SCOPED_TRACE(file + " tcId " + std::to_string(static_cast<int>(t["tcId"].num())));
            ++count;
            const Message m{from_hex(t["key"].str()), from_hex(t["iv"].str()),
                            from_hex(t["aad"].str()), from_hex(t["msg"].str())};
            const Bytes ct = from_hex(t["ct"].str()), tag = from_hex(t["tag"].str());
            const std::string result = t["result"].str();
            Bytes got_ct, got_tag, pt;
            const bool enc_ok = encrypt(c.get(), m, got_ct, got_tag, taglen);
            const Message dm{m.key, m.iv, m.aad, ct};
            const bool dec_ok = decrypt(c.get(), dm, tag, pt);
            if (result == "valid") {
                EXPECT_TRUE(enc_ok) << take_errors();
                EXPECT_EQ(to_hex(got_ct), to_hex(ct));
                EXPECT_EQ(to_hex(got_tag), to_hex(tag));
                EXPECT_TRUE(dec_ok) << take_errors();
                EXPECT_EQ(to_hex(pt), to_hex(m.in));
            } else {
                ++invalid;
                EXPECT_FALSE(dec_ok) << "invalid case decrypted";
                // The encryption side must not reproduce the invalid pair.
                EXPECT_FALSE(enc_ok && got_ct == ct && got_tag == tag);
                take_errors();
            }
        }
    }
    EXPECT_GT(invalid, 0u);
    return count;
}

TEST(GcmVectors, WycheproofAes) {
    const size_t n = run_wycheproof_aead("aes_gcm_test.json", [](int bits) {
        return "AES-" + std::to_string(bits) + "-GCM";
    });
    EXPECT_EQ(n, 316u);
}

TEST(GcmVectors, WycheproofSm4) {
    const size_t n = run_wycheproof_aead("sm4_gcm_test.json", [](int) { return std::string("SM4-GCM"); });
    EXPECT_EQ(n, 104u);
}

// CAVP records: all natively (a fraction of a second); every 7th when
// sampled (QEMU is 10-30x slower, so are the sanitizers), chosen by position,
// so deterministic.
size_t run_cavp(const std::string& file, bool decrypt_file, size_t& fails) {
    const auto recs = vec::parse_rsp(vec::path("nist-cavp/aes/gcm/" + file));
    const size_t stride = vec::record_stride();
    size_t count = 0;
    std::string cached_name;
    CipherPtr c{nullptr, EVP_CIPHER_free};
    for (size_t i = 0; i < recs.size(); i += stride) {
        const vec::Record& r = recs[i];
        SCOPED_TRACE(r.where());
        const std::string name = "AES-" + r.params.at("KEYLEN") + "-GCM";
        if (name != cached_name) {
            c = hw(name);
            cached_name = name;
        }
        if (!c) {
            ADD_FAILURE() << name << " not offered";
            return count;
        }
        ++count;
        const size_t taglen = std::stoul(r.params.at("TAGLEN")) / 8;
        const Bytes tag = r.hex("TAG");
        EXPECT_EQ(tag.size(), taglen);
        if (!decrypt_file) {
            const Message m{r.hex("KEY"), r.hex("IV"), r.hex("AAD"), r.hex("PT")};
            Bytes ct, got_tag;
            EXPECT_TRUE(encrypt(c.get(), m, ct, got_tag, taglen)) << take_errors();
            EXPECT_EQ(to_hex(ct), to_hex(r.hex("CT")));
            EXPECT_EQ(to_hex(got_tag), to_hex(tag));
        } else {
            const Message m{r.hex("KEY"), r.hex("IV"), r.hex("AAD"), r.hex("CT")};
            Bytes pt;
            const bool ok = decrypt(c.get(), m, tag, pt);
            if (r.has("FAIL")) {
                ++fails;
                EXPECT_FALSE(ok) << "forged record accepted";
                take_errors();
            } else {
                EXPECT_TRUE(ok) << take_errors();
                EXPECT_EQ(to_hex(pt), to_hex(r.hex("PT")));
            }
        }
    }
    return count;
}

TEST(GcmVectors, CavpEncryptExtIV) {
    size_t total = 0, fails = 0;
    for (const char* f : {"gcmEncryptExtIV128.rsp", "gcmEncryptExtIV192.rsp", "gcmEncryptExtIV256.rsp"})
        total += run_cavp(f, false, fails);
    EXPECT_EQ(total, 3 * ((7875 + vec::record_stride() - 1) / vec::record_stride()));
}

TEST(GcmVectors, CavpDecrypt) {
    size_t total = 0, fails = 0;
    for (const char* f : {"gcmDecrypt128.rsp", "gcmDecrypt192.rsp", "gcmDecrypt256.rsp"})
        total += run_cavp(f, true, fails);
    EXPECT_EQ(total, 3 * ((7875 + vec::record_stride() - 1) / vec::record_stride()));
    if (!vec::sampled()) {
        EXPECT_EQ(fails, 11908u);
    }
    EXPECT_GT(fails, 0u);
}

TEST(GcmVectors, Rfc8998Sm4Gcm) {
    const auto recs = vec::parse_rsp(vec::path("pyca-cryptography/ciphers/SM4/rfc8998.txt"));
    ASSERT_EQ(recs.size(), 1u);
    CipherPtr c = hw("SM4-GCM");
    ASSERT_NE(c, nullptr);
    for (const vec::Record& r : recs) {
        SCOPED_TRACE(r.where());
        const Message m{r.hex("KEY"), r.hex("IV"), r.hex("AAD"), r.hex("PLAINTEXT")};
        Bytes ct, tag, pt;
        ASSERT_TRUE(encrypt(c.get(), m, ct, tag, 16, true, false)) << take_errors();
        EXPECT_EQ(to_hex(ct), to_hex(r.hex("CIPHERTEXT")));
        EXPECT_EQ(to_hex(tag), to_hex(r.hex("TAG")));
        const Message dm{m.key, m.iv, m.aad, ct};
        EXPECT_TRUE(decrypt(c.get(), dm, tag, pt, true, true)) << take_errors();
        EXPECT_EQ(to_hex(pt), to_hex(m.in));
    }
}

} // namespace
} // namespace hwc::test
