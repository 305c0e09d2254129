// SPDX-License-Identifier: Apache-2.0
// The shim tests' own way of issuing CPACF instructions: one inline-asm
// wrapper per instruction, each looping on CC 3 like correct code must and
// returning the final condition code. Written independently of hwcipher's
// cores/s390x/cpacf.h, which is what the shim exists to test.
//
// Registers: GR0 function code and flags, GR1 parameter block, R1 = r4
// (output), R2/R2+1 = r2/r3 (input, length), R3 = r6 (KMCTR counters; KMA
// AAD with r7 its length). KIMD and KMAC encode R1 as 0 (ignored), PCC has
// no operands. After the loop, IPM puts the CC in bits 2-3 of the low word.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwc::test::insn {

inline int km(uint64_t gr0, void* param, uint8_t* out, const uint8_t* in, size_t len) {
    register uint64_t r0 __asm__("0") = gr0;
    register void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    register uint8_t* r4 __asm__("4") = out;
    int cc;
    __asm__ volatile("0: .insn rre,0xb92e0000,%[o],%[i]\n\t"
                     "brc 1,0b\n\tipm %[cc]\n\tsrl %[cc],28"
                     : [o] "+a"(r4), [i] "+a"(r2), "+d"(r3), [cc] "=&d"(cc)
                     : "d"(r0), "a"(r1)
                     : "cc", "memory");
    return cc;
}

// KM and KMC in place through one register (R1 = R2 = r2), as OpenSSL
// issues KM: the register is both output and input address.
inline int km_in_place(uint64_t gr0, void* param, uint8_t* buf, size_t len) {
    register uint64_t r0 __asm__("0") = gr0;
    register void* r1 __asm__("1") = param;
    register uint8_t* r2 __asm__("2") = buf;
    register size_t r3 __asm__("3") = len;
    int cc;
    __asm__ volatile("0: .insn rre,0xb92e0000,%[io],%[io]\n\t"
                     "brc 1,0b\n\tipm %[cc]\n\tsrl %[cc],28"
                     : [io] "+a"(r2), "+d"(r3), [cc] "=&d"(cc)
                     : "d"(r0), "a"(r1)
                     : "cc", "memory");
    return cc;
}

inline int kmc_in_place(uint64_t gr0, void* param, uint8_t* buf, size_t len) {
    register uint64_t r0 __asm__("0") = gr0;
    register void* r1 __asm__("1") = param;
    register uint8_t* r2 __asm__("2") = buf;
    register size_t r3 __asm__("3") = len;
    int cc;
    __asm__ volatile("0: .insn rre,0xb92f0000,%[io],%[io]\n\t"
                     "brc 1,0b\n\tipm %[cc]\n\tsrl %[cc],28"
                     : [io] "+a"(r2), "+d"(r3), [cc] "=&d"(cc)
                     : "d"(r0), "a"(r1)
                     : "cc", "memory");
    return cc;
}

inline int kmc(uint64_t gr0, void* param, uint8_t* out, const uint8_t* in, size_t len) {
    register uint64_t r0 __asm__("0") = gr0;
    register void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    register uint8_t* r4 __asm__("4") = out;
    int cc;
    __asm__ volatile("0: .insn rre,0xb92f0000,%[o],%[i]\n\t"
                     "brc 1,0b\n\tipm %[cc]\n\tsrl %[cc],28"
                     : [o] "+a"(r4), [i] "+a"(r2), "+d"(r3), [cc] "=&d"(cc)
                     : "d"(r0), "a"(r1)
                     : "cc", "memory");
    return cc;
}

// gr0 carries LCFB in bits 32-39 (lcfb << 24).
inline int kmf(uint64_t gr0, void* param, uint8_t* out, const uint8_t* in, size_t len) {
    register uint64_t r0 __asm__("0") = gr0;
    register void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    register uint8_t* r4 __asm__("4") = out;
    int cc;
    __asm__ volatile("0: .insn rre,0xb92a0000,%[o],%[i]\n\t"
                     "brc 1,0b\n\tipm %[cc]\n\tsrl %[cc],28"
                     : [o] "+a"(r4), [i] "+a"(r2), "+d"(r3), [cc] "=&d"(cc)
                     : "d"(r0), "a"(r1)
                     : "cc", "memory");
    return cc;
}

