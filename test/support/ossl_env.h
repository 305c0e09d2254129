// SPDX-License-Identifier: Apache-2.0
// Test support: a library context with OpenSSL's default provider and hwcipher
// loaded side by side, and fetch helpers that pin the provider explicitly so
// no other provider can answer.
#pragma once

#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hwc::test {

using Bytes = std::vector<uint8_t>;

// One process-wide library context (created on first use) holding the
// default provider and hwcipher (found through OPENSSL_MODULES, which ctest
// sets to the build directory). Aborts the test run if hwcipher cannot load.
OSSL_LIB_CTX* libctx();
OSSL_PROVIDER* hwcipher_provider();

// Fetch `name` from hwcipher ("provider=hwcipher") or from the default
// provider ("provider=default"). Returns nullptr when not offered; the caller
// frees with EVP_CIPHER_free.
EVP_CIPHER* fetch_hwcipher(const std::string& name);
EVP_CIPHER* fetch_default(const std::string& name);

// The provider's core report ("hwcipher-cores" param), e.g.
// "aes=aes-portable,sm4=sm4-portable,twofish=twofish-portable".
std::string core_report();

// Name of the provider that serves an initialised context.
std::string provider_of(const EVP_CIPHER_CTX* ctx);

// Whether the libcrypto running is at least major.minor (the tests' reference,
// the default provider, changed some declared parameter lists over releases).
bool openssl_at_least(unsigned major, unsigned minor);

// Drain the OpenSSL error queue into one string (for assertion messages) and
// report whether it held anything.
std::string take_errors();

Bytes from_hex(const std::string& hex);
std::string to_hex(const uint8_t* p, size_t n);
inline std::string to_hex(const Bytes& b) { return to_hex(b.data(), b.size()); }

// Deterministic random bytes for reproducible differential tests
// (seeded from HWCIPHER_TEST_SEED when set, printed on failure by callers).
uint64_t test_seed();
Bytes random_bytes(size_t n);
size_t random_below(size_t bound);

// Where the test vectors live: test/vectors in the tree, or HWCIPHER_VECTORS
// (set by ctest).
std::string vectors_dir();

} // namespace hwc::test
