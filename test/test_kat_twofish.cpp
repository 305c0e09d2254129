// SPDX-License-Identifier: Apache-2.0
// Twofish known-answer tests through EVP: the AES-submission ECB KATs and the
// ECB/CBC Monte Carlo tests for 128/192/256-bit keys.
#include <gtest/gtest.h>

#include <cstring>

#include <ostream>
#include <string>
#include <vector>

#include "test/support/ossl_env.h"
#include "test/support/vectors.h"

namespace hwc::test {
namespace {

using vec::Record;

std::string twofish_name(const Record& r, const char* mode) {
    return "TWOFISH-" + r.get("KEYSIZE") + "-" + mode;
}

// ---- ECB tables, variable key, variable text: every record both ways ----

struct KatFile {
    const char* file;
    size_t records; // from the vectors README
};
void PrintTo(const KatFile& k, std::ostream* os) { *os << k.file; }
const KatFile kKatFiles[] = {{"ECB_TBL.TXT", 147}, {"ecb_vk.txt", 576}, {"ecb_vt.txt", 384}};

class TwofishKat : public testing::TestWithParam<KatFile> {};

TEST_P(TwofishKat, AllRecords) {
    auto recs = vec::parse_twofish(vec::path(std::string("twofish/") + GetParam().file));
    ASSERT_EQ(recs.size(), GetParam().records);
    size_t per_size[3] = {0, 0, 0};
    for (const Record& r : recs) {
        SCOPED_TRACE(r.where());
        vec::Cipher c(fetch_hwcipher, twofish_name(r, "ECB"));
        ASSERT_TRUE(c) << twofish_name(r, "ECB") << " not offered by hwcipher";
        Bytes key = r.hex("KEY"), pt = r.hex("PT"), ct = r.hex("CT");
        ASSERT_EQ(std::to_string(key.size() * 8), r.get("KEYSIZE"));
        ASSERT_EQ(pt.size(), 16u);
        for (bool enc : {true, false}) {
            bool ok = false;
            std::string err;
            Bytes got = vec::crypt(c.c, key, {}, enc ? pt : ct, enc, ok, err);
            ASSERT_TRUE(ok) << err;
            EXPECT_EQ(to_hex(got), to_hex(enc ? ct : pt)) << (enc ? "encrypt" : "decrypt");
        }
        ++per_size[(key.size() - 16) / 8];
    }
    // All three key sizes must be present, not just the first section.
    for (size_t n : per_size) EXPECT_GT(n, 0u);
}

INSTANTIATE_TEST_SUITE_P(Files, TwofishKat, testing::ValuesIn(kKatFiles),
                         [](const testing::TestParamInfo<KatFile>& i) {
                             std::string n = i.param.file;
                             return n.substr(0, n.find('.'));
                         });

// ---- Monte Carlo: 400 outer iterations of 10,000 block operations ----

enum class Mct { ecb_enc, ecb_dec, cbc_enc, cbc_dec };

struct MctCase {
    const char* file;
    Mct kind;
    int keybits;
};
void PrintTo(const MctCase& m, std::ostream* os) { *os << m.file << " " << m.keybits << "-bit"; }

struct MctOut {
    Bytes out, next_key, next_iv, next_in;
    std::string err;
};

// One outer iteration, following the rules quoted in the vectors README:
// ECB and CBC decrypt feed each output back as the next input; CBC encrypt
// feeds the IV after the first operation and the output before last after
// that (the context's own chaining supplies the rest). The key is then
// XORed with the last key-length bytes of (second-to-last || last output).
MctOut mct_outer(const EVP_CIPHER* c, Mct kind, const Bytes& key, const Bytes& iv,
                 const Bytes& in0) {
    MctOut r;
    const bool enc = kind == Mct::ecb_enc || kind == Mct::cbc_enc;
    vec::Stream s;
    if (!s.init(c, key, iv, enc)) { r.err = s.error(); return r; }
    // Fixed arrays and a rotating index keep the test's own share of this
    // 48-million-operation loop small (the core should dominate).
    uint8_t in[16], last_in[16], ring[2][16] = {};
    std::memcpy(in, in0.data(), 16);
    for (int j = 0; j < 10000; ++j) {
        uint8_t* out = ring[j & 1];
        if (!s.update(in, out, 16)) { r.err = s.error(); return r; }
        std::memcpy(last_in, in, 16);
        const uint8_t* next = kind != Mct::cbc_enc ? out : (j == 0 ? iv.data() : ring[(j + 1) & 1]);
        std::memcpy(in, next, 16);
    }
    // Operation 9998 wrote ring[0], operation 9999 ring[1].
    Bytes prev(ring[0], ring[0] + 16), cur(ring[1], ring[1] + 16);
    r.out = cur;
    Bytes both = prev;
    both.insert(both.end(), cur.begin(), cur.end());
    r.next_key = key;
    for (size_t i = 0; i < key.size(); ++i) r.next_key[i] ^= both[both.size() - key.size() + i];
    r.next_in = kind == Mct::cbc_enc ? prev : cur;
    // CBC encrypt: IV = last CT. CBC decrypt: IV = the last CT decrypted.
    r.next_iv = kind == Mct::cbc_dec ? Bytes(last_in, last_in + 16) : cur;
    return r;
}

// Natively every record runs: 48 million block operations, about 11 s of
// CPU (over half of it in the portable Twofish core, the rest EVP calls). Under QEMU
// and the sanitizers that would take minutes, so when sampled (vec::sampled())
// only the first kEmulatedPrefix outer iterations (500,000 operations) of
// each file and key size run.
constexpr size_t kEmulatedPrefix = 50;

class TwofishMct : public testing::TestWithParam<MctCase> {};

TEST_P(TwofishMct, Records) {
    const MctCase& mc = GetParam();
    const bool ecb = mc.kind == Mct::ecb_enc || mc.kind == Mct::ecb_dec;
    const bool enc = mc.kind == Mct::ecb_enc || mc.kind == Mct::cbc_enc;
    const char* in_name = enc ? "PT" : "CT";
    const char* out_name = enc ? "CT" : "PT";

    auto all = vec::parse_twofish(vec::path(std::string("twofish/") + mc.file));
    ASSERT_EQ(all.size(), 1200u) << mc.file;
    std::vector<Record> recs;
    for (const Record& r : all)
        if (r.get("KEYSIZE") == std::to_string(mc.keybits)) recs.push_back(r);
    ASSERT_EQ(recs.size(), 400u);

    vec::Cipher c(fetch_hwcipher, "TWOFISH-" + std::to_string(mc.keybits) + (ecb ? "-ECB" : "-CBC"));
    ASSERT_TRUE(c);
    const size_t limit = vec::sampled() ? kEmulatedPrefix : recs.size();
    size_t ran = 0;
    for (size_t i = 0; i < limit; ++i) {
        const Record& r = recs[i];
        SCOPED_TRACE(r.where());
        ASSERT_EQ(r.get("I"), std::to_string(i));
        Bytes key = r.hex("KEY");
        ASSERT_EQ(key.size() * 8, static_cast<size_t>(mc.keybits));
        Bytes iv = ecb ? Bytes(16, 0) : r.hex("IV");
        // Each record starts from its own inputs; the next record's inputs
        // check the chaining rule.
        MctOut m = mct_outer(c.c, mc.kind, key, iv, r.hex(in_name));
        ASSERT_TRUE(m.err.empty()) << m.err;
        EXPECT_EQ(to_hex(m.out), to_hex(r.hex(out_name))) << out_name;
        if (i + 1 < recs.size()) {
            const Record& n = recs[i + 1];
            EXPECT_EQ(to_hex(m.next_key), to_hex(n.hex("KEY"))) << "next KEY";
            EXPECT_EQ(to_hex(m.next_in), to_hex(n.hex(in_name))) << "next " << in_name;
            if (!ecb) {
                EXPECT_EQ(to_hex(m.next_iv), to_hex(n.hex("IV"))) << "next IV";
            }
        }
        ++ran;
    }
    EXPECT_EQ(ran, limit);
    EXPECT_GT(ran, 0u);
}

std::vector<MctCase> mct_cases() {
    std::vector<MctCase> out;
    const std::pair<const char*, Mct> files[] = {{"ECB_E_M.TXT", Mct::ecb_enc},
                                                 {"ECB_D_M.TXT", Mct::ecb_dec},
                                                 {"CBC_E_M.TXT", Mct::cbc_enc},
                                                 {"CBC_D_M.TXT", Mct::cbc_dec}};
    for (auto& f : files)
        for (int bits : {128, 192, 256}) out.push_back({f.first, f.second, bits});
    return out;
}

INSTANTIATE_TEST_SUITE_P(Files, TwofishMct, testing::ValuesIn(mct_cases()),
                         [](const testing::TestParamInfo<MctCase>& i) {
                             std::string n = i.param.file;
                             return n.substr(0, n.find('.')) + "_" + std::to_string(i.param.keybits);
                         });

} // namespace
} // namespace hwc::test
