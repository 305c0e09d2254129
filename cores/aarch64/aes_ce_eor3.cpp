// SPDX-License-Identifier: Apache-2.0
// aes-armv8-ce-eor3: aes-armv8-ce for CPUs that also have the SHA3
// extension (HWCAP sha3: Neoverse V1/V2/N2, Apple M1+, QEMU's max), whose
// EOR3 folds the three-way XORs of the CTR and GCM loops into one
// instruction: keystream ^ input ^ last round key per output block, and in
// GHASH the Karatsuba sums and the reduction. Every other slot is
// aes-armv8-ce's own; only CTR and the stitched GCM kernels differ
// (aes_ce_modes.S hwc_aes_ce_ctr8_eor3, aes_ce_gcm.S hwc_aes_ce_gcm8_eor3_*).
// The plain core stays in the registry behind this one, so forcing it
// (HWCIPHER_CORES=aes=aes-armv8-ce) tests the non-EOR3 kernels on any CPU.
//
// Guest instructions per byte under qemu-aarch64 -cpu max (16 KiB updates
// through EVP): README's aarch64 benchmark.
#include "cores/aarch64/aarch64.h"

#include "cores/aarch64/aes_ce.h"
#include "cores/aarch64/aes_ce_gcm.h"
#include "cores/cpu.h"

// aes_ce_modes.S: whole chunks of 8 blocks (see hwc_aes_ce_ctr8).
extern "C" void hwc_aes_ce_ctr8_eor3(const uint8_t* keys, unsigned rounds, uint8_t ctr[16],
                                     const uint8_t* in, uint8_t* out, size_t chunks);

namespace hwc::aarch64 {
namespace {

// Whole chunks through the EOR3 loop, the last 0..7 blocks through
// aes-armv8-ce's CTR (which then finds no whole chunk left).
void ctr_eor3(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (const size_t chunks = n / 8; chunks != 0) {
        const AesCeKey& key = aes_ce_key(ks);
        hwc_aes_ce_ctr8_eor3(key.enc[0], key.rounds, iv, in, out, chunks);
        in += 128 * chunks;
        out += 128 * chunks;
        n %= 8;
    }
    if (n != 0) aes_ce.ctr(ks, iv, in, out, n);
}

BlockCore with_eor3(BlockCore c) {
    c.name = "aes-armv8-ce-eor3";
    c.needs |= kArmSha3;
    c.ctr = ctr_eor3;
    c.gcm_encrypt = gcm_ce_eor3_encrypt;
    c.gcm_decrypt = gcm_ce_eor3_decrypt;
    return c;
}

} // namespace

// Built from aes_ce at load time (aes_ce itself is constant-initialized, so
// it is complete before any dynamic initializer runs).
extern const BlockCore aes_ce_eor3 = with_eor3(aes_ce);

} // namespace hwc::aarch64
