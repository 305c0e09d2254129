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

#include "cores/ghash.h"

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
//  - `in == out` (in-place) is allowed, and so is output trailing its input
//    (`out = in - d`, d > 0: what a loop that reads each block before
//    writing it gives, and what applications that shift data down in one
//    buffer rely on); output ahead of its input, overlapping it, is not;
//  - no alignment is required of `in`, `out` or `iv`;
//  - `iv` (16 bytes) is the chaining state, read on entry and written back on
//    return so the next call continues the same stream.
using BlocksFn = void (*)(const KeySchedule& ks, const uint8_t* in, uint8_t* out,
                          size_t nblocks);
using ChainFn = void (*)(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in,
                         uint8_t* out, size_t nblocks);

// Byte-serial CFB8 over `nbytes` bytes (any count); `iv` is the 16-byte shift
// register.
using Cfb8Fn = void (*)(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in,
                        uint8_t* out, size_t nbytes);

// CBC-MAC over whole blocks (CCM, CMAC, S2V): `iv` is the chaining value; no
// ciphertext is written.
using MacFn = void (*)(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in,
                       size_t nblocks);

// E(key 2, iv): the encrypted initial XTS tweak; `ks` holds the tweak key.
using XtsTweakFn = void (*)(const KeySchedule& ks, const uint8_t iv[kBlockSize],
                            uint8_t tweak[kBlockSize]);

// One whole IEEE XTS data unit of `nblocks` >= 1 whole blocks (no stealing)
// straight from the IV: `data_ks` holds key 1, `tweak_ks` key 2. Returns
// false, having written nothing, when it cannot serve this key pair.
using XtsUnitFn = bool (*)(const KeySchedule& data_ks, const KeySchedule& tweak_ks,
                           const uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out,
                           size_t nblocks);

// One whole IEEE XTS data unit of `len` >= 16 bytes, any length (a partial
// last block is ciphertext stealing, IEEE 1619 5.3.2 / 5.4.2) straight from
// the IV: `data_ks` holds key 1, `tweak_ks` key 2. Returns false, having
// written nothing, when it cannot serve this key pair. `in == out` is
// allowed, and so is output trailing its input (as for BlocksFn).
using XtsUnitBytesFn = bool (*)(const KeySchedule& data_ks, const KeySchedule& tweak_ks,
                                const uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out,
                                size_t len);

// CMAC's last step (SP 800-38B 6.2, steps 4-6): `x` is the CBC-MAC of every
// block before the last, `last` the final `n` bytes (0..16; 0 only for the
// empty message); `x` becomes the tag. Returns false, with `x` untouched,
// when it cannot serve this key.
using CmacLastFn = bool (*)(const KeySchedule& ks, uint8_t x[kBlockSize], const uint8_t* last,
                            size_t n);

// OCB (RFC 7253) running state for whole data blocks. Block i (1-based,
// counting every block of the message so far) uses
//     Offset_i = Offset_{i-1} xor L[ntz(i)],
// encryption computes C_i = Offset_i xor E(P_i xor Offset_i) and
// Checksum ^= P_i (decryption the inverse, Checksum ^= the plaintext out).
struct OcbState {
    uint8_t offset[kBlockSize];      // Offset_{blocks}
    uint8_t checksum[kBlockSize];
    uint64_t blocks;                 // data blocks processed so far
    const uint8_t (*l)[kBlockSize];  // L_0 .. L_63, read only
};
using OcbFn = void (*)(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out,
                       size_t nblocks);

// GCM whole blocks with CTR and GHASH in one pass ("stitched"). `ctr` is the
// counter block (only its low 32 bits step, big-endian; the caller never lets
// them wrap inside one call), `y` the running GHASH value over the ciphertext
// (read before decryption, written after encryption, so `in == out` works).
// `hk` was filled by the GHASH core named in BlockCore::gcm_ghash.
using GcmFn = void (*)(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                       uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks);

