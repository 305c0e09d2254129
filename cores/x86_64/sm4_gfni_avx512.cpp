// SPDX-License-Identifier: Apache-2.0
// sm4-gfni-avx512: sm4-gfni-avx2 (GFNI S-box, sm4_gfni.h; the same parallel
// kernels on AVX2) with the serial modes (CBC/CFB encryption, OFB, CFB8,
// CBC-MAC) on the AVX-512VL engine of sm4_serial_vl.h, whose round has a
// shorter dependency chain (VPTERNLOGD, VPROLD).
//
// Compiled with -mgfni -mavx2 -mavx512f -mavx512bw -mavx512vl (root
// CMakeLists.txt; no -mgfni in the HWCIPHER_GFNI_EMULATE build) and reached
// only through the `sm4_gfni_avx512` descriptor, which the registry offers
// when the CPU probe reports kX86Gfni, kX86Avx2 and kX86Avx512. Everything
// but the descriptor has internal linkage.
#include "cores/x86_64/x86_64.h"

#include "cores/x86_64/sm4_gfni.h"
#include "cores/x86_64/sm4_serial_vl.h"

namespace hwc::x86_64 {

extern constinit const BlockCore sm4_gfni_avx512 =
    sm4v::make_core<GfniSbox, sm4v::SerialVl<GfniSbox>>("sm4-gfni-avx512",
                                                        kGfniNeeds | kX86Avx512, gfni_set_key);

} // namespace hwc::x86_64
