// SPDX-License-Identifier: Apache-2.0
// Test support: provider loading, fetch helpers, hex and random data.
#include "test/support/ossl_env.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>

#include <cstdio>
#include <cstdlib>
#include <random>

namespace hwc::test {

namespace {

struct Env {
    OSSL_LIB_CTX* ctx = nullptr;
    OSSL_PROVIDER* deflt = nullptr;
    OSSL_PROVIDER* hwc = nullptr;

    Env() {
        ctx = OSSL_LIB_CTX_new();
        deflt = OSSL_PROVIDER_load(ctx, "default");
        hwc = OSSL_PROVIDER_load(ctx, "hwcipher");
        if (ctx == nullptr || deflt == nullptr || hwc == nullptr) {
            std::fprintf(stderr, "cannot load providers (OPENSSL_MODULES=%s)\n",
                         std::getenv("OPENSSL_MODULES") ? std::getenv("OPENSSL_MODULES") : "unset");
            ERR_print_errors_fp(stderr);
            std::abort();
        }
    }
};

Env& env() {
    static Env e;
    return e;
}

std::mt19937_64& rng() {
    static std::mt19937_64 r(test_seed());
    return r;
}

} // namespace

OSSL_LIB_CTX* libctx() { return env().ctx; }
OSSL_PROVIDER* hwcipher_provider() { return env().hwc; }

EVP_CIPHER* fetch_hwcipher(const std::string& name) {
    return EVP_CIPHER_fetch(libctx(), name.c_str(), "provider=hwcipher");
}

EVP_CIPHER* fetch_default(const std::string& name) {
    return EVP_CIPHER_fetch(libctx(), name.c_str(), "provider=default");
}

std::string core_report() {
    const char* report = nullptr;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_ptr("hwcipher-cores", const_cast<char**>(&report), 0),
        OSSL_PARAM_construct_end(),
    };
    if (!OSSL_PROVIDER_get_params(hwcipher_provider(), params) || report == nullptr) return {};
    return report;
}

std::string provider_of(const EVP_CIPHER_CTX* ctx) {
    const EVP_CIPHER* c = EVP_CIPHER_CTX_get0_cipher(ctx);
    if (c == nullptr) return {};
    const OSSL_PROVIDER* p = EVP_CIPHER_get0_provider(c);
    return p ? OSSL_PROVIDER_get0_name(p) : std::string();
}

bool openssl_at_least(unsigned major, unsigned minor) {
    return OPENSSL_version_major() > major ||
           (OPENSSL_version_major() == major && OPENSSL_version_minor() >= minor);
}

std::string take_errors() {
    std::string out;
    unsigned long e;
    char buf[256];
    while ((e = ERR_get_error()) != 0) {
        ERR_error_string_n(e, buf, sizeof buf);
        if (!out.empty()) out += "; ";
        out += buf;
    }
    return out;
}

Bytes from_hex(const std::string& hex) {
    Bytes out;
    auto nibble = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    };
    int hi = -1;
    for (char c : hex) {
        int v = nibble(c);
        if (v < 0) continue; // tolerate spaces and CR
        if (hi < 0) hi = v;
        else { out.push_back(static_cast<uint8_t>(hi << 4 | v)); hi = -1; }
    }
    return out;
}

std::string to_hex(const uint8_t* p, size_t n) {
    static const char* digits = "0123456789abcdef";
    std::string s(2 * n, '0');
    char* d = s.data();
    for (size_t i = 0; i < n; ++i) {
        d[2 * i] = digits[p[i] >> 4];
        d[2 * i + 1] = digits[p[i] & 15];
    }
    return s;
}

uint64_t test_seed() {
    static const uint64_t seed = [] {
        const char* s = std::getenv("HWCIPHER_TEST_SEED");
        return s ? std::strtoull(s, nullptr, 0) : 0x6877636970686572ull; // "hwcipher"
    }();
    return seed;
}

Bytes random_bytes(size_t n) {
    Bytes b(n);
    for (auto& x : b) x = static_cast<uint8_t>(rng()());
    return b;
}

size_t random_below(size_t bound) { return bound ? rng()() % bound : 0; }

std::string vectors_dir() {
    if (const char* v = std::getenv("HWCIPHER_VECTORS")) return v;
#ifdef HWCIPHER_VECTORS_DIR
    return HWCIPHER_VECTORS_DIR;
#else
    return "test/vectors";
#endif
}

} // namespace hwc::test
