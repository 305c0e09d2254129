// SPDX-License-Identifier: Apache-2.0
// GMAC (OSSL_OP_MAC): Wycheproof aes_gmac_test.json, differential against
// the default provider's GMAC (pinned to the default AES-GCM), parameter
// lists, error cases (non-GCM cipher, missing or reused IV, key length) and
// the `openssl mac` command line.
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <set>
#include <string>

#include "test/support/json.h"
#include "test/support/vectors.h"
#include "test/support/ossl_env.h"

namespace hwc::test {
namespace {

using MacPtr = std::unique_ptr<EVP_MAC, decltype(&EVP_MAC_free)>;
using MacCtxPtr = std::unique_ptr<EVP_MAC_CTX, decltype(&EVP_MAC_CTX_free)>;

MacPtr fetch_mac(bool ours) {
    return {EVP_MAC_fetch(libctx(), "GMAC", ours ? "provider=hwcipher" : "provider=default"),
            EVP_MAC_free};
}

// One GMAC over `msg` (in random pieces when `split`); empty on failure.
Bytes gmac(EVP_MAC* mac, bool ours, const std::string& cipher, const Bytes& key, const Bytes& iv,
           const Bytes& msg, bool split = false) {
    MacCtxPtr ctx(EVP_MAC_CTX_new(mac), EVP_MAC_CTX_free);
    if (!ctx) return {};
    char props[] = "provider=default";
    OSSL_PARAM p[4];
    size_t n = 0;
    p[n++] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, const_cast<char*>(cipher.c_str()), 0);
    // The default GMAC fetches its cipher: pin it to the default AES-GCM so
    // it stays an independent oracle.
    if (!ours) p[n++] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_PROPERTIES, props, 0);
    p[n++] = OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_IV, const_cast<uint8_t*>(iv.data()), iv.size());
    p[n] = OSSL_PARAM_construct_end();
    if (!EVP_MAC_init(ctx.get(), key.data(), key.size(), p)) return {};
    size_t off = 0;
    while (off < msg.size()) {
        const size_t take = split ? std::min(msg.size() - off, random_below(40)) : msg.size() - off;
        if (!EVP_MAC_update(ctx.get(), msg.data() + off, take)) return {};
        off += take;
    }
    Bytes out(16);
    size_t outl = 0;
    if (!EVP_MAC_final(ctx.get(), out.data(), &outl, out.size()) || outl != 16) return {};
    return out;
}

TEST(GmacVectors, Wycheproof) {
    MacPtr mac = fetch_mac(true);
    ASSERT_NE(mac, nullptr) << take_errors();
    const json::Value doc =
        json::load_file(vec::path("wycheproof/testvectors_v1/aes_gmac_test.json"));
    size_t count = 0, invalid = 0;
    for (const json::Value& g : doc["testGroups"].items()) {
        const std::string cipher = "AES-" + std::to_string(static_cast<int>(g["keySize"].num())) + "-GCM";
        for (const json::Value& t : g["tests"].items()) {
            SCOPED_TRACE("tcId " + std::to_string(static_cast<int>(t["tcId"].num())));
            ++count;
            const Bytes tag = from_hex(t["tag"].str());
            const Bytes got = gmac(mac.get(), true, cipher, from_hex(t["key"].str()),
                                   from_hex(t["iv"].str()), from_hex(t["msg"].str()), count % 2);
            if (t["result"].str() == "valid") {
                EXPECT_EQ(to_hex(got), to_hex(tag)) << take_errors();
            } else {
                ++invalid;
                EXPECT_TRUE(got.empty() || to_hex(got).substr(0, 2 * tag.size()) != to_hex(tag));
                take_errors();
            }
        }
    }
    EXPECT_EQ(count, 414u);
    EXPECT_GT(invalid, 0u);
}

TEST(GmacDiff, AgainstDefaultGmac) {
    MacPtr ours = fetch_mac(true), ref = fetch_mac(false);
    ASSERT_NE(ours, nullptr);
    ASSERT_NE(ref, nullptr);
    size_t cases = 0;
    for (size_t keylen : {16u, 24u, 32u}) {
        const std::string cipher = "AES-" + std::to_string(keylen * 8) + "-GCM";
        for (int i = 0; i < 30; ++i, ++cases) {
            const Bytes key = random_bytes(keylen);
            const Bytes iv = random_bytes(random_below(2) ? 12 : 1 + random_below(128));
            const Bytes msg = random_bytes(random_below(4) == 0 ? random_below(3000) : random_below(64));
            SCOPED_TRACE(cipher + " iv " + std::to_string(iv.size()) + " msg " +
                         std::to_string(msg.size()) + " seed " + std::to_string(test_seed()));
            const Bytes a = gmac(ours.get(), true, cipher, key, iv, msg, i % 2);
            const Bytes b = gmac(ref.get(), false, cipher, key, iv, msg);
            ASSERT_FALSE(a.empty()) << take_errors();
            ASSERT_FALSE(b.empty()) << take_errors();
            EXPECT_EQ(to_hex(a), to_hex(b));
        }
    }
    EXPECT_EQ(cases, 90u);
}

