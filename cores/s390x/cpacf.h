// SPDX-License-Identifier: Apache-2.0
// CPACF instruction wrappers (z/Architecture message-security assist), one
// inline function per instruction, for cores/s390x/*.cpp only.
//
// Every wrapper re-executes its instruction while the CPU reports partial
// completion (condition code 3: "BRC 1" back to the instruction). The CPU has
// then already advanced the operand registers and written the chaining value
// back to the parameter block, so one call always processes the whole input;
// without the loop a call would silently stop at a CPU-chosen boundary.
//
// Registers (fixed, so they match the encodings and the test shim's checks):
//   GR0  function code | modifier | flags      GR1  parameter block
//   R1   = r4  output address                   R2/R2+1 = r2/r3  input, length
//   R3   = r6  KMCTR counter blocks; KMA AAD address with r7 its length
// Operand registers are even and non-zero, and KMA's R3 differs from R1 and
// R2, as the architecture requires even for the query function. Instructions
// are written with `.insn` so any assembler and any -march accepts them.
// Lengths are in bytes and must follow each instruction's rules (multiples of
// 16, or of LCFB for KMF); the callers guarantee that.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwc::s390x::cpacf {

// Opcodes: what the test hook receives alongside a query mask.
inline constexpr unsigned kOpKm = 0xb92e;
inline constexpr unsigned kOpKmc = 0xb92f;
inline constexpr unsigned kOpKmf = 0xb92a;
inline constexpr unsigned kOpKmo = 0xb92b;
inline constexpr unsigned kOpKmctr = 0xb92d;
inline constexpr unsigned kOpKma = 0xb929;
inline constexpr unsigned kOpKimd = 0xb93e;
inline constexpr unsigned kOpKmac = 0xb91e;
inline constexpr unsigned kOpPcc = 0xb92c;

// Function codes (GR0 bits 57-63).
inline constexpr unsigned long kQuery = 0;
inline constexpr unsigned long kAes128 = 18;     // 19 AES-192, 20 AES-256 (KM, KMC, KMF, KMO,
                                                 // KMCTR, KMAC, KMA-GCM)
inline constexpr unsigned long kXtsOffset = 32;  // KM-XTS-AES-128/256 = 50/52, and PCC
                                                 // compute-XTS-parameter 50/52
inline constexpr unsigned long kFullXtsOffset = 64;  // KM full XTS-AES-128/256 = 82/84
                                                     // (PCC 18-20 is compute-last-block-CMAC)
inline constexpr unsigned long kGhash = 65;      // KIMD-GHASH

// GR0 modifier and flags.
inline constexpr unsigned long kDecipher = 0x80;  // M bit
inline constexpr unsigned long kKmaLpc = 0x100;   // last plaintext/ciphertext
inline constexpr unsigned long kKmaLaad = 0x200;  // last AAD
inline constexpr unsigned long kKmaHs = 0x400;    // hash subkey H supplied
// KMF: bytes fed back per step (1..16), in GR0 bits 32-39.
constexpr unsigned long kmf_lcfb(unsigned long lcfb) { return lcfb << 24; }

// KM: cipher message (ECB; KM-XTS).
inline void km(unsigned long fc, const void* param, uint8_t* out, const uint8_t* in,
               size_t len) {
    register unsigned long r0 __asm__("0") = fc;
    register const void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    register uint8_t* r4 __asm__("4") = out;
    __asm__ volatile("0: .insn rre,0xb92e0000,%[out],%[in]\n\tbrc 1,0b"
                     : [out] "+d"(r4), [in] "+d"(r2), "+d"(r3)
                     : "d"(r0), "d"(r1)
                     : "cc", "memory");
}

// KMC: cipher message with chaining (CBC). Parameter block: CV, key.
inline void kmc(unsigned long fc, void* param, uint8_t* out, const uint8_t* in, size_t len) {
    register unsigned long r0 __asm__("0") = fc;
    register void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    register uint8_t* r4 __asm__("4") = out;
    __asm__ volatile("0: .insn rre,0xb92f0000,%[out],%[in]\n\tbrc 1,0b"
                     : [out] "+d"(r4), [in] "+d"(r2), "+d"(r3)
                     : "d"(r0), "d"(r1)
                     : "cc", "memory");
}

