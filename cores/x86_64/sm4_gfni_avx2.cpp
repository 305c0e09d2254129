// SPDX-License-Identifier: Apache-2.0
// sm4-gfni-avx2: SM4 (GB/T 32907-2016) with its S-box as two GFNI
// instructions (sm4_gfni.h), 32 blocks at a time on AVX2 for the parallel
// modes, one block on XMM for the serial ones (engine and modes:
// sm4_avx2.h, sm4_avx2_modes.h).
//
// Compiled with -mgfni -mavx2 (root CMakeLists.txt; -maes -mavx2 in the
// HWCIPHER_GFNI_EMULATE build, see sm4_gfni.h) and reached only through the
// `sm4_gfni_avx2` descriptor, which the registry offers when the CPU probe
// reports kX86Gfni and kX86Avx2 (the VEX-encoded GFNI forms also need AVX,
// which AVX2 implies). Everything but the descriptor has internal linkage.
#include "cores/x86_64/x86_64.h"

#include "cores/x86_64/sm4_gfni.h"

namespace hwc::x86_64 {

extern constinit const BlockCore sm4_gfni_avx2 =
    sm4v::make_core<GfniSbox>("sm4-gfni-avx2", kGfniNeeds, gfni_set_key);

} // namespace hwc::x86_64
