// SPDX-License-Identifier: Apache-2.0
// OCB differential and API tests: hwcipher against the default provider's
// AES-OCB (random nonce and tag lengths, AAD/data sizes and splits, the
// block-granular outl sequence) and against libgcrypt for SM4 and
// Twofish-128/256; parameters, flags, copies and error cases.
#include <gcrypt.h>
#include <gtest/gtest.h>
#include <openssl/core_names.h>

#include <cstring>
#include <set>
#include <string>

#include "test/support/vectors.h"
#include "test/test_ocb_util.h"

namespace {

using namespace hwc::test;
using vec::Cipher;
using ocb::CtxPtr;

struct Msg {
    Bytes key, nonce, aad, pt;
    size_t taglen;
    std::vector<size_t> acuts, dcuts;
};

Msg random_msg(size_t keylen, size_t taglen = 0, size_t min_nonce = 1) {
    Msg m;
    m.key = random_bytes(keylen);
    m.nonce = random_bytes(min_nonce + random_below(16 - min_nonce));
    m.taglen = taglen != 0 ? taglen : 1 + random_below(16);
    const bool big = random_below(4) == 0;
    m.aad = random_bytes(random_below(big ? 1300 : 70));
    m.pt = random_bytes(random_below(big ? 4096 : 100));
    m.acuts = ocb::random_cuts(m.aad.size());
    m.dcuts = ocb::random_cuts(m.pt.size());
    return m;
}

std::string describe(const Msg& m) {
    return "seed " + std::to_string(test_seed()) + " nonce " + std::to_string(m.nonce.size()) +
           " tag " + std::to_string(m.taglen) + " aad " + std::to_string(m.aad.size()) + " data " +
           std::to_string(m.pt.size());
}

TEST(OcbDiff, AesMatchesDefaultProvider) {
    size_t cases = 0;
    for (int bits : {128, 192, 256}) {
        const std::string name = "AES-" + std::to_string(bits) + "-OCB";
        Cipher h(fetch_hwcipher, name), d(fetch_default, name);
        ASSERT_TRUE(h && d);
        for (int i = 0; i < 60; ++i) {
            const Msg m = random_msg(bits / 8);
            SCOPED_TRACE(name + " " + describe(m));
            const auto he = ocb::run(h.c, true, m.key, m.nonce, m.aad, m.pt, m.taglen, {}, m.acuts, m.dcuts);
            const auto de = ocb::run(d.c, true, m.key, m.nonce, m.aad, m.pt, m.taglen, {}, m.acuts, m.dcuts);
            ASSERT_TRUE(he.ok && de.ok) << take_errors();
            EXPECT_EQ(to_hex(he.out), to_hex(de.out));
            EXPECT_EQ(to_hex(he.tag), to_hex(de.tag));
            EXPECT_EQ(he.outls, de.outls); // block-granular output, call by call
            const auto hd = ocb::run(h.c, false, m.key, m.nonce, m.aad, de.out, m.taglen, de.tag, m.dcuts, m.acuts);
            const auto dd = ocb::run(d.c, false, m.key, m.nonce, m.aad, de.out, m.taglen, de.tag, m.dcuts, m.acuts);
            ASSERT_TRUE(hd.ok) << take_errors();
            EXPECT_EQ(hd.out, m.pt);
            EXPECT_EQ(hd.outls, dd.outls);
            Bytes bad = de.tag;
            bad[random_below(bad.size())] ^= static_cast<uint8_t>(1u << random_below(8));
            EXPECT_FALSE(ocb::run(h.c, false, m.key, m.nonce, m.aad, de.out, m.taglen, bad).ok);
            take_errors();
            ++cases;
        }
    }
    EXPECT_EQ(cases, 180u);
}

// ---- libgcrypt ----

void gcrypt_init() {
    static const bool done = [] {
        gcry_check_version(nullptr);
        gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
        gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
        return true;
    }();
    (void)done;
}

// libgcrypt takes the tag length (8, 12 or 16) before the nonce, and must be
// told which data call is the last (gcry_cipher_final).
bool gcrypt_ocb_encrypt(int algo, const Msg& m, Bytes& ct, Bytes& tag) {
    gcrypt_init();
    gcry_cipher_hd_t hd;
    if (gcry_cipher_open(&hd, algo, GCRY_CIPHER_MODE_OCB, 0)) return false;
    int taglen = static_cast<int>(m.taglen);
    ct.assign(m.pt.size(), 0);
    tag.assign(m.taglen, 0);
    const bool ok = !gcry_cipher_setkey(hd, m.key.data(), m.key.size()) &&
                    !gcry_cipher_ctl(hd, GCRYCTL_SET_TAGLEN, &taglen, sizeof taglen) &&
                    !gcry_cipher_setiv(hd, m.nonce.data(), m.nonce.size()) &&
                    !gcry_cipher_authenticate(hd, m.aad.data(), m.aad.size()) &&
                    !gcry_cipher_final(hd) &&
                    !gcry_cipher_encrypt(hd, ct.data(), ct.size(), m.pt.data(), m.pt.size()) &&
                    !gcry_cipher_gettag(hd, tag.data(), tag.size());
    gcry_cipher_close(hd);
    return ok;
}

TEST(OcbDiff, Sm4AndTwofishMatchLibgcrypt) {
    struct Algo { const char* name; int gcry; size_t keylen; };
    const Algo algos[] = {
        {"SM4-OCB", GCRY_CIPHER_SM4, 16},
        {"TWOFISH-128-OCB", GCRY_CIPHER_TWOFISH128, 16},
        {"TWOFISH-256-OCB", GCRY_CIPHER_TWOFISH, 32},
    };
    const size_t taglens[] = {8, 12, 16};
    size_t cases = 0;
    for (const Algo& a : algos) {
        Cipher h(fetch_hwcipher, a.name);
        ASSERT_TRUE(h) << a.name;
        for (int i = 0; i < 40; ++i) {
            const Msg m = random_msg(a.keylen, taglens[random_below(3)], 8); // libgcrypt: 8..15-byte nonces
            SCOPED_TRACE(std::string(a.name) + " " + describe(m));
            Bytes gc, gt;
            ASSERT_TRUE(gcrypt_ocb_encrypt(a.gcry, m, gc, gt));
            const auto he = ocb::run(h.c, true, m.key, m.nonce, m.aad, m.pt, m.taglen, {}, m.acuts, m.dcuts);
            ASSERT_TRUE(he.ok) << take_errors();
            EXPECT_EQ(to_hex(he.out), to_hex(gc));
            EXPECT_EQ(to_hex(he.tag), to_hex(gt));
            const auto hd = ocb::run(h.c, false, m.key, m.nonce, m.aad, gc, m.taglen, gt, m.dcuts, m.acuts);
            ASSERT_TRUE(hd.ok) << take_errors();
            EXPECT_EQ(hd.out, m.pt);
            ++cases;
        }
    }
    EXPECT_EQ(cases, 120u);
}

// Twofish-192 and short nonces under SM4/Twofish have no oracle here:
// round trips over every nonce length.
TEST(OcbDiff, RoundTripsWithoutOracle) {
    for (const char* name : {"TWOFISH-192-OCB", "SM4-OCB", "TWOFISH-128-OCB"}) {
        Cipher h(fetch_hwcipher, name);
        ASSERT_TRUE(h) << name;
        for (size_t nl = 1; nl <= 15; ++nl) {
            Msg m = random_msg(EVP_CIPHER_get_key_length(h.c));
            m.nonce = random_bytes(nl);
            const auto e = ocb::run(h.c, true, m.key, m.nonce, m.aad, m.pt, m.taglen, {}, m.acuts, m.dcuts);
            ASSERT_TRUE(e.ok) << take_errors();
            const auto d = ocb::run(h.c, false, m.key, m.nonce, m.aad, e.out, m.taglen, e.tag);
            ASSERT_TRUE(d.ok) << take_errors();
            EXPECT_EQ(d.out, m.pt);
        }
    }
}

// One context, many messages, as TLS and the benchmark use it: the nonce
// set anew each time (a counter crossing a 64 boundary, which changes the
// nonce's upper bits; the same nonce again; another tag length, which the
// formatted nonce carries; a new key with an old nonce). hwcipher keeps the
// Stretch of the last nonce between messages; every message must still
// match a fresh default-provider context.
TEST(OcbDiff, ReusedContextNonceSequence) {
    Cipher h(fetch_hwcipher, "AES-128-OCB"), d(fetch_default, "AES-128-OCB");
    ASSERT_TRUE(h && d);
    Bytes key = random_bytes(16);
    Bytes nonce = random_bytes(12);
    nonce[11] = 0x3c; // 0x3c..0x43 cross from bottom-6-bits 0x3f to 0x40
    const Bytes aad = random_bytes(16), pt = random_bytes(64);
    for (bool enc : {true, false}) {
        CtxPtr ctx = ocb::new_ctx();
        EVP_CIPHER_CTX* x = ctx.get();
        ASSERT_EQ(EVP_CipherInit_ex2(x, h.c, nullptr, nullptr, enc, nullptr), 1);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, 16, nullptr), 1);
        ASSERT_EQ(EVP_CipherInit_ex2(x, nullptr, key.data(), nullptr, enc, nullptr), 1);
        size_t taglen = 16;
        Bytes k = key, n = nonce;
        for (int i = 0; i < 12; ++i) {
            SCOPED_TRACE("enc " + std::to_string(enc) + " message " + std::to_string(i));
            if (i < 8) n[11] = static_cast<uint8_t>(0x3c + i);
            if (i == 8) n[11] = 0x3c;       // back to an earlier nonce
            if (i == 9) taglen = 12;        // same nonce, other tag length
            if (i == 10) {                  // new key, same nonce
                k = random_bytes(16);
                ASSERT_EQ(EVP_CipherInit_ex2(x, nullptr, k.data(), nullptr, enc, nullptr), 1);
            }
            if (i == 11) n[0] ^= 0x80;      // an upper byte changes
            const auto ref = ocb::run(d.c, true, k, n, aad, pt, taglen, {});
            ASSERT_TRUE(ref.ok) << take_errors();
            if (i == 9) {
                ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, 12, nullptr), 1);
            }
            ASSERT_EQ(EVP_CipherInit_ex2(x, nullptr, nullptr, n.data(), enc, nullptr), 1);
            if (!enc) {
                ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(taglen),
                                              const_cast<uint8_t*>(ref.tag.data())), 1);
            }
            int outl = 0, fl = 0;
            Bytes out(80);
            ASSERT_EQ(EVP_CipherUpdate(x, nullptr, &outl, aad.data(), 16), 1);
            const Bytes& in = enc ? pt : ref.out;
            ASSERT_EQ(EVP_CipherUpdate(x, out.data(), &outl, in.data(), 64), 1);
            ASSERT_EQ(EVP_CipherFinal_ex(x, out.data() + outl, &fl), 1) << take_errors();
            out.resize(static_cast<size_t>(outl + fl));
            EXPECT_EQ(out, enc ? ref.out : pt);
            if (enc) {
                Bytes tag(taglen);
                ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, static_cast<int>(taglen),
                                              tag.data()), 1);
                EXPECT_EQ(tag, ref.tag);
            }
        }
    }
}