inline int kmo(uint64_t gr0, void* param, uint8_t* out, const uint8_t* in, size_t len) {
    register uint64_t r0 __asm__("0") = gr0;
    register void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    register uint8_t* r4 __asm__("4") = out;
    int cc;
    __asm__ volatile("0: .insn rre,0xb92b0000,%[o],%[i]\n\t"
                     "brc 1,0b\n\tipm %[cc]\n\tsrl %[cc],28"
                     : [o] "+a"(r4), [i] "+a"(r2), "+d"(r3), [cc] "=&d"(cc)
                     : "d"(r0), "a"(r1)
                     : "cc", "memory");
    return cc;
}

inline int kmctr(uint64_t gr0, void* param, uint8_t* out, const uint8_t* in, size_t len,
                 const uint8_t* counters) {
    register uint64_t r0 __asm__("0") = gr0;
    register void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    register uint8_t* r4 __asm__("4") = out;
    register const uint8_t* r6 __asm__("6") = counters;
    int cc;
    __asm__ volatile("0: .insn rrf,0xb92d0000,%[o],%[i],%[c],0\n\t"
                     "brc 1,0b\n\tipm %[cc]\n\tsrl %[cc],28"
                     : [o] "+a"(r4), [i] "+a"(r2), "+d"(r3), [c] "+a"(r6), [cc] "=&d"(cc)
                     : "d"(r0), "a"(r1)
                     : "cc", "memory");
    return cc;
}

inline int kma(uint64_t gr0, void* param, uint8_t* out, const uint8_t* in, size_t len,
               const uint8_t* aad, size_t aad_len) {
    register uint64_t r0 __asm__("0") = gr0;
    register void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    register uint8_t* r4 __asm__("4") = out;
    register const uint8_t* r6 __asm__("6") = aad;
    register size_t r7 __asm__("7") = aad_len;
    int cc;
    __asm__ volatile("0: .insn rrf,0xb9290000,%[o],%[i],%[a],0\n\t"
                     "brc 1,0b\n\tipm %[cc]\n\tsrl %[cc],28"
                     : [o] "+a"(r4), [i] "+a"(r2), "+d"(r3), [a] "+a"(r6), "+d"(r7),
                       [cc] "=&d"(cc)
                     : "d"(r0), "a"(r1)
                     : "cc", "memory");
    return cc;
}

inline int kimd(uint64_t gr0, void* param, const uint8_t* in, size_t len) {
    register uint64_t r0 __asm__("0") = gr0;
    register void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    int cc;
    __asm__ volatile("0: .insn rre,0xb93e0000,0,%[i]\n\t"
                     "brc 1,0b\n\tipm %[cc]\n\tsrl %[cc],28"
                     : [i] "+a"(r2), "+d"(r3), [cc] "=&d"(cc)
                     : "d"(r0), "a"(r1)
                     : "cc", "memory");
    return cc;
}

inline int kmac(uint64_t gr0, void* param, const uint8_t* in, size_t len) {
    register uint64_t r0 __asm__("0") = gr0;
    register void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    int cc;
    __asm__ volatile("0: .insn rre,0xb91e0000,0,%[i]\n\t"
                     "brc 1,0b\n\tipm %[cc]\n\tsrl %[cc],28"
                     : [i] "+a"(r2), "+d"(r3), [cc] "=&d"(cc)
                     : "d"(r0), "a"(r1)
                     : "cc", "memory");
    return cc;
}

inline int pcc(uint64_t gr0, void* param) {
    register uint64_t r0 __asm__("0") = gr0;
    register void* r1 __asm__("1") = param;
    int cc;
    __asm__ volatile("0: .insn rre,0xb92c0000,0,0\n\t"
                     "brc 1,0b\n\tipm %[cc]\n\tsrl %[cc],28"
                     : [cc] "=&d"(cc)
                     : "d"(r0), "a"(r1)
                     : "cc", "memory");
    return cc;
}

} // namespace hwc::test::insn
