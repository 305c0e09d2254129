// SPDX-License-Identifier: Apache-2.0
// AES known-answer tests through EVP: NIST CAVP KAT/MMT/MCT and CTR examples.
//
// Every file runs against hwcipher (the assertions that matter) and against
// OpenSSL's default provider, which checks the parser and the Monte-Carlo
// rules independently of our cipher code.
#include <gtest/gtest.h>

#include <algorithm>
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
void PrintTo(const Provider& p, std::ostream* os) { *os << p.name; }

// CAVP file name prefixes; CFB128 must be tried before CFB1.
const char* const kModes[] = {"ECB", "CBC", "CFB128", "CFB1", "CFB8", "OFB"};
const char* const kKatKinds[] = {"GFSbox", "KeySbox", "VarKey", "VarTxt"};
const int kKeyBits[] = {128, 192, 256};

struct FileCase {
    std::string rel;  // path below vectors_dir()
    std::string mode; // "ECB", ..., "CFB128"
    int bits;
    Provider prov;
};
void PrintTo(const FileCase& f, std::ostream* os) { *os << f.rel << " via " << f.prov.name; }

std::string evp_name(const std::string& mode, int bits) {
    std::string m = mode == "CFB128" ? "CFB" : mode;
    return "AES-" + std::to_string(bits) + "-" + m;
}

std::string case_name(const testing::TestParamInfo<FileCase>& info) {
    std::string base = info.param.rel.substr(info.param.rel.rfind('/') + 1);
    base = base.substr(0, base.find('.'));
    return base + "_" + info.param.prov.name;
}

// The file lists are spelled out, not globbed, so that a missing file fails
// (parse error + zero records) instead of silently shrinking the suite.
std::vector<FileCase> files(const std::string& dir, bool kat, const char* suffix) {
    std::vector<FileCase> out;
    for (const Provider& p : kProviders)
        for (const char* m : kModes)
            for (int bits : kKeyBits) {
                if (kat) {
                    for (const char* k : kKatKinds)
                        out.push_back({dir + m + k + std::to_string(bits) + ".rsp", m, bits, p});
                } else {
                    out.push_back({dir + m + suffix + std::to_string(bits) + ".rsp", m, bits, p});
                }
            }
    return out;
}

// Decodes a data field: CFB1 files write bits as '0'/'1' characters.
Bytes data_field(const Record& r, const std::string& name, bool cfb1, size_t& nbits) {
    if (cfb1) return vec::bits_to_bytes(r.get(name), nbits);
    Bytes b = r.hex(name);
    nbits = 0;
    return b;
}

// ---- KAT and MMT: one-shot encryption and decryption of every record ----

class AesKat : public testing::TestWithParam<FileCase> {};

TEST_P(AesKat, AllRecords) {
    const FileCase& fc = GetParam();
    vec::Cipher cipher(fc.prov.fetch, evp_name(fc.mode, fc.bits));
    ASSERT_TRUE(cipher) << evp_name(fc.mode, fc.bits) << " not offered by " << fc.prov.name;
    auto recs = vec::parse_rsp(vec::path(fc.rel));
    ASSERT_GT(recs.size(), 0u) << fc.rel;
    // Every CAVP block-mode file has both directions with the same count.
    ASSERT_GT(vec::count_section(recs, "ENCRYPT"), 0u);
    ASSERT_EQ(vec::count_section(recs, "ENCRYPT"), vec::count_section(recs, "DECRYPT"));

    const bool cfb1 = fc.mode == "CFB1";
    size_t ran = 0;
    for (const Record& r : recs) {
        SCOPED_TRACE(r.where());
        ASSERT_TRUE(r.section == "ENCRYPT" || r.section == "DECRYPT");
        const bool enc = r.section == "ENCRYPT";
        Bytes key = r.hex("KEY");
        Bytes iv = fc.mode == "ECB" ? Bytes{} : r.hex("IV");
        size_t ptbits = 0, ctbits = 0;
        Bytes pt = data_field(r, "PLAINTEXT", cfb1, ptbits);
        Bytes ct = data_field(r, "CIPHERTEXT", cfb1, ctbits);
        ASSERT_EQ(ptbits, ctbits);
        ASSERT_EQ(pt.size(), ct.size());
        ASSERT_EQ(key.size() * 8, static_cast<size_t>(fc.bits));

        // The record's own direction first, then the inverse, which is a
        // valid known answer as well.
        for (bool forward : {enc, !enc}) {
            bool ok = false;
            std::string err;
            const Bytes& in = forward ? pt : ct;
            const Bytes& want = forward ? ct : pt;
            Bytes got = vec::crypt(cipher.c, key, iv, in, forward, ok, err, ptbits);
            ASSERT_TRUE(ok) << (forward ? "encrypt: " : "decrypt: ") << err;
            if (cfb1)
                EXPECT_EQ(vec::bytes_to_bits(got, ptbits), vec::bytes_to_bits(want, ptbits))
                    << (forward ? "encrypt" : "decrypt");
            else
                EXPECT_EQ(to_hex(got), to_hex(want)) << (forward ? "encrypt" : "decrypt");
        }
        ++ran;
    }
    EXPECT_EQ(ran, recs.size());
    RecordProperty("records", static_cast<int>(ran));
}

