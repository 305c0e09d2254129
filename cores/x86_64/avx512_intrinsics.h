// SPDX-License-Identifier: Apache-2.0
// <immintrin.h> for the AVX-512 cores. GCC 12's AVX-512 intrinsics pass
// _mm512_undefined_epi32() as the merge source of unmasked operations, which
// its -Wuninitialized reports at the header's own lines; silenced for that
// header only (clang has no such warning, nor the -Wmaybe-uninitialized
// group). Include this before anything else that includes <immintrin.h>.
#pragma once

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>
#pragma GCC diagnostic pop
#else
#include <immintrin.h>
#endif
