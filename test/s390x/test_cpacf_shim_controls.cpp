// SPDX-License-Identifier: Apache-2.0
// The CPACF shim, part 3: negative controls and the provider.
//
// Negative controls prove the shim can fail code that is wrong: wrappers
// that are correct except for their handling of partial completion must
// produce wrong output once CC 3 is injected (and right output without it,
// so the injection is what catches them), and invalid or unmodelled
// instructions must kill the process with SIGILL at the instruction, which
// is checked in forked children. The provider test checks that, with the
// shim active, hwcipher selects its CPACF cores and really executes CPACF.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>

#include "test/s390x/cpacf_shim.h"
#include "test/s390x/shim_insn.h"
#include "test/s390x/shim_reference.h"

namespace hwc::test {
namespace {

using namespace shimref;

// ---- wrappers with one deliberate mistake each --------------------------------

// KM without the CC 3 loop.
int km_without_loop(uint64_t gr0, const void* param, uint8_t* out, const uint8_t* in,
                    size_t len) {
    register uint64_t r0 __asm__("0") = gr0;
    register const void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    register uint8_t* r4 __asm__("4") = out;
    int cc;
    __asm__ volatile(".insn rre,0xb92e0000,%[o],%[i]\n\tipm %[cc]\n\tsrl %[cc],28"
                     : [o] "+a"(r4), [i] "+a"(r2), "+d"(r3), [cc] "=&d"(cc)
                     : "d"(r0), "a"(r1)
                     : "cc", "memory");
    return cc;
}

// KM that loops, but reloads the original input address before every
// execution, as if R2 were an input-only operand.
void km_with_stale_r2(uint64_t gr0, const void* param, uint8_t* out, const uint8_t* in,
                      size_t len) {
    register uint64_t r0 __asm__("0") = gr0;
    register const void* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    register uint8_t* r4 __asm__("4") = out;
    register const uint8_t* r5 __asm__("5") = in;
    __asm__ volatile("0: lgr %[i],%[orig]\n\t.insn rre,0xb92e0000,%[o],%[i]\n\tbrc 1,0b"
                     : [o] "+a"(r4), [i] "+a"(r2), "+d"(r3)
                     : [orig] "a"(r5), "d"(r0), "a"(r1)
                     : "cc", "memory");
}

// KMC that loops, but puts the original IV back into the parameter block
// before every execution instead of continuing from the written-back one.
void kmc_with_stale_iv(uint64_t gr0, uint8_t* param, const uint8_t* iv, uint8_t* out,
                       const uint8_t* in, size_t len) {
    register uint64_t r0 __asm__("0") = gr0;
    register uint8_t* r1 __asm__("1") = param;
    register const uint8_t* r2 __asm__("2") = in;
    register size_t r3 __asm__("3") = len;
    register uint8_t* r4 __asm__("4") = out;
    __asm__ volatile("0: mvc 0(16,%[p]),0(%[iv])\n\t.insn rre,0xb92f0000,%[o],%[i]\n\tbrc 1,0b"
                     : [o] "+a"(r4), [i] "+a"(r2), "+d"(r3)
                     : [iv] "a"(iv), "d"(r0), [p] "a"(r1)
                     : "cc", "memory");
}

// Runs `run` with partial completion never and every block; the output must
// be right without injection and wrong with it.
template <typename Run>
void expect_caught_only_by_injection(const Bytes& want, Run run) {
    {
        cpacf_shim::ScopedPartial never(0);
        EXPECT_EQ(to_hex(run()), to_hex(want)) << "wrong even without partial completion";
    }
    cpacf_shim::ScopedPartial every_block(16);
    const auto before = cpacf_shim::stats();
    EXPECT_NE(to_hex(run()), to_hex(want)) << "the mistake went unnoticed under CC 3 injection";
    EXPECT_GT(cpacf_shim::stats().cc3, before.cc3);
}

TEST(CpacfShimControls, WrapperWithoutLoopIsCaught) {
    const Bytes key = random_bytes(16), pt = random_bytes(4 * B);
    const Bytes want = evp("AES-128-ECB", key, {}, pt, true);
    int cc = -1;
    expect_caught_only_by_injection(want, [&] {
        Bytes out(pt.size(), 0);
        cc = km_without_loop(18, key.data(), out.data(), pt.data(), pt.size());
        return out;
    });
    EXPECT_EQ(cc, 3) << "the wrapper saw partial completion and ignored it";
}

TEST(CpacfShimControls, WrapperThatForgetsTheAdvancedR2IsCaught) {
    const Bytes key = random_bytes(32), pt = random_bytes(5 * B);
    const Bytes want = evp("AES-256-ECB", key, {}, pt, true);
    expect_caught_only_by_injection(want, [&] {
        Bytes out(pt.size(), 0);
        km_with_stale_r2(20, key.data(), out.data(), pt.data(), pt.size());
        return out;
    });
}

TEST(CpacfShimControls, WrapperThatRestoresTheChainingValueIsCaught) {
    const Bytes key = random_bytes(24), iv = random_bytes(B), pt = random_bytes(3 * B);
    const Bytes want = evp("AES-192-CBC", key, iv, pt, true);
    expect_caught_only_by_injection(want, [&] {
        Bytes param = concat(iv, key), out(pt.size(), 0);
        kmc_with_stale_iv(19, param.data(), iv.data(), out.data(), pt.data(), pt.size());
        return out;
    });
}

// ---- declined instructions: death by SIGILL at the instruction -----------------

// In the forked child: no core file (QEMU would write one into the working
// directory), then the instruction.
void quiet_child() {
    struct rlimit none {0, 0};
    setrlimit(RLIMIT_CORE, &none);
}

// Raw encodings with r0 = AES-128 (so only the register field is wrong).
void raw_km_r1_odd() {
    quiet_child();
    register uint64_t r0 __asm__("0") = 18;
    __asm__ volatile(".long 0xb92e0052" : : "d"(r0) : "cc", "memory");  // KM 5,2
}
void raw_km_r2_odd() {
    quiet_child();
    register uint64_t r0 __asm__("0") = 18;
    __asm__ volatile(".long 0xb92e0043" : : "d"(r0) : "cc", "memory");  // KM 4,3
}
void raw_kmc_r2_zero() {
    quiet_child();
    register uint64_t r0 __asm__("0") = 18;
    __asm__ volatile(".long 0xb92f0040" : : "d"(r0) : "cc", "memory");  // KMC 4,0
}
void raw_kma_r3_is_r1() {
    quiet_child();
    register uint64_t r0 __asm__("0") = 18 | 0x300;
    __asm__ volatile(".long 0xb9294042" : : "d"(r0) : "cc", "memory");  // KMA 4,4,2
}

TEST(CpacfShimControls, OddOrZeroRegisterFieldsAreFatal) {
    if (!(msa4() && msa8())) GTEST_SKIP() << "the CPU model lacks MSA4 or MSA8";
    const auto sigill = testing::KilledBySignal(SIGILL);
    EXPECT_EXIT(raw_km_r1_odd(), sigill, "declined KM .*R1 odd or zero");
    EXPECT_EXIT(raw_km_r2_odd(), sigill, "declined KM .*R2 odd or zero");
    EXPECT_EXIT(raw_kmc_r2_zero(), sigill, "declined KMC .*R2 odd or zero");
    EXPECT_EXIT(raw_kma_r3_is_r1(), sigill, "declined KMA .*R3 equal to R1");
}

TEST(CpacfShimControls, UnmodelledUsesAreFatal) {
    if (!(msa4() && msa8())) GTEST_SKIP() << "the CPU model lacks MSA4 or MSA8";
    uint8_t param[112] = {}, buf[64] = {};
    const auto sigill = testing::KilledBySignal(SIGILL);
    EXPECT_EXIT(
        {
            quiet_child();
            insn::km(18, param, buf, buf, 17);
        },
        sigill, "not a multiple of 16");
    EXPECT_EXIT(
        {
            quiet_child();
            insn::km(21, param, buf, buf, 16);
        },
        sigill, "function code not modelled");
    EXPECT_EXIT(
        {
            quiet_child();
            insn::kimd(65 | 0x80, param, buf, 16);
        },
        sigill, "modifier bit set");
    EXPECT_EXIT(
        {
            quiet_child();
            insn::kmf(18, param, buf, buf, 16);  // LCFB 0
        },
        sigill, "LCFB 0");
    EXPECT_EXIT(
        {
            quiet_child();
            insn::kma(18 | 0x100, param, buf, buf, 16, nullptr, 0);  // LPC without LAAD
        },
        sigill, "without LAAD");
    EXPECT_EXIT(
        {
            quiet_child();
            insn::km(18 | (uint64_t{1} << 20), param, buf, buf, 16);  // GR0 bit 43
        },
        sigill, "GR0 bits");
    EXPECT_EXIT(
        {
            quiet_child();
            // KMF: bit 40 (value 1 << 23) is below LCFB, still in the low word.
            insn::kmf(18 | (uint64_t{16} << 24) | (uint64_t{1} << 23), param, buf, buf, 16);
        },
        sigill, "GR0 bits");
    EXPECT_EXIT(
        {
            quiet_child();
            register uint64_t r0 __asm__("0") = 18 | 0x300;
            __asm__ volatile(".long 0xb9296044" : : "d"(r0) : "cc", "memory");  // KMA 4,6,4
        },
        sigill, "KMA R1 equal to R2");
}

// A declined instruction goes to a handler that was there before the shim.
void exit_42(int) { _exit(42); }

TEST(CpacfShimControls, DeclinedTrapsChainToThePreviousHandler) {
    EXPECT_EXIT(
        {
            struct sigaction sa {};
            sa.sa_handler = exit_42;
            sigemptyset(&sa.sa_mask);
            sigaction(SIGILL, &sa, nullptr);
            cpacf_shim::reinstall();
            raw_km_r1_odd();
        },
        testing::ExitedWithCode(42), "passed to the previous SIGILL handler");
}

// ---- the provider ----------------------------------------------------------------

// Encrypts with hwcipher and the default provider; both must agree.
void expect_same(const std::string& name, size_t keylen, size_t ivlen, size_t len) {
    SCOPED_TRACE(name);
    const Bytes key = random_bytes(keylen), iv = random_bytes(ivlen), pt = random_bytes(len);
    Bytes outs[2];
    for (int i = 0; i < 2; ++i) {
        EVP_CIPHER* c = i == 0 ? fetch_hwcipher(name) : fetch_default(name);
        ASSERT_NE(c, nullptr);
        EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
        Bytes out(len + 2 * B);
        int n = 0, fin = 0;
        const uint8_t* ivp = iv.empty() ? nullptr : iv.data();
        ASSERT_EQ(EVP_EncryptInit_ex2(ctx, c, key.data(), ivp, nullptr), 1);
        EVP_CIPHER_CTX_set_padding(ctx, 0);
        ASSERT_EQ(EVP_EncryptUpdate(ctx, out.data(), &n, pt.data(), static_cast<int>(len)), 1);
        ASSERT_EQ(EVP_EncryptFinal_ex(ctx, out.data() + n, &fin), 1);
        out.resize(static_cast<size_t>(n + fin));
        if (EVP_CIPHER_get_mode(c) == EVP_CIPH_GCM_MODE) {
            Bytes tag(B);
            ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, B, tag.data()), 1);
            out = concat(out, tag);
        }
        outs[i] = out;
        EVP_CIPHER_CTX_free(ctx);
        EVP_CIPHER_free(c);
    }
    EXPECT_EQ(to_hex(outs[0]), to_hex(outs[1]));
}

