// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the CPACF shim tests: OpenSSL default-provider references
// (one-shot cipher, GCM, CMAC), the partial-completion granularities every
// case runs at, and small byte utilities.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "cores/s390x/cpacf_detect.h"
#include "test/s390x/cpacf_shim.h"
#include "test/support/ossl_env.h"

namespace hwc::test::shimref {

inline constexpr size_t B = 16;
inline constexpr size_t kKeyLengths[] = {16, 24, 32};

// CPACF AES function code for a key length: 18, 19, 20.
inline uint64_t aes_fc(size_t keylen) { return 18 + (keylen - 16) / 8; }

// "AES-192-CBC" from 24 and "CBC".
std::string aes_name(size_t keylen, const char* mode);

// One-shot encryption or decryption by OpenSSL's default provider, no padding.
Bytes evp(const std::string& name, const Bytes& key, const Bytes& iv, const Bytes& in, bool enc);

struct Sealed {
    Bytes ct, tag;
};
// AES-GCM encryption by the default provider, any IV length, 16-byte tag.
Sealed evp_gcm(const Bytes& key, const Bytes& iv, const Bytes& aad, const Bytes& pt);

// AES-CMAC by the default provider.
Bytes evp_cmac(const Bytes& key, const Bytes& msg);

// A partial-completion granularity: the one HWCIPHER_SHIM_PARTIAL chose for
// the process, or a forced number of bytes per execution (0 = never).
struct Granularity {
    bool from_environment;
    size_t bytes;
    std::string label() const;
};

// The environment's setting, then never, every block, 48 bytes, 80 bytes
// (an odd multiple of the block) and 24 bytes (not a multiple of it).
std::vector<Granularity> granularities();

// Applies a granularity for its lifetime.
class AtGranularity {
public:
    explicit AtGranularity(const Granularity& g) {
        if (!g.from_environment) scoped_.emplace(g.bytes);
    }

private:
    std::optional<cpacf_shim::ScopedPartial> scoped_;
};

// Whether the CPU model offers MSA4 and MSA8 (qemu -cpu max does; a run with
// HWCIPHER_QEMU_CPU=max,msa8-base=off does not). Tests of those instructions
// skip without them: the shim would rightly decline every one.
inline bool msa4() { return cpacf_shim::facilities().msa4; }
inline bool msa8() { return cpacf_shim::facilities().msa8; }

inline void store_be64(uint8_t* p, uint64_t v) {
    for (int i = 7; i >= 0; --i, v >>= 8) p[i] = static_cast<uint8_t>(v);
}

inline Bytes concat(const Bytes& a, const Bytes& b) {
    Bytes r = a;
    r.insert(r.end(), b.begin(), b.end());
    return r;
}

// Sets HWCIPHER_S390X_DISABLE and detects again for the lifetime of the
// object; the previous setting and detection come back afterwards.
class ScopedDisable {
public:
    explicit ScopedDisable(const char* spec) {
        if (const char* old = std::getenv("HWCIPHER_S390X_DISABLE")) {
            previous_ = old;
            had_ = true;
        }
        setenv("HWCIPHER_S390X_DISABLE", spec, 1);
        s390x::cpacf_redetect();
    }
    ~ScopedDisable() {
        if (had_) setenv("HWCIPHER_S390X_DISABLE", previous_.c_str(), 1);
        else unsetenv("HWCIPHER_S390X_DISABLE");
        s390x::cpacf_redetect();
    }
    ScopedDisable(const ScopedDisable&) = delete;
    ScopedDisable& operator=(const ScopedDisable&) = delete;

private:
    std::string previous_;
    bool had_ = false;
};


inline Bytes slice(const Bytes& a, size_t from, size_t n) {
    return Bytes(a.begin() + static_cast<long>(from), a.begin() + static_cast<long>(from + n));
}

} // namespace hwc::test::shimref
