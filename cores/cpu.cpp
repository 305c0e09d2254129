// SPDX-License-Identifier: Apache-2.0
// CPU feature names and run-time detection (HWCAP, CPUID+XGETBV, STFLE).
//
// Detection asks the kernel where it can (aarch64 HWCAP: the kernel only sets
// a bit when it also saves/restores the state and allows the instructions at
// EL0) and the CPU where it must (x86 CPUID, whose bits say nothing about OS
// support, hence XGETBV; s390x STFLE). Each architecture block is compiled
// only on that architecture; everywhere else detection returns 0, which
// selects the portable cores.
#include "cores/cpu.h"

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#elif defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#elif defined(__s390x__) && defined(__linux__) && defined(HWCIPHER_S390X_MSA)
#include "cores/s390x/cpacf_detect.h"
#endif

namespace hwc {

const CpuFeatureName kCpuFeatureNames[] = {
    {kArmAes, "arm-aes"},       {kArmPmull, "arm-pmull"},   {kArmSm4, "arm-sm4"},
    {kArmSha3, "arm-sha3"},
    {kX86Aesni, "x86-aesni"},   {kX86Pclmul, "x86-pclmul"}, {kX86Avx2, "x86-avx2"},
    {kX86Vaes, "x86-vaes"},     {kX86Vpclmul, "x86-vpclmul"}, {kX86Gfni, "x86-gfni"},
    {kX86Avx512, "x86-avx512"}, {kS390Msa, "s390x-msa"},    {kS390Msa4, "s390x-msa4"},
    {kS390Msa8, "s390x-msa8"},  {kS390KmAes, "s390x-km-aes"}, {kS390KimdGhash, "s390x-kimd-ghash"},
};
const unsigned kCpuFeatureCount = sizeof(kCpuFeatureNames) / sizeof(kCpuFeatureNames[0]);

namespace {

#if defined(__aarch64__) && defined(__linux__)

// Values from the kernel's arch/arm64 uapi <asm/hwcap.h>; spelled out so the
// build does not depend on how new the installed kernel headers are.
constexpr unsigned long kHwcapAes = 1ul << 3;
constexpr unsigned long kHwcapPmull = 1ul << 4;
constexpr unsigned long kHwcapSha3 = 1ul << 17;
constexpr unsigned long kHwcapSm4 = 1ul << 19;

uint32_t detect() {
    const unsigned long hw = getauxval(AT_HWCAP);
    uint32_t f = 0;
    if (hw & kHwcapAes) f |= kArmAes;
    if (hw & kHwcapPmull) f |= kArmPmull;
    if (hw & kHwcapSm4) f |= kArmSm4;
    if (hw & kHwcapSha3) f |= kArmSha3;
    return f;
}

#elif defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

// XCR0 read through the raw opcode: the xgetbv intrinsic needs -mxsave,
// and this file must compile with baseline x86-64 flags.
uint64_t read_xcr0() {
    uint32_t lo, hi;
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
    return (uint64_t{hi} << 32) | lo;
}

uint32_t detect() {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    uint32_t f = 0;
    if (c & (1u << 25)) f |= kX86Aesni;
    if (c & (1u << 1)) f |= kX86Pclmul;
    // GFNI has a legacy-SSE encoding, so it needs no extended OS state.
    const bool osxsave = c & (1u << 27);
    const bool avx = c & (1u << 28);

    // The OS must save YMM (XCR0 bits 1-2) or ZMM state (bits 5-7) across
    // context switches, or using those registers corrupts state silently.
    bool os_ymm = false, os_zmm = false;
    if (osxsave) {
        const uint64_t xcr0 = read_xcr0();
        os_ymm = (xcr0 & 0x6) == 0x6;
        os_zmm = os_ymm && (xcr0 & 0xE0) == 0xE0;
    }

    unsigned max_leaf = __get_cpuid_max(0, nullptr);
    if (max_leaf >= 7) {
        __cpuid_count(7, 0, a, b, c, d);
        if (c & (1u << 8)) f |= kX86Gfni;
        if (avx && os_ymm) {
            if (b & (1u << 5)) f |= kX86Avx2;
            // VAES/VPCLMULQDQ are only useful in their VEX/EVEX (YMM/ZMM) forms.
            if (c & (1u << 9)) f |= kX86Vaes;
            if (c & (1u << 10)) f |= kX86Vpclmul;
        }
        // AVX-512 F (EBX 16), BW (EBX 30), VL (EBX 31), all three required.
        const unsigned avx512 = (1u << 16) | (1u << 30) | (1u << 31);
        if (os_zmm && (b & avx512) == avx512) f |= kX86Avx512;
    }
    return f;
}

#elif defined(__s390x__) && defined(__linux__)

#if defined(HWCIPHER_S390X_MSA)
// STFLE and the CPACF query functions live with the CPACF cores; the feature
// bits are the facilities (MSA 17, MSA4 77, MSA8 146) plus "KM has AES" and
// "KIMD has GHASH" from the queries (an emulator may offer the facilities
// with none of the AES functions), while which function codes exist for a
// given key size is decided per key by the cores themselves.
uint32_t detect() { return s390x::cpacf_features(); }
#else
// Built without CPACF (HWCIPHER_S390X_MSA=OFF): no core needs a feature bit.
uint32_t detect() { return 0; }
#endif

#else

uint32_t detect() { return 0; } // no accelerated cores for this architecture

#endif

} // namespace

uint32_t detect_cpu_features() { return detect(); }

} // namespace hwc
