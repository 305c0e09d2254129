// SPDX-License-Identifier: Apache-2.0
// twofish-arm64-asm: Twofish-128/192/256 with block and mode kernels in
// hand-written base-AArch64 assembly (twofish_arm64.S).
//
// Needs no CPU feature: only A64 integer instructions. Key setup is the
// portable core's (cores/portable/twofish_schedule.h); the assembly only
// replaces the block functions and the mode loops around them. Like the
// portable core it is NOT constant-time (key-dependent tables indexed by
// state bytes; see cores/portable/twofish.cpp).
//
// Kernels: ECB, CBC/CFB decryption, CTR, XTS (IEEE tweak update) and OCB
// run two blocks interleaved; CBC/CFB encryption and OFB are serial by
// nature and run one block at a time with the chaining value kept in
// registers. The remaining slots (CFB8, GB/T XTS, which Twofish does not
// offer, CBC-MAC) take the generic kernels on top of the ECB ones.
#include "cores/aarch64/aarch64.h"

#include <cstddef>

#include "cores/portable/twofish_schedule.h"

extern "C" {
// Contracts as BlocksFn / ChainFn in cores/core.h.
void hwc_twofish_arm64_ecb_encrypt(const hwc::KeySchedule& ks, const uint8_t* in, uint8_t* out,
                                   size_t nblocks);
void hwc_twofish_arm64_ecb_decrypt(const hwc::KeySchedule& ks, const uint8_t* in, uint8_t* out,
                                   size_t nblocks);
void hwc_twofish_arm64_cbc_encrypt(const hwc::KeySchedule& ks, uint8_t iv[16], const uint8_t* in,
                                   uint8_t* out, size_t nblocks);
void hwc_twofish_arm64_cbc_decrypt(const hwc::KeySchedule& ks, uint8_t iv[16], const uint8_t* in,
                                   uint8_t* out, size_t nblocks);
void hwc_twofish_arm64_cfb_encrypt(const hwc::KeySchedule& ks, uint8_t iv[16], const uint8_t* in,
                                   uint8_t* out, size_t nblocks);
void hwc_twofish_arm64_cfb_decrypt(const hwc::KeySchedule& ks, uint8_t iv[16], const uint8_t* in,
                                   uint8_t* out, size_t nblocks);
void hwc_twofish_arm64_ofb(const hwc::KeySchedule& ks, uint8_t iv[16], const uint8_t* in,
                           uint8_t* out, size_t nblocks);
void hwc_twofish_arm64_ctr(const hwc::KeySchedule& ks, uint8_t iv[16], const uint8_t* in,
                           uint8_t* out, size_t nblocks);
void hwc_twofish_arm64_xts_encrypt(const hwc::KeySchedule& ks, uint8_t tweak[16],
                                   const uint8_t* in, uint8_t* out, size_t nblocks);
void hwc_twofish_arm64_xts_decrypt(const hwc::KeySchedule& ks, uint8_t tweak[16],
                                   const uint8_t* in, uint8_t* out, size_t nblocks);
void hwc_twofish_arm64_ocb_encrypt(const hwc::KeySchedule& ks, hwc::OcbState& st,
                                   const uint8_t* in, uint8_t* out, size_t nblocks);
void hwc_twofish_arm64_ocb_decrypt(const hwc::KeySchedule& ks, hwc::OcbState& st,
                                   const uint8_t* in, uint8_t* out, size_t nblocks);
}

namespace hwc::aarch64 {
namespace {

using Schedule = portable::TwofishSchedule;

// The assembly addresses the schedule by these byte offsets (TF_TABLES,
// TF_TABLE_STRIDE and TF_KEYS at the top of twofish_arm64.S); a change of
// the portable layout must fail here, not produce wrong ciphertext.
static_assert(offsetof(Schedule, s) == 0, "TF_TABLES");
static_assert(sizeof(Schedule::s[0]) == 1024 && sizeof(Schedule::s[0][0]) == 4,
              "TF_TABLE_STRIDE: four tables of 256 32-bit words, back to back");
static_assert(offsetof(Schedule, k) == 4096, "TF_KEYS");
static_assert(sizeof(Schedule::k) == 40 * 4, "K0..K39 as 32-bit words");

// The OCB kernels read and update OcbState in place at these offsets.
static_assert(offsetof(OcbState, offset) == 0 && offsetof(OcbState, checksum) == 16 &&
                  offsetof(OcbState, blocks) == 32 && offsetof(OcbState, l) == 40,
              "OcbState layout used by hwc_twofish_arm64_ocb_*");
static_assert(sizeof(OcbState::blocks) == 8 && sizeof(OcbState::l) == 8);

} // namespace

extern const BlockCore twofish_asm = {
    .name = "twofish-arm64-asm",
    .family = Family::twofish,
    .hardware = false, // plain integer code: faster, but no cipher instructions behind it
    .needs = 0,
    .set_key = portable::twofish_set_key,
    .encrypt_blocks = hwc_twofish_arm64_ecb_encrypt,
    .decrypt_blocks = hwc_twofish_arm64_ecb_decrypt,
    .cbc_encrypt = hwc_twofish_arm64_cbc_encrypt,
    .cbc_decrypt = hwc_twofish_arm64_cbc_decrypt,
    .cfb_encrypt = hwc_twofish_arm64_cfb_encrypt,
    .cfb_decrypt = hwc_twofish_arm64_cfb_decrypt,
    .ofb = hwc_twofish_arm64_ofb,
    .ctr = hwc_twofish_arm64_ctr,
    .xts_encrypt = hwc_twofish_arm64_xts_encrypt,
    .xts_decrypt = hwc_twofish_arm64_xts_decrypt,
    .ocb_encrypt = hwc_twofish_arm64_ocb_encrypt,
    .ocb_decrypt = hwc_twofish_arm64_ocb_decrypt,
};

} // namespace hwc::aarch64
