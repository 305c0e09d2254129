// SPDX-License-Identifier: Apache-2.0
// SM4 known-answer tests: GB/T 32907-2016 examples (through EVP and through
// every compiled core) and the draft-ribose-cfrg-sm4-10 mode vectors.
#include <gtest/gtest.h>

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "cores/cpu.h"
#include "cores/modes.h"
#include "cores/registry.h"
#include "test/support/ossl_env.h"
#include "test/support/vectors.h"

namespace hwc::test {
namespace {

using vec::Record;

struct Provider {
    const char* name;
    vec::Fetcher fetch;
};
const Provider kProviders[] = {{"hwcipher", fetch_hwcipher}, {"default", fetch_default}};
void PrintTo(const Provider& p, std::ostream* os) { *os << p.name; }

std::string provider_name(const testing::TestParamInfo<Provider>& i) { return i.param.name; }

// Fetches SM4-<mode>; the default provider may be built without SM4, which
// only skips the parser cross-check, never the hwcipher run.
bool fetch_or_skip(const Provider& p, const std::string& name, vec::Cipher& out) {
    out.c = p.fetch(name);
    if (out.c == nullptr && p.fetch == fetch_default) return false;
    EXPECT_NE(out.c, nullptr) << name << " not offered by " << p.name;
    return out.c != nullptr;
}

std::vector<Record> gbt_examples() {
    auto recs = vec::parse_blocks(vec::path("sm4/gbt32907-2016-examples.txt"));
    EXPECT_EQ(recs.size(), 2u);
    return recs;
}

class Sm4Gbt : public testing::TestWithParam<Provider> {};

// Example 1: one block, both directions.
TEST_P(Sm4Gbt, SingleBlock) {
    vec::Cipher c;
    if (!fetch_or_skip(GetParam(), "SM4-ECB", c)) GTEST_SKIP() << "no SM4 in default provider";
    size_t ran = 0;
    for (const Record& r : gbt_examples()) {
        if (r.get("ITERATIONS") != "1") continue;
        SCOPED_TRACE(r.where());
        for (bool enc : {true, false}) {
            bool ok = false;
            std::string err;
            Bytes got = vec::crypt(c.c, r.hex("KEY"), {}, r.hex(enc ? "PLAINTEXT" : "CIPHERTEXT"),
                                   enc, ok, err);
            ASSERT_TRUE(ok) << err;
            EXPECT_EQ(to_hex(got), to_hex(r.hex(enc ? "CIPHERTEXT" : "PLAINTEXT")));
        }
        ++ran;
    }
    EXPECT_EQ(ran, 1u);
}

// Runs `n` chained single-block operations on one context, in place.
Bytes chain(const EVP_CIPHER* c, const Bytes& key, Bytes block, long n, bool enc) {
    vec::Stream s;
    EXPECT_TRUE(s.init(c, key, {}, enc)) << s.error();
    for (long i = 0; i < n; ++i) {
        if (!s.update(block.data(), block.data(), 16)) {
            ADD_FAILURE() << s.error() << " at iteration " << i;
            break;
        }
    }
    return block;
}

// Example 2: 1,000,000 chained encryptions on one EVP context with one
// 16-byte update per iteration. The chain is serial, so each call costs a
// whole batch of the bitsliced portable core: about 5 s of CPU natively on
// hwcipher (0.3 s on the default provider). Decryption is covered by
// Example 1 and the draft vectors, so only encryption runs the full chain.
// When sampled (QEMU, the sanitizer run: vec::sampled()) hwcipher runs
// 50,000 iterations and is compared with the default provider instead, when
// that has SM4.
TEST_P(Sm4Gbt, MillionIterations) {
    vec::Cipher c;
    if (!fetch_or_skip(GetParam(), "SM4-ECB", c)) GTEST_SKIP() << "no SM4 in default provider";
    auto recs = gbt_examples();
    ASSERT_EQ(recs.size(), 2u);
    const Record& r = recs[1];
    SCOPED_TRACE(r.where());
    ASSERT_EQ(r.get("ITERATIONS"), "1000000");
    const Bytes key = r.hex("KEY"), pt = r.hex("PLAINTEXT");
    auto t0 = std::chrono::steady_clock::now();
    if (vec::sampled() && GetParam().fetch == fetch_hwcipher) {
        vec::Cipher ref(fetch_default, "SM4-ECB");
        if (!ref) GTEST_SKIP() << "sampled run and no SM4 in the default provider";
        const long n = 50000;
        EXPECT_EQ(to_hex(chain(c.c, key, pt, n, true)), to_hex(chain(ref.c, key, pt, n, true)));
    } else {
        EXPECT_EQ(to_hex(chain(c.c, key, pt, 1000000, true)), to_hex(r.hex("CIPHERTEXT")));
    }
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - t0).count();
    RecordProperty("elapsed_ms", static_cast<int>(ms));
}

INSTANTIATE_TEST_SUITE_P(Providers, Sm4Gbt, testing::ValuesIn(kProviders), provider_name);

bool usable(const BlockCore& c) { return (c.needs & detect_cpu_features()) == c.needs; }

// Example 1 straight on every compiled SM4 core, both directions, and the
// million-iteration example on each usable core: natively on those other
// than the one hwcipher selected (MillionIterations covers that one through
// EVP), under QEMU on all of them (MillionIterations runs a shorter chain
// there, as EVP's per-call cost would dominate), so the full example runs on
// every architecture. The sanitizer run (sampled, not emulated) leaves it to
// the native runs: a million calls of one path, at ASan's cost (a minute).
TEST(Sm4GbtCores, EveryCore) {
    auto recs = gbt_examples();
    ASSERT_EQ(recs.size(), 2u);
    const std::string report = core_report();
    auto cores = cores_for(Family::sm4);
    ASSERT_FALSE(cores.empty());
    for (const BlockCore* core : cores) {
        if (!usable(*core)) continue;
        SCOPED_TRACE(core->name);
        for (const Record& r : recs) {
            const long n = std::stol(r.get("ITERATIONS"));
            const bool selected = report.find(std::string("sm4=") + core->name) != std::string::npos;
            if (n > 1 && !vec::emulated() && (selected || vec::sampled())) continue;
            KeySchedule ks;
            Bytes key = r.hex("KEY");
            ASSERT_TRUE(core->set_key(ks, key.data(), key.size()));
            Bytes block = r.hex("PLAINTEXT");
            for (long i = 0; i < n; ++i) ecb_encrypt(*core, ks, block.data(), block.data(), 1);
            EXPECT_EQ(to_hex(block), to_hex(r.hex("CIPHERTEXT"))) << "encrypt x" << n;
            if (n == 1) {
                ecb_decrypt(*core, ks, block.data(), block.data(), 1);
                EXPECT_EQ(to_hex(block), to_hex(r.hex("PLAINTEXT"))) << "decrypt";
            }
        }
    }
}

// ---- draft-ribose-cfrg-sm4-10 (pyca "NIST loader" files) ----

struct ModeFile {
    const char* mode; // EVP mode suffix and file name part
    size_t records;   // from the vectors README
};
const ModeFile kModeFiles[] = {{"ECB", 4}, {"CBC", 2}, {"CFB", 2}, {"OFB", 2}, {"CTR", 2}};

struct DraftCase {
    ModeFile file;
    Provider prov;
};
void PrintTo(const DraftCase& d, std::ostream* os) { *os << "SM4-" << d.file.mode << " via " << d.prov.name; }

class Sm4Draft : public testing::TestWithParam<DraftCase> {};

TEST_P(Sm4Draft, AllRecords) {
    const DraftCase& dc = GetParam();
    std::string lower = dc.file.mode;
    for (auto& ch : lower) ch = static_cast<char>(ch - 'A' + 'a');
    auto recs = vec::parse_rsp(
        vec::path("pyca-cryptography/ciphers/SM4/draft-ribose-cfrg-sm4-10-" + lower + ".txt"));
    ASSERT_EQ(recs.size(), dc.file.records);
    vec::Cipher c;
    if (!fetch_or_skip(dc.prov, std::string("SM4-") + dc.file.mode, c))
        GTEST_SKIP() << "no SM4 in default provider";
    const bool ecb = std::string(dc.file.mode) == "ECB";
    for (const Record& r : recs) {
        SCOPED_TRACE(r.where());
        EXPECT_EQ(r.section, "ENCRYPT");
        Bytes key = r.hex("KEY"), iv = ecb ? Bytes{} : r.hex("IV");
        Bytes pt = r.hex("PLAINTEXT"), ct = r.hex("CIPHERTEXT");
        ASSERT_EQ(pt.size(), ct.size());
        for (bool enc : {true, false}) {
            bool ok = false;
            std::string err;
            Bytes got = vec::crypt(c.c, key, iv, enc ? pt : ct, enc, ok, err);
            ASSERT_TRUE(ok) << err;
            EXPECT_EQ(to_hex(got), to_hex(enc ? ct : pt)) << (enc ? "encrypt" : "decrypt");
        }
    }
}

std::vector<DraftCase> draft_cases() {
    std::vector<DraftCase> out;
    for (const Provider& p : kProviders)
        for (const ModeFile& f : kModeFiles) out.push_back({f, p});
    return out;
}

INSTANTIATE_TEST_SUITE_P(Files, Sm4Draft, testing::ValuesIn(draft_cases()),
                         [](const testing::TestParamInfo<DraftCase>& i) {
                             return std::string(i.param.file.mode) + "_" + i.param.prov.name;
                         });

} // namespace
} // namespace hwc::test