// ---- parameters, flags, copies, errors ----

std::set<std::string> keys(const OSSL_PARAM* p) {
    std::set<std::string> s;
    for (; p != nullptr && p->key != nullptr; ++p) s.insert(p->key);
    return s;
}

TEST(OcbApi, ParamsAndFlagsMatchDefault) {
    for (const char* name : {"AES-128-OCB", "AES-192-OCB", "AES-256-OCB"}) {
        Cipher h(fetch_hwcipher, name), d(fetch_default, name);
        ASSERT_TRUE(h && d);
        EXPECT_EQ(EVP_CIPHER_get_flags(h.c), EVP_CIPHER_get_flags(d.c));
        EXPECT_EQ(EVP_CIPHER_get_block_size(h.c), 16);
        EXPECT_EQ(keys(EVP_CIPHER_gettable_ctx_params(h.c)), keys(EVP_CIPHER_gettable_ctx_params(d.c)));
        EXPECT_EQ(keys(EVP_CIPHER_settable_ctx_params(h.c)), keys(EVP_CIPHER_settable_ctx_params(d.c)));
        CtxPtr ctx = ocb::new_ctx();
        ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), h.c, nullptr, nullptr, nullptr), 1);
        EXPECT_EQ(EVP_CIPHER_CTX_get_iv_length(ctx.get()), 12);
        EXPECT_EQ(EVP_CIPHER_CTX_get_tag_length(ctx.get()), 16);
    }
    for (const char* name : {"SM4-OCB", "TWOFISH-128-OCB", "TWOFISH-192-OCB", "TWOFISH-256-OCB"}) {
        Cipher h(fetch_hwcipher, name);
        ASSERT_TRUE(h) << name;
        EXPECT_EQ(EVP_CIPHER_get_mode(h.c), EVP_CIPH_OCB_MODE);
    }
}

