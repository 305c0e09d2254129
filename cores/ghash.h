// SPDX-License-Identifier: Apache-2.0
// The GHASH core interface: GCM's universal hash (NIST SP 800-38D, 6.4) as a
// small core family of its own, so a GCM context can pair any block core with
// any GHASH core (PMULL, PCLMULQDQ, KIMD, portable).
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwc {

// H and whatever a core precomputes from it (e.g. powers of H). Owner wipes.
struct alignas(64) GhashKey {
    uint8_t bytes[512];
};

struct GhashCore {
    const char* name;  // "ghash-portable", shown in the core report
    bool hardware;
    uint32_t needs;    // CpuFeature bits

    // h = E_K(0^128), in GCM's byte order.
    void (*set_key)(GhashKey& key, const uint8_t h[16]);

    // For each of `nblocks` 16-byte blocks X: y = (y xor X) * H in GF(2^128),
    // GCM bit order. nblocks may be 0. `in` needs no alignment.
    void (*update)(const GhashKey& key, uint8_t y[16], const uint8_t* in, size_t nblocks);

    // Optional (nullptr: update, then XOR): GCM's last step, the tag, from y
    // updated by the nblocks (1 or 2) blocks at `in`, XORed with `mask`; y
    // is left as it was. A core provides it where y then stays in a register:
    // its round trip through memory would be on the critical path of every
    // GCM message.
    void (*finish)(const GhashKey& key, const uint8_t y[16], const uint8_t* in, size_t nblocks,
                   const uint8_t mask[16], uint8_t tag[16]) = nullptr;
};

} // namespace hwc
