// SPDX-License-Identifier: Apache-2.0
// CPU features the cores care about, detected once (in provider init).
#pragma once

#include <cstdint>

namespace hwc {

// One bit per feature. Names (feature_name) are the ones HWCIPHER_CORES,
// docs and tests use.
enum CpuFeature : uint32_t {
    kArmAes = 1u << 0,     // aarch64 AESE/AESD/AESMC/AESIMC   (HWCAP_AES)
    kArmPmull = 1u << 1,   // aarch64 PMULL/PMULL2 64x64        (HWCAP_PMULL)
    kArmSm4 = 1u << 2,     // aarch64 SM4E/SM4EKEY              (HWCAP_SM4)
    kArmSha3 = 1u << 3,    // aarch64 EOR3/BCAX/RAX1/XAR        (HWCAP_SHA3)
    kX86Aesni = 1u << 8,   // x86_64 AES-NI
    kX86Pclmul = 1u << 9,  // x86_64 PCLMULQDQ
    kX86Avx2 = 1u << 10,   // x86_64 AVX2 (with OS support for YMM state)
    kX86Vaes = 1u << 11,   // x86_64 VAES
    kX86Vpclmul = 1u << 12,// x86_64 VPCLMULQDQ
    kX86Gfni = 1u << 13,   // x86_64 GFNI
    kX86Avx512 = 1u << 14, // x86_64 AVX-512F+BW+VL (with OS support for ZMM state)
    kS390Msa = 1u << 20,   // s390x message-security assist (KM/KMC/KIMD...)
    kS390Msa4 = 1u << 21,  // s390x MSA extension 4 (KMF/KMO/KMCTR/PCC)
    kS390Msa8 = 1u << 22,  // s390x MSA extension 8 (KMA)
    kS390KmAes = 1u << 23,     // s390x KM query reports an AES function code (18-20)
    kS390KimdGhash = 1u << 24, // s390x KIMD query reports GHASH (65)
};

struct CpuFeatureName {
    CpuFeature bit;
    const char* name;
};

// Every feature with its name, in one table shared by docs and tests.
extern const CpuFeatureName kCpuFeatureNames[];
extern const unsigned kCpuFeatureCount;

// Probe the running CPU (HWCAP on aarch64, CPUID+XGETBV on x86_64, STFLE on
// s390x). Cheap but not free: call once.
uint32_t detect_cpu_features();

} // namespace hwc
