// SPDX-License-Identifier: Apache-2.0
// CPACF detection: STFLE, the query functions, the test hook and the
// HWCIPHER_S390X_DISABLE override (contract in cpacf_detect.h).
#include "cores/s390x/cpacf_detect.h"

#include <sys/auxv.h>

#include <cstdlib>
#include <cstring>
#include <string_view>

#include "cores/cpu.h"
#include "cores/s390x/cpacf.h"

#if defined(HWCIPHER_TEST_SEAMS)
// Weak and undefined unless the test executable defines it. Default
// visibility even under -fvisibility=hidden: a hidden undefined weak symbol
// would be bound to null when the provider module is linked, and the
// executable's definition could never reach the module.
extern "C" void hwcipher_test_cpacf_query(unsigned opcode, unsigned char mask[16])
    __attribute__((weak, visibility("default")));
#endif

namespace hwc::s390x {
namespace {

// AT_HWCAP bit the kernel sets when STFLE may be executed (HWCAP_S390_STFLE).
constexpr unsigned long kHwcapStfle = 4;

constexpr unsigned kFacilityMsa = 17;
constexpr unsigned kFacilityMsa4 = 77;
constexpr unsigned kFacilityMsa8 = 146;

struct InsnInfo {
    Insn insn;
    const char* name;  // HWCIPHER_S390X_DISABLE token
    unsigned opcode;   // passed to the test hook
};

constexpr InsnInfo kInsns[kInsnCount] = {
    {Insn::km, "km", cpacf::kOpKm},          {Insn::kmc, "kmc", cpacf::kOpKmc},
    {Insn::kmf, "kmf", cpacf::kOpKmf},       {Insn::kmo, "kmo", cpacf::kOpKmo},
    {Insn::kmctr, "kmctr", cpacf::kOpKmctr}, {Insn::kma, "kma", cpacf::kOpKma},
    {Insn::kimd, "kimd", cpacf::kOpKimd},    {Insn::kmac, "kmac", cpacf::kOpKmac},
    {Insn::pcc, "pcc", cpacf::kOpPcc},
};

// Named groups of function codes, so a fallback for one use of an
// instruction (the full-XTS KM codes, PCC's CMAC codes) can be reached while
// the rest of the instruction stays in use.
struct FunctionGroup {
    const char* name;  // HWCIPHER_S390X_DISABLE token
    Insn insn;
    unsigned first_fc, last_fc, step;
};

constexpr FunctionGroup kGroups[] = {
    {"km-aes", Insn::km, 18, 20, 1},      {"km-xts", Insn::km, 50, 52, 2},
    {"km-full-xts", Insn::km, 82, 84, 2}, {"pcc-cmac", Insn::pcc, 18, 20, 1},
    {"pcc-xts", Insn::pcc, 50, 52, 2},    {"kimd-ghash", Insn::kimd, 65, 65, 1},
};

uint8_t* mask_of(CpacfCaps& caps, Insn i) { return caps.query[static_cast<unsigned>(i)]; }

void clear_function(CpacfCaps& caps, Insn i, unsigned fc) {
    if (fc < 128) mask_of(caps, i)[fc / 8] &= static_cast<uint8_t>(~(0x80u >> (fc % 8)));
}

// STFLE into three doublewords (facility 146 is in the third). The condition
// code only says whether the machine has more doublewords, which we ignore.
void store_facilities(CpacfCaps& caps) {
    static_assert(sizeof caps.facilities == 3 * 8);
    register unsigned long r0 __asm__("0") = 3 - 1;  // doublewords provided, minus one
    __asm__ volatile(".insn s,0xb2b00000,%0"  // STFLE
                     : "=Q"(caps.facilities), "+d"(r0)
                     :
                     : "cc", "memory");
}

// Runs the query function (function code 0) of `i`; it stores the mask at GR1.
void query(Insn i, uint8_t mask[16]) {
    switch (i) {
    case Insn::km: cpacf::km(cpacf::kQuery, mask, nullptr, nullptr, 0); break;
    case Insn::kmc: cpacf::kmc(cpacf::kQuery, mask, nullptr, nullptr, 0); break;
    case Insn::kimd: cpacf::kimd(cpacf::kQuery, mask, nullptr, 0); break;
    case Insn::kmac: cpacf::kmac(cpacf::kQuery, mask, nullptr, 0); break;
#if defined(HWCIPHER_S390X_MSA4)
    case Insn::kmf: cpacf::kmf(cpacf::kQuery, mask, nullptr, nullptr, 0); break;
    case Insn::kmo: cpacf::kmo(cpacf::kQuery, mask, nullptr, nullptr, 0); break;
    case Insn::kmctr: cpacf::kmctr(cpacf::kQuery, mask, nullptr, nullptr, 0, nullptr); break;
    case Insn::pcc: cpacf::pcc(cpacf::kQuery, mask); break;
#endif
#if defined(HWCIPHER_S390X_MSA8)
    case Insn::kma: cpacf::kma(cpacf::kQuery, mask, nullptr, nullptr, 0, nullptr, 0); break;
#endif
    default: return;  // above the build's ceiling: never executed
    }
#if defined(HWCIPHER_TEST_SEAMS)
    if (hwcipher_test_cpacf_query != nullptr)
        hwcipher_test_cpacf_query(kInsns[static_cast<unsigned>(i)].opcode, mask);
#endif
}

// The facility that introduces `i`, and whether this build may emit it.
bool may_query(const CpacfCaps& caps, Insn i) {
    switch (i) {
    case Insn::km:
    case Insn::kmc:
    case Insn::kimd:
    case Insn::kmac: return caps.facility(kFacilityMsa);
#if defined(HWCIPHER_S390X_MSA4)
    case Insn::kmf:
    case Insn::kmo:
    case Insn::kmctr:
    case Insn::pcc: return caps.facility(kFacilityMsa4);
#endif
#if defined(HWCIPHER_S390X_MSA8)
    case Insn::kma: return caps.facility(kFacilityMsa8);
#endif
    default: return false;
    }
}

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// ASCII-only, so the result does not depend on the process locale.
bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t k = 0; k < a.size(); ++k) {
        char x = a[k];
        if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
        if (x != b[k]) return false;
    }
    return true;
}

