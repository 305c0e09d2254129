// SPDX-License-Identifier: Apache-2.0
// What CPACF offers on this machine: the STFLE facility bits and the 16-byte
// query mask of each instruction hwcipher uses, detected once per process.
//
// Availability is per instruction *and* per function code (one code per key
// size and mode), so the cores ask `has(insn, fc)` for the exact code they are
// about to execute and run software otherwise.
//
// Detection (cpacf_detect.cpp): HWCAP says STFLE is usable -> STFLE -> the
// query function of each instruction whose facility is present (17: KM, KMC,
// KIMD, KMAC; 77: KMF, KMO, KMCTR, PCC; 146: KMA) and that the build may emit
// (HWCIPHER_S390X_MSA/_MSA4/_MSA8) -> the test hook, in test-seam builds ->
// the environment override. Masks of instructions not queried stay zero.
//
// Environment override (production, AND-only):
//   HWCIPHER_S390X_DISABLE=kma,kmctr,km-full-xts,pcc:18
// treats what the items name as absent, so every software fallback can be
// reached on any machine. Items: an instruction (all its function codes:
// km, kmc, kmf, kmo, kmctr, kma, kimd, kmac, pcc), one function code as
// "insn:fc" (decimal, e.g. km:20 for KM-AES-256), or a group: km-aes
// (KM 18-20), km-xts (KM 50/52), km-full-xts (KM 82/84), pcc-cmac (PCC
// 18-20), pcc-xts (PCC 50/52), kimd-ghash (KIMD 65). Comma-separated,
// case-insensitive, blanks ignored, unknown items ignored. It can only take
// capabilities away; without KM-AES (or KIMD-GHASH) the feature bit below
// goes and the portable core is selected instead of aes-cpacf (ghash-kimd).
//
// Test seam (only when built with HWCIPHER_TEST_SEAMS): after each real query
// the weak symbol
//   extern "C" void hwcipher_test_cpacf_query(unsigned opcode, unsigned char mask[16]);
// is called, if something defines it, with the instruction's opcode (0xb92e
// for KM, ...) and the mask the CPU stored; it may set further bits. The
// CPACF emulation shim of the tests defines it in the test executable.
#pragma once

#include <cstdint>

namespace hwc::s390x {

enum class Insn : unsigned { km, kmc, kmf, kmo, kmctr, kma, kimd, kmac, pcc };
inline constexpr unsigned kInsnCount = 9;

struct CpacfCaps {
    uint64_t facilities[3];          // STFLE doublewords 0-2; zero without STFLE
    uint8_t query[kInsnCount][16];   // per Insn: bit n (from the left) = function code n

    bool facility(unsigned n) const {
        return n < 192 && ((facilities[n / 64] >> (63 - n % 64)) & 1) != 0;
    }
    bool has(Insn i, unsigned long fc) const {
        return fc < 128 &&
               (query[static_cast<unsigned>(i)][fc / 8] & (0x80u >> (fc % 8))) != 0;
    }
};

// Detected on first use, then cached (thread-safe initialisation).
const CpacfCaps& cpacf_caps();

// hwc::CpuFeature bits: kS390Msa, kS390Msa4, kS390Msa8 from the facility
// bits, kS390KmAes when KM reports any AES function code (18-20) and
// kS390KimdGhash when KIMD reports GHASH (65), after the override.
uint32_t cpacf_features();

#if defined(HWCIPHER_TEST_SEAMS)
// Tests only: detect again (after changing what the hook or the environment
// reports) and replace the cached result. Not thread-safe; keys set earlier
// keep the capabilities they were set with.
void cpacf_redetect();
#endif

} // namespace hwc::s390x
