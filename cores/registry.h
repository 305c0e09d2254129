// SPDX-License-Identifier: Apache-2.0
// Which cores exist for each cipher family, and how one is chosen.
#pragma once

#include <span>
#include <string>

#include "cores/core.h"
#include "cores/ghash.h"

namespace hwc {

// Every core compiled into this build for `f`, best first; the portable core
// is always last, so the list is never empty.
std::span<const BlockCore* const> cores_for(Family f);

const char* family_name(Family f); // "aes", "sm4", "twofish"

// Every GHASH core compiled into this build, best first; ghash-portable is
// always last. GHASH is a family of its own in HWCIPHER_CORES ("ghash=...").
std::span<const GhashCore* const> ghash_cores();

// The result of selection for all families.
struct CoreSelection {
    const BlockCore* core[3]; // indexed by Family
    const GhashCore* ghash;   // GCM's and GMAC's universal hash
    const BlockCore* for_family(Family f) const { return core[static_cast<int>(f)]; }
};

// Picks, per family, the first core whose `needs` bits are all in `features`,
// unless `override_spec` (the HWCIPHER_CORES syntax) says otherwise:
//   ""                      best usable core for every family
//   "portable"              the portable core for every family
//   "aes=portable,sm4=NAME" per family: "portable", "best" or a core name
//                           (families: aes, sm4, twofish and ghash)
//   "aes-aesni"             a core name alone: that core for its family
//                           (the others keep their best core)
// A forced core whose features are missing, an unknown family or an unknown
// core name is an error: returns false and describes it in `error`.
bool select_cores(uint32_t features, const char* override_spec, CoreSelection& out,
                  std::string& error);

} // namespace hwc
