// SPDX-License-Identifier: Apache-2.0
// The Twofish key schedule as the portable core stores it in a KeySchedule,
// shared with cores that reuse its key setup and only bring their own block
// kernels (cores/aarch64/twofish_asm.cpp, whose assembly reads the layout by
// byte offsets and static_asserts them against this struct).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cores/core.h"

namespace hwc::portable {

// Fully keyed tables: s[j][x] is the key-dependent S-box of byte lane j
// followed by MDS column j, so
//     g(X) = s[0][x0] ^ s[1][x1] ^ s[2][x2] ^ s[3][x3]   (x0 = low byte of X).
struct TwofishSchedule {
    uint32_t s[4][256]; // the four g tables, 1 KiB apart
    uint32_t k[40];     // whitening K0..K7, round keys K8..K39
};
static_assert(sizeof(TwofishSchedule) <= sizeof(KeySchedule),
              "Twofish schedule must fit KeySchedule");
static_assert(alignof(TwofishSchedule) <= alignof(KeySchedule));
static_assert(std::is_trivially_copyable_v<TwofishSchedule>);

// Twofish key setup for 16-, 24- and 32-byte keys (the portable core's
// set_key): fills a TwofishSchedule at the start of `ks`. Returns false for
// any other length.
bool twofish_set_key(KeySchedule& ks, const uint8_t* key, size_t keylen);

} // namespace hwc::portable
