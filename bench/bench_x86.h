// SPDX-License-Identifier: Apache-2.0
// bench_x86: shared declarations of its two units. bench_x86_runners.cpp
// drives one (cipher, mode, direction, length) case through EVP (hwcipher or
// the default provider) or through libgcrypt's gcry_cipher API;
// bench_x86.cpp times the runners and prints the tables.
#pragma once

#include <openssl/evp.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace bench {

[[noreturn]] void die(const std::string& what);

// How a unit of work (one `once()` call) is shaped:
//   stream: key and IV set once, then one update of `len` bytes per unit, the
//           way `openssl speed` and libgcrypt's bench-slope run bulk modes;
//   xts:    one data unit per call: set the tweak IV, one update of `len`;
//   aead:   one whole message per call: set a 12-byte nonce, 16 bytes of AAD,
//           one update of `len`, final, and get (enc) or verify (dec) a
//           16-byte tag.
enum class Shape { stream, xts, aead };

struct Case {
    std::string evp_name;  // e.g. "AES-128-GCM"
    std::string mode;      // e.g. "GCM" (table column)
    int gcry_algo = 0;     // GCRY_CIPHER_*
    int gcry_mode = 0;     // GCRY_CIPHER_MODE_*
    Shape shape = Shape::stream;
    bool ccm = false;      // CCM: lengths before AAD, tag before data (dec)
    bool ocb = false;      // OCB: libgcrypt wants gcry_cipher_final before the last data
    bool enc = true;
    size_t len = 0;        // bytes per unit
};

inline constexpr size_t kAadLen = 16;
inline constexpr size_t kTagLen = 16;
inline constexpr size_t kNonceLen = 12;

// Deterministic bytes, the same in every runner.
std::vector<unsigned char> pattern(size_t n, unsigned seed);

class Runner {
public:
    virtual ~Runner() = default;
    // One unit of work (see Shape). Dies on any library error, and on a tag
    // that does not verify.
    virtual void once() = 0;
    // Output of the most recent once() (and its tag for AEAD encryption):
    // the runners of one case are compared on it before being timed.
    const std::vector<unsigned char>& output() const { return out_; }
    const std::vector<unsigned char>& tag() const { return tag_; }

protected:
    std::vector<unsigned char> in_, out_, tag_;
};

// `cipher` was fetched by the caller (whose provider is checked there).
std::unique_ptr<Runner> make_evp_runner(const Case& c, EVP_CIPHER* cipher);
std::unique_ptr<Runner> make_gcry_runner(const Case& c);

// libgcrypt set-up (version check, no secure memory); returns its version
// and the hardware features it detected.
std::string gcry_setup();

} // namespace bench
