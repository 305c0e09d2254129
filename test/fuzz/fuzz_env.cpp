// SPDX-License-Identifier: Apache-2.0
#include "test/fuzz/fuzz_env.h"

#include <openssl/err.h>
#include <openssl/provider.h>

#include <algorithm>
#include <map>
#include <memory>

namespace hwc::fuzz {

namespace {

// A library context with the default provider (hwcipher draws its random
// bytes, e.g. for TLS CBC records, from the context that loads it) and,
// unless `name` is "default", that provider too.
OSSL_LIB_CTX* with_provider(const char* name, const char* cores) {
    OSSL_LIB_CTX* ctx = OSSL_LIB_CTX_new();
    if (ctx == nullptr || OSSL_PROVIDER_load(ctx, "default") == nullptr) {
        std::fprintf(stderr, "fuzz: cannot load the default provider\n");
        std::abort();
    }
    if (std::string(name) == "default") return ctx;
    std::string saved;
    const char* old = std::getenv("HWCIPHER_CORES");
    if (old != nullptr) saved = old;
    if (cores != nullptr) setenv("HWCIPHER_CORES", cores, 1);
    OSSL_PROVIDER* p = ctx != nullptr ? OSSL_PROVIDER_load(ctx, name) : nullptr;
    if (cores != nullptr) {
        if (old != nullptr) setenv("HWCIPHER_CORES", saved.c_str(), 1);
        else unsetenv("HWCIPHER_CORES");
    }
    if (p == nullptr) {
        std::fprintf(stderr, "fuzz: cannot load %s (OPENSSL_MODULES=%s)\n", name,
                     std::getenv("OPENSSL_MODULES") ? std::getenv("OPENSSL_MODULES") : "unset");
        ERR_print_errors_fp(stderr);
        std::abort();
    }
    return ctx;
}

void collect(EVP_CIPHER* c, void* arg) {
    auto* names = static_cast<std::vector<std::string>*>(arg);
    if (std::string(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c))) == "hwcipher")
        names->push_back(EVP_CIPHER_get0_name(c));
}

} // namespace

const Env& env() {
    static const Env e = [] {
        Env v;
        v.best = with_provider("hwcipher", nullptr);
        v.portable = with_provider("hwcipher", "portable");
        v.deflt = with_provider("default", nullptr);
        EVP_CIPHER_do_all_provided(v.best, collect, &v.ciphers);
        std::sort(v.ciphers.begin(), v.ciphers.end());
        v.ciphers.erase(std::unique(v.ciphers.begin(), v.ciphers.end()), v.ciphers.end());
        if (v.ciphers.empty()) fail("setup", "hwcipher offers no cipher");
        return v;
    }();
    return e;
}

const Fetched& cipher(size_t index) {
    static std::map<size_t, Fetched> cache;
    auto it = cache.find(index);
    if (it != cache.end()) return it->second;
    const Env& e = env();
    const char* name = e.ciphers.at(index).c_str();
    Fetched f{EVP_CIPHER_fetch(e.best, name, "provider=hwcipher"),
              EVP_CIPHER_fetch(e.portable, name, "provider=hwcipher"),
              EVP_CIPHER_fetch(e.deflt, name, "provider=default")};
    ERR_clear_error(); // the default provider lacks some
    if (f.best == nullptr || f.portable == nullptr) fail("setup", std::string("cannot fetch ") + name);
    return cache.emplace(index, f).first->second;
}

void fail(const char* what, const std::string& detail) {
    std::fprintf(stderr, "\n==== fuzz divergence: %s\n%s\n", what, detail.c_str());
    ERR_print_errors_fp(stderr);
    std::abort();
}

std::string hex(const uint8_t* p, size_t n) {
    static const char* d = "0123456789abcdef";
    std::string s;
    s.reserve(2 * n);
    for (size_t i = 0; i < n; ++i) {
        s += d[p[i] >> 4];
        s += d[p[i] & 15];
    }
    return s;
}

} // namespace hwc::fuzz

// Every target's libFuzzer set-up: the providers load before the first input.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
    hwc::fuzz::env();
    return 0;
}
