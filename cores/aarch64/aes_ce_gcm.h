// SPDX-License-Identifier: Apache-2.0
// Stitched AES-GCM kernels for the AES-CE block core (aes_ce_gcm.cpp). They
// read the GhashKey layout of ghash-pmull, so the AES-CE BlockCore pairs them
// with it:
//     .gcm_ghash = &ghash_pmull,
//     .gcm_encrypt = gcm_ce_encrypt,
//     .gcm_decrypt = gcm_ce_decrypt,
// Contract: GcmFn in cores/core.h. The round count comes from AesCeKey.
#pragma once

#include "cores/core.h"

namespace hwc::aarch64 {

void gcm_ce_encrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                    uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks);
void gcm_ce_decrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                    uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks);
// The same with EOR3 for the three-way XORs: only on CPUs with the SHA3
// extension (kArmSha3), for the aes-armv8-ce-eor3 core.
void gcm_ce_eor3_encrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                         uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks);
void gcm_ce_eor3_decrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr[kBlockSize],
                         uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t nblocks);

} // namespace hwc::aarch64
