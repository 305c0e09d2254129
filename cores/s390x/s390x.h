// SPDX-License-Identifier: Apache-2.0
// s390x cores on CPACF (the message-security-assist instructions). Listed in
// cores/registry.cpp when the build allows CPACF (HWCIPHER_S390X_MSA*); each
// mode kernel still checks, per key size, that the CPU reported the exact
// function code it needs (cores/s390x/cpacf_detect.h) and runs the portable
// code for that call otherwise. SM4 and Twofish stay portable on s390x.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cores/core.h"
#include "cores/ghash.h"

namespace hwc::s390x {

// "aes-cpacf": KM, KMC, KMF, KMO, KMCTR, KMAC, KM-XTS and KMA (aes_cpacf.cpp).
extern const BlockCore aes_cpacf;

#if defined(HWCIPHER_S390X_MSA4)
// "ghash-kimd": KIMD-GHASH (ghash_kimd.cpp).
extern const GhashCore ghash_kimd;

// Where ghash_kimd keeps the hash subkey H (16 bytes, GCM byte order) in its
// GhashKey: KMA's parameter block takes H itself. Inline, because KMA's
// per-update cost is counted in instructions (issue #5's target).
constexpr size_t kKimdSubkeyOffset = sizeof(GhashKey::bytes) - 32;
inline const uint8_t* ghash_kimd_subkey(const GhashKey& key) {
    return key.bytes + kKimdSubkeyOffset;
}
#endif

} // namespace hwc::s390x
