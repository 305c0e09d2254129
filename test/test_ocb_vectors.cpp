// SPDX-License-Identifier: Apache-2.0
// OCB known answers: RFC 7253 Appendix A (96-bit nonces), the 104/112/120-bit
// nonce forms of the same vectors, and the RFC's iterated all-lengths test
// (Appendix A, tag lengths 128/96/64 for AES-128/192/256).
#include <gtest/gtest.h>

#include <string>

#include "test/support/vectors.h"
#include "test/test_ocb_util.h"

namespace {

using namespace hwc::test;
using vec::Cipher;

size_t run_file(const std::string& name) {
    const auto recs = vec::parse_rsp(vec::path("pyca-cryptography/ciphers/AES/OCB3/" + name));
    Cipher c(fetch_hwcipher, "AES-128-OCB");
    EXPECT_TRUE(c);
    if (!c) return 0;
    size_t n = 0;
    for (const auto& r : recs) {
        SCOPED_TRACE(r.where());
        const Bytes key = r.hex("KEY"), nonce = r.hex("NONCE"), aad = r.hex("AAD");
        const Bytes pt = r.hex("PLAINTEXT"), ct_tag = r.hex("CIPHERTEXT");
        EXPECT_EQ(ct_tag.size(), pt.size() + 16);
        if (ct_tag.size() != pt.size() + 16) continue;
        const Bytes ct(ct_tag.begin(), ct_tag.end() - 16), tag(ct_tag.end() - 16, ct_tag.end());
        // One piece, then byte-odd pieces: the answer may not depend on splits.
        for (int split = 0; split < 2; ++split) {
            const std::vector<size_t> ac = split ? std::vector<size_t>{1, 15, 3} : std::vector<size_t>{};
            const std::vector<size_t> dc = split ? std::vector<size_t>{7, 16, 9} : std::vector<size_t>{};
            const ocb::Result e = ocb::run(c.c, true, key, nonce, aad, pt, 16, {}, ac, dc);
            EXPECT_TRUE(e.ok) << take_errors();
            EXPECT_EQ(to_hex(e.out) + to_hex(e.tag), to_hex(ct_tag));
            const ocb::Result d = ocb::run(c.c, false, key, nonce, aad, ct, 16, tag, ac, dc);
            EXPECT_TRUE(d.ok) << take_errors();
            EXPECT_EQ(d.out, pt);
        }
        Bytes bad = tag;
        bad[15] ^= 0x01;
        EXPECT_FALSE(ocb::run(c.c, false, key, nonce, aad, ct, 16, bad).ok);
        take_errors();
        ++n;
    }
    return n;
}

TEST(OcbVectors, Rfc7253) { EXPECT_EQ(run_file("rfc7253.txt"), 16u); }

TEST(OcbVectors, LongerNonces) {
    for (const char* f : {"test-vector-1-nonce104.txt", "test-vector-1-nonce112.txt",
                          "test-vector-1-nonce120.txt"})
        EXPECT_EQ(run_file(f), 16u) << f;
}

Bytes num2str(uint64_t v, size_t bytes) {
    Bytes b(bytes, 0);
    for (size_t i = 0; i < bytes && i < 8; ++i) b[bytes - 1 - i] = static_cast<uint8_t>(v >> (8 * i));
    return b;
}

// RFC 7253 Appendix A: 384 encryptions under K = zeros || TAGLEN whose
// outputs are concatenated and authenticated once more.
Bytes iterated(const EVP_CIPHER* c, size_t keybytes, size_t taglen) {
    Bytes key(keybytes, 0);
    key.back() = static_cast<uint8_t>(taglen * 8);
    Bytes all;
    auto enc = [&](uint64_t n, const Bytes& a, const Bytes& p) {
        const ocb::Result r = ocb::run(c, true, key, num2str(n, 12), a, p, taglen, {});
        EXPECT_TRUE(r.ok);
        all.insert(all.end(), r.out.begin(), r.out.end());
        all.insert(all.end(), r.tag.begin(), r.tag.end());
    };
    for (uint64_t i = 0; i < 128; ++i) {
        const Bytes s(i, 0);
        enc(3 * i + 1, s, s);
        enc(3 * i + 2, {}, s);
        enc(3 * i + 3, s, {});
    }
    const ocb::Result r = ocb::run(c, true, key, num2str(385, 12), all, {}, taglen, {});
    EXPECT_TRUE(r.ok);
    return r.tag;
}

TEST(OcbVectors, Rfc7253IteratedAllLengths) {
    struct Case { int bits; size_t taglen; const char* expect; };
    const Case cases[] = {
        {128, 16, "67E944D23256C5E0B6C61FA22FDF1EA2"}, {192, 16, "F673F2C3E7174AAE7BAE986CA9F29E17"},
        {256, 16, "D90EB8E9C977C88B79DD793D7FFA161C"}, {128, 12, "77A3D8E73589158D25D01209"},
        {192, 12, "05D56EAD2752C86BE6932C5E"},         {256, 12, "5458359AC23B0CBA9E6330DD"},
        {128, 8, "192C9B7BD90BA06A"},                  {192, 8, "0066BC6E0EF34E24"},
        {256, 8, "7D4EA5D445501CBE"},
    };
    for (const Case& k : cases) {
        SCOPED_TRACE("AES-" + std::to_string(k.bits) + " taglen " + std::to_string(k.taglen));
        Cipher c(fetch_hwcipher, "AES-" + std::to_string(k.bits) + "-OCB");
        ASSERT_TRUE(c);
        EXPECT_EQ(to_hex(iterated(c.c, k.bits / 8, k.taglen)), to_hex(from_hex(k.expect)));
    }
}

} // namespace
