// SPDX-License-Identifier: Apache-2.0
// The CPACF shim's own semantics, part 1: set-up, the query hook, the shim's
// AES, and the confidentiality modes (KM, KMC, KMF, KMO, KMCTR, KM-XTS with
// PCC), each instruction issued directly with inline asm and compared with
// OpenSSL's default provider and hwcipher's portable AES core, for all key
// sizes, many lengths and several partial-completion granularities.
// Authenticating instructions: test_cpacf_shim_auth.cpp; negative controls
// and the provider: test_cpacf_shim_controls.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "cores/modes.h"
#include "cores/portable/portable.h"
#include "test/s390x/cpacf_shim.h"
#include "test/s390x/shim_crypto.h"
#include "test/s390x/shim_insn.h"
#include "test/s390x/shim_reference.h"

namespace hwc::test {
namespace {

using namespace shimref;

// Lengths in blocks for the block modes.
const size_t kBlockCounts[] = {0, 1, 2, 3, 4, 5, 7, 8, 16, 33, 64};

bool has_bit(const unsigned char mask[16], unsigned fc) {
    return mask[fc / 8] & (0x80 >> (fc % 8));
}

TEST(CpacfShim, IsInstalledWithTheEnvironmentSetting) {
    ASSERT_TRUE(cpacf_shim::active());
    const char* env = std::getenv("HWCIPHER_SHIM_PARTIAL");
    EXPECT_STREQ(cpacf_shim::partial_setting(), env && *env ? env : "never");
    std::printf("cpacf-shim: HWCIPHER_SHIM_PARTIAL=%s -> %zu bytes per execution (0 = never)\n",
                cpacf_shim::partial_setting(), cpacf_shim::partial_budget());
    // qemu-s390x -cpu max offers MSA, MSA4 and MSA8.
    const char* cpu = std::getenv("HWCIPHER_QEMU_CPU");
    if (cpu == nullptr || *cpu == '\0' || std::strcmp(cpu, "max") == 0) {
        const cpacf::Facilities f = cpacf_shim::facilities();
        EXPECT_TRUE(f.msa);
        EXPECT_TRUE(f.msa4);
        EXPECT_TRUE(f.msa8);
    }
}

// What the hook adds is exactly what the model implements.
TEST(CpacfShim, QueryHookReportsTheModelledFunctions) {
    if (!(msa4() && msa8())) GTEST_SKIP() << "the CPU model lacks MSA4 or MSA8";
    struct Expect {
        unsigned opcode;
        std::vector<unsigned> fcs;
    };
    const Expect expected[] = {
        {0xb92e, {18, 19, 20, 50, 52, 82, 84}}, {0xb92f, {18, 19, 20}}, {0xb92a, {18, 19, 20}},
        {0xb92b, {18, 19, 20}},         {0xb92d, {18, 19, 20}}, {0xb929, {18, 19, 20}},
        {0xb93e, {65}},                 {0xb91e, {18, 19, 20}}, {0xb92c, {18, 19, 20, 50, 52}},
        {0xb93f, {}},  // KLMD: not modelled, left alone
    };
    for (const Expect& e : expected) {
        unsigned char mask[16] = {};
        hwcipher_test_cpacf_query(e.opcode, mask);
        for (unsigned fc = 0; fc < 128; ++fc) {
            const bool want = std::find(e.fcs.begin(), e.fcs.end(), fc) != e.fcs.end();
            EXPECT_EQ(has_bit(mask, fc), want) << std::hex << e.opcode << std::dec << " fc " << fc;
        }
    }
    // The real query first (the emulator answers it, bit 0 only), then the hook.
    unsigned char mask[16] = {};
    EXPECT_EQ(insn::km(0, mask, nullptr, nullptr, 0), 0);
    EXPECT_TRUE(has_bit(mask, 0));
    EXPECT_FALSE(has_bit(mask, 18)) << "the emulator reports AES itself now: use it as a check";
    hwcipher_test_cpacf_query(0xb92e, mask);
    EXPECT_TRUE(has_bit(mask, 0) && has_bit(mask, 18) && has_bit(mask, 52));
}

// FIPS 197 appendix C, through the shim's AES directly and through KM.
TEST(CpacfShim, AesKnownAnswers) {
    const Bytes pt = from_hex("00112233445566778899aabbccddeeff");
    const char* expected[] = {"69c4e0d86a7b0430d8cdb78070b4c55a",
                              "dda97ca4864cdfe06eaf70a0ec0d7191",
                              "8ea2b7ca516745bfeafc49904b496089"};
    for (int i = 0; i < 3; ++i) {
        const size_t keylen = kKeyLengths[i];
        Bytes key(keylen);
        for (size_t j = 0; j < keylen; ++j) key[j] = static_cast<uint8_t>(j);
        shim::AesKey k;
        ASSERT_TRUE(shim::aes_expand(k, key.data(), keylen));
        uint8_t ct[16], back[16];
        shim::aes_encrypt(k, pt.data(), ct);
        shim::aes_decrypt(k, ct, back);
        EXPECT_EQ(to_hex(ct, 16), expected[i]) << keylen;
        EXPECT_EQ(to_hex(back, 16), to_hex(pt));

        uint8_t out[16];
        const auto before = cpacf_shim::stats();
        EXPECT_EQ(insn::km(aes_fc(keylen), key.data(), out, pt.data(), 16), 0);
        EXPECT_EQ(to_hex(out, 16), expected[i]);
        EXPECT_EQ(cpacf_shim::stats().emulated[static_cast<int>(cpacf::Op::km)],
                  before.emulated[static_cast<int>(cpacf::Op::km)] + 1);
    }
}

struct Portable {
    std::unique_ptr<KeySchedule> ks = std::make_unique<KeySchedule>();
    explicit Portable(const Bytes& key) {
        EXPECT_TRUE(portable::aes.set_key(*ks, key.data(), key.size()));
    }
};

// KM (ECB): both directions, out of place and in place.
TEST(CpacfShim, KmMatchesEcb) {
    for (const Granularity& g : granularities()) {
        AtGranularity at(g);
        for (size_t keylen : kKeyLengths) {
            for (size_t n : kBlockCounts) {
                SCOPED_TRACE(g.label() + ", key " + std::to_string(keylen) + ", blocks " +
                             std::to_string(n));
                const Bytes key = random_bytes(keylen), pt = random_bytes(n * B);
                Bytes ct(n * B), back = Bytes(pt);
                EXPECT_EQ(insn::km(aes_fc(keylen), const_cast<uint8_t*>(key.data()), ct.data(),
                                   pt.data(), ct.size()), 0);
                EXPECT_EQ(to_hex(ct), to_hex(evp(aes_name(keylen, "ECB"), key, {}, pt, true)));
                Portable p(key);
                Bytes ref(n * B);
                portable::aes.encrypt_blocks(*p.ks, pt.data(), ref.data(), n);
                EXPECT_EQ(to_hex(ct), to_hex(ref));
                back = ct;
                EXPECT_EQ(insn::km(aes_fc(keylen) | 0x80, const_cast<uint8_t*>(key.data()),
                                   back.data(), back.data(), back.size()), 0);
                EXPECT_EQ(to_hex(back), to_hex(pt));
            }
        }
    }
}

// R1 equal to R2: in place through one register, which advances once (with
// partial completion forced, a register advanced twice would skip data).
TEST(CpacfShim, KmAndKmcWithR1EqualToR2RunInPlace) {
    for (const Granularity& g : granularities()) {
        AtGranularity at(g);
        for (size_t keylen : kKeyLengths) {
            for (size_t n : kBlockCounts) {
                SCOPED_TRACE(g.label() + ", key " + std::to_string(keylen) + ", blocks " +
                             std::to_string(n));
                const Bytes key = random_bytes(keylen), iv = random_bytes(B),
                            pt = random_bytes(n * B);
                Bytes buf = pt;
                EXPECT_EQ(insn::km_in_place(aes_fc(keylen), const_cast<uint8_t*>(key.data()),
                                            buf.data(), buf.size()),
                          0);
                EXPECT_EQ(to_hex(buf), to_hex(evp(aes_name(keylen, "ECB"), key, {}, pt, true)));
                EXPECT_EQ(insn::km_in_place(aes_fc(keylen) | 0x80,
                                            const_cast<uint8_t*>(key.data()), buf.data(),
                                            buf.size()),
                          0);
                EXPECT_EQ(to_hex(buf), to_hex(pt));
                Bytes param = concat(iv, key);
                buf = pt;
                EXPECT_EQ(insn::kmc_in_place(aes_fc(keylen), param.data(), buf.data(), buf.size()),
                          0);
                EXPECT_EQ(to_hex(buf), to_hex(evp(aes_name(keylen, "CBC"), key, iv, pt, true)));
            }
        }
    }
}

// GR0 bits 0-31 are ignored: a stale high word (OpenSSL loads GR0 with a
// 32-bit load) changes nothing, and GR0 itself is left as it was.
TEST(CpacfShim, Gr0HighWordIsIgnored) {
    const uint64_t stale = uint64_t{0xdeadbeef} << 32;
    for (size_t keylen : kKeyLengths) {
        SCOPED_TRACE("key " + std::to_string(keylen));
        const Bytes key = random_bytes(keylen), iv = random_bytes(B), pt = random_bytes(5 * B);
        Bytes ct(pt.size());
        EXPECT_EQ(insn::km(stale | aes_fc(keylen), const_cast<uint8_t*>(key.data()), ct.data(),
                           pt.data(), ct.size()),
                  0);
        EXPECT_EQ(to_hex(ct), to_hex(evp(aes_name(keylen, "ECB"), key, {}, pt, true)));
        Bytes back(ct.size());
        EXPECT_EQ(insn::km(stale | aes_fc(keylen) | 0x80, const_cast<uint8_t*>(key.data()),
                           back.data(), ct.data(), ct.size()),
                  0);
        EXPECT_EQ(to_hex(back), to_hex(pt));
        Bytes param = concat(iv, key), cfb(pt.size());
        EXPECT_EQ(insn::kmf(stale | aes_fc(keylen) | (uint64_t{16} << 24), param.data(),
                            cfb.data(), pt.data(), pt.size()),
                  0);
        EXPECT_EQ(to_hex(cfb), to_hex(evp(aes_name(keylen, "CFB"), key, iv, pt, true)));
    }
    // The register is not rewritten: GR0 after the instruction still holds
    // the stale high word.
    const Bytes key = random_bytes(16), pt = random_bytes(B);
    Bytes ct(B);
    register uint64_t r0 __asm__("0") = stale | 18;
    register const void* r1 __asm__("1") = key.data();
    register const uint8_t* r2 __asm__("2") = pt.data();
    register size_t r3 __asm__("3") = B;
    register uint8_t* r4 __asm__("4") = ct.data();
    __asm__ volatile("0: .insn rre,0xb92e0000,%[o],%[i]\n\tbrc 1,0b"
                     : [o] "+a"(r4), [i] "+a"(r2), "+d"(r3), "+d"(r0)
                     : "a"(r1)
                     : "cc", "memory");
    const uint64_t gr0_after = r0;
    EXPECT_EQ(gr0_after, stale | 18);
}

// Parameter block of KMC, KMF, KMO, KMAC: chaining value, then the key.
Bytes cv_and_key(const Bytes& iv, const Bytes& key) { return concat(iv, key); }

// A chained instruction run as two calls split at `split` bytes, so the
// written-back chaining value carries the stream.
using ChainInsn = int (*)(uint64_t, void*, uint8_t*, const uint8_t*, size_t);
Bytes run_chained(ChainInsn fn, uint64_t gr0, const Bytes& key, const Bytes& iv, const Bytes& in,
                  size_t split, Bytes* cv_out = nullptr) {
    Bytes param = cv_and_key(iv, key), out(in.size());
    EXPECT_EQ(fn(gr0, param.data(), out.data(), in.data(), split), 0);
    EXPECT_EQ(fn(gr0, param.data(), out.data() + split, in.data() + split, in.size() - split), 0);
    if (cv_out) *cv_out = slice(param, 0, B);
    return out;
}

TEST(CpacfShim, KmcMatchesCbc) {
    for (const Granularity& g : granularities()) {
        AtGranularity at(g);
        for (size_t keylen : kKeyLengths) {
            for (size_t n : kBlockCounts) {
                SCOPED_TRACE(g.label() + ", key " + std::to_string(keylen) + ", blocks " +
                             std::to_string(n));
                const Bytes key = random_bytes(keylen), iv = random_bytes(B),
                            pt = random_bytes(n * B);
                const size_t split = random_below(n + 1) * B;
                Bytes cv;
                const Bytes ct = run_chained(insn::kmc, aes_fc(keylen), key, iv, pt, split, &cv);
                EXPECT_EQ(to_hex(ct), to_hex(evp(aes_name(keylen, "CBC"), key, iv, pt, true)));
                Portable p(key);
                Bytes ref(n * B), ref_iv = iv;
                generic::cbc_encrypt(portable::aes, *p.ks, ref_iv.data(), pt.data(), ref.data(), n);
                EXPECT_EQ(to_hex(ct), to_hex(ref));
                EXPECT_EQ(to_hex(cv), to_hex(ref_iv)) << "output chaining value";
                const Bytes back =
                    run_chained(insn::kmc, aes_fc(keylen) | 0x80, key, iv, ct, split, &cv);
                EXPECT_EQ(to_hex(back), to_hex(pt));
                EXPECT_EQ(to_hex(cv), to_hex(ref_iv)) << "output chaining value (decipher)";
            }
        }
    }
}

// KMF with LCFB 16 is CFB128, with LCFB 1 CFB8; lengths are whole LCFB units.
void check_kmf(size_t lcfb, const char* mode, bool cfb8) {
    for (const Granularity& g : granularities()) {
        AtGranularity at(g);
        for (size_t keylen : kKeyLengths) {
            for (size_t n : kBlockCounts) {
                const size_t len = cfb8 ? n * 5 + n % 3 : n * B;  // CFB8: any byte count
                SCOPED_TRACE(g.label() + ", key " + std::to_string(keylen) + ", bytes " +
                             std::to_string(len));
                const Bytes key = random_bytes(keylen), iv = random_bytes(B),
                            pt = random_bytes(len);
                const size_t split = random_below(len / lcfb + 1) * lcfb;
                const uint64_t gr0 = aes_fc(keylen) | uint64_t{lcfb} << 24;
                Bytes cv;
                const Bytes ct = run_chained(insn::kmf, gr0, key, iv, pt, split, &cv);
                EXPECT_EQ(to_hex(ct), to_hex(evp(aes_name(keylen, mode), key, iv, pt, true)));
                Portable p(key);
                Bytes ref(len), ref_iv = iv;
                if (cfb8)
                    generic::cfb8(portable::aes, *p.ks, ref_iv.data(), pt.data(), ref.data(), len,
                                  true);
                else
                    generic::cfb_encrypt(portable::aes, *p.ks, ref_iv.data(), pt.data(), ref.data(),
                                         n);
                EXPECT_EQ(to_hex(ct), to_hex(ref));
                EXPECT_EQ(to_hex(cv), to_hex(ref_iv)) << "output chaining value";
                const Bytes back = run_chained(insn::kmf, gr0 | 0x80, key, iv, ct, split, &cv);
                EXPECT_EQ(to_hex(back), to_hex(pt));
                EXPECT_EQ(to_hex(cv), to_hex(ref_iv)) << "output chaining value (decipher)";
            }
        }
    }
}

TEST(CpacfShim, KmfLcfb16MatchesCfb128) {
    if (!msa4()) GTEST_SKIP() << "the CPU model lacks MSA4";
    check_kmf(16, "CFB", false);
}

TEST(CpacfShim, KmfLcfb1MatchesCfb8) {
    if (!msa4()) GTEST_SKIP() << "the CPU model lacks MSA4";
    check_kmf(1, "CFB8", true);
}

TEST(CpacfShim, KmoMatchesOfb) {
    if (!(msa4())) GTEST_SKIP() << "the CPU model lacks MSA4";
    for (const Granularity& g : granularities()) {
        AtGranularity at(g);
        for (size_t keylen : kKeyLengths) {
            for (size_t n : kBlockCounts) {
                SCOPED_TRACE(g.label() + ", key " + std::to_string(keylen) + ", blocks " +
                             std::to_string(n));
                const Bytes key = random_bytes(keylen), iv = random_bytes(B),
                            pt = random_bytes(n * B);
                const size_t split = random_below(n + 1) * B;
                Bytes cv;
                const Bytes ct = run_chained(insn::kmo, aes_fc(keylen), key, iv, pt, split, &cv);
                EXPECT_EQ(to_hex(ct), to_hex(evp(aes_name(keylen, "OFB"), key, iv, pt, true)));
                Portable p(key);
                Bytes ref(n * B), ref_iv = iv;
                generic::ofb(portable::aes, *p.ks, ref_iv.data(), pt.data(), ref.data(), n);
                EXPECT_EQ(to_hex(ct), to_hex(ref));
                EXPECT_EQ(to_hex(cv), to_hex(ref_iv)) << "output chaining value";
            }
        }
    }
}

void be_increment(uint8_t* ctr) {
    for (int i = 15; i >= 0; --i)
        if (++ctr[i] != 0) break;
}

// KMCTR with counter blocks built here (including a wrap of the low 64 bits).
TEST(CpacfShim, KmctrMatchesCtr) {
    if (!(msa4())) GTEST_SKIP() << "the CPU model lacks MSA4";
    for (const Granularity& g : granularities()) {
        AtGranularity at(g);
        for (size_t keylen : kKeyLengths) {
            for (size_t n : kBlockCounts) {
                SCOPED_TRACE(g.label() + ", key " + std::to_string(keylen) + ", blocks " +
                             std::to_string(n));
                const Bytes key = random_bytes(keylen), pt = random_bytes(n * B);
                Bytes iv = random_bytes(B);
                std::memset(iv.data() + 8, 0xff, 7);  // carries across bytes soon
                Bytes counters(n * B), ctr = iv;
                for (size_t i = 0; i < n; ++i, be_increment(ctr.data()))
                    std::memcpy(counters.data() + i * B, ctr.data(), B);
                Bytes param = key, ct(n * B);
                EXPECT_EQ(insn::kmctr(aes_fc(keylen), param.data(), ct.data(), pt.data(), ct.size(),
                                      counters.data()), 0);
                EXPECT_EQ(to_hex(ct), to_hex(evp(aes_name(keylen, "CTR"), key, iv, pt, true)));
                Portable p(key);
                Bytes ref(n * B), ref_iv = iv;
                generic::ctr(portable::aes, *p.ks, ref_iv.data(), pt.data(), ref.data(), n);
                EXPECT_EQ(to_hex(ct), to_hex(ref));
            }
        }
    }
}

// XTS: PCC computes the first XTS parameter E(K2, tweak), KM-XTS runs the
// data unit in two calls through the written-back parameter.
TEST(CpacfShim, PccAndKmXtsMatchXts) {
    if (!(msa4())) GTEST_SKIP() << "the CPU model lacks MSA4";
    for (const Granularity& g : granularities()) {
        AtGranularity at(g);
        for (size_t keylen : {16, 32}) {
            const uint64_t fc = keylen == 16 ? 50 : 52;
            for (size_t n : kBlockCounts) {
                if (n == 0) continue;  // XTS needs at least one block
                SCOPED_TRACE(g.label() + ", key " + std::to_string(keylen) + ", blocks " +
                             std::to_string(n));
                const Bytes key1 = random_bytes(keylen), key2 = random_bytes(keylen),
                            tweak = random_bytes(B), pt = random_bytes(n * B);
                Bytes pcc_param = concat(key2, tweak);
                pcc_param.resize(keylen + 64, 0);  // j = 0, bit index 0, output
                EXPECT_EQ(insn::pcc(fc, pcc_param.data()), 0);
                const Bytes first = slice(pcc_param, keylen + 48, B);
                const Bytes ct =
                    evp(aes_name(keylen, "XTS"), concat(key1, key2), tweak, pt, true);
                const size_t split = random_below(n + 1) * B;
                for (bool enc : {true, false}) {
                    const Bytes& in = enc ? pt : ct;
                    Bytes param = concat(key1, first), out(in.size());
                    const uint64_t gr0 = fc | (enc ? 0 : 0x80);
                    EXPECT_EQ(insn::km(gr0, param.data(), out.data(), in.data(), split), 0);
                    EXPECT_EQ(insn::km(gr0, param.data(), out.data() + split, in.data() + split,
                                       in.size() - split), 0);
                    const Bytes& want = enc ? ct : pt;
                    EXPECT_EQ(to_hex(out), to_hex(want)) << (enc ? "encipher" : "decipher");
                    // The parameter left behind is the tweak for block n.
                    Bytes t = first;
                    for (size_t i = 0; i < n; ++i) shim::xts_double(t.data());
                    EXPECT_EQ(to_hex(slice(param, keylen, B)), to_hex(t));
                }
            }
        }
    }
}

// The injection itself: how many traps and CC 3 one call takes.
TEST(CpacfShim, PartialCompletionIsInjectedAsConfigured) {
    if (!(msa4())) GTEST_SKIP() << "the CPU model lacks MSA4";
    struct Case {
        size_t budget, len, lcfb;
        uint64_t traps, cc3;
    };
    const Case cases[] = {
        {0, 160, 16, 1, 0},  {16, 160, 16, 10, 9}, {48, 160, 16, 4, 3}, {80, 160, 16, 2, 1},
        {24, 160, 16, 5, 4}, {24, 100, 1, 5, 4},   {16, 0, 16, 1, 0},   {160, 160, 16, 1, 0},
    };
    const Bytes key = random_bytes(16);
    for (const Case& c : cases) {
        SCOPED_TRACE("budget " + std::to_string(c.budget) + ", bytes " + std::to_string(c.len) +
                     ", LCFB " + std::to_string(c.lcfb));
        cpacf_shim::ScopedPartial sp(c.budget);
        Bytes param = cv_and_key(Bytes(B, 0), key), in = random_bytes(c.len), out(c.len);
        const auto before = cpacf_shim::stats();
        const uint64_t gr0 = 18 | uint64_t{c.lcfb} << 24;
        EXPECT_EQ(insn::kmf(gr0, param.data(), out.data(), in.data(), c.len), 0);
        const auto after = cpacf_shim::stats();
        EXPECT_EQ(after.traps - before.traps, c.traps);
        EXPECT_EQ(after.cc3 - before.cc3, c.cc3);
        EXPECT_EQ(after.declined, before.declined);
    }
}

} // namespace
} // namespace hwc::test