TEST(CpacfShimProvider, SelectsTheCpacfCoresAndExecutesCpacf) {
    const std::string report = core_report();
    std::printf("hwcipher-cores: %s\n", report.c_str());
    const auto before = cpacf_shim::stats();
    expect_same("AES-128-ECB", 16, 0, 160);
    expect_same("AES-192-CBC", 24, 16, 160);
    expect_same("AES-256-CTR", 32, 16, 100);
    expect_same("AES-128-OFB", 16, 16, 77);
    expect_same("AES-256-CFB", 32, 16, 77);
    expect_same("AES-128-CFB8", 16, 16, 77);
    expect_same("AES-256-GCM", 32, 12, 100);
    expect_same("AES-128-XTS", 32, 16, 64);
    const auto after = cpacf_shim::stats();
    std::printf("cpacf-shim: %llu traps (%llu emulated, %llu CC 3) during the EVP calls\n",
                static_cast<unsigned long long>(after.traps - before.traps),
                static_cast<unsigned long long>(cpacf_shim::emulated_total(after) -
                                                cpacf_shim::emulated_total(before)),
                static_cast<unsigned long long>(after.cc3 - before.cc3));
    EXPECT_EQ(after.declined, before.declined);

    const char* forced = std::getenv("HWCIPHER_CORES");
    if (forced && *forced) {
        // The lead's portable run: the override wins and nothing traps.
        if (report.find("aes=aes-portable") != std::string::npos) {
            EXPECT_EQ(after.traps, before.traps) << "portable AES must not execute CPACF";
        }
        return;
    }
    EXPECT_NE(report.find("aes=aes-cpacf"), std::string::npos) << report;
    EXPECT_NE(report.find("ghash=ghash-kimd"), std::string::npos) << report;
    EXPECT_GT(after.traps, before.traps) << "EVP AES through hwcipher never reached CPACF";
    EXPECT_GT(after.query_hooks[static_cast<int>(cpacf::Op::km)], 0u)
        << "detection never called hwcipher_test_cpacf_query";
}

} // namespace
} // namespace hwc::test
