// SPDX-License-Identifier: Apache-2.0
// aes-aesni's key setup and serial kernels, for the VAES cores that borrow
// them (aes_vaes.cpp, aes_vaes512.cpp; both use aes-aesni's schedule layout).
//
// The serial modes (CBC/CFB encryption, OFB, CFB8, CBC-MAC, CCM) gain nothing
// from wider vectors: one block at a time on one dependency chain. CCM is
// bound by its CBC-MAC chain; aes-aesni runs the CTR blocks in that chain's
// latency, which wider vectors cannot shorten.
//
// The calls go through the aes_ni descriptor at run time (an indirect call
// per buffer), because its functions are private to aes_ni.cpp and another
// unit's const object cannot appear in a descriptor's constant initializer.
// The forwarders sit in an unnamed namespace, so each including unit keeps
// its own copy (as with the ISA helpers of ghash_clmul.h); they contain no
// vector code of their own.
#pragma once

#include "cores/x86_64/x86_64.h"

namespace hwc::x86_64 {
namespace {

bool ni_set_key(KeySchedule& ks, const uint8_t* key, size_t keylen) {
    return aes_ni.set_key(ks, key, keylen);
}
void ni_cbc_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    aes_ni.cbc_encrypt(ks, iv, in, out, n);
}
void ni_cfb_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    aes_ni.cfb_encrypt(ks, iv, in, out, n);
}
void ni_ofb(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    aes_ni.ofb(ks, iv, in, out, n);
}
void ni_cfb8_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    aes_ni.cfb8_encrypt(ks, iv, in, out, n);
}
void ni_cfb8_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    aes_ni.cfb8_decrypt(ks, iv, in, out, n);
}
void ni_cbc_mac(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, size_t n) {
    aes_ni.cbc_mac(ks, iv, in, n);
}
void ni_ccm_encrypt(const KeySchedule& ks, uint8_t mac[16], uint8_t ctr[16], const uint8_t* in,
                    uint8_t* out, size_t n) {
    aes_ni.ccm_encrypt(ks, mac, ctr, in, out, n);
}
void ni_ccm_decrypt(const KeySchedule& ks, uint8_t mac[16], uint8_t ctr[16], const uint8_t* in,
                    uint8_t* out, size_t n) {
    aes_ni.ccm_decrypt(ks, mac, ctr, in, out, n);
}
void ni_xts_tweak(const KeySchedule& ks, const uint8_t iv[16], uint8_t tweak[16]) {
    aes_ni.xts_tweak(ks, iv, tweak);
}

} // namespace
} // namespace hwc::x86_64
