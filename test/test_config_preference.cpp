// SPDX-License-Identifier: Apache-2.0
// The shipped configurations route ciphers as README says: prefer-hwcipher
// sends everything hwcipher has to hwcipher; hwcipher-only-accel sends a
// cipher to hwcipher only when a hardware core serves it, and to the default
// provider otherwise (hwcipher-only algorithms still reach hwcipher).
#include <gtest/gtest.h>

#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "test/support/ossl_env.h"

namespace {

using namespace hwc::test;

std::string cnf_dir() {
    if (const char* d = std::getenv("HWCIPHER_CNF_DIR")) return d;
    return "test/openssl-cnf";
}

// Which provider a library context loaded from `cnf` picks for `name` when
// the application asks with no property query, as legacy code does.
std::string served_by(const std::string& cnf, const char* name, std::string& accel) {
    std::unique_ptr<OSSL_LIB_CTX, decltype(&OSSL_LIB_CTX_free)> ctx(OSSL_LIB_CTX_new(),
                                                                   OSSL_LIB_CTX_free);
    if (!ctx || !OSSL_LIB_CTX_load_config(ctx.get(), (cnf_dir() + "/" + cnf).c_str()))
        return "config failed: " + take_errors();
    std::unique_ptr<EVP_CIPHER, decltype(&EVP_CIPHER_free)> c(
        EVP_CIPHER_fetch(ctx.get(), name, nullptr), EVP_CIPHER_free);
    if (!c) return "fetch failed: " + take_errors();
    // Whether hwcipher's own implementation is hardware-backed.
    std::unique_ptr<EVP_CIPHER, decltype(&EVP_CIPHER_free)> hw(
        EVP_CIPHER_fetch(ctx.get(), name, "provider=hwcipher,hwcipher.accel=yes"), EVP_CIPHER_free);
    accel = hw ? "yes" : "no";
    take_errors();
    return OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c.get()));
}

// SM4-GCM, SM4-CCM, SM4-XTS and AES-GCM-SIV: the default provider of
// OpenSSL 3.5 and later has them under the same names (3.0's does not), so
// there the preference, not the absence of a rival, must pick hwcipher.
constexpr const char* kNewerDefaultNames[] = {"SM4-GCM", "SM4-CCM", "SM4-XTS", "AES-128-GCM-SIV"};

bool default_has(const char* name) {
    EVP_CIPHER* c = fetch_default(name);
    take_errors();
    EVP_CIPHER_free(c);
    return c != nullptr;
}

TEST(ConfigPreference, PreferHwcipherRoutesEverythingItHas) {
    std::string accel;
    for (const char* name : {"AES-128-CBC", "AES-256-GCM", "SM4-CTR", "TWOFISH-256-CBC"})
        EXPECT_EQ(served_by("prefer-hwcipher.cnf", name, accel), "hwcipher") << name;
    for (const char* name : kNewerDefaultNames)
        EXPECT_EQ(served_by("prefer-hwcipher.cnf", name, accel), "hwcipher")
            << name << " (default provider has it: " << (default_has(name) ? "yes" : "no") << ")";
}

TEST(ConfigPreference, OnlyAccelRoutesByCore) {
    for (const char* name : {"AES-128-CBC", "AES-256-GCM", "SM4-CTR"}) {
        std::string accel;
        const std::string who = served_by("hwcipher-only-accel.cnf", name, accel);
        EXPECT_EQ(who, accel == "yes" ? "hwcipher" : "default") << name << " accel=" << accel;
    }
    // Where the default provider lacks the algorithm (3.0), hwcipher serves it
    // on any core; where it has it (3.5+), only a hardware core wins.
    for (const char* name : kNewerDefaultNames) {
        std::string accel;
        const std::string who = served_by("hwcipher-only-accel.cnf", name, accel);
        EXPECT_EQ(who, accel == "yes" || !default_has(name) ? "hwcipher" : "default")
            << name << " accel=" << accel;
    }
    std::string accel;
    EXPECT_EQ(served_by("hwcipher-only-accel.cnf", "TWOFISH-256-CBC", accel), "hwcipher")
        << "a cipher only hwcipher has must still be served";
}

} // namespace
