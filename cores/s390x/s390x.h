// SPDX-License-Identifier: Apache-2.0
// s390x cores on CPACF (the message-security-assist instructions). Listed in
// cores/registry.cpp when the build allows CPACF (HWCIPHER_S390X_MSA*); each
// mode kernel still checks, per key size, that the CPU reported the exact
// function code it needs (cores/s390x/cpacf_detect.h) and runs the portable
// code for that call otherwise. SM4 and Twofish stay portable on s390x.
#pragma once

#include <cstdint>

#include "cores/core.h"
#include "cores/ghash.h"

namespace hwc::s390x {

// "aes-cpacf": KM, KMC, KMF, KMO, KMCTR, KMAC, KM-XTS and KMA (aes_cpacf.cpp).
extern const BlockCore aes_cpacf;

#if defined(HWCIPHER_S390X_MSA4)
// "ghash-kimd": KIMD-GHASH (ghash_kimd.cpp).
extern const GhashCore ghash_kimd;

// The hash subkey H (16 bytes, GCM byte order) held in a key ghash_kimd set
// up: KMA's parameter block takes H itself.
const uint8_t* ghash_kimd_subkey(const GhashKey& key);
#endif

} // namespace hwc::s390x
