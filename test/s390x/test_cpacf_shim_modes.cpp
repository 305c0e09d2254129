// SPDX-License-Identifier: Apache-2.0
// The CPACF shim, part 5: aes-cpacf's CTR (KMA-GCM as a counter engine, else
// KMCTR), OCB (offsets in software around one KM call per pass) and CCM
// (KMAC + that CTR), per HWCIPHER_S390X_DISABLE setting, so each CPACF path
// and each fallback is compared with the portable core and, by the shim's
// counters, shown to issue the instructions it should; then the provider:
// a 16 KiB OCB update and a 16 KiB CCM message, against OpenSSL's default
// provider. The whole suite runs at every partial-completion setting
// (scripts/test.sh); the instruction counts are checked with partial
// completion off.
#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cores/modes.h"
#include "cores/portable/portable.h"
#include "cores/s390x/s390x.h"
#include "test/s390x/cpacf_shim.h"
#include "test/s390x/shim_reference.h"

namespace hwc::test {
namespace {

using namespace shimref;

uint64_t delta(const cpacf_shim::Stats& before, const cpacf_shim::Stats& after, cpacf::Op op) {
    return after.emulated[static_cast<int>(op)] - before.emulated[static_cast<int>(op)];
}

// A key for aes-cpacf and the same key for the portable core.
struct Keyed {
    std::unique_ptr<KeySchedule> cpacf = std::make_unique<KeySchedule>();
    std::unique_ptr<KeySchedule> portable = std::make_unique<KeySchedule>();
    explicit Keyed(const Bytes& key) {
        EXPECT_TRUE(s390x::aes_cpacf.set_key(*cpacf, key.data(), key.size()));
        EXPECT_TRUE(portable::aes.set_key(*portable, key.data(), key.size()));
    }
};

// Block counts: a few small ones, and (once per test, the emulation of every
// block being slow under QEMU) a pass of `pass` blocks, one more, and two
// passes and a bit.
std::vector<size_t> block_counts(bool with_passes, size_t pass) {
    std::vector<size_t> v = {0, 1, 5, 33};
    if (with_passes) v.insert(v.end(), {pass, pass + 1, 2 * pass + 52});
    return v;
}

// body(exact, keylen, keys) for each AES key length, at the run's own
// partial-completion setting (results checked), then with partial completion
// off (`exact`: the instruction counts checked as well).
template <class Body>
void for_each_key(Body&& body) {
    for (bool exact : {false, true}) {
        std::optional<cpacf_shim::ScopedPartial> never;
        if (exact) never.emplace(0);
        for (size_t keylen : kKeyLengths) {
            Keyed k(random_bytes(keylen));
            body(exact, keylen, k);
        }
    }
}

// ---- CTR -------------------------------------------------------------------

// Counters below the 32-, 64- and 128-bit wraps, and an ordinary one.
const char* const kCounters[] = {
    "0123456789abcdef0123456700000001", "0123456789abcdef01234567fffffffd",
    "0123456789abcdefffffffffffffffff", "fffffffffffffffffffffffffffffffe",
};

// KMA calls one CTR call of n blocks from `start` takes: one more where the
// low 32 bits wrap inside it.
uint64_t kma_calls(const Bytes& start, size_t n) {
    const uint64_t low = uint64_t{start[12]} << 24 | uint64_t{start[13]} << 16 |
                         uint64_t{start[14]} << 8 | start[15];
    return n == 0 ? 0 : (low + n > (uint64_t{1} << 32) ? 2 : 1);
}

TEST(CpacfCoreModes, CtrOnEveryPathMatchesPortable) {
    if (!msa4()) GTEST_SKIP() << "the CPU model lacks MSA4";
    struct Path {
        const char* disable;
        bool kma, kmctr;
    } const paths[] = {{"", true, false}, {"kma", false, true}, {"kma,kmctr", false, false}};
    for (const Path& path : paths) {
        ScopedDisable disable(path.disable);
        const bool kma = path.kma && msa8();
        for_each_key([&](bool exact, size_t keylen, Keyed& k) {
            for (const char* start : kCounters) {
                for (size_t n : {0, 1, 2, 3, 17, 64, 300}) {
                    SCOPED_TRACE(std::string("disable '") + path.disable + "', key " +
                                 std::to_string(keylen) + ", ctr " + start + ", blocks " +
                                 std::to_string(n));
                    const Bytes in = random_bytes(n * B), iv0 = from_hex(start);
                    Bytes want(n * B), want_iv = iv0;
                    generic::ctr(portable::aes, *k.portable, want_iv.data(), in.data(),
                                 want.data(), n);
                    Bytes got(n * B), iv = iv0;
                    const auto before = cpacf_shim::stats();
                    ctr(s390x::aes_cpacf, *k.cpacf, iv.data(), in.data(), got.data(), n);
                    const auto after = cpacf_shim::stats();
                    EXPECT_EQ(to_hex(got), to_hex(want));
                    EXPECT_EQ(to_hex(iv), to_hex(want_iv)) << "returned counter";
                    if (!exact) continue;
                    EXPECT_EQ(delta(before, after, cpacf::Op::kma), kma ? kma_calls(iv0, n) : 0);
                    if (kma || !path.kmctr) {
                        EXPECT_EQ(delta(before, after, cpacf::Op::kmctr), 0u);
                    } else {
                        EXPECT_EQ(delta(before, after, cpacf::Op::kmctr), (n + 127) / 128);
                    }
                }
            }
        });
    }
}

// ---- OCB -------------------------------------------------------------------

// Offsets from a random L table (the kernels must only index it), a random
// starting offset and checksum, and block numbers before powers of two.
TEST(CpacfCoreModes, OcbOnEveryPathMatchesPortable) {
    const Bytes ltab = random_bytes(64 * B);
    const auto* l = reinterpret_cast<const uint8_t(*)[B]>(ltab.data());
    for (const char* disable_spec : {"", "km-aes"}) {
        ScopedDisable disable(disable_spec);
        const bool km = *disable_spec == '\0';
        for_each_key([&](bool exact, size_t keylen, Keyed& k) {
            for (uint64_t start : {uint64_t{0}, uint64_t{3}, (uint64_t{1} << 20) - 5}) {
                for (size_t n : block_counts(keylen == 16 && start == 3, 1024)) {
                    for (bool enc : {true, false}) {
                        for (bool in_place : {false, true}) {
                            SCOPED_TRACE(std::string("disable '") + disable_spec + "', key " +
                                         std::to_string(keylen) + (enc ? ", enc" : ", dec") +
                                         ", start " + std::to_string(start) + ", blocks " +
                                         std::to_string(n) + (in_place ? ", in place" : ""));
                            const Bytes in = random_bytes(n * B), st0 = random_bytes(2 * B);
                            auto fresh = [&] {
                                OcbState st{};
                                std::memcpy(st.offset, st0.data(), B);
                                std::memcpy(st.checksum, st0.data() + B, B);
                                st.blocks = start;
                                st.l = l;
                                return st;
                            };
                            OcbState want_st = fresh(), got_st = fresh();
                            Bytes want(n * B);
                            (enc ? generic::ocb_encrypt : generic::ocb_decrypt)(
                                portable::aes, *k.portable, want_st, in.data(), want.data(), n);
                            Bytes got = in_place ? in : Bytes(n * B);
                            const auto before = cpacf_shim::stats();
                            (enc ? ocb_encrypt : ocb_decrypt)(s390x::aes_cpacf, *k.cpacf,
                                                              got_st,
                                                              in_place ? got.data() : in.data(),
                                                              got.data(), n);
                            const auto after = cpacf_shim::stats();
                            EXPECT_EQ(to_hex(got), to_hex(want));
                            EXPECT_EQ(to_hex(got_st.offset, B), to_hex(want_st.offset, B));
                            EXPECT_EQ(to_hex(got_st.checksum, B), to_hex(want_st.checksum, B));
                            EXPECT_EQ(got_st.blocks, start + n);
                            if (!exact) continue;
                            // One KM call per pass of up to 1024 blocks.
                            EXPECT_EQ(delta(before, after, cpacf::Op::km),
                                      km ? (n + 1023) / 1024 : 0);
                            EXPECT_EQ(after.traps - before.traps,
                                      delta(before, after, cpacf::Op::km));
                        }
                    }
                }
            }
        });
    }
}

// ---- CCM -------------------------------------------------------------------

TEST(CpacfCoreModes, CcmOnEveryPathMatchesPortable) {
    if (!msa4()) GTEST_SKIP() << "the CPU model lacks MSA4";
    struct Path {
        const char* disable;
        bool kmac, kma;
    } const paths[] = {{"", true, true},
                       {"kma", true, false},
                       {"kmac", false, true},
                       {"kma,kmctr,kmac", false, false}};
    // CCM-like counters (the low bytes count from 1), and one whose low 32
    // bits wrap inside the call (the slot steps all 128 bits).
    const char* const starts[] = {"07a1b2c3d4e5f60718293a4b00000001",
                                  "0123456789abcdef01234567fffffff0"};
    for (const Path& path : paths) {
        ScopedDisable disable(path.disable);
        const bool kma = path.kma && msa8();
        for_each_key([&](bool exact, size_t keylen, Keyed& k) {
            for (const char* start : starts) {
                for (size_t n : block_counts(keylen == 16, 1024)) {
                    for (bool enc : {true, false}) {
                        SCOPED_TRACE(std::string("disable '") + path.disable + "', key " +
                                     std::to_string(keylen) + (enc ? ", enc" : ", dec") +
                                     ", ctr " + start + ", blocks " + std::to_string(n));
                        const Bytes in = random_bytes(n * B), mac0 = random_bytes(B);
                        const Bytes ctr0 = from_hex(start);
                        Bytes want(n * B), want_mac = mac0, want_ctr = ctr0;
                        (enc ? generic::ccm_encrypt : generic::ccm_decrypt)(
                            portable::aes, *k.portable, want_mac.data(), want_ctr.data(),
                            in.data(), want.data(), n);
                        Bytes got(n * B), mac = mac0, ctr_blk = ctr0;
                        const auto before = cpacf_shim::stats();
                        (enc ? ccm_encrypt : ccm_decrypt)(s390x::aes_cpacf, *k.cpacf,
                                                          mac.data(), ctr_blk.data(),
                                                          in.data(), got.data(), n);
                        const auto after = cpacf_shim::stats();
                        EXPECT_EQ(to_hex(got), to_hex(want));
                        EXPECT_EQ(to_hex(mac), to_hex(want_mac)) << "mac";
                        EXPECT_EQ(to_hex(ctr_blk), to_hex(want_ctr)) << "counter";
                        if (!exact || n == 0) continue;
                        // One KMAC and one CTR call per pass of up to 1024 blocks.
                        const uint64_t passes = (n + 1023) / 1024;
                        EXPECT_EQ(delta(before, after, cpacf::Op::kmac),
                                  path.kmac ? passes : 0);
                        if (kma) {
                            EXPECT_EQ(delta(before, after, cpacf::Op::kma),
                                      passes + (kma_calls(ctr0, n) - 1));
                        } else {
                            EXPECT_EQ(delta(before, after, cpacf::Op::kma), 0u);
                        }
                    }
                }
            }
        });
    }
}

// ---- the provider --------------------------------------------------------------

bool cpacf_selected() { return core_report().find("aes=aes-cpacf") != std::string::npos; }

// AES-128-OCB updates of 16 KiB: after the first (which also enciphers the
// nonce's Ktop), each is one KM call and nothing else; ciphertext and tag
// agree with the default provider's.
TEST(CpacfShimProviderModes, OcbUpdateIsOneKm) {
    if (!cpacf_selected()) GTEST_SKIP() << "aes-cpacf not selected: " << core_report();
    cpacf_shim::ScopedPartial never(0);
    constexpr size_t kUpdate = 16 * 1024;
    const Bytes key = random_bytes(16), iv = random_bytes(12), pt = random_bytes(3 * kUpdate);
    Bytes out[2];
    Bytes tag[2];
    for (int which = 0; which < 2; ++which) {
        EVP_CIPHER* c = which == 0 ? fetch_hwcipher("AES-128-OCB") : fetch_default("AES-128-OCB");
        ASSERT_NE(c, nullptr);
        EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
        ASSERT_EQ(EVP_EncryptInit_ex2(ctx, c, key.data(), iv.data(), nullptr), 1);
        out[which].resize(pt.size());
        int done = 0;
        for (size_t u = 0; u < 3; ++u) {
            int n = 0;
            const auto before = cpacf_shim::stats();
            ASSERT_EQ(EVP_EncryptUpdate(ctx, out[which].data() + done, &n, pt.data() + u * kUpdate,
                                        static_cast<int>(kUpdate)),
                      1);
            const auto after = cpacf_shim::stats();
            done += n;
            if (which == 0 && u > 0) {
                EXPECT_EQ(delta(before, after, cpacf::Op::km), 1u) << "update " << u;
                EXPECT_EQ(after.traps - before.traps, 1u) << "nothing but the KM";
            }
        }
        int fin = 0;
        ASSERT_EQ(EVP_EncryptFinal_ex(ctx, out[which].data() + done, &fin), 1);
        out[which].resize(static_cast<size_t>(done + fin));
        tag[which].resize(16);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag[which].data()), 1);
        EVP_CIPHER_CTX_free(ctx);
        EVP_CIPHER_free(c);
    }
    EXPECT_EQ(to_hex(out[0]), to_hex(out[1]));
    EXPECT_EQ(to_hex(tag[0]), to_hex(tag[1]));
}

