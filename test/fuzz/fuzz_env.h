// SPDX-License-Identifier: Apache-2.0
// What the fuzz targets share: three library contexts, each with the
// provider(s) under comparison, and hwcipher's algorithm names.
//
//   best      hwcipher with the cores the CPU selects (or HWCIPHER_CORES as
//             given to the fuzzer)
//   portable  hwcipher with HWCIPHER_CORES=portable
//   deflt     OpenSSL's default provider
// (the first two hold the default provider too, as an application's would:
// hwcipher takes its random bytes from there; fetches name the provider)
//
// hwcipher picks its cores at provider init, so one process holds both
// selections: HWCIPHER_CORES is set while the portable instance loads and
// restored afterwards. hwcipher.so is found through OPENSSL_MODULES.
#pragma once

#include <openssl/evp.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace hwc::fuzz {

using Bytes = std::vector<uint8_t>;

struct Env {
    OSSL_LIB_CTX* best = nullptr;
    OSSL_LIB_CTX* portable = nullptr;
    OSSL_LIB_CTX* deflt = nullptr;
    std::vector<std::string> ciphers; // hwcipher's, sorted: fuzz inputs index them
};

// Created on first use; aborts if a provider cannot load.
const Env& env();

// A fetched cipher per context (cached; nullptr where not offered).
struct Fetched {
    EVP_CIPHER* best;
    EVP_CIPHER* portable;
    EVP_CIPHER* deflt;
};
const Fetched& cipher(size_t index);

// A divergence or broken invariant: print what and where, then abort so
// libFuzzer keeps the input.
[[noreturn]] void fail(const char* what, const std::string& detail);

std::string hex(const uint8_t* p, size_t n);
inline std::string hex(const Bytes& b) { return hex(b.data(), b.size()); }

} // namespace hwc::fuzz
