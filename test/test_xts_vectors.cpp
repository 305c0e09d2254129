// SPDX-License-Identifier: Apache-2.0
// XTS known answers: NIST CAVP XTSGenAES (both tweak formats), Wycheproof
// aes_xts_test.json, and the GB/T 17964-2021 SM4-XTS example in both tweak
// conventions.
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstdlib>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "test/support/json.h"
#include "test/support/ossl_env.h"
#include "test/support/vectors.h"

namespace hwc::test {
namespace {

using CtxPtr = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

// One data unit through EVP; `standard` sets SM4-XTS "xts_standard".
bool xts_crypt(const EVP_CIPHER* c, const Bytes& key, const Bytes& iv, const Bytes& in,
               Bytes& out, bool enc, const char* standard = nullptr) {
    CtxPtr ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    OSSL_PARAM params[2] = {OSSL_PARAM_END, OSSL_PARAM_END};
    if (standard != nullptr)
        params[0] = OSSL_PARAM_construct_utf8_string("xts_standard",
                                                     const_cast<char*>(standard), 0);
    out.assign(in.size() + 16, 0);
    int l1 = 0, l2 = 0;
    if (EVP_CipherInit_ex2(ctx.get(), c, key.data(), iv.data(), enc, params) != 1 ||
        EVP_CipherUpdate(ctx.get(), out.data(), &l1, in.data(), static_cast<int>(in.size())) != 1 ||
        EVP_CipherFinal_ex(ctx.get(), out.data() + l1, &l2) != 1)
        return false;
    out.resize(static_cast<size_t>(l1 + l2));
    return true;
}

// ---- NIST CAVP XTSGenAES ---------------------------------------------------

struct CavpFile {
    const char* rel;
    const char* cipher;
    size_t byte_records; // whole-byte data units
    size_t bit_records;  // 130/140/250-bit data units, not expressible through EVP
};

[[maybe_unused]] void PrintTo(const CavpFile& f, std::ostream* os) { *os << f.rel; }

const CavpFile kCavp[] = {
    {"nist-cavp/aes/xts/tweak-128hexstr/XTSGenAES128.rsp", "AES-128-XTS", 800, 200},
    {"nist-cavp/aes/xts/tweak-128hexstr/XTSGenAES256.rsp", "AES-256-XTS", 600, 400},
    {"nist-cavp/aes/xts/tweak-dataunitseqno/XTSGenAES128.rsp", "AES-128-XTS", 800, 200},
    {"nist-cavp/aes/xts/tweak-dataunitseqno/XTSGenAES256.rsp", "AES-256-XTS", 600, 400},
};

class XtsCavp : public testing::TestWithParam<CavpFile> {};

TEST_P(XtsCavp, AllByteRecords) {
    const CavpFile& f = GetParam();
    vec::Cipher c(fetch_hwcipher, f.cipher);
    ASSERT_TRUE(c) << take_errors();
    const auto recs = vec::parse_rsp(vec::path(f.rel));
    ASSERT_GT(recs.size(), 0u) << f.rel;
    size_t ran = 0, skipped_bits = 0;
    for (const vec::Record& r : recs) {
        SCOPED_TRACE(r.where());
        const unsigned long bits = std::strtoul(r.get("DATAUNITLEN").c_str(), nullptr, 10);
        // The API is byte-oriented: data units of 130, 140 and 250 bits
        // cannot be expressed through EVP (1,200 records across the files).
        if (bits % 8 != 0) {
            ++skipped_bits;
            continue;
        }
        Bytes iv;
        if (r.has("I")) {
            iv = r.hex("I");
        } else {
            // Data unit sequence number: a 16-byte little-endian integer.
            unsigned long long n = std::strtoull(r.get("DATAUNITSEQNUMBER").c_str(), nullptr, 10);
            iv.assign(16, 0);
            for (size_t i = 0; i < 8; ++i, n >>= 8) iv[i] = static_cast<uint8_t>(n);
        }
        const Bytes key = r.hex("KEY"), pt = r.hex("PT"), ct = r.hex("CT");
        ASSERT_EQ(pt.size() * 8, bits);
        ASSERT_EQ(iv.size(), 16u);
        const bool enc = r.section == "ENCRYPT";
        ASSERT_TRUE(enc || r.section == "DECRYPT");
        Bytes out;
        ASSERT_TRUE(xts_crypt(c.c, key, iv, enc ? pt : ct, out, enc)) << take_errors();
        EXPECT_EQ(to_hex(out), to_hex(enc ? ct : pt));
        // The other direction is a known answer too.
        ASSERT_TRUE(xts_crypt(c.c, key, iv, enc ? ct : pt, out, !enc)) << take_errors();
        EXPECT_EQ(to_hex(out), to_hex(enc ? pt : ct));
        ++ran;
    }
    EXPECT_EQ(ran + skipped_bits, recs.size());
    EXPECT_EQ(ran, f.byte_records);
    EXPECT_EQ(skipped_bits, f.bit_records);
    RecordProperty("records", static_cast<int>(ran));
    RecordProperty("skipped_non_byte", static_cast<int>(skipped_bits));
}

INSTANTIATE_TEST_SUITE_P(Nist, XtsCavp, testing::ValuesIn(kCavp),
                         [](const testing::TestParamInfo<CavpFile>& i) {
                             const std::string s = i.param.rel;
                             const bool hex = s.find("hexstr") != std::string::npos;
                             const bool k256 = s.find("256.rsp") != std::string::npos;
                             return std::string(hex ? "Hex" : "SeqNo") + (k256 ? "256" : "128");
                         });

// ---- Wycheproof aes_xts_test.json -------------------------------------------

TEST(XtsWycheproof, AesXts) {
    const json::Value doc =
        json::load_file(vec::path("wycheproof/testvectors_v1/aes_xts_test.json"));
    vec::Cipher c128(fetch_hwcipher, "AES-128-XTS"), c256(fetch_hwcipher, "AES-256-XTS");
    ASSERT_TRUE(c128 && c256) << take_errors();
    // IEEE 1619 defines no AES-192-XTS, and neither OpenSSL nor hwcipher offers it.
    vec::Cipher c192(fetch_hwcipher, "AES-192-XTS");
    EXPECT_FALSE(c192) << "AES-192-XTS must not exist";
    take_errors();

    size_t ran = 0, skipped_192 = 0;
    const json::Value& groups = doc["testGroups"];
    for (size_t g = 0; g < groups.size(); ++g) {
        const json::Value& grp = groups[g];
        const int key_bits = static_cast<int>(grp["keySize"].num());
        const json::Value& tests = grp["tests"];
        if (key_bits == 384) {
            skipped_192 += tests.size();
            continue;
        }
        const EVP_CIPHER* c = key_bits == 256 ? c128.c : c256.c;
        ASSERT_TRUE(key_bits == 256 || key_bits == 512) << key_bits;
        for (size_t t = 0; t < tests.size(); ++t) {
            const json::Value& tc = tests[t];
            SCOPED_TRACE("tcId " + std::to_string(static_cast<int>(tc["tcId"].num())));
            ASSERT_EQ(tc["result"].str(), "valid"); // the file has no other kind
            // Shorter tweaks are a little-endian sector number: zero-pad on the right.
            Bytes iv = from_hex(tc["iv"].str());
            ASSERT_LE(iv.size(), 16u);
            iv.resize(16, 0);
            const Bytes key = from_hex(tc["key"].str()), msg = from_hex(tc["msg"].str()),
                        ct = from_hex(tc["ct"].str());
            Bytes out;
            ASSERT_TRUE(xts_crypt(c, key, iv, msg, out, true)) << take_errors();
            EXPECT_EQ(to_hex(out), to_hex(ct));
            ASSERT_TRUE(xts_crypt(c, key, iv, ct, out, false)) << take_errors();
            EXPECT_EQ(to_hex(out), to_hex(msg));
            ++ran;
        }
    }
    EXPECT_EQ(ran, 82u);         // 41 tests each for 256- and 512-bit keys
    EXPECT_EQ(skipped_192, 41u); // the AES-192-XTS groups, not defined
    RecordProperty("records", static_cast<int>(ran));
}

// ---- SM4-XTS: the GB/T 17964-2021 example -------------------------------------
// Key, tweak and plaintext of the standard's example; the GB ciphertext is the
// standard's, the IEEE one is OpenSSL's evpciph_sm4.txt result for the same
// inputs (the first block agrees: the conventions differ only from alpha on).

const char* const kSm4Key = "2B7E151628AED2A6ABF7158809CF4F3C000102030405060708090A0B0C0D0E0F";
const char* const kSm4Iv = "F0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF";
const char* const kSm4Pt =
    "6BC1BEE22E409F96E93D7E117393172AAE2D8A571E03AC9C9EB76FAC45AF8E51"
    "30C81C46A35CE411E5FBC1191A0A52EFF69F2445DF4F9B17";
const char* const kSm4CtGb =
    "e9538251c71d7b80bbe4483fef497bd12c5c581bd6242fc51e08964fb4f60fdb"
    "0ba42f63499279213d318d2c11f6886e903be7f93a1b3479";
const char* const kSm4CtIeee =
    "e9538251c71d7b80bbe4483fef497bd1b3db1a3e60408c575d63ff7db39f8326"
    "0869f9e2585fec9f0b863bf8fd784b8627d16c0db6d2cfc7";

TEST(XtsSm4, GbAndIeeeExamples) {
    vec::Cipher c(fetch_hwcipher, "SM4-XTS");
    ASSERT_TRUE(c) << take_errors();
    const Bytes key = from_hex(kSm4Key), iv = from_hex(kSm4Iv), pt = from_hex(kSm4Pt);
    struct { const char* standard; const char* ct; } cases[] = {
        {nullptr, kSm4CtGb}, // OpenSSL's SM4-XTS defaults to GB
        {"GB", kSm4CtGb},
        {"gb", kSm4CtGb},    // case-insensitive, as OpenSSL
        {"IEEE", kSm4CtIeee},
    };
    for (const auto& cs : cases) {
        SCOPED_TRACE(cs.standard ? cs.standard : "(default)");
        Bytes out;
        ASSERT_TRUE(xts_crypt(c.c, key, iv, pt, out, true, cs.standard)) << take_errors();
        EXPECT_EQ(to_hex(out), cs.ct);
        ASSERT_TRUE(xts_crypt(c.c, key, iv, from_hex(cs.ct), out, false, cs.standard))
            << take_errors();
        EXPECT_EQ(to_hex(out), to_hex(pt));
    }
    Bytes out;
    EXPECT_FALSE(xts_crypt(c.c, key, iv, pt, out, true, "XTS"));
    EXPECT_FALSE(take_errors().empty());
}

TEST(XtsSm4, GbRejectedOutsideSm4) {
    for (const char* name : {"AES-128-XTS", "TWOFISH-256-XTS"}) {
        SCOPED_TRACE(name);
        vec::Cipher c(fetch_hwcipher, name);
        ASSERT_TRUE(c) << take_errors();
        const Bytes key = random_bytes(static_cast<size_t>(EVP_CIPHER_get_key_length(c.c)));
        const Bytes iv = random_bytes(16), pt = random_bytes(40);
        Bytes out, ieee, plain;
        EXPECT_FALSE(xts_crypt(c.c, key, iv, pt, out, true, "GB"));
        EXPECT_NE(take_errors().find("invalid parameter value"), std::string::npos);
        ASSERT_TRUE(xts_crypt(c.c, key, iv, pt, ieee, true, "IEEE")) << take_errors();
        ASSERT_TRUE(xts_crypt(c.c, key, iv, pt, plain, true)) << take_errors();
        EXPECT_EQ(ieee, plain);
    }
}

} // namespace
} // namespace hwc::test
