// SPDX-License-Identifier: Apache-2.0
// Settings hwcipher cannot use never stop it from loading (an application
// would run on the default provider without a word): a bad HWCIPHER_CORES
// keeps the automatic selection and is reported in "hwcipher-config-errors";
// an unwritable HWCIPHER_TRACE is reported there and once on stderr, however
// many library contexts load the provider.
#include <gtest/gtest.h>
#include <openssl/crypto.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <cstdlib>
#include <string>

#include "cores/cpu.h"
#include "cores/registry.h"

namespace {

struct Loaded {
    OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
    OSSL_PROVIDER* prov = nullptr;
    Loaded() {
#ifdef HWCIPHER_MODULES_DIR_DEFAULT
        if (std::getenv("OPENSSL_MODULES") == nullptr)
            OSSL_PROVIDER_set_default_search_path(ctx, HWCIPHER_MODULES_DIR_DEFAULT);
#endif
        prov = OSSL_PROVIDER_load(ctx, "hwcipher");
    }
    ~Loaded() {
        if (prov != nullptr) OSSL_PROVIDER_unload(prov);
        OSSL_LIB_CTX_free(ctx);
    }
    std::string param(const char* key) const {
        const char* v = nullptr;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_ptr(key, const_cast<char**>(&v), 0),
                          OSSL_PARAM_construct_end()};
        return OSSL_PROVIDER_get_params(prov, p) && v != nullptr ? v : "(none)";
    }
};

std::string automatic_cores() {
    hwc::CoreSelection sel{};
    std::string err;
    hwc::select_cores(hwc::detect_cpu_features(), "", sel, err);
    std::string r;
    for (hwc::Family f : {hwc::Family::aes, hwc::Family::sm4, hwc::Family::twofish})
        r += std::string(r.empty() ? "" : ",") + hwc::family_name(f) + "=" + sel.for_family(f)->name;
    return r + ",ghash=" + sel.ghash->name;
}

TEST(Misconfig, BadCoresLoadsWithTheAutomaticSelection) {
    ASSERT_EQ(setenv("HWCIPHER_CORES", "aes=no-such-core", 1), 0);
    Loaded l;
    unsetenv("HWCIPHER_CORES");
    ASSERT_NE(l.prov, nullptr) << "a bad HWCIPHER_CORES must not stop the provider from loading";
    EXPECT_EQ(l.param("hwcipher-cores"), automatic_cores());
    const std::string errors = l.param("hwcipher-config-errors");
    EXPECT_NE(errors.find("HWCIPHER_CORES=aes=no-such-core"), std::string::npos) << errors;
    EXPECT_NE(errors.find("using the automatic selection"), std::string::npos) << errors;
}

TEST(Misconfig, GoodSettingsReportNoError) {
    ASSERT_EQ(setenv("HWCIPHER_CORES", "aes-portable", 1), 0);
    Loaded l;
    unsetenv("HWCIPHER_CORES");
    ASSERT_NE(l.prov, nullptr);
    EXPECT_EQ(l.param("hwcipher-config-errors"), "");
    EXPECT_EQ(l.param("hwcipher-cores").rfind("aes=aes-portable,", 0), 0u) << l.param("hwcipher-cores");
    EXPECT_NE(l.param("hwcipher-cpu-features"), "(none)");
}

TEST(Misconfig, UnwritableTraceReportedOncePerProcess) {
    const char* path = "/nonexistent-hwcipher-dir/trace.log";
    ASSERT_EQ(setenv("HWCIPHER_TRACE", path, 1), 0);
    ::testing::internal::CaptureStderr();
    std::string e1, e2;
    {
        Loaded a, b; // two library contexts: two provider inits
        ASSERT_NE(a.prov, nullptr);
        ASSERT_NE(b.prov, nullptr);
        e1 = a.param("hwcipher-config-errors");
        e2 = b.param("hwcipher-config-errors");
    }
    const std::string err = ::testing::internal::GetCapturedStderr();
    unsetenv("HWCIPHER_TRACE");
    const std::string line = std::string("hwcipher: HWCIPHER_TRACE=") + path + ": cannot open";
    EXPECT_NE(e1.find(line.substr(10)), std::string::npos) << e1;
    EXPECT_EQ(e1, e2) << "each context reports it";
    size_t count = 0;
    for (size_t at = err.find(line); at != std::string::npos; at = err.find(line, at + 1)) ++count;
    EXPECT_EQ(count, 1u) << "stderr:\n" << err;
}

} // namespace