// One AES-128-CCM message of 16 KiB with 14 bytes of AAD (one block with
// its length field): one KMAC for B0 and the AAD block, KM for the tag's
// keystream block, one KMAC and one KMA (or KMCTR without MSA8) for the
// payload; the same ciphertext and tag as the default provider.
TEST(CpacfShimProviderModes, CcmMessageCallCounts) {
    if (!cpacf_selected()) GTEST_SKIP() << "aes-cpacf not selected: " << core_report();
    if (!msa4()) GTEST_SKIP() << "the CPU model lacks MSA4";
    cpacf_shim::ScopedPartial never(0);
    const Bytes key = random_bytes(16), iv = random_bytes(12), aad = random_bytes(14),
                pt = random_bytes(16 * 1024);
    Bytes out[2], tag[2];
    for (int which = 0; which < 2; ++which) {
        EVP_CIPHER* c = which == 0 ? fetch_hwcipher("AES-128-CCM") : fetch_default("AES-128-CCM");
        ASSERT_NE(c, nullptr);
        EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
        ASSERT_EQ(EVP_EncryptInit_ex2(ctx, c, nullptr, nullptr, nullptr), 1);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, 12, nullptr), 1);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, nullptr), 1);
        ASSERT_EQ(EVP_EncryptInit_ex2(ctx, nullptr, key.data(), iv.data(), nullptr), 1);
        int n = 0;
        const auto before = cpacf_shim::stats();
        ASSERT_EQ(EVP_EncryptUpdate(ctx, nullptr, &n, nullptr, static_cast<int>(pt.size())), 1);
        ASSERT_EQ(EVP_EncryptUpdate(ctx, nullptr, &n, aad.data(), static_cast<int>(aad.size())), 1);
        out[which].resize(pt.size());
        ASSERT_EQ(EVP_EncryptUpdate(ctx, out[which].data(), &n, pt.data(),
                                    static_cast<int>(pt.size())),
                  1);
        int fin = 0;
        ASSERT_EQ(EVP_EncryptFinal_ex(ctx, out[which].data() + n, &fin), 1);
        const auto after = cpacf_shim::stats();
        if (which == 0) {
            EXPECT_EQ(delta(before, after, cpacf::Op::kmac), 2u) << "B0 and the AAD, the payload";
            EXPECT_EQ(delta(before, after, cpacf::Op::kma) + delta(before, after, cpacf::Op::kmctr),
                      msa8() ? 1u : 16 * 1024 / B / 128);
            EXPECT_EQ(delta(before, after, cpacf::Op::km), 1u) << "S0";
        }
        tag[which].resize(16);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag[which].data()), 1);
        EVP_CIPHER_CTX_free(ctx);
        EVP_CIPHER_free(c);
    }
    EXPECT_EQ(to_hex(out[0]), to_hex(out[1]));
    EXPECT_EQ(to_hex(tag[0]), to_hex(tag[1]));
}

} // namespace
} // namespace hwc::test
