// SPDX-License-Identifier: Apache-2.0
// memcpy, memmove, memset and memcmp for the benchmark's copy of the CPACF
// shim (bench/CMakeLists.txt, scripts/bench_s390x.sh), hidden, so that the
// shim library's own calls bind here instead of to libc. The instruction
// count excludes the shim library's address range; without these, the
// emulation's libc string calls (several per emulated block) would be
// counted as if the code under test had executed them. Plain byte loops:
// speed does not matter here, and the file is built with
// -fno-builtin -fno-tree-loop-distribute-patterns so that the compiler does
// not turn the loops back into calls to these very functions.
#include <cstddef>

#define HWC_SHIM_HIDDEN extern "C" __attribute__((visibility("hidden")))

HWC_SHIM_HIDDEN void* memcpy(void* dst, const void* src, size_t n) {
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    for (size_t i = 0; i < n; ++i) d[i] = s[i];
    return dst;
}

HWC_SHIM_HIDDEN void* memmove(void* dst, const void* src, size_t n) {
    auto* d = static_cast<unsigned char*>(dst);
    const auto* s = static_cast<const unsigned char*>(src);
    if (d < s) {
        for (size_t i = 0; i < n; ++i) d[i] = s[i];
    } else {
        for (size_t i = n; i > 0; --i) d[i - 1] = s[i - 1];
    }
    return dst;
}

HWC_SHIM_HIDDEN void* memset(void* dst, int c, size_t n) {
    auto* d = static_cast<unsigned char*>(dst);
    for (size_t i = 0; i < n; ++i) d[i] = static_cast<unsigned char>(c);
    return dst;
}

HWC_SHIM_HIDDEN int memcmp(const void* a, const void* b, size_t n) {
    const auto* x = static_cast<const unsigned char*>(a);
    const auto* y = static_cast<const unsigned char*>(b);
    for (size_t i = 0; i < n; ++i)
        if (x[i] != y[i]) return x[i] < y[i] ? -1 : 1;
    return 0;
}
