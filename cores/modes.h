// SPDX-License-Identifier: Apache-2.0
// Mode kernels over whole blocks: the one entry the provider's mode contexts
// use. Each helper runs the core's own kernel when it has one and the generic
// kernel (cores/portable/generic_modes.cpp) otherwise. The contracts are those
// of cores/core.h: whole blocks, in == out allowed, `iv` updated in place.
#pragma once

#include <cstring>

#include "cores/core.h"
#include "cores/wipe.h"

namespace hwc {

namespace generic {
void cbc_encrypt(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t nblocks);
void cbc_decrypt(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t nblocks);
void cfb_encrypt(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t nblocks);
void cfb_decrypt(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t nblocks);
void ofb(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
         const uint8_t* in, uint8_t* out, size_t nblocks);
void ctr(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
         const uint8_t* in, uint8_t* out, size_t nblocks);

// Bit- and byte-serial CFB: `iv` is the 16-byte shift register.
// cfb8 processes `nbytes` bytes; cfb1 processes `nbits` bits, most significant
// bit of each byte first (bit i of the stream is bit 7 - i%8 of byte i/8).
void cfb8(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
          const uint8_t* in, uint8_t* out, size_t nbytes, bool encrypt);
void cfb1(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
          const uint8_t* in, uint8_t* out, size_t nbits, bool encrypt);

// CBC-MAC over whole blocks (CMAC, S2V): `iv` is the chaining value, updated
// in place; no ciphertext is kept. Uses the core's cbc_encrypt when it has one
// (cores/portable/generic_cmac.cpp).
void cbc_mac(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
             const uint8_t* in, size_t nblocks);
} // namespace generic

inline void ecb_encrypt(const BlockCore& c, const KeySchedule& ks, const uint8_t* in,
                        uint8_t* out, size_t n) { c.encrypt_blocks(ks, in, out, n); }
inline void ecb_decrypt(const BlockCore& c, const KeySchedule& ks, const uint8_t* in,
                        uint8_t* out, size_t n) { c.decrypt_blocks(ks, in, out, n); }

inline void cbc_encrypt(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t n) {
    if (c.cbc_encrypt) c.cbc_encrypt(ks, iv, in, out, n);
    else generic::cbc_encrypt(c, ks, iv, in, out, n);
}
inline void cbc_decrypt(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t n) {
    if (c.cbc_decrypt) c.cbc_decrypt(ks, iv, in, out, n);
    else generic::cbc_decrypt(c, ks, iv, in, out, n);
}
inline void cfb_encrypt(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t n) {
    if (c.cfb_encrypt) c.cfb_encrypt(ks, iv, in, out, n);
    else generic::cfb_encrypt(c, ks, iv, in, out, n);
}
inline void cfb_decrypt(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t n) {
    if (c.cfb_decrypt) c.cfb_decrypt(ks, iv, in, out, n);
    else generic::cfb_decrypt(c, ks, iv, in, out, n);
}
inline void ofb(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t n) {
    if (c.ofb) c.ofb(ks, iv, in, out, n);
    else generic::ofb(c, ks, iv, in, out, n);
}
inline void ctr(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t n) {
    if (c.ctr) c.ctr(ks, iv, in, out, n);
    else generic::ctr(c, ks, iv, in, out, n);
}

// XTS (IEEE 1619 / SP 800-38E) over whole blocks of one data unit
// (cores/portable/generic_xts.cpp). `tweak` is the running tweak, already
// encrypted under the tweak key: read on entry, multiplied by alpha once per
// block and written back, so the next call continues the data unit.
// Ciphertext stealing for a partial last block is the caller's (it needs the
// tweak one step ahead: xts_mul_alpha). The GB variants use the GB/T
// 17964-2021 tweak update (SM4-XTS "xts_standard"="GB"): the same field, but
// in bit-reflected order (shift right, reduce with 0xE1 into byte 0) instead
// of IEEE's little-endian shift left with 0x87.
namespace generic {
void xts_encrypt(const BlockCore& c, const KeySchedule& ks, uint8_t tweak[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t nblocks);
void xts_decrypt(const BlockCore& c, const KeySchedule& ks, uint8_t tweak[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t nblocks);
void xts_gb_encrypt(const BlockCore& c, const KeySchedule& ks, uint8_t tweak[kBlockSize],
                    const uint8_t* in, uint8_t* out, size_t nblocks);
void xts_gb_decrypt(const BlockCore& c, const KeySchedule& ks, uint8_t tweak[kBlockSize],
                    const uint8_t* in, uint8_t* out, size_t nblocks);
void xts_mul_alpha(uint8_t tweak[kBlockSize], bool gb);
// One data unit's `len` >= 16 bytes (any length; stealing for a partial
// last block) from the running tweak, for a core without its own XTS
// kernel for this direction and standard: one pass over the core's ECB
// kernel in which the last whole block of a decryption with stealing takes
// the tweak after it (its place in IEEE 1619 5.4.2), then the stolen pair
// (generic_xts.cpp). `tweak` is left unspecified (the unit is complete).
void xts_steal_ecb(const BlockCore& c, const KeySchedule& ks, uint8_t tweak[kBlockSize],
                   const uint8_t* in, uint8_t* out, size_t len, bool encrypt, bool gb);
} // namespace generic

// The encrypted initial tweak E(key 2, iv), `ks` holding key 2.
inline void xts_tweak(const BlockCore& c, const KeySchedule& ks, const uint8_t iv[kBlockSize],
                      uint8_t tweak[kBlockSize]) {
    if (c.xts_tweak) c.xts_tweak(ks, iv, tweak);
    else c.encrypt_blocks(ks, iv, tweak, 1);
}

// A whole IEEE data unit of `len` >= 16 bytes, any length, in one kernel
// call when the core has one (xts_unit_any_*), or, for whole blocks only,
// its xts_unit_*; false (nothing written) means: use xts_tweak and
// xts_steal.
inline bool xts_unit_bytes(const BlockCore& c, const KeySchedule& data_ks,
                           const KeySchedule& tweak_ks, const uint8_t iv[kBlockSize],
                           const uint8_t* in, uint8_t* out, size_t len, bool encrypt) {
    const XtsUnitBytesFn any = encrypt ? c.xts_unit_any_encrypt : c.xts_unit_any_decrypt;
    if (any != nullptr && any(data_ks, tweak_ks, iv, in, out, len)) return true;
    const XtsUnitFn fn = encrypt ? c.xts_unit_encrypt : c.xts_unit_decrypt;
    return len % kBlockSize == 0 && fn != nullptr &&
           fn(data_ks, tweak_ks, iv, in, out, len / kBlockSize);
}

// A whole IEEE data unit of `n` >= 1 blocks in one kernel call, when the core
// has one for this key pair; false (nothing written) means: use xts_tweak and
// xts_encrypt / xts_decrypt. There is no generic version.
inline bool xts_unit(const BlockCore& c, const KeySchedule& data_ks, const KeySchedule& tweak_ks,
                     const uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out, size_t n,
                     bool encrypt) {
    const XtsUnitFn fn = encrypt ? c.xts_unit_encrypt : c.xts_unit_decrypt;
    return fn != nullptr && fn(data_ks, tweak_ks, iv, in, out, n);
}

inline void xts_encrypt(const BlockCore& c, const KeySchedule& ks, uint8_t tweak[kBlockSize],
                        const uint8_t* in, uint8_t* out, size_t n, bool gb) {
    if (gb) {
        if (c.xts_gb_encrypt) c.xts_gb_encrypt(ks, tweak, in, out, n);
        else generic::xts_gb_encrypt(c, ks, tweak, in, out, n);
    } else {
        if (c.xts_encrypt) c.xts_encrypt(ks, tweak, in, out, n);
        else generic::xts_encrypt(c, ks, tweak, in, out, n);
    }
}
inline void xts_decrypt(const BlockCore& c, const KeySchedule& ks, uint8_t tweak[kBlockSize],
                        const uint8_t* in, uint8_t* out, size_t n, bool gb) {
    if (gb) {
        if (c.xts_gb_decrypt) c.xts_gb_decrypt(ks, tweak, in, out, n);
        else generic::xts_gb_decrypt(c, ks, tweak, in, out, n);
    } else {
        if (c.xts_decrypt) c.xts_decrypt(ks, tweak, in, out, n);
        else generic::xts_decrypt(c, ks, tweak, in, out, n);
    }
}

// One data unit of `len` >= 16 bytes from the encrypted initial tweak: the
// whole blocks, then (for a partial last block) ciphertext stealing. A core
// without a kernel for this direction and standard goes through
// generic::xts_steal_ecb in one pass; one with a kernel runs it once over
// the whole blocks an encryption needs before the stolen pair (a decryption
// leaves the last whole block to the pair, which takes the tweaks the other
// way round), then the pair through the same kernel. `tweak` is consumed.
inline void xts_steal(const BlockCore& c, const KeySchedule& ks, uint8_t tweak[kBlockSize],
                      const uint8_t* in, uint8_t* out, size_t len, bool encrypt, bool gb) {
    const ChainFn own = gb ? (encrypt ? c.xts_gb_encrypt : c.xts_gb_decrypt)
                           : (encrypt ? c.xts_encrypt : c.xts_decrypt);
    if (own == nullptr) return generic::xts_steal_ecb(c, ks, tweak, in, out, len, encrypt, gb);
    const size_t whole = len / kBlockSize, tail = len % kBlockSize;
    if (tail == 0) return own(ks, tweak, in, out, whole);
    // Encryption: blocks 0..m-1 under T_0..T_{m-1}, leaving T_m; the last
    // whole block's output is CC. Decryption: blocks 0..m-2, leaving T_{m-1};
    // block m-1 is deciphered under T_m into PP. Either way `x` (CC or PP) is
    // then split: its head becomes the output's tail, and the input's tail
    // padded with its remainder goes through the remaining tweak into block
    // m-1.
    own(ks, tweak, in, out, encrypt ? whole : whole - 1);
    const uint8_t* last_in = in + (whole - 1) * kBlockSize;
    uint8_t* last_out = out + (whole - 1) * kBlockSize;
    uint8_t x[kBlockSize];
    if (!encrypt) {
        uint8_t next[kBlockSize];
        std::memcpy(next, tweak, kBlockSize);
        generic::xts_mul_alpha(next, gb);
        own(ks, next, last_in, x, 1);
        secure_wipe(next, sizeof next);
    } else {
        std::memcpy(x, last_out, kBlockSize);
    }
    uint8_t y[kBlockSize];
    std::memcpy(y, last_in + kBlockSize, tail); // before the output's tail is written
    std::memcpy(y + tail, x + tail, kBlockSize - tail);
    std::memcpy(last_out + kBlockSize, x, tail);
    own(ks, tweak, y, last_out, 1);
    secure_wipe(x, sizeof x);
    secure_wipe(y, sizeof y);
}

inline void cfb8(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t nbytes, bool encrypt) {
    const Cfb8Fn fn = encrypt ? c.cfb8_encrypt : c.cfb8_decrypt;
    if (fn) fn(ks, iv, in, out, nbytes);
    else generic::cfb8(c, ks, iv, in, out, nbytes, encrypt);
}

inline void cbc_mac(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
                    const uint8_t* in, size_t n) {
    if (c.cbc_mac) c.cbc_mac(ks, iv, in, n);
    else generic::cbc_mac(c, ks, iv, in, n);
}

// CMAC's last block in one kernel call, when the core has one for this key
// (see CmacLastFn); false (`x` untouched) means: pad, XOR the subkey and
// finish with cbc_mac. The subkeys live with the caller, so the software
// step stays there (provider/cmac_engine.cpp).
inline bool cmac_last(const BlockCore& c, const KeySchedule& ks, uint8_t x[kBlockSize],
                      const uint8_t* last, size_t n) {
    return c.cmac_last != nullptr && c.cmac_last(ks, x, last, n);
}

// OCB whole data blocks (cores/portable/generic_ocb.cpp): see OcbState.
namespace generic {
void ocb_encrypt(const BlockCore& c, const KeySchedule& ks, OcbState& st, const uint8_t* in,
                 uint8_t* out, size_t nblocks);
void ocb_decrypt(const BlockCore& c, const KeySchedule& ks, OcbState& st, const uint8_t* in,
                 uint8_t* out, size_t nblocks);
} // namespace generic

inline void ocb_encrypt(const BlockCore& c, const KeySchedule& ks, OcbState& st,
                        const uint8_t* in, uint8_t* out, size_t n) {
    if (c.ocb_encrypt) c.ocb_encrypt(ks, st, in, out, n);
    else generic::ocb_encrypt(c, ks, st, in, out, n);
}
inline void ocb_decrypt(const BlockCore& c, const KeySchedule& ks, OcbState& st,
                        const uint8_t* in, uint8_t* out, size_t n) {
    if (c.ocb_decrypt) c.ocb_decrypt(ks, st, in, out, n);
    else generic::ocb_decrypt(c, ks, st, in, out, n);
}

// CCM whole data blocks (see CcmFn): the core's fused kernel, or cbc_mac and
// ctr over L1-sized chunks (cores/portable/generic_modes.cpp).
namespace generic {
void ccm_encrypt(const BlockCore& c, const KeySchedule& ks, uint8_t mac[kBlockSize],
                 uint8_t ctr[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks);
void ccm_decrypt(const BlockCore& c, const KeySchedule& ks, uint8_t mac[kBlockSize],
                 uint8_t ctr[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks);
} // namespace generic

inline void ccm_encrypt(const BlockCore& c, const KeySchedule& ks, uint8_t mac[kBlockSize],
                        uint8_t ctr[kBlockSize], const uint8_t* in, uint8_t* out, size_t n) {
    if (c.ccm_encrypt) c.ccm_encrypt(ks, mac, ctr, in, out, n);
    else generic::ccm_encrypt(c, ks, mac, ctr, in, out, n);
}
inline void ccm_decrypt(const BlockCore& c, const KeySchedule& ks, uint8_t mac[kBlockSize],
                        uint8_t ctr[kBlockSize], const uint8_t* in, uint8_t* out, size_t n) {
    if (c.ccm_decrypt) c.ccm_decrypt(ks, mac, ctr, in, out, n);
    else generic::ccm_decrypt(c, ks, mac, ctr, in, out, n);
}

// The stitched GCM kernel of `c` when it pairs with GHASH core `g`, else
// nullptr (the GCM engine then runs ctr and the GHASH core separately).
inline GcmFn gcm_kernel(const BlockCore& c, const GhashCore& g, bool encrypt) {
    if (c.gcm_ghash != &g) return nullptr;
    return encrypt ? c.gcm_encrypt : c.gcm_decrypt;
}

} // namespace hwc
