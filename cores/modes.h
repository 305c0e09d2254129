// SPDX-License-Identifier: Apache-2.0
// Mode kernels over whole blocks: the one entry the provider's mode contexts
// use. Each helper runs the core's own kernel when it has one and the generic
// kernel (cores/portable/generic_modes.cpp) otherwise. The contracts are those
// of cores/core.h: whole blocks, in == out allowed, `iv` updated in place.
#pragma once

#include "cores/core.h"

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

} // namespace hwc
