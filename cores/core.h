// SPDX-License-Identifier: Apache-2.0
// The core interface: what one (cipher, instruction set) implementation offers.
//
// A core is key setup plus whole-block kernels. It knows nothing of OpenSSL,
// allocates nothing and never sees a partial block: buffering, `num`, padding
// and streaming across update calls live in the provider's mode contexts.
// Mode kernels a core leaves empty (nullptr) are served by the generic kernels
// in cores/portable/generic_modes.cpp, built on the core's encrypt_blocks.
// Callers go through the helpers in cores/modes.h, never through a slot
// directly, so the fallback rule lives in one place.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwc {

inline constexpr size_t kBlockSize = 16;

// Largest key schedule of any core: the portable Twofish keeps 4 KiB of
// key-dependent S-box tables plus 40 round subkeys.
inline constexpr size_t kMaxScheduleBytes = 4352;

enum class Family : uint8_t { aes, sm4, twofish };

// Opaque storage for a core's expanded key (both directions). Only the core
// that filled it may read it. The owner wipes it on re-key and on free.
struct alignas(64) KeySchedule {
    uint8_t bytes[kMaxScheduleBytes];
};

// Kernel contracts shared by every slot below:
//  - whole 16-byte blocks only, `nblocks` may be 0 (then nothing is touched);
//  - `in == out` (in-place) is allowed, any other overlap is not;
//  - no alignment is required of `in`, `out` or `iv`;
//  - `iv` (16 bytes) is the chaining state, read on entry and written back on
//    return so the next call continues the same stream.
using BlocksFn = void (*)(const KeySchedule& ks, const uint8_t* in, uint8_t* out,
                          size_t nblocks);
using ChainFn = void (*)(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in,
                         uint8_t* out, size_t nblocks);

struct BlockCore {
    const char* name;        // shown in descriptions and the core report, e.g. "aes-ct64"
    Family family;
    bool hardware;           // backed by CPU instructions (hwcipher.accel=yes)
    uint32_t needs;          // CpuFeature bits that must all be present (0 = always usable)

    // Expand `key` for encryption and decryption. Returns false (and leaves
    // nothing secret behind) when `keylen` is not a length this cipher defines.
    bool (*set_key)(KeySchedule& ks, const uint8_t* key, size_t keylen);

    BlocksFn encrypt_blocks; // ECB encryption, required
    BlocksFn decrypt_blocks; // ECB decryption, required

    // Optional mode kernels; nullptr means "use the generic one".
    ChainFn cbc_encrypt;     // iv = previous ciphertext block
    ChainFn cbc_decrypt;     // iv = previous ciphertext block
    ChainFn cfb_encrypt;     // CFB128 on whole blocks; iv = previous ciphertext block
    ChainFn cfb_decrypt;
    ChainFn ofb;             // iv = last keystream block (the OFB register)
    ChainFn ctr;             // iv = 128-bit big-endian counter, +1 per block, wraps mod 2^128
};

} // namespace hwc