INSTANTIATE_TEST_SUITE_P(Kat, AesKat, testing::ValuesIn(files("nist-cavp/aes/kat/", true, "")),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Mmt, AesKat,
                         testing::ValuesIn(files("nist-cavp/aes/mmt/", false, "MMT")),
                         case_name);

// ---- MCT: AESAVS section 6.4 ----

struct MctResult {
    Bytes out;                  // the record's expected result (last output)
    Bytes next_key, next_iv, next_in;
    std::string err;
};

Bytes xor_tail(const Bytes& key, const Bytes& tail) {
    Bytes k = key;
    for (size_t i = 0; i < k.size(); ++i) k[i] ^= tail[tail.size() - k.size() + i];
    return k;
}

// ECB, CBC, CFB128, OFB: 1,000 block operations on one context. For the
// chained modes the next input is the IV after the first operation and the
// output before last from then on; ECB feeds each output straight back.
MctResult mct_blocks(const EVP_CIPHER* c, bool ecb, const Bytes& key, const Bytes& iv,
                     const Bytes& in0, bool enc) {
    MctResult r;
    vec::Stream s;
    if (!s.init(c, key, iv, enc)) { r.err = s.error(); return r; }
    Bytes in = in0, prev(16), cur(16), out(16);
    for (int j = 0; j < 1000; ++j) {
        if (!s.update(in.data(), out.data(), 16)) { r.err = s.error(); return r; }
        prev = cur;
        cur = out;
        in = ecb ? cur : (j == 0 ? iv : prev);
    }
    Bytes both = prev;
    both.insert(both.end(), cur.begin(), cur.end());
    r.out = cur;
    r.next_key = xor_tail(key, both);
    r.next_iv = cur;
    r.next_in = ecb ? cur : prev;
    return r;
}

// CFB8 and CFB1: 1,000 one-unit operations (a byte, or a bit in bit mode).
// The next input is byte/bit j of the IV while j < 16 / 128, then the output
// 16 bytes / 128 bits back. The key and next IV come from the last outputs.
MctResult mct_units(const EVP_CIPHER* c, bool bits, const Bytes& key, const Bytes& iv,
                    uint8_t in0, bool enc) {
    MctResult r;
    vec::Stream s;
    if (!s.init(c, key, iv, enc, bits)) { r.err = s.error(); return r; }
    const size_t window = bits ? 128 : 16;
    auto iv_unit = [&](size_t j) -> uint8_t {
        return bits ? static_cast<uint8_t>(((iv[j / 8] >> (7 - j % 8)) & 1) << 7) : iv[j];
    };
    std::vector<uint8_t> outs(1000);
    uint8_t in = in0;
    for (size_t j = 0; j < 1000; ++j) {
        uint8_t o = 0;
        if (!s.update(&in, &o, 1)) { r.err = s.error(); return r; }
        outs[j] = bits ? static_cast<uint8_t>(o & 0x80) : o;
        in = j < window ? iv_unit(j) : outs[j - window];
    }
    // Pack the last `n` units (bits or bytes) into bytes, oldest first.
    auto tail = [&](size_t nbytes) {
        Bytes t(nbytes, 0);
        size_t units = bits ? nbytes * 8 : nbytes;
        for (size_t u = 0; u < units; ++u) {
            uint8_t v = outs[1000 - units + u];
            if (bits) t[u / 8] |= static_cast<uint8_t>((v >> 7) << (7 - u % 8));
            else t[u] = v;
        }
        return t;
    };
    r.out = Bytes{outs[999]};
    r.next_key = xor_tail(key, tail(key.size()));
    r.next_iv = tail(16);
    r.next_in = Bytes{outs[999 - window]};
    return r;
}

