// SPDX-License-Identifier: Apache-2.0
// The CPACF shim's own block-cipher arithmetic: textbook AES (FIPS 197), the
// GCM multiplication in GF(2^128) (SP 800-38D, algorithm 1) and the two
// "multiply by x" steps of XTS (IEEE 1619) and CMAC (SP 800-38B).
//
// Written for the shim alone and deliberately plain: it runs inside a SIGILL
// handler (no allocation, no locks, no library calls beyond memcpy), it must
// never reach CPACF itself (a library AES that detects CPACF could recurse
// into the handler), and it has to be independent of the code under test
// (hwcipher's cores) and of the reference (OpenSSL). Not constant-time: it
// only ever sees test keys.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwc::test::shim {

// An expanded AES key: (rounds + 1) round keys of 16 bytes.
struct AesKey {
    uint8_t round_key[15][16];
    int rounds;  // 10, 12 or 14
};

// keylen 16, 24 or 32; returns false for any other length.
bool aes_expand(AesKey& k, const uint8_t* key, size_t keylen);
void aes_encrypt(const AesKey& k, const uint8_t in[16], uint8_t out[16]);
void aes_decrypt(const AesKey& k, const uint8_t in[16], uint8_t out[16]);

// x = x * h in GCM's GF(2^128) (bit 0 = most significant bit of byte 0).
void gcm_multiply(uint8_t x[16], const uint8_t h[16]);

// XTS tweak step: t = t * alpha, t read as a little-endian 128-bit number,
// reduction 0x87 into byte 0.
void xts_double(uint8_t t[16]);

// CMAC subkey step: b = b << 1 as a big-endian 128-bit number, reduction
// 0x87 into byte 15.
void cmac_double(uint8_t b[16]);

inline void xor_block(uint8_t* dst, const uint8_t* a, const uint8_t* b, size_t n = 16) {
    for (size_t i = 0; i < n; ++i) dst[i] = static_cast<uint8_t>(a[i] ^ b[i]);
}

} // namespace hwc::test::shim
