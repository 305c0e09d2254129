// SPDX-License-Identifier: Apache-2.0
// CCM known answers: Wycheproof AES and SM4 (invalid cases must fail), NIST
// CAVP DVPT/VADT/VNT/VPT/VTT for AES-128/192/256 (DVPT "Fail" records must
// fail), and the SP 800-38C worked examples.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "test/support/json.h"
#include "test/support/vectors.h"
#include "test/test_ccm_util.h"

namespace {

using namespace hwc::test;
using vec::Cipher;

std::string wycheproof(const std::string& f) { return vec::path("wycheproof/testvectors_v1/" + f); }

struct WycheCounts {
    size_t valid = 0, invalid = 0;
};

// Runs every test of a Wycheproof AEAD file through hwcipher's `prefix`-n-CCM.
WycheCounts run_wycheproof(const std::string& file, const std::string& prefix, bool per_keysize) {
    WycheCounts n;
    const json::Value doc = json::load_file(wycheproof(file));
    const json::Value& groups = doc["testGroups"];
    EXPECT_GT(groups.size(), 0u);
    for (size_t g = 0; g < groups.size(); ++g) {
        const json::Value& grp = groups[g];
        const int keybits = static_cast<int>(grp["keySize"].num());
        const std::string name =
            per_keysize ? prefix + "-" + std::to_string(keybits) + "-CCM" : prefix + "-CCM";
        Cipher c(fetch_hwcipher, name);
        EXPECT_TRUE(c) << name;
        if (!c) continue;
        const size_t taglen = static_cast<size_t>(grp["tagSize"].num()) / 8;
        const json::Value& tests = grp["tests"];
        for (size_t t = 0; t < tests.size(); ++t) {
            const json::Value& tc = tests[t];
            SCOPED_TRACE(file + " tcId " + std::to_string(static_cast<int>(tc["tcId"].num())));
            const Bytes key = from_hex(tc["key"].str()), iv = from_hex(tc["iv"].str());
            const Bytes aad = from_hex(tc["aad"].str()), msg = from_hex(tc["msg"].str());
            const Bytes ct = from_hex(tc["ct"].str()), tag = from_hex(tc["tag"].str());
            const std::string result = tc["result"].str();
            Bytes pt;
            const bool dec_ok = ccm::decrypt(c.c, key, iv, aad, ct, tag, pt);
            if (result == "valid") {
                ++n.valid;
                EXPECT_TRUE(dec_ok) << take_errors();
                EXPECT_EQ(to_hex(pt), to_hex(msg));
                Bytes ct2, tag2;
                EXPECT_TRUE(ccm::encrypt(c.c, key, iv, aad, msg, taglen, ct2, tag2)) << take_errors();
                EXPECT_EQ(to_hex(ct2), to_hex(ct));
                EXPECT_EQ(to_hex(tag2), to_hex(tag));
            } else {
                ++n.invalid;
                EXPECT_FALSE(dec_ok);
                // Whatever was decrypted before the tag check is gone.
                EXPECT_TRUE(ccm::untouched_or_wiped(pt, ct.size()));
                take_errors();
            }
        }
    }
    return n;
}

TEST(CcmVectors, WycheproofAes) {
    const WycheCounts n = run_wycheproof("aes_ccm_test.json", "AES", true);
    EXPECT_EQ(n.valid + n.invalid, 552u);
    EXPECT_GT(n.invalid, 0u);
    RecordProperty("valid", static_cast<int>(n.valid));
    RecordProperty("invalid", static_cast<int>(n.invalid));
}

TEST(CcmVectors, WycheproofSm4) {
    const WycheCounts n = run_wycheproof("sm4_ccm_test.json", "SM4", false);
    EXPECT_EQ(n.valid + n.invalid, 184u);
    EXPECT_GT(n.invalid, 0u);
}

// NIST CAVP CCM: every record is a decrypt-verify (DVPT, with Pass/Fail) or
// an encrypt whose CT is ciphertext || tag (VADT, VNT, VPT, VTT).
size_t run_cavp(const std::string& kind, int keybits, size_t& fails) {
    const std::string file = "nist-cavp/aes/ccm/" + kind + std::to_string(keybits) + ".rsp";
    const auto recs = vec::parse_rsp(vec::path(file));
    Cipher c(fetch_hwcipher, "AES-" + std::to_string(keybits) + "-CCM");
    EXPECT_TRUE(c);
    if (!c) return 0;
    size_t n = 0;
    for (const auto& r : recs) {
        SCOPED_TRACE(r.where());
        const size_t alen = std::stoul(r.get("ALEN")), plen = std::stoul(r.get("PLEN"));
        const size_t tlen = std::stoul(r.get("TLEN"));
        const Bytes key = r.hex("KEY"), nonce = r.hex("NONCE");
        EXPECT_EQ(nonce.size(), std::stoul(r.get("NLEN")));
        Bytes aad = r.hex("ADATA");
        aad.resize(alen); // "00" stands for empty
        const Bytes ct_tag = r.hex("CT");
        EXPECT_EQ(ct_tag.size(), plen + tlen);
        const Bytes ct(ct_tag.begin(), ct_tag.begin() + plen), tag(ct_tag.begin() + plen, ct_tag.end());
        ++n;
        Bytes pt;
        const bool ok = ccm::decrypt(c.c, key, nonce, aad, ct, tag, pt);
        if (r.has("RESULT") && r.get("RESULT").rfind("Fail", 0) == 0) {
            ++fails;
            EXPECT_FALSE(ok);
            take_errors();
            continue;
        }
        Bytes payload = r.hex("PAYLOAD");
        payload.resize(plen);
        EXPECT_TRUE(ok) << take_errors();
        EXPECT_EQ(to_hex(pt), to_hex(payload));
        Bytes ct2, tag2;
        EXPECT_TRUE(ccm::encrypt(c.c, key, nonce, aad, payload, tlen, ct2, tag2)) << take_errors();
        EXPECT_EQ(to_hex(ct2) + to_hex(tag2), to_hex(ct_tag));
    }
    return n;
}

TEST(CcmVectors, NistCavp) {
    size_t total = 0, fails = 0;
    for (const char* kind : {"DVPT", "VADT", "VNT", "VPT", "VTT"}) {
        for (int bits : {128, 192, 256}) {
            size_t f = 0;
            const size_t n = run_cavp(kind, bits, f);
            EXPECT_GT(n, 0u) << kind << bits;
            total += n;
            fails += f;
        }
    }
    EXPECT_EQ(total, 2880u);
    EXPECT_EQ(fails, 480u);
}

// A value line: words of 2..8 hex digits separated by single spaces.
bool is_hex_words(const std::string& line) {
    size_t run = 0;
    for (size_t i = 0; i < line.size(); ++i) {
        const char ch = line[i];
        const bool hex = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F');
        if (hex) {
            if (++run > 8) return false;
        } else if (ch == ' ' && run >= 2) {
            run = 0;
        } else {
            return false;
        }
    }
    return run == 0 ? !line.empty() : run >= 2;
}

// SP 800-38C Appendix C examples, as extracted to nist-examples/AES_CCM.txt:
// "K is", "N is", "A is", "P is", "C is" followed by lines of hex words.
TEST(CcmVectors, Sp80038cExamples) {
    std::ifstream f(vec::path("nist-examples/AES_CCM.txt"));
    ASSERT_TRUE(f.good());
    struct Ex { int keybits = 0; size_t tlen = 0; Bytes v[5]; bool have[5] = {}; };
    std::vector<Ex> exs;
    int keybits = 128, field = -1;
    std::string line;
    while (std::getline(f, line)) {
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        if (line.rfind("CCM-AES", 0) == 0) keybits = std::stoi(line.substr(7));
        if (line.rfind("Example #", 0) == 0) {
            exs.push_back({});
            exs.back().keybits = keybits;
            field = -1;
            continue;
        }
        if (exs.empty()) continue;
        Ex& e = exs.back();
        if (line.rfind("Tlen = ", 0) == 0) e.tlen = std::stoul(line.substr(7)) / 8;
        const std::string labels = "KNAPC";
        if (line.size() == 4 && line.substr(1) == " is" && labels.find(line[0]) != std::string::npos) {
            const size_t idx = labels.find(line[0]);
            field = -1;
            if (!e.have[idx]) { // the decrypt section repeats P
                e.have[idx] = true;
                field = static_cast<int>(idx);
            }
            continue;
        }
        // Page-break rulers ("-----", "=====") interrupt values; skip them.
        if (line.empty() || field < 0 || line == "<empty>") continue;
        if (line.find_first_not_of("-=*#") == std::string::npos) continue;
        if (!is_hex_words(line)) { field = -1; continue; }
        std::string hex;
        for (char ch : line) if (ch != ' ') hex += ch;
        const Bytes b = from_hex(hex);
        Bytes& v = e.v[static_cast<size_t>(field)];
        v.insert(v.end(), b.begin(), b.end());
    }
    size_t checked = 0;
    for (const Ex& e : exs) {
        if (!(e.have[0] && e.have[1] && e.have[4])) continue;
        SCOPED_TRACE("AES-" + std::to_string(e.keybits) + " example " + std::to_string(checked));
        Cipher c(fetch_hwcipher, "AES-" + std::to_string(e.keybits) + "-CCM");
        ASSERT_TRUE(c);
        Bytes ct, tag;
        ASSERT_TRUE(ccm::encrypt(c.c, e.v[0], e.v[1], e.v[2], e.v[3], e.tlen, ct, tag)) << take_errors();
        EXPECT_EQ(to_hex(ct) + to_hex(tag), to_hex(e.v[4]));
        ++checked;
    }
    EXPECT_EQ(checked, 15u); // five examples for each key size
}

} // namespace