// Natively all 100 records per direction run (3.6 million operations per
// provider; about 8 s of CPU on hwcipher's portable AES, whose bitsliced
// core pays for four blocks on every one-block call). When sampled (QEMU,
// the sanitizer run: vec::sampled()) only the first kEmulatedPrefix records
// of each direction run, which still exercises every chaining and key-update
// rule.
constexpr size_t kEmulatedPrefix = 25;

class AesMct : public testing::TestWithParam<FileCase> {};

TEST_P(AesMct, AllRecords) {
    const FileCase& fc = GetParam();
    vec::Cipher cipher(fc.prov.fetch, evp_name(fc.mode, fc.bits));
    ASSERT_TRUE(cipher) << evp_name(fc.mode, fc.bits) << " not offered by " << fc.prov.name;
    auto recs = vec::parse_rsp(vec::path(fc.rel));
    ASSERT_EQ(vec::count_section(recs, "ENCRYPT"), 100u) << fc.rel;
    ASSERT_EQ(vec::count_section(recs, "DECRYPT"), 100u) << fc.rel;

    const bool cfb1 = fc.mode == "CFB1", cfb8 = fc.mode == "CFB8", ecb = fc.mode == "ECB";
    const size_t per_direction = vec::sampled() ? kEmulatedPrefix : 100;
    size_t ran = 0;
    for (size_t i = 0; i < recs.size(); ++i) {
        const Record& r = recs[i];
        SCOPED_TRACE(r.where());
        if (std::stoul(r.get("COUNT")) >= per_direction) continue;
        const bool enc = r.section == "ENCRYPT";
        const char* in_name = enc ? "PLAINTEXT" : "CIPHERTEXT";
        const char* out_name = enc ? "CIPHERTEXT" : "PLAINTEXT";
        Bytes key = r.hex("KEY");
        Bytes iv = ecb ? Bytes(16, 0) : r.hex("IV");
        size_t nb = 0;
        Bytes in = data_field(r, in_name, cfb1, nb);
        Bytes want = data_field(r, out_name, cfb1, nb);
        // Each record starts from its own inputs, so one wrong record does
        // not cascade; the chaining rule is checked against the next record.
        MctResult m = (cfb1 || cfb8) ? mct_units(cipher.c, cfb1, key, iv, in.at(0), enc)
                                     : mct_blocks(cipher.c, ecb, key, iv, in, enc);
        ASSERT_TRUE(m.err.empty()) << m.err;
        EXPECT_EQ(to_hex(m.out), to_hex(want)) << out_name;
        ++ran;
        if (i + 1 < recs.size() && recs[i + 1].section == r.section) {
            const Record& n = recs[i + 1];
            EXPECT_EQ(to_hex(m.next_key), to_hex(n.hex("KEY"))) << "next KEY";
            if (!ecb) {
                EXPECT_EQ(to_hex(m.next_iv), to_hex(n.hex("IV"))) << "next IV";
            }
            EXPECT_EQ(to_hex(m.next_in), to_hex(data_field(n, in_name, cfb1, nb))) << "next input";
        }
    }
    EXPECT_EQ(ran, 2 * per_direction);
}

INSTANTIATE_TEST_SUITE_P(Mct, AesMct, testing::ValuesIn(files("nist-cavp/aes/mct/", false, "MCT")),
                         case_name);

// ---- The whole CAVP set is there: totals from the vectors README ----

