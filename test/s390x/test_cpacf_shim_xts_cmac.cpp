// SPDX-License-Identifier: Apache-2.0
// The CPACF shim, part 4: full XTS and the XTS/CMAC hand-off to the CPU.
//
// First the instruction: KM full XTS (82/84) issued directly and compared
// with OpenSSL's XTS at several partial-completion granularities. Then
// hwcipher's aes-cpacf core through the cores/modes.h helpers the provider
// uses (xts_unit, xts_tweak + xts_encrypt, cbc_mac + cmac_last), once per
// HWCIPHER_S390X_DISABLE setting, so each CPACF path and each fallback is
// compared with OpenSSL and shown, by the shim's counters, to issue the
// instructions it should. Finally the provider: whole-block XTS data units
// are one KM call, CMAC's last block one PCC call.
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <signal.h>
#include <sys/resource.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "cores/cpu.h"
#include "cores/modes.h"
#include "cores/portable/portable.h"
#include "cores/s390x/cpacf_detect.h"
#include "cores/s390x/s390x.h"
#include "test/s390x/cpacf_shim.h"
#include "test/s390x/shim_crypto.h"
#include "test/s390x/shim_insn.h"
#include "test/s390x/shim_reference.h"

namespace hwc::test {
namespace {

using namespace shimref;

constexpr uint64_t kDecipher = 0x80;

uint64_t emulated(const cpacf_shim::Stats& s, cpacf::Op op) {
    return s.emulated[static_cast<int>(op)];
}

// Executions of `op` between two snapshots.
uint64_t delta(const cpacf_shim::Stats& before, const cpacf_shim::Stats& after, cpacf::Op op) {
    return emulated(after, op) - emulated(before, op);
}

// Key 1 and key 2 must differ (OpenSSL refuses equal halves for encryption).
Bytes xts_key(size_t half) {
    Bytes k = random_bytes(2 * half);
    k[half] = static_cast<uint8_t>(k[0] ^ 1);
    return k;
}

// ---- the instruction ---------------------------------------------------------

// Parameter block: key 1, key 2, tweak, next alpha power (1 to start); the
// data unit in two calls, the second continuing from the written-back block.
TEST(CpacfShimFullXts, KmFullXtsMatchesXts) {
    if (!msa4()) GTEST_SKIP() << "the CPU model lacks MSA4";
    for (const Granularity& g : granularities()) {
        AtGranularity at(g);
        for (size_t half : {16, 32}) {
            const uint64_t fc = half == 16 ? 82 : 84;
            for (size_t n : {1, 2, 3, 5, 8, 17, 64}) {
                SCOPED_TRACE(g.label() + ", key " + std::to_string(half) + ", blocks " +
                             std::to_string(n));
                const Bytes key = xts_key(half), tweak = random_bytes(B),
                            pt = random_bytes(n * B);
                const Bytes ct = evp(aes_name(half, "XTS"), key, tweak, pt, true);
                const size_t split = random_below(n + 1) * B;
                for (bool enc : {true, false}) {
                    const Bytes& in = enc ? pt : ct;
                    Bytes param = concat(key, tweak), out(in.size());
                    param.resize(2 * half + 2 * B, 0);
                    param[2 * half + B] = 1;
                    const uint64_t gr0 = fc | (enc ? 0 : kDecipher);
                    EXPECT_EQ(insn::km(gr0, param.data(), out.data(), in.data(), split), 0);
                    EXPECT_EQ(insn::km(gr0, param.data(), out.data() + split, in.data() + split,
                                       in.size() - split), 0);
                    EXPECT_EQ(to_hex(out), to_hex(enc ? ct : pt))
                        << (enc ? "encipher" : "decipher");
                    EXPECT_EQ(to_hex(slice(param, 0, 2 * half + B)), to_hex(concat(key, tweak)))
                        << "keys and tweak stay";
                }
            }
        }
    }
}

void quiet_child() {
    struct rlimit none {0, 0};
    setrlimit(RLIMIT_CORE, &none);
}

TEST(CpacfShimFullXts, UnmodelledParameterBlocksAreFatal) {
    if (!msa4()) GTEST_SKIP() << "the CPU model lacks MSA4";
    uint8_t param[96] = {}, buf[32] = {};
    const auto sigill = testing::KilledBySignal(SIGILL);
    EXPECT_EXIT(
        {
            quiet_child();
            param[48] = 1;  // next alpha power 1, but key 1 = key 2 (both zero)
            insn::km(82, param, buf, buf, 16);
        },
        sigill, "key 1 equal to key 2");
    EXPECT_EXIT(
        {
            quiet_child();
            param[0] = 1;  // keys differ, next alpha power left zero
            insn::km(82, param, buf, buf, 16);
        },
        sigill, "next alpha power zero");
    EXPECT_EXIT(
        {
            quiet_child();
            insn::km(83, param, buf, buf, 16);  // there is no full XTS-AES-192
        },
        sigill, "function code not modelled");
}

// ---- the core, per capability ----------------------------------------------------

struct Capability {
    const char* disable;
    bool full_xts, pcc_xts, km_xts, pcc_cmac;
};

const Capability kCapabilities[] = {
    {"", true, true, true, true},
    {"km-full-xts", false, true, true, true},
    {"km-full-xts,pcc-xts", false, false, true, true},
    {"km:82,km:84,km:50,km:52,pcc:50,pcc:52", false, false, false, true},
    {"pcc-cmac", true, true, true, false},
    {"pcc,kmac", true, false, true, false},
};

struct Keys {
    std::unique_ptr<KeySchedule> data = std::make_unique<KeySchedule>();
    std::unique_ptr<KeySchedule> tweak = std::make_unique<KeySchedule>();
};

TEST(CpacfCoreXtsCmac, XtsOnEveryPathMatchesOpenssl) {
    if (!msa4()) GTEST_SKIP() << "the CPU model lacks MSA4";
    const BlockCore& core = s390x::aes_cpacf;
    for (const Capability& cap : kCapabilities) {
        ScopedDisable disable(cap.disable);
        cpacf_shim::ScopedPartial never(0);  // exact instruction counts
        for (size_t half : {16, 32}) {
            for (size_t n : {1, 2, 7, 33}) {
                SCOPED_TRACE(std::string("disable '") + cap.disable + "', key " +
                             std::to_string(half) + ", blocks " + std::to_string(n));
                const Bytes key = xts_key(half), iv = random_bytes(B), pt = random_bytes(n * B);
                const Bytes want = evp(aes_name(half, "XTS"), key, iv, pt, true);
                Keys ks;
                ASSERT_TRUE(core.set_key(*ks.data, key.data(), half));
                ASSERT_TRUE(core.set_key(*ks.tweak, key.data() + half, half));
                for (bool enc : {true, false}) {
                    const Bytes& in = enc ? pt : want;
                    const Bytes& expect = enc ? want : pt;
                    // As the provider does it: the whole unit if the core can ...
                    Bytes out(in.size());
                    auto before = cpacf_shim::stats();
                    const bool unit = xts_unit(core, *ks.data, *ks.tweak, iv.data(), in.data(),
                                               out.data(), n, enc);
                    auto after = cpacf_shim::stats();
                    EXPECT_EQ(unit, cap.full_xts);
                    if (unit) {
                        EXPECT_EQ(to_hex(out), to_hex(expect)) << "full XTS";
                        EXPECT_EQ(delta(before, after, cpacf::Op::km), 1u);
                        EXPECT_EQ(delta(before, after, cpacf::Op::pcc), 0u);
                    } else {
                        EXPECT_EQ(after.traps, before.traps) << "a declined unit touched the CPU";
                    }
                    // ... and the tweak-then-blocks path the stealing case takes.
                    Bytes tweak(B), ref(B);
                    before = cpacf_shim::stats();
                    xts_tweak(core, *ks.tweak, iv.data(), tweak.data());
                    after = cpacf_shim::stats();
                    EXPECT_EQ(delta(before, after, cpacf::Op::pcc), cap.pcc_xts ? 1u : 0u);
                    const Bytes tweak_key = slice(key, half, half);
                    EXPECT_EQ(to_hex(tweak),
                              to_hex(evp(aes_name(half, "ECB"), tweak_key, {}, iv, true)));
                    out.assign(in.size(), 0);
                    before = cpacf_shim::stats();
                    if (enc)
                        xts_encrypt(core, *ks.data, tweak.data(), in.data(), out.data(), n, false);
                    else
                        xts_decrypt(core, *ks.data, tweak.data(), in.data(), out.data(), n, false);
                    after = cpacf_shim::stats();
                    EXPECT_EQ(to_hex(out), to_hex(expect)) << "tweak, then blocks";
                    if (cap.km_xts) {
                        EXPECT_EQ(delta(before, after, cpacf::Op::km), 1u);
                    }
                }
            }
        }
    }
}

TEST(CpacfCoreXtsCmac, CmacLastBlockOnEveryPathMatchesOpenssl) {
    if (!msa4()) GTEST_SKIP() << "the CPU model lacks MSA4";
    const BlockCore& core = s390x::aes_cpacf;
    for (const Capability& cap : kCapabilities) {
        ScopedDisable disable(cap.disable);
        for (const Granularity& g : granularities()) {
            AtGranularity at(g);
            for (size_t keylen : kKeyLengths) {
                for (size_t len : {0, 1, 15, 16, 17, 32, 33, 100}) {
                    SCOPED_TRACE(std::string("disable '") + cap.disable + "', " + g.label() +
                                 ", key " + std::to_string(keylen) + ", bytes " +
                                 std::to_string(len));
                    const Bytes key = random_bytes(keylen), msg = random_bytes(len);
                    auto ks = std::make_unique<KeySchedule>();
                    ASSERT_TRUE(core.set_key(*ks, key.data(), keylen));
                    // The CBC-MAC of every block but the last, then the last 1..16
                    // bytes (none for the empty message).
                    const size_t head = len == 0 ? 0 : (len - 1) / B * B;
                    Bytes x(B, 0);
                    cbc_mac(core, *ks, x.data(), msg.data(), head / B);
                    const auto before = cpacf_shim::stats();
                    const bool served =
                        cmac_last(core, *ks, x.data(), msg.data() + head, len - head);
                    const auto after = cpacf_shim::stats();
                    EXPECT_EQ(served, cap.pcc_cmac);
                    if (!served) {
                        EXPECT_EQ(after.traps, before.traps) << "a declined block touched the CPU";
                        continue;
                    }
                    EXPECT_EQ(delta(before, after, cpacf::Op::pcc), 1u);
                    EXPECT_EQ(to_hex(x), to_hex(evp_cmac(key, msg)));
                }
            }
        }
    }
}

// Without KM-AES the feature bit goes, so the registry picks aes-portable;
// without KIMD-GHASH likewise ghash-portable.
TEST(CpacfCoreXtsCmac, FeatureBitsFollowTheQueries) {
    {
        ScopedDisable none("");
        EXPECT_NE(s390x::cpacf_features() & kS390KmAes, 0u);
        if (msa4()) {
            EXPECT_NE(s390x::cpacf_features() & kS390KimdGhash, 0u);
        }
    }
    {
        ScopedDisable km("km-aes");
        EXPECT_EQ(s390x::cpacf_features() & kS390KmAes, 0u);
        EXPECT_NE(s390x::cpacf_features() & kS390Msa, 0u) << "the facility is still there";
    }
    {
        ScopedDisable kimd("kimd:65");
        EXPECT_EQ(s390x::cpacf_features() & kS390KimdGhash, 0u);
        EXPECT_NE(s390x::cpacf_features() & kS390KmAes, 0u);
    }
}

// ---- the provider --------------------------------------------------------------

// One EVP XTS update of `len` bytes through hwcipher, checked against the
// default provider; returns the KM and PCC executions it took.
std::pair<uint64_t, uint64_t> provider_xts(size_t half, size_t len) {
    const Bytes key = xts_key(half), iv = random_bytes(B), pt = random_bytes(len);
    const std::string name = aes_name(half, "XTS");
    EVP_CIPHER* c = fetch_hwcipher(name);
    EXPECT_NE(c, nullptr);
    if (c == nullptr) return {0, 0};
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    Bytes out(len);
    int n = 0;
    EXPECT_EQ(EVP_EncryptInit_ex2(ctx, c, key.data(), iv.data(), nullptr), 1);
    const auto before = cpacf_shim::stats();
    EXPECT_EQ(EVP_EncryptUpdate(ctx, out.data(), &n, pt.data(), static_cast<int>(len)), 1);
    const auto after = cpacf_shim::stats();
    EVP_CIPHER_CTX_free(ctx);
    EVP_CIPHER_free(c);
    EXPECT_EQ(to_hex(out), to_hex(evp(name, key, iv, pt, true))) << name << " " << len;
    return {delta(before, after, cpacf::Op::km), delta(before, after, cpacf::Op::pcc)};
}

bool cpacf_selected() { return core_report().find("aes=aes-cpacf") != std::string::npos; }

TEST(CpacfShimProviderXtsCmac, WholeBlockXtsUnitIsOneKm) {
    if (!msa4()) GTEST_SKIP() << "the CPU model lacks MSA4";
    if (!cpacf_selected()) GTEST_SKIP() << "aes-cpacf not selected: " << core_report();
    cpacf_shim::ScopedPartial never(0);
    for (size_t half : {16, 32}) {
        EXPECT_EQ(provider_xts(half, 16 * 1024), std::make_pair(uint64_t{1}, uint64_t{0}))
            << "KM full XTS, nothing else";
        // Stealing (encryption): PCC for the tweak, one KM-XTS for the whole
        // blocks, leaving the tweak of the stolen pair, and one for the pair.
        EXPECT_EQ(provider_xts(half, 1000), std::make_pair(uint64_t{2}, uint64_t{1}));
    }
}

TEST(CpacfShimProviderXtsCmac, CmacFinalIsOnePcc) {
    if (!msa4()) GTEST_SKIP() << "the CPU model lacks MSA4";
    if (!cpacf_selected()) GTEST_SKIP() << "aes-cpacf not selected: " << core_report();
    cpacf_shim::ScopedPartial never(0);
    for (size_t keylen : kKeyLengths) {
        for (size_t len : {0, 16, 100, 16 * 1024}) {
            SCOPED_TRACE("key " + std::to_string(keylen) + ", bytes " + std::to_string(len));
            const Bytes key = random_bytes(keylen), msg = random_bytes(len);
            EVP_MAC* mac = EVP_MAC_fetch(libctx(), "CMAC", "provider=hwcipher");
            ASSERT_NE(mac, nullptr);
            EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
            std::string cipher = aes_name(keylen, "CBC");
            OSSL_PARAM params[] = {
                OSSL_PARAM_construct_utf8_string("cipher", cipher.data(), 0),
                OSSL_PARAM_construct_end(),
            };
            ASSERT_EQ(EVP_MAC_init(ctx, key.data(), key.size(), params), 1);
            auto before = cpacf_shim::stats();
            // Block-aligned: twice, so the second update follows a block the
            // first kept for final: still one KMAC per update. (A block
            // straddling two updates takes a KMAC of its own.)
            const int updates = len % B == 0 ? 2 : 1;
            for (int i = 0; i < updates && len != 0; ++i) {
                before = cpacf_shim::stats();
                ASSERT_EQ(EVP_MAC_update(ctx, msg.data(), msg.size()), 1);
                const auto after = cpacf_shim::stats();
                EXPECT_LE(delta(before, after, cpacf::Op::kmac), 1u)
                    << "one update, at most one KMAC";
                EXPECT_EQ(after.traps - before.traps, delta(before, after, cpacf::Op::kmac));
            }
            auto after = cpacf_shim::stats();
            Bytes tag(B);
            size_t tagl = 0;
            before = cpacf_shim::stats();
            ASSERT_EQ(EVP_MAC_final(ctx, tag.data(), &tagl, tag.size()), 1);
            after = cpacf_shim::stats();
            EXPECT_EQ(delta(before, after, cpacf::Op::pcc), 1u);
            // An update ending on a block boundary MACs its last block too
            // (one KMAC per update); final then recovers the chaining value
            // before it with one KM decryption.
            const uint64_t km = (len != 0 && len % B == 0) ? 1 : 0;
            EXPECT_EQ(delta(before, after, cpacf::Op::km), km);
            EXPECT_EQ(after.traps - before.traps, 1u + km) << "the final is the PCC (+ KM)";
            EXPECT_EQ(to_hex(tag), to_hex(evp_cmac(key, updates == 2 ? concat(msg, msg) : msg)));
            EVP_MAC_CTX_free(ctx);
            EVP_MAC_free(mac);
        }
    }
}

} // namespace
} // namespace hwc::test