// SM4 and Twofish GMAC equal the GCM tag over AAD only (through hwcipher's
// own GCM, itself checked against libgcrypt in test_gcm_diff.cpp).
TEST(GmacDiff, OtherCiphersEqualGcmTag) {
    MacPtr ours = fetch_mac(true);
    for (const auto& [cipher, keylen] :
         {std::pair<std::string, size_t>{"SM4-GCM", 16}, {"TWOFISH-128-GCM", 16},
          {"TWOFISH-192-GCM", 24}, {"TWOFISH-256-GCM", 32}}) {
        const Bytes key = random_bytes(keylen), iv = random_bytes(12), msg = random_bytes(77);
        const Bytes a = gmac(ours.get(), true, cipher, key, iv, msg, true);
        ASSERT_FALSE(a.empty()) << cipher << take_errors();
        EVP_CIPHER* c = fetch_hwcipher(cipher);
        ASSERT_NE(c, nullptr);
        EVP_CIPHER_CTX* x = EVP_CIPHER_CTX_new();
        int outl = 0;
        uint8_t tag[16];
        ASSERT_TRUE(EVP_EncryptInit_ex(x, c, nullptr, key.data(), iv.data()));
        ASSERT_TRUE(EVP_EncryptUpdate(x, nullptr, &outl, msg.data(), static_cast<int>(msg.size())));
        ASSERT_TRUE(EVP_EncryptFinal_ex(x, tag, &outl));
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, tag), 1);
        EXPECT_EQ(to_hex(a), to_hex(tag, 16)) << cipher;
        EVP_CIPHER_CTX_free(x);
        EVP_CIPHER_free(c);
    }
}

std::set<std::string> keys_of(const OSSL_PARAM* p) {
    std::set<std::string> out;
    for (; p != nullptr && p->key != nullptr; ++p) out.insert(p->key);
    return out;
}

TEST(GmacApi, ParamListsMatchDefault) {
    MacPtr ours = fetch_mac(true), ref = fetch_mac(false);
    ASSERT_NE(ours, nullptr);
    EXPECT_EQ(keys_of(EVP_MAC_gettable_params(ours.get())), keys_of(EVP_MAC_gettable_params(ref.get())));
    EXPECT_EQ(keys_of(EVP_MAC_gettable_ctx_params(ours.get())),
              keys_of(EVP_MAC_gettable_ctx_params(ref.get())));
    EXPECT_EQ(keys_of(EVP_MAC_settable_ctx_params(ours.get())),
              keys_of(EVP_MAC_settable_ctx_params(ref.get())));
    size_t size = 0;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &size), OSSL_PARAM_END};
    ASSERT_TRUE(EVP_MAC_get_params(ours.get(), p));
    EXPECT_EQ(size, 16u);
    MacCtxPtr ctx(EVP_MAC_CTX_new(ours.get()), EVP_MAC_CTX_free);
    EXPECT_EQ(EVP_MAC_CTX_get_mac_size(ctx.get()), 16u);
}