TEST(AesCavpFiles, RecordTotals) {
    size_t kat = 0, mmt = 0, mct = 0, nkat = 0, nmmt = 0, nmct = 0;
    for (const FileCase& f : files("nist-cavp/aes/kat/", true, ""))
        if (f.prov.fetch == fetch_hwcipher) kat += vec::parse_rsp(vec::path(f.rel)).size(), ++nkat;
    for (const FileCase& f : files("nist-cavp/aes/mmt/", false, "MMT"))
        if (f.prov.fetch == fetch_hwcipher) mmt += vec::parse_rsp(vec::path(f.rel)).size(), ++nmmt;
    for (const FileCase& f : files("nist-cavp/aes/mct/", false, "MCT"))
        if (f.prov.fetch == fetch_hwcipher) mct += vec::parse_rsp(vec::path(f.rel)).size(), ++nmct;
    EXPECT_EQ(nkat, 72u);
    EXPECT_EQ(nmmt, 18u);
    EXPECT_EQ(nmct, 18u);
    EXPECT_EQ(kat, 12468u);
    EXPECT_EQ(mmt, 360u);
    EXPECT_EQ(mct, 3600u);
}

// ---- CTR: RFC 3686 (pyca files) and SP 800-38A F.5 ----

// SP 800-38A Appendix F.5 (CTR-AES128/192/256), typed in from
// nist-examples/AES_CTR.txt, which is free text and not meant for parsing.
struct Sp80038a {
    const char* key;
    const char* ct;
};
const char* const kSpCounter = "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff";
const char* const kSpPlain =
    "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
    "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710";
const Sp80038a kSp[] = {
    {"2b7e151628aed2a6abf7158809cf4f3c",
     "874d6191b620e3261bef6864990db6ce9806f66b7970fdff8617187bb9fffdff"
     "5ae4df3edbd5d35e5b4f09020db03eab1e031dda2fbe03d1792170a0f3009cee"},
    {"8e73b0f7da0e6452c810f32b809079e562f8ead2522c6b7b",
     "1abc932417521ca24f2b0459fe7e6e0b090339ec0aa6faefd5ccc2c6f4ce8e94"
     "1e36b26bd1ebc670d1bd1d665620abf74f78a7f6d29809585a97daec58c6b050"},
    {"603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4",
     "601ec313775789a5b7a7f504bbf3d228f443e3ca4d62b59aca84e990cacaf5c5"
     "2b0930daa23de94ce87017ba2d84988ddfc9c58db67aada613c2dd08457941a6"},
};

class AesCtr : public testing::TestWithParam<Provider> {};

void check_ctr(vec::Fetcher f, const std::string& where, const Bytes& key, const Bytes& iv,
               const Bytes& pt, const Bytes& ct) {
    SCOPED_TRACE(where);
    vec::Cipher c(f, "AES-" + std::to_string(key.size() * 8) + "-CTR");
    ASSERT_TRUE(c);
    for (bool enc : {true, false}) {
        bool ok = false;
        std::string err;
        Bytes got = vec::crypt(c.c, key, iv, enc ? pt : ct, enc, ok, err);
        ASSERT_TRUE(ok) << err;
        EXPECT_EQ(to_hex(got), to_hex(enc ? ct : pt)) << (enc ? "encrypt" : "decrypt");
    }
}

TEST_P(AesCtr, Rfc3686) {
    size_t ran = 0;
    for (int bits : kKeyBits) {
        auto recs = vec::parse_rsp(
            vec::path("pyca-cryptography/ciphers/AES/CTR/aes-" + std::to_string(bits) + "-ctr.txt"));
        ASSERT_EQ(recs.size(), 3u) << bits;
        for (const Record& r : recs) {
            check_ctr(GetParam().fetch, r.where(), r.hex("KEY"), r.hex("IV"), r.hex("PLAINTEXT"),
                      r.hex("CIPHERTEXT"));
            ++ran;
        }
    }
    EXPECT_EQ(ran, 9u);
}

TEST_P(AesCtr, Sp80038aF5) {
    for (const Sp80038a& v : kSp)
        check_ctr(GetParam().fetch, std::string("SP 800-38A F.5 key ") + v.key, from_hex(v.key),
                  from_hex(kSpCounter), from_hex(kSpPlain), from_hex(v.ct));
}

INSTANTIATE_TEST_SUITE_P(Providers, AesCtr, testing::ValuesIn(kProviders),
                         [](const testing::TestParamInfo<Provider>& i) {
                             return std::string(i.param.name);
                         });

} // namespace
} // namespace hwc::test
