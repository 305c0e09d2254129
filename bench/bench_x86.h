// SPDX-License-Identifier: Apache-2.0
// bench_x86: shared declarations of its units.
//   bench_x86_common.cpp  cases as text, output digests, the timing loop;
//   bench_x86_evp.cpp     one case driven through EVP (hwcipher or the
//                         default provider of the libcrypto it is linked to);
//   bench_x86_gcry.cpp    one case driven through libgcrypt's gcry_cipher API;
//   bench_x86_floor.cpp   the EVP floor: a provider that does no cryptography;
//   bench_x86.cpp         the driver: times everything, prints the tables;
//   bench_x86_peer.cpp    a helper process that runs EVP cases under another
//                         OpenSSL release on the driver's request.
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
//   aead:   one whole message per call: set a 12-byte nonce, `aad` bytes of
//           AAD (16; 13, TLS 1.2's record AAD, in the TLS-shaped rows), one
//           update of `len`, final, and get (enc) or verify (dec) a 16-byte
//           tag.
enum class Shape { stream, xts, aead };

inline constexpr size_t kAadLen = 16; // the most AAD a case has
inline constexpr size_t kTlsAadLen = 13;
inline constexpr size_t kTagLen = 16;
inline constexpr size_t kNonceLen = 12;

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
    size_t aad = kAadLen;  // AEAD: bytes of AAD per message (at most kAadLen)
};

// One line of text (no newline) and back: how the driver hands a case to a
// peer process. decode_case dies on a malformed line.
std::string encode_case(const Case& c);
Case decode_case(const std::string& line);

// Deterministic bytes, the same in every runner.
std::vector<unsigned char> pattern(size_t n, unsigned seed);
// The IV (or tweak, or counter block; AEAD: its first kNonceLen bytes) and
// the AAD of every case. Keys are pattern(keylen, 1): XTS keys get two
// different halves, since a pattern never repeats within 64 bytes.
inline std::vector<unsigned char> iv_pattern() { return pattern(16, 3); }
inline std::vector<unsigned char> aad_pattern() { return pattern(kAadLen, 5); }

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
    // A 64-bit digest (FNV-1a) of the first `len` output bytes and the tag:
    // what a peer process reports instead of the bytes.
    uint64_t digest(size_t len) const;

protected:
    std::vector<unsigned char> in_, out_, tag_;
};

// `cipher` was fetched by the caller (whose provider is checked there).
std::unique_ptr<Runner> make_evp_runner(const Case& c, EVP_CIPHER* cipher);
std::unique_ptr<Runner> make_gcry_runner(const Case& c);

// Fetches c's cipher with "provider=<provider>" and checks that provider
// served it; nullptr (and the error queue cleared) when it has none.
std::unique_ptr<Runner> open_evp(const Case& c, const std::string& provider);

// Registers and loads the EVP floor provider (bench_x86_floor.cpp) in this
// process under the name kFloorProvider; false if that failed.
inline constexpr const char* kFloorProvider = "evp-floor";
bool load_floor_provider();

// libgcrypt set-up (version check, no secure memory); returns its version
// and the hardware features it detected.
std::string gcry_setup();

// ---- timing (thread CPU time, so time spent descheduled is not counted) ---------

double cpu_ns();
// Thread CPU time of `units` calls of r.once().
double time_units(Runner& r, size_t units);
// Units for one batch of about target_ns (this also warms up).
size_t calibrate(Runner& r, double target_ns);

} // namespace bench