// CCM (SP 800-38C) whole data blocks with CTR and CBC-MAC in one pass, so the
// CTR blocks run in the MAC chain's latency. `mac` is the running CBC-MAC
// value, taken over the plaintext in both directions (the input when
// encrypting, the output when decrypting); `ctr` is the counter block of the
// first block, stepped once per block as a 128-bit big-endian integer (the
// CCM caller keeps the message short enough that no carry leaves the L-byte
// counter field) and written back.
using CcmFn = void (*)(const KeySchedule& ks, uint8_t mac[kBlockSize], uint8_t ctr[kBlockSize],
                       const uint8_t* in, uint8_t* out, size_t nblocks);

// Cores are written with designated initializers: name the slots you fill,
// the rest stay nullptr and the generic kernels (cores/modes.h) serve them.
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
    ChainFn cbc_encrypt = nullptr;  // iv = previous ciphertext block
    ChainFn cbc_decrypt = nullptr;  // iv = previous ciphertext block
    ChainFn cfb_encrypt = nullptr;  // CFB128 on whole blocks; iv = previous ciphertext block
    ChainFn cfb_decrypt = nullptr;
    ChainFn ofb = nullptr;          // iv = last keystream block (the OFB register)
    ChainFn ctr = nullptr;          // iv = 128-bit big-endian counter, +1 per block, wraps mod 2^128
    Cfb8Fn cfb8_encrypt = nullptr;
    Cfb8Fn cfb8_decrypt = nullptr;
    MacFn cbc_mac = nullptr;
    CmacLastFn cmac_last = nullptr;  // empty or false: subkey and padding in software
    // XTS over whole blocks of one data unit; iv = the running tweak, already
    // encrypted under the tweak key, stepped once per block and written back.
    ChainFn xts_encrypt = nullptr;     // IEEE 1619 tweak step (x * alpha, little-endian, 0x87)
    ChainFn xts_decrypt = nullptr;
    ChainFn xts_gb_encrypt = nullptr;  // GB/T 17964 tweak step (bit-reflected, 0xE1)
    ChainFn xts_gb_decrypt = nullptr;
    // The initial tweak for either standard; empty: encrypt_blocks on the IV.
    XtsTweakFn xts_tweak = nullptr;
    // A whole unit from the IV: hardware that derives the tweak itself, or a
    // kernel that keeps it in a register; empty or false: xts_tweak
    // followed by xts_encrypt / xts_decrypt.
    XtsUnitFn xts_unit_encrypt = nullptr;
    XtsUnitFn xts_unit_decrypt = nullptr;
    // A whole unit of any length from the IV, stealing included, in one
    // pass (all whole blocks in one kernel, the tweak kept in a register,
    // then the stolen pair); empty or false: xts_unit_* for a unit of whole
    // blocks, else xts_tweak and xts_steal (cores/modes.h). A core that fills
    // only the slots above keeps working unchanged.
    XtsUnitBytesFn xts_unit_any_encrypt = nullptr;
    XtsUnitBytesFn xts_unit_any_decrypt = nullptr;
    OcbFn ocb_encrypt = nullptr;
    OcbFn ocb_decrypt = nullptr;
    // Stitched GCM: used only when the GCM context's GHASH core is
    // `gcm_ghash` (the kernel reads that core's GhashKey layout).
    const GhashCore* gcm_ghash = nullptr;
    GcmFn gcm_encrypt = nullptr;
    GcmFn gcm_decrypt = nullptr;
    CcmFn ccm_encrypt = nullptr;  // empty: cbc_mac and ctr, in L1-sized chunks
    CcmFn ccm_decrypt = nullptr;
    // ccm_encrypt runs a counter block beside each MAC block in registers, so
    // a MAC-only pass given counter blocks too takes no longer: a CCM
    // decryption then has the AAD's pass make its first keystream blocks
    // (provider/modes/mode_ccm.cpp).
    bool ccm_free_counters = false;
};

} // namespace hwc