TEST(GmacApi, ErrorCases) {
    MacPtr ours = fetch_mac(true);
    const Bytes key = random_bytes(16), iv = random_bytes(12), msg = random_bytes(20);
    auto ctx_new = [&] { return MacCtxPtr(EVP_MAC_CTX_new(ours.get()), EVP_MAC_CTX_free); };
    auto set_cipher = [](EVP_MAC_CTX* c, const char* name) {
        OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, const_cast<char*>(name), 0),
                          OSSL_PARAM_END};
        return EVP_MAC_CTX_set_params(c, p);
    };
    auto set_iv = [](EVP_MAC_CTX* c, const Bytes& v) {
        OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_IV, const_cast<uint8_t*>(v.data()), v.size()),
                          OSSL_PARAM_END};
        return EVP_MAC_CTX_set_params(c, p);
    };
    uint8_t out[16];
    size_t outl = 0;
    take_errors();
    {
        auto c = ctx_new();
        EXPECT_FALSE(set_cipher(c.get(), "AES-128-CBC"));
        EXPECT_NE(take_errors().find("unsupported cipher"), std::string::npos);
        EXPECT_FALSE(set_cipher(c.get(), "NO-SUCH-CIPHER"));
        EXPECT_TRUE(set_cipher(c.get(), "id-aes128-GCM")) << take_errors(); // alias
        EXPECT_FALSE(EVP_MAC_init(c.get(), key.data(), 15, nullptr));        // key length
        take_errors();
    }
    {
        // No IV: fail rather than invent one.
        auto c = ctx_new();
        ASSERT_TRUE(set_cipher(c.get(), "AES-128-GCM"));
        ASSERT_TRUE(EVP_MAC_init(c.get(), key.data(), key.size(), nullptr));
        EXPECT_FALSE(EVP_MAC_update(c.get(), msg.data(), msg.size()));
        EXPECT_FALSE(EVP_MAC_final(c.get(), out, &outl, sizeof out));
        EXPECT_NE(take_errors().find("no iv set"), std::string::npos);
        // IV given: one tag; the same IV again needs to be set again.
        ASSERT_TRUE(set_iv(c.get(), iv));
        ASSERT_TRUE(EVP_MAC_update(c.get(), msg.data(), msg.size()));
        ASSERT_TRUE(EVP_MAC_final(c.get(), out, &outl, sizeof out));
        const Bytes first(out, out + 16);
        ASSERT_TRUE(EVP_MAC_init(c.get(), nullptr, 0, nullptr));
        EXPECT_FALSE(EVP_MAC_final(c.get(), out, &outl, sizeof out));
        take_errors();
        // A restart before final keeps the unused IV and gives the same tag.
        ASSERT_TRUE(set_iv(c.get(), iv));
        ASSERT_TRUE(EVP_MAC_update(c.get(), msg.data(), 5));
        ASSERT_TRUE(EVP_MAC_init(c.get(), nullptr, 0, nullptr));
        ASSERT_TRUE(EVP_MAC_update(c.get(), msg.data(), msg.size()));
        ASSERT_TRUE(EVP_MAC_final(c.get(), out, &outl, sizeof out));
        EXPECT_EQ(Bytes(out, out + 16), first);
        // Zero-length IV refused.
        EXPECT_FALSE(set_iv(c.get(), Bytes{}));
        take_errors();
    }
    {
        // dup mid-message continues identically.
        auto c = ctx_new();
        ASSERT_TRUE(set_cipher(c.get(), "SM4-GCM"));
        ASSERT_TRUE(set_iv(c.get(), iv));
        ASSERT_TRUE(EVP_MAC_init(c.get(), key.data(), key.size(), nullptr));
        ASSERT_TRUE(EVP_MAC_update(c.get(), msg.data(), 7));
        MacCtxPtr d(EVP_MAC_CTX_dup(c.get()), EVP_MAC_CTX_free);
        ASSERT_NE(d, nullptr);
        uint8_t o2[16];
        size_t l2 = 0;
        ASSERT_TRUE(EVP_MAC_update(c.get(), msg.data() + 7, 13));
        ASSERT_TRUE(EVP_MAC_update(d.get(), msg.data() + 7, 13));
        ASSERT_TRUE(EVP_MAC_final(c.get(), out, &outl, sizeof out));
        ASSERT_TRUE(EVP_MAC_final(d.get(), o2, &l2, sizeof o2));
        EXPECT_EQ(Bytes(out, out + 16), Bytes(o2, o2 + 16));
    }
}

// `openssl mac ... GMAC` with hwcipher loaded by path, against the default.
TEST(GmacCli, OpensslMacCommand) {
    const char* bin = std::getenv("OPENSSL_BIN");
    const char* modules = std::getenv("OPENSSL_MODULES");
    if (bin == nullptr || modules == nullptr) GTEST_SKIP() << "OPENSSL_BIN/OPENSSL_MODULES not set (run through ctest)";
    const std::string file = testing::TempDir() + "hwc_gmac_msg.bin";
    const Bytes msg = random_bytes(1000), key = random_bytes(32), iv = random_bytes(12);
    {
        std::ofstream f(file, std::ios::binary);
        f.write(reinterpret_cast<const char*>(msg.data()), static_cast<std::streamsize>(msg.size()));
    }
    auto run = [&](const std::string& providers) {
        const std::string cmd = std::string(bin) + " mac " + providers +
                                " -macopt cipher:AES-256-GCM -macopt hexkey:" + to_hex(key) +
                                " -macopt hexiv:" + to_hex(iv) + " -in " + file + " GMAC 2>&1";
        std::string out;
        if (FILE* p = popen(cmd.c_str(), "r")) {
            char buf[256];
            while (fgets(buf, sizeof buf, p)) out += buf;
            if (pclose(p) != 0) out = "FAILED: " + out;
        }
        while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
        return out;
    };
    const std::string ours = run(std::string("-provider-path ") + modules +
                                 " -provider hwcipher -provider default -propquery provider=hwcipher");
    const std::string ref = run("-provider default -propquery provider=default");
    EXPECT_EQ(ours.size(), 32u) << ours;
    EXPECT_EQ(ours, ref);
    // And the expected tag, computed in-process.
    MacPtr mac = fetch_mac(true);
    std::string want = to_hex(gmac(mac.get(), true, "AES-256-GCM", key, iv, msg));
    for (char& ch : want) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    EXPECT_EQ(ours, want);
    std::remove(file.c_str());
}

} // namespace
} // namespace hwc::test