TEST(OcbApi, CopyMidMessageAndOriginalIv) {
    Cipher h(fetch_hwcipher, "AES-128-OCB");
    ASSERT_TRUE(h);
    const Bytes key = random_bytes(16), nonce = random_bytes(12), aad = random_bytes(21), pt = random_bytes(45);
    CtxPtr a = ocb::new_ctx();
    int outl = 0;
    ASSERT_EQ(EVP_EncryptInit_ex2(a.get(), h.c, key.data(), nonce.data(), nullptr), 1);
    ASSERT_EQ(EVP_EncryptUpdate(a.get(), nullptr, &outl, aad.data(), 21), 1);
    EXPECT_EQ(outl, 16);
    Bytes out(64);
    ASSERT_EQ(EVP_EncryptUpdate(a.get(), out.data(), &outl, pt.data(), 20), 1);
    EXPECT_EQ(outl, 16);
    uint8_t iv[12];
    ASSERT_EQ(EVP_CIPHER_CTX_get_original_iv(a.get(), iv, sizeof iv), 1);
    EXPECT_EQ(Bytes(iv, iv + 12), nonce);
    CtxPtr b = ocb::new_ctx();
    ASSERT_EQ(EVP_CIPHER_CTX_copy(b.get(), a.get()), 1);
    Bytes t1(16), t2(16), o1 = out, o2 = out;
    for (auto [ctx, o, t] : {std::tuple{a.get(), &o1, &t1}, std::tuple{b.get(), &o2, &t2}}) {
        int l1 = 0, l2 = 0;
        ASSERT_EQ(EVP_EncryptUpdate(ctx, o->data() + 16, &l1, pt.data() + 20, 25), 1);
        ASSERT_EQ(EVP_EncryptFinal_ex(ctx, o->data() + 16 + l1, &l2), 1);
        EXPECT_EQ(16 + l1 + l2, 45);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, t->data()), 1);
    }
    EXPECT_EQ(o1, o2);
    EXPECT_EQ(t1, t2);
    const auto ref = ocb::run(h.c, true, key, nonce, aad, pt, 16, {});
    EXPECT_EQ(Bytes(o1.begin(), o1.begin() + 45), ref.out);
    EXPECT_EQ(t1, ref.tag);
}

