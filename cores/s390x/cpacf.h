// SPDX-License-Identifier: Apache-2.0
// CPACF instruction wrappers (z/Architecture message-security assist), for
// cores/s390x/*.cpp only: one template over (opcode, register use).
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

// How an instruction uses the operand registers. One template below emits
// every instruction; the instruction objects after it name the opcode and the
// register use, and are called like functions.
enum class Operands {
    none,     // PCC: GR0 and GR1 only
    digest,   // KIMD, KMAC: R2/R2+1 = input, length (R1 ignored, encoded 0)
    cipher,   // KM, KMC, KMF, KMO: R1 = output, R2/R2+1 = input, length
    counter,  // KMCTR: as cipher, and R3 = the counter blocks (advanced)
    aead,     // KMA: as cipher, and R3/R3+1 = AAD, length; GR0 clobbered
};

// One instruction (opcode `Op`) with its cc-3 loop. R3's registers are
// declared only in the forms that name them: left unused they still weigh in
// GCC's inlining estimates (xts_tweak then stopped inlining its KM fallback).
template <unsigned Op, Operands Use>
[[gnu::always_inline]] inline void execute(unsigned long fc, const void* param, uint8_t* out,
                                           const uint8_t* in, size_t len, const uint8_t* r3_addr,
                                           size_t r3_len) {
    constexpr unsigned long kInsn = static_cast<unsigned long>(Op) << 16;
    register unsigned long r0 __asm__("0") = fc;
    register const void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    register uint8_t* r4 __asm__("4") = out;
    if constexpr (Use == Operands::none)
        __asm__ volatile("0: .insn rre,%[op],0,0\n\tbrc 1,0b"
                         :
                         : [op] "n"(kInsn), "d"(r0), "d"(r1)
                         : "cc", "memory");
    else if constexpr (Use == Operands::digest)
        __asm__ volatile("0: .insn rre,%[op],0,%[in]\n\tbrc 1,0b"
                         : [in] "+d"(r2), "+d"(r3)
                         : [op] "n"(kInsn), "d"(r0), "d"(r1)
                         : "cc", "memory");
    else if constexpr (Use == Operands::cipher)
        __asm__ volatile("0: .insn rre,%[op],%[out],%[in]\n\tbrc 1,0b"
                         : [out] "+d"(r4), [in] "+d"(r2), "+d"(r3)
                         : [op] "n"(kInsn), "d"(r0), "d"(r1)
                         : "cc", "memory");
    else if constexpr (Use == Operands::counter) {
        register const uint8_t* r6 __asm__("6") = r3_addr;
        __asm__ volatile("0: .insn rrf,%[op],%[out],%[in],%[ctrs],0\n\tbrc 1,0b"
                         : [out] "+d"(r4), [in] "+d"(r2), "+d"(r3), [ctrs] "+d"(r6)
                         : [op] "n"(kInsn), "d"(r0), "d"(r1)
                         : "cc", "memory");
    } else {
        register const uint8_t* r6 __asm__("6") = r3_addr;
        register size_t r7 __asm__("7") = r3_len;
        __asm__ volatile("0: .insn rrf,%[op],%[out],%[in],%[aad],0\n\tbrc 1,0b"
                         : [out] "+d"(r4), [in] "+d"(r2), "+d"(r3), [aad] "+d"(r6), "+d"(r7),
                           "+d"(r0)
                         : [op] "n"(kInsn), "d"(r1)
                         : "cc", "memory");
    }
}

// The instructions, with the arguments their register use takes. `param` is
// the parameter block, which most of them also write (chaining value, XTS
// parameter, tag, MAC); KM-AES and KMCTR only read it.
template <unsigned Op, Operands Use>
struct Instruction {
    [[gnu::always_inline]] void operator()(unsigned long fc, void* param) const
        requires(Use == Operands::none)
    {
        execute<Op, Use>(fc, param, nullptr, nullptr, 0, nullptr, 0);
    }
    [[gnu::always_inline]] void operator()(unsigned long fc, void* param, const uint8_t* in, size_t len) const
        requires(Use == Operands::digest)
    {
        execute<Op, Use>(fc, param, nullptr, in, len, nullptr, 0);
    }
    [[gnu::always_inline]] void operator()(unsigned long fc, const void* param, uint8_t* out, const uint8_t* in,
                    size_t len) const
        requires(Use == Operands::cipher)
    {
        execute<Op, Use>(fc, param, out, in, len, nullptr, 0);
    }
    // `ctrs` holds one 16-byte counter block per input block (the CPU
    // increments nothing).
    [[gnu::always_inline]] void operator()(unsigned long fc, const void* param, uint8_t* out, const uint8_t* in,
                    size_t len, const uint8_t* ctrs) const
        requires(Use == Operands::counter)
    {
        execute<Op, Use>(fc, param, out, in, len, ctrs, 0);
    }
    [[gnu::always_inline]] void operator()(unsigned long fc, void* param, uint8_t* out, const uint8_t* in, size_t len,
                    const uint8_t* aad, size_t aad_len) const
        requires(Use == Operands::aead)
    {
        execute<Op, Use>(fc, param, out, in, len, aad, aad_len);
    }
};

// KM: cipher message (ECB; KM-XTS). Parameter block: key (KM-XTS: key, XTS
// parameter).
inline constexpr Instruction<kOpKm, Operands::cipher> km{};
// KMC, KMF, KMO: CBC, CFB (LCFB bytes per step), OFB. Parameter block: CV, key.
inline constexpr Instruction<kOpKmc, Operands::cipher> kmc{};
inline constexpr Instruction<kOpKmf, Operands::cipher> kmf{};
inline constexpr Instruction<kOpKmo, Operands::cipher> kmo{};
// KMCTR: cipher message with counter. Parameter block: key.
inline constexpr Instruction<kOpKmctr, Operands::counter> kmctr{};
// KMA: cipher message with authentication (GCM). Parameter block: see
// aes_cpacf.cpp.
inline constexpr Instruction<kOpKma, Operands::aead> kma{};
// KIMD: compute intermediate message digest (GHASH). Parameter block: the
// chaining value, then H.
inline constexpr Instruction<kOpKimd, Operands::digest> kimd{};
// KMAC: compute message authentication code (CBC-MAC). Parameter block: CV, key.
inline constexpr Instruction<kOpKmac, Operands::digest> kmac{};
// PCC: perform cryptographic computation: compute-last-block-CMAC (18-20)
// and compute-XTS-parameter (50/52). Condition code 2 (invalid ML or bit
// index) cannot arise from hwcipher's parameter blocks, so it is not reported.
inline constexpr Instruction<kOpPcc, Operands::none> pcc{};

} // namespace hwc::s390x::cpacf
