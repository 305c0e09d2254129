// SPDX-License-Identifier: Apache-2.0
// The OpenSSL this process runs is the release the run is for, and loading
// hwcipher brings no second libcrypto into the process (a module linked
// against libcrypto.so.3 loaded by a 4.0 application would).
#include <gtest/gtest.h>
#include <openssl/crypto.h>
#include <openssl/opensslv.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <string>

#include "test/support/ossl_env.h"

namespace {

// The release is the one the build compiled against, unless the run names
// another in HWCIPHER_OPENSSL_VERSION: scripts/test.sh's matrix runs one
// build on every release of the ABI (the major version) it was built for.
TEST(OpenSSLVersion, RuntimeLibraryIsTheRunsRelease) {
    EXPECT_EQ(OPENSSL_version_major(), static_cast<unsigned>(OPENSSL_VERSION_MAJOR))
        << "headers " << OPENSSL_VERSION_STR << ", library " << OpenSSL_version(OPENSSL_VERSION);
    const char* named = std::getenv("HWCIPHER_OPENSSL_VERSION");
    const std::string want = named != nullptr && *named != '\0' ? named : OPENSSL_VERSION_STR;
    const std::string running = std::to_string(OPENSSL_version_major()) + "." +
                                std::to_string(OPENSSL_version_minor()) + "." +
                                std::to_string(OPENSSL_version_patch());
    EXPECT_EQ(running, want) << "headers " << OPENSSL_VERSION_STR << ", library "
                             << OpenSSL_version(OPENSSL_VERSION);
}

// Every mapped file whose name starts with `stem` (e.g. "libcrypto.so").
std::set<std::string> mapped(const std::string& stem) {
    std::ifstream maps("/proc/self/maps");
    std::set<std::string> files;
    for (std::string line; std::getline(maps, line);) {
        const size_t slash = line.rfind('/');
        if (slash != std::string::npos && line.compare(slash + 1, stem.size(), stem) == 0)
            files.insert(line.substr(line.find('/')));
    }
    return files;
}

TEST(OpenSSLVersion, OneLibcryptoAfterLoadingHwcipher) {
    ASSERT_NE(hwc::test::hwcipher_provider(), nullptr);
    const std::set<std::string> crypto = mapped("libcrypto.so");
    ASSERT_EQ(crypto.size(), 1u) << [&] {
        std::string all;
        for (const std::string& f : crypto) all += f + " ";
        return "libcrypto files mapped: " + all;
    }();
    // The one mapped is the compiled-against release's soname
    // (libcrypto.so.3 for 3.x, libcrypto.so.4 for 4.x).
    const std::string soname = "libcrypto.so." + std::to_string(OPENSSL_VERSION_MAJOR);
    EXPECT_NE(crypto.begin()->find(soname), std::string::npos) << *crypto.begin();
}

} // namespace