TEST(OcbApi, Errors) {
    Cipher h(fetch_hwcipher, "AES-128-OCB");
    ASSERT_TRUE(h);
    const Bytes key = random_bytes(16), nonce = random_bytes(12);
    uint8_t buf[64] = {}, tag[16] = {};
    int outl = 0;
    auto expect_error = [] { EXPECT_FALSE(take_errors().empty()); };
    CtxPtr ctx = ocb::new_ctx();
    ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), h.c, nullptr, nullptr, nullptr), 1);
    for (int bad : {0, 16, 17}) {
        EXPECT_NE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, bad, nullptr), 1) << bad;
        expect_error();
    }
    for (int bad : {0, 17}) {
        EXPECT_NE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, bad, nullptr), 1) << bad;
        expect_error();
    }
    EXPECT_NE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, tag), 1); // value on encrypt
    expect_error();
    // No key / no nonce.
    EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), buf, &outl, buf, 16), 0);
    expect_error();
    ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), nullptr, key.data(), nonce.data(), nullptr), 1);
    // Tag before final, and a tag read of the wrong length.
    EXPECT_NE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag), 1);
    expect_error();
    ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), buf, &outl, buf, 20), 1);
    ASSERT_EQ(EVP_EncryptFinal_ex(ctx.get(), buf + 16, &outl), 1);
    EXPECT_EQ(outl, 4);
    EXPECT_NE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 12, tag), 1);
    expect_error();
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag), 1);
    // The nonce is spent after final.
    EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), buf, &outl, buf, 16), 0);
    expect_error();
    // Decrypt: no tag set fails in final; a bad tag wipes the released tail.
    CtxPtr d = ocb::new_ctx();
    ASSERT_EQ(EVP_DecryptInit_ex2(d.get(), h.c, key.data(), nonce.data(), nullptr), 1);
    ASSERT_EQ(EVP_DecryptUpdate(d.get(), buf, &outl, buf, 20), 1);
    EXPECT_EQ(EVP_DecryptFinal_ex(d.get(), buf + 16, &outl), 0);
    expect_error();
    const Bytes pt = random_bytes(7);
    auto e = ocb::run(h.c, true, key, nonce, {}, pt, 16, {});
    ASSERT_TRUE(e.ok);
    e.tag[0] ^= 1;
    CtxPtr d2 = ocb::new_ctx();
    ASSERT_EQ(EVP_DecryptInit_ex2(d2.get(), h.c, key.data(), nonce.data(), nullptr), 1);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(d2.get(), EVP_CTRL_AEAD_SET_TAG, 16, e.tag.data()), 1);
    ASSERT_EQ(EVP_DecryptUpdate(d2.get(), buf, &outl, e.out.data(), 7), 1);
    EXPECT_EQ(outl, 0);
    std::memset(buf, 0xA5, 7);
    EXPECT_EQ(EVP_DecryptFinal_ex(d2.get(), buf, &outl), 0);
    expect_error();
    EXPECT_EQ(outl, 0);
    EXPECT_EQ(Bytes(buf, buf + 7), Bytes(7, 0));
}

} // namespace