// Decimal function code after "insn:"; false unless it is 1..127.
bool parse_fc(std::string_view text, unsigned& fc) {
    if (text.empty() || text.size() > 3) return false;
    fc = 0;
    for (char c : text) {
        if (c < '0' || c > '9') return false;
        fc = fc * 10 + static_cast<unsigned>(c - '0');
    }
    return fc >= 1 && fc < 128;
}

// One HWCIPHER_S390X_DISABLE item: an instruction, "insn:fc" or a group.
void disable_item(CpacfCaps& caps, std::string_view item) {
    const size_t colon = item.find(':');
    const std::string_view insn = item.substr(0, colon);
    for (const InsnInfo& info : kInsns) {
        if (!iequals(insn, info.name)) continue;
        unsigned fc = 0;
        if (colon == std::string_view::npos) std::memset(mask_of(caps, info.insn), 0, 16);
        else if (parse_fc(item.substr(colon + 1), fc)) clear_function(caps, info.insn, fc);
    }
    for (const FunctionGroup& g : kGroups)
        if (iequals(item, g.name))
            for (unsigned fc = g.first_fc; fc <= g.last_fc; fc += g.step)
                clear_function(caps, g.insn, fc);
}

// HWCIPHER_S390X_DISABLE: clear what the listed items name.
void apply_disable(CpacfCaps& caps, const char* spec) {
    std::string_view rest = spec;
    while (!rest.empty()) {
        const size_t comma = rest.find(',');
        std::string_view item = rest.substr(0, comma);
        rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
        while (!item.empty() && is_blank(item.front())) item.remove_prefix(1);
        while (!item.empty() && is_blank(item.back())) item.remove_suffix(1);
        disable_item(caps, item);
    }
}

CpacfCaps detect() {
    CpacfCaps caps{};
    if ((getauxval(AT_HWCAP) & kHwcapStfle) == 0) return caps;
    store_facilities(caps);
    for (const InsnInfo& info : kInsns)
        if (may_query(caps, info.insn)) query(info.insn, mask_of(caps, info.insn));
    if (const char* spec = std::getenv("HWCIPHER_S390X_DISABLE")) apply_disable(caps, spec);
    return caps;
}

CpacfCaps& cached() {
    static CpacfCaps caps = detect();
    return caps;
}

} // namespace

const CpacfCaps& cpacf_caps() { return cached(); }

uint32_t cpacf_features() {
    const CpacfCaps& caps = cpacf_caps();
    uint32_t f = 0;
    if (caps.facility(kFacilityMsa)) f |= kS390Msa;
    if (caps.facility(kFacilityMsa4)) f |= kS390Msa4;
    if (caps.facility(kFacilityMsa8)) f |= kS390Msa8;
    // Facilities alone do not make CPACF useful: QEMU offers MSA-MSA8 with
    // no AES function at all, and a core chosen on the facility alone would
    // report itself while every call ran the software fallback.
    for (unsigned long fc = cpacf::kAes128; fc < cpacf::kAes128 + 3; ++fc)
        if (caps.has(Insn::km, fc)) f |= kS390KmAes;
    if (caps.has(Insn::kimd, cpacf::kGhash)) f |= kS390KimdGhash;
    return f;
}

#if defined(HWCIPHER_TEST_SEAMS)
void cpacf_redetect() { cached() = detect(); }
#endif

} // namespace hwc::s390x
