// SPDX-License-Identifier: Apache-2.0
// HWCIPHER_TRACE: one whole line per cipher context keyed through hwcipher,
// none for re-inits without a key, whole lines under concurrent appends.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

namespace {

// A library context of its own, so that hwcipher's init runs (and reads
// HWCIPHER_TRACE) while the variable is set, whatever other tests loaded.
class TraceTest : public ::testing::Test {
protected:
    void SetUp() override {
        path_ = ::testing::TempDir() + "hwcipher-trace-" + std::to_string(::getpid()) + ".log";
        std::remove(path_.c_str());
        ASSERT_EQ(setenv("HWCIPHER_TRACE", path_.c_str(), 1), 0);
        ctx_ = OSSL_LIB_CTX_new();
        ASSERT_NE(ctx_, nullptr);
#ifdef HWCIPHER_MODULES_DIR_DEFAULT
        if (std::getenv("OPENSSL_MODULES") == nullptr)
            OSSL_PROVIDER_set_default_search_path(ctx_, HWCIPHER_MODULES_DIR_DEFAULT);
#endif
        prov_ = OSSL_PROVIDER_load(ctx_, "hwcipher");
        unsetenv("HWCIPHER_TRACE"); // read once, at provider init
        ASSERT_NE(prov_, nullptr) << "cannot load hwcipher";
    }
    void TearDown() override {
        if (prov_ != nullptr) OSSL_PROVIDER_unload(prov_);
        OSSL_LIB_CTX_free(ctx_);
        std::remove(path_.c_str());
    }
    std::vector<std::string> lines() const {
        std::ifstream in(path_);
        std::vector<std::string> out;
        for (std::string l; std::getline(in, l);) out.push_back(l);
        return out;
    }
    // Keys (or, with key == false, re-initialises) one context.
    static bool init(EVP_CIPHER_CTX* c, const EVP_CIPHER* cipher, bool key, bool enc) {
        static const unsigned char k[32] = {1, 2, 3};
        static const unsigned char iv[16] = {4, 5, 6};
        return EVP_CipherInit_ex2(c, cipher, key ? k : nullptr, iv, enc ? 1 : 0, nullptr) == 1;
    }

    std::string path_;
    OSSL_LIB_CTX* ctx_ = nullptr;
    OSSL_PROVIDER* prov_ = nullptr;
};

TEST_F(TraceTest, OneLinePerKeyedInit) {
    EVP_CIPHER* gcm = EVP_CIPHER_fetch(ctx_, "id-aes128-GCM", "provider=hwcipher");
    EVP_CIPHER* cbc = EVP_CIPHER_fetch(ctx_, "AES-256-CBC", "provider=hwcipher");
    ASSERT_NE(gcm, nullptr);
    ASSERT_NE(cbc, nullptr);
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(init(c, gcm, true, true));
    EXPECT_TRUE(init(c, nullptr, false, true)); // new IV only: no line
    EXPECT_TRUE(init(c, cbc, true, false));
    EVP_CIPHER_CTX_free(c);
    EVP_CIPHER_free(gcm);
    EVP_CIPHER_free(cbc);

    const std::vector<std::string> got = lines();
    ASSERT_EQ(got.size(), 2u);
    const std::string pid = std::to_string(::getpid());
    // The primary name, not the alias the caller fetched by.
    EXPECT_TRUE(std::regex_match(got[0], std::regex("hwcipher-trace pid=" + pid +
                                                    " alg=AES-128-GCM core=[a-z0-9-]+ op=encrypt")))
        << got[0];
    EXPECT_TRUE(std::regex_match(got[1], std::regex("hwcipher-trace pid=" + pid +
                                                    " alg=AES-256-CBC core=[a-z0-9-]+ op=decrypt")))
        << got[1];
}

TEST_F(TraceTest, ConcurrentAppendsStayWholeLines) {
    EVP_CIPHER* ccm = EVP_CIPHER_fetch(ctx_, "AES-192-CCM", "provider=hwcipher");
    ASSERT_NE(ccm, nullptr);
    constexpr int kThreads = 4, kPerThread = 50;
    std::vector<std::thread> threads;
    std::vector<int> ok(kThreads, 0);
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
            for (int i = 0; c != nullptr && i < kPerThread; ++i) ok[t] += init(c, ccm, true, i % 2 == 0);
            EVP_CIPHER_CTX_free(c);
        });
    }
    for (auto& th : threads) th.join();
    EVP_CIPHER_free(ccm);
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(ok[t], kPerThread);

    const std::vector<std::string> got = lines();
    ASSERT_EQ(got.size(), size_t{kThreads * kPerThread});
    const std::regex line("hwcipher-trace pid=[0-9]+ alg=AES-192-CCM core=[a-z0-9-]+ op=(en|de)crypt");
    size_t enc = 0;
    for (const std::string& l : got) {
        EXPECT_TRUE(std::regex_match(l, line)) << l;
        enc += l.ends_with("op=encrypt");
    }
    EXPECT_EQ(enc, size_t{kThreads * kPerThread / 2});
}

} // namespace
