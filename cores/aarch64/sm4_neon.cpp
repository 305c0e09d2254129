// SPDX-License-Identifier: Apache-2.0
// sm4-neon: SM4 (GB/T 32907-2016) on plain NEON, for aarch64 CPUs with
// neither the SM4 nor the AES instructions (Raspberry Pi 4 class). The
// engine and every mode kernel are in sm4_neon.h; this core's wide step is
// 8 blocks of the word-sliced round (two sets of 4 in one round loop), the
// S-box a TBL/TBX lookup in the 256-byte table held in 16 registers, which
// runs in constant time (no memory access depends on the data).
//
// NEON (Advanced SIMD) is part of the aarch64 baseline, so this file needs
// no -march flag and the core no CPU feature; it stays accel=no (no crypto
// instructions). sm4-portable does ~59 guest instructions per byte under
// qemu-aarch64; this core ~11 (ECB).
#include "cores/aarch64/aarch64.h"

#include "cores/aarch64/sm4_neon.h"

namespace hwc::aarch64 {
namespace {

struct TblWide {
    static constexpr size_t kBatch = 8;
    [[gnu::always_inline]] static void crypt(const sm4n::Engine& e, const uint8_t* in,
                                             uint8_t* out) {
        sm4n::crypt8(e.rk, e.k, in, out);
    }
};

} // namespace

extern constinit const BlockCore sm4_neon = sm4n::make_core<TblWide>("sm4-neon", 0, false);

} // namespace hwc::aarch64
