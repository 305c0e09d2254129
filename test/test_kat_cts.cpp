// SPDX-License-Identifier: Apache-2.0
// CBC ciphertext stealing known answers: RFC 3962 (CS3) and the CS1/CS2
// outputs derived from it, through EVP, both directions.
#include <gtest/gtest.h>

#include <openssl/core_names.h>
#include <openssl/params.h>

#include <ostream>
#include <string>
#include <vector>

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

// RFC 3962 lists CS3 only. With m blocks and d = bytes in the last one
// (1..16), CS3 is  C1..C(m-2) || Cm || C(m-1)[0..d)  and CS1 keeps CBC order,
// C1..C(m-2) || C(m-1)[0..d) || Cm. CS2 is CS1 (= plain CBC) when d == 16
// and CS3 otherwise (vectors README).
Bytes cs1_from_cs3(const Bytes& cs3) {
    const size_t d = cs3.size() % 16 == 0 ? 16 : cs3.size() % 16;
    const size_t prefix = cs3.size() - 16 - d;
    Bytes out(cs3.begin(), cs3.begin() + static_cast<long>(prefix));
    out.insert(out.end(), cs3.end() - static_cast<long>(d), cs3.end()); // C(m-1) truncated
    out.insert(out.end(), cs3.begin() + static_cast<long>(prefix),
               cs3.begin() + static_cast<long>(prefix + 16)); // Cm
    return out;
}

Bytes expected_for(const char* mode, const Bytes& cs3) {
    const std::string m = mode == nullptr ? "CS1" : mode; // CS1 is the default
    if (m == "CS3") return cs3;
    if (m == "CS2" && cs3.size() % 16 != 0) return cs3;
    return cs1_from_cs3(cs3);
}

struct CtsCase {
    const char* mode; // nullptr: leave cts_mode at its default (CS1)
    Provider prov;
};
void PrintTo(const CtsCase& c, std::ostream* os) {
    *os << (c.mode ? c.mode : "default cts_mode") << " via " << c.prov.name;
}

class CtsRfc3962 : public testing::TestWithParam<CtsCase> {};

TEST_P(CtsRfc3962, AllRecords) {
    const CtsCase& cc = GetParam();
    auto recs = vec::parse_blocks(vec::path("rfc3962/aes-128-cbc-cs3.txt"));
    ASSERT_EQ(recs.size(), 6u);
    vec::Cipher c(cc.prov.fetch, "AES-128-CBC-CTS");
    ASSERT_TRUE(c) << "AES-128-CBC-CTS not offered by " << cc.prov.name;
    for (const Record& r : recs) {
        SCOPED_TRACE(r.where());
        Bytes key = r.hex("KEY"), iv = r.hex("IV"), pt = r.hex("PLAINTEXT");
        Bytes cs3 = r.hex("CIPHERTEXT");
        ASSERT_EQ(pt.size(), std::stoul(r.get("LENGTH")));
        ASSERT_EQ(cs3.size(), pt.size());
        Bytes ct = expected_for(cc.mode, cs3);
        for (bool enc : {true, false}) {
            bool ok = false;
            std::string err;
            Bytes got = vec::crypt(c.c, key, iv, enc ? pt : ct, enc, ok, err, 0, cc.mode);
            ASSERT_TRUE(ok) << (enc ? "encrypt: " : "decrypt: ") << err;
            EXPECT_EQ(to_hex(got), to_hex(enc ? ct : pt)) << (enc ? "encrypt" : "decrypt");
        }
    }
}

// The derivation itself, on one record whose blocks are easy to read: for a
// whole number of blocks CS1 must be the plain CBC ciphertext. Checked
// against the default provider's AES-128-CBC so a wrong derivation cannot
// make hwcipher and the test agree by accident.
TEST(CtsDerivation, Cs1IsCbcForWholeBlocks) {
    auto recs = vec::parse_blocks(vec::path("rfc3962/aes-128-cbc-cs3.txt"));
    ASSERT_EQ(recs.size(), 6u);
    vec::Cipher cbc(fetch_default, "AES-128-CBC");
    ASSERT_TRUE(cbc);
    size_t whole = 0;
    for (const Record& r : recs) {
        Bytes pt = r.hex("PLAINTEXT");
        if (pt.size() % 16 != 0) continue;
        SCOPED_TRACE(r.where());
        bool ok = false;
        std::string err;
        Bytes want = vec::crypt(cbc.c, r.hex("KEY"), r.hex("IV"), pt, true, ok, err);
        ASSERT_TRUE(ok) << err;
        EXPECT_EQ(to_hex(cs1_from_cs3(r.hex("CIPHERTEXT"))), to_hex(want));
        ++whole;
    }
    EXPECT_EQ(whole, 3u);
}

std::vector<CtsCase> cts_cases() {
    std::vector<CtsCase> out;
    for (const Provider& p : kProviders)
        for (const char* m : {"CS1", "CS2", "CS3", static_cast<const char*>(nullptr)})
            out.push_back({m, p});
    return out;
}

INSTANTIATE_TEST_SUITE_P(Modes, CtsRfc3962, testing::ValuesIn(cts_cases()),
                         [](const testing::TestParamInfo<CtsCase>& i) {
                             return std::string(i.param.mode ? i.param.mode : "Default") + "_" +
                                    i.param.prov.name;
                         });

} // namespace
} // namespace hwc::test