// KMF: cipher message with cipher feedback. Parameter block: CV, key.
inline void kmf(unsigned long fc, void* param, uint8_t* out, const uint8_t* in, size_t len) {
    register unsigned long r0 __asm__("0") = fc;
    register void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    register uint8_t* r4 __asm__("4") = out;
    __asm__ volatile("0: .insn rre,0xb92a0000,%[out],%[in]\n\tbrc 1,0b"
                     : [out] "+d"(r4), [in] "+d"(r2), "+d"(r3)
                     : "d"(r0), "d"(r1)
                     : "cc", "memory");
}

// KMO: cipher message with output feedback. Parameter block: CV, key.
inline void kmo(unsigned long fc, void* param, uint8_t* out, const uint8_t* in, size_t len) {
    register unsigned long r0 __asm__("0") = fc;
    register void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    register uint8_t* r4 __asm__("4") = out;
    __asm__ volatile("0: .insn rre,0xb92b0000,%[out],%[in]\n\tbrc 1,0b"
                     : [out] "+d"(r4), [in] "+d"(r2), "+d"(r3)
                     : "d"(r0), "d"(r1)
                     : "cc", "memory");
}

// KMCTR: cipher message with counter. Parameter block: key. `ctrs` holds one
// 16-byte counter block per input block (the CPU increments nothing).
inline void kmctr(unsigned long fc, const void* param, uint8_t* out, const uint8_t* in,
                  size_t len, const uint8_t* ctrs) {
    register unsigned long r0 __asm__("0") = fc;
    register const void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    register uint8_t* r4 __asm__("4") = out;
    register const uint8_t* r6 __asm__("6") = ctrs;
    __asm__ volatile("0: .insn rrf,0xb92d0000,%[out],%[in],%[ctrs],0\n\tbrc 1,0b"
                     : [out] "+d"(r4), [in] "+d"(r2), "+d"(r3), [ctrs] "+d"(r6)
                     : "d"(r0), "d"(r1)
                     : "cc", "memory");
}

// KMA: cipher message with authentication (GCM). Parameter block: see
// aes_cpacf.cpp. GR0 is treated as clobbered (one implementation documents
// it as possibly modified).
inline void kma(unsigned long fc, void* param, uint8_t* out, const uint8_t* in, size_t len,
                const uint8_t* aad, size_t aad_len) {
    register unsigned long r0 __asm__("0") = fc;
    register void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    register uint8_t* r4 __asm__("4") = out;
    register const uint8_t* r6 __asm__("6") = aad;
    register size_t r7 __asm__("7") = aad_len;
    __asm__ volatile("0: .insn rrf,0xb9290000,%[out],%[in],%[aad],0\n\tbrc 1,0b"
                     : [out] "+d"(r4), [in] "+d"(r2), "+d"(r3), [aad] "+d"(r6), "+d"(r7),
                       "+d"(r0)
                     : "d"(r1)
                     : "cc", "memory");
}

// KIMD: compute intermediate message digest (GHASH). Parameter block: the
// chaining value, then H. R1 is ignored by the instruction and encoded as 0.
inline void kimd(unsigned long fc, void* param, const uint8_t* in, size_t len) {
    register unsigned long r0 __asm__("0") = fc;
    register void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    __asm__ volatile("0: .insn rre,0xb93e0000,0,%[in]\n\tbrc 1,0b"
                     : [in] "+d"(r2), "+d"(r3)
                     : "d"(r0), "d"(r1)
                     : "cc", "memory");
}

// KMAC: compute message authentication code (CBC-MAC). Parameter block: CV,
// key. R1 is ignored and encoded as 0.
inline void kmac(unsigned long fc, void* param, const uint8_t* in, size_t len) {
    register unsigned long r0 __asm__("0") = fc;
    register void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    __asm__ volatile("0: .insn rre,0xb91e0000,0,%[in]\n\tbrc 1,0b"
                     : [in] "+d"(r2), "+d"(r3)
                     : "d"(r0), "d"(r1)
                     : "cc", "memory");
}

// PCC: perform cryptographic computation (no operands): compute-last-block-
// CMAC (18-20) and compute-XTS-parameter (50/52). Condition code 2 (invalid
// ML or bit index) cannot arise from hwcipher's parameter blocks, so it is
// not reported.
inline void pcc(unsigned long fc, void* param) {
    register unsigned long r0 __asm__("0") = fc;
    register void* r1 __asm__("1") = param;
    __asm__ volatile("0: .insn rre,0xb92c0000,0,0\n\tbrc 1,0b"
                     :
                     : "d"(r0), "d"(r1)
                     : "cc", "memory");
}

} // namespace hwc::s390x::cpacf
