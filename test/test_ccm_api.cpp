// SPDX-License-Identifier: Apache-2.0
// CCM through EVP as libssl and applications drive it: TLS 1.2 records and
// the TLS 1.3 call pattern against the default provider, parameters and
// flags, context copies, and every error case of the one-shot contract.
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <set>
#include <string>

#include "test/support/vectors.h"
#include "test/test_ccm_util.h"

namespace {

using namespace hwc::test;
using vec::Cipher;
using ccm::CtxPtr;

// ---- TLS 1.2: libssl's setup, then one in-place update per record ----

CtxPtr tls12_ctx(const EVP_CIPHER* c, bool enc, const Bytes& key, const Bytes& fixed, int taglen) {
    CtxPtr ctx = ccm::new_ctx();
    EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), c, nullptr, nullptr, nullptr, enc), 1);
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, 12, nullptr), 1);
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, taglen, nullptr), 1);
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IV_FIXED, 4,
                                  const_cast<uint8_t*>(fixed.data())), 1);
    EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, key.data(), nullptr, enc), 1);
    int version = 0x0303;
    size_t macsize = 0;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_TLS_VERSION, &version),
                      OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &macsize),
                      OSSL_PARAM_END};
    EXPECT_EQ(EVP_CIPHER_CTX_set_params(ctx.get(), p), 1);
    return ctx;
}

// Returns outl (or -1) after processing `rec` in place; `len` is its whole length.
int tls12_record(EVP_CIPHER_CTX* ctx, bool enc, uint64_t seq, Bytes& rec, int taglen) {
    uint8_t aad[13];
    for (int i = 0; i < 8; ++i) aad[i] = static_cast<uint8_t>(seq >> (56 - 8 * i));
    aad[8] = 0x17;
    aad[9] = 0x03;
    aad[10] = 0x03;
    const size_t len_field = enc ? rec.size() - taglen : rec.size();
    aad[11] = static_cast<uint8_t>(len_field >> 8);
    aad[12] = static_cast<uint8_t>(len_field);
    if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, 13, aad) != taglen) return -1;
    int outl = 0;
    if (EVP_CipherUpdate(ctx, rec.data(), &outl, rec.data(), static_cast<int>(rec.size())) != 1)
        return -1;
    return outl;
}

TEST(CcmApi, Tls12RecordsMatchDefault) {
    size_t records = 0;
    for (int taglen : {16, 8}) {
        for (const char* name : {"AES-128-CCM", "AES-256-CCM"}) {
            Cipher h(fetch_hwcipher, name), d(fetch_default, name);
            ASSERT_TRUE(h && d);
            const Bytes key = random_bytes(EVP_CIPHER_get_key_length(h.c)), fixed = random_bytes(4);
            CtxPtr he = tls12_ctx(h.c, true, key, fixed, taglen), de = tls12_ctx(d.c, true, key, fixed, taglen);
            CtxPtr hd = tls12_ctx(h.c, false, key, fixed, taglen), dd = tls12_ctx(d.c, false, key, fixed, taglen);
            for (uint64_t seq = 0; seq < 6; ++seq) {
                SCOPED_TRACE(std::string(name) + " tag " + std::to_string(taglen) + " seq " + std::to_string(seq));
                const Bytes payload = random_bytes(random_below(1500));
                Bytes rec(8 + payload.size() + taglen, 0);
                std::copy(payload.begin(), payload.end(), rec.begin() + 8);
                Bytes hrec = rec, drec = rec;
                EXPECT_EQ(tls12_record(he.get(), true, seq, hrec, taglen), static_cast<int>(rec.size()));
                EXPECT_EQ(tls12_record(de.get(), true, seq, drec, taglen), static_cast<int>(rec.size()));
                EXPECT_EQ(to_hex(hrec), to_hex(drec));
                // The explicit nonce is the sequence number.
                EXPECT_EQ(hrec[7], static_cast<uint8_t>(seq));
                Bytes r1 = drec, r2 = hrec;
                EXPECT_EQ(tls12_record(hd.get(), false, seq, r1, taglen), static_cast<int>(payload.size()));
                EXPECT_EQ(Bytes(r1.begin() + 8, r1.begin() + 8 + payload.size()), payload);
                EXPECT_EQ(tls12_record(dd.get(), false, seq, r2, taglen), static_cast<int>(payload.size()));
                // A forged record fails and the payload area is wiped.
                Bytes forged = drec;
                forged[8 + random_below(payload.size() + taglen)] ^= 0x40;
                EXPECT_EQ(tls12_record(hd.get(), false, seq, forged, taglen), -1);
                EXPECT_TRUE(ccm::untouched_or_wiped(Bytes(forged.begin() + 8, forged.end() - taglen),
                                                    payload.size()) || payload.empty());
                take_errors();
                ++records;
            }
        }
    }
    EXPECT_EQ(records, 24u);
}

// ---- TLS 1.3: tag length before the key, IV-only re-init per record ----

struct Tls13 {
    CtxPtr ctx = ccm::new_ctx();
    bool enc;
    int taglen;
    Tls13(const EVP_CIPHER* c, bool e, const Bytes& key, int t) : enc(e), taglen(t) {
        EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), c, nullptr, nullptr, nullptr, enc), 1);
        EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, 12, nullptr), 1);
        EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, taglen, nullptr), 1);
        EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, key.data(), nullptr, enc), 1);
    }
    // Encrypt: returns ciphertext || tag. Decrypt: `in` is ciphertext || tag.
    bool record(const Bytes& nonce, const Bytes& hdr, const Bytes& in, Bytes& out) {
        EVP_CIPHER_CTX* c = ctx.get();
        const size_t len = enc ? in.size() : in.size() - taglen;
        int l1 = 0, l2 = 0, ignored = 0;
        if (enc && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, taglen, nullptr) != 1) return false;
        if (EVP_CipherInit_ex(c, nullptr, nullptr, nullptr, nonce.data(), enc) != 1) return false;
        if (!enc && EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_SET_TAG, taglen,
                                        const_cast<uint8_t*>(in.data() + len)) != 1)
            return false;
        out.assign(len + taglen, 0);
        if (EVP_CipherUpdate(c, nullptr, &ignored, nullptr, static_cast<int>(len)) != 1 ||
            EVP_CipherUpdate(c, nullptr, &ignored, hdr.data(), static_cast<int>(hdr.size())) != 1 ||
            EVP_CipherUpdate(c, out.data(), &l1, ccm::nz(in), static_cast<int>(len)) != 1 ||
            EVP_CipherFinal_ex(c, out.data() + l1, &l2) != 1 || static_cast<size_t>(l1 + l2) != len)
            return false;
        if (!enc) {
            out.resize(len);
            return true;
        }
        return EVP_CIPHER_CTX_ctrl(c, EVP_CTRL_AEAD_GET_TAG, taglen, out.data() + len) == 1;
    }
};

TEST(CcmApi, Tls13PatternMatchesDefault) {
    for (int taglen : {16, 8}) { // TLS_AES_128_CCM_SHA256, TLS_AES_128_CCM_8_SHA256
        Cipher h(fetch_hwcipher, "AES-128-CCM"), d(fetch_default, "AES-128-CCM");
        ASSERT_TRUE(h && d);
        const Bytes key = random_bytes(16), iv = random_bytes(12);
        Tls13 he(h.c, true, key, taglen), de(d.c, true, key, taglen);
        Tls13 hd(h.c, false, key, taglen), dd(d.c, false, key, taglen);
        for (uint8_t seq = 0; seq < 5; ++seq) {
            Bytes nonce = iv;
            nonce[11] ^= seq;
            const Bytes pt = random_bytes(random_below(700));
            const Bytes hdr = {0x17, 0x03, 0x03, static_cast<uint8_t>((pt.size() + taglen) >> 8),
                               static_cast<uint8_t>(pt.size() + taglen)};
            Bytes hc, dc, hp, dp;
            ASSERT_TRUE(he.record(nonce, hdr, pt, hc)) << take_errors();
            ASSERT_TRUE(de.record(nonce, hdr, pt, dc)) << take_errors();
            EXPECT_EQ(to_hex(hc), to_hex(dc));
            ASSERT_TRUE(hd.record(nonce, hdr, dc, hp)) << take_errors();
            ASSERT_TRUE(dd.record(nonce, hdr, hc, dp)) << take_errors();
            EXPECT_EQ(hp, pt);
            hc[0] ^= 0x80;
            EXPECT_FALSE(hd.record(nonce, hdr, hc, hp));
            take_errors();
        }
    }
}

// ---- parameters, flags, copies ----

std::set<std::string> keys(const OSSL_PARAM* p) {
    std::set<std::string> s;
    for (; p != nullptr && p->key != nullptr; ++p) s.insert(p->key);
    return s;
}

// The default provider's CCM keys as of OpenSSL 3.5 (hwcipher's lists),
// whichever release runs: "iv-generated" (3.4+) is in hwcipher's list on
// every release; 3.6 dropped "tlsivgen" (gettable) and "tlsivinv"
// (settable), which its CCM never served, and hwcipher keeps the 3.0-3.5 lists.
std::set<std::string> newest_default_keys(const OSSL_PARAM* p, bool gettable) {
    std::set<std::string> s = keys(p);
    if (gettable) s.insert("iv-generated");
    if (openssl_at_least(3, 6)) s.insert(gettable ? "tlsivgen" : "tlsivinv");
    return s;
}

TEST(CcmApi, ParamsAndFlagsMatchDefault) {
    for (const char* name : {"AES-128-CCM", "AES-192-CCM", "AES-256-CCM"}) {
        Cipher h(fetch_hwcipher, name), d(fetch_default, name);
        ASSERT_TRUE(h && d);
        EXPECT_EQ(EVP_CIPHER_get_flags(h.c), EVP_CIPHER_get_flags(d.c));
        EXPECT_EQ(EVP_CIPHER_get_iv_length(h.c), 12);
        EXPECT_EQ(keys(EVP_CIPHER_gettable_ctx_params(h.c)),
                  newest_default_keys(EVP_CIPHER_gettable_ctx_params(d.c), true));
        EXPECT_EQ(keys(EVP_CIPHER_settable_ctx_params(h.c)),
                  newest_default_keys(EVP_CIPHER_settable_ctx_params(d.c), false));
        CtxPtr ctx = ccm::new_ctx();
        ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), h.c, nullptr, nullptr, nullptr), 1);
        EXPECT_EQ(EVP_CIPHER_CTX_get_iv_length(ctx.get()), 7); // L = 8 by default
        EXPECT_EQ(EVP_CIPHER_CTX_get_tag_length(ctx.get()), 12);
    }
    for (const char* name : {"SM4-CCM", "TWOFISH-128-CCM", "TWOFISH-192-CCM", "TWOFISH-256-CCM"}) {
        Cipher h(fetch_hwcipher, name);
        ASSERT_TRUE(h) << name;
        EXPECT_EQ(EVP_CIPHER_get_mode(h.c), EVP_CIPH_CCM_MODE);
    }
}

TEST(CcmApi, CopyMidMessageContinuesIdentically) {
    Cipher h(fetch_hwcipher, "AES-128-CCM");
    ASSERT_TRUE(h);
    const Bytes key = random_bytes(16), nonce = random_bytes(7), aad = random_bytes(30), pt = random_bytes(50);
    CtxPtr a = ccm::new_ctx();
    int outl = 0;
    ASSERT_EQ(EVP_EncryptInit_ex2(a.get(), h.c, key.data(), nonce.data(), nullptr), 1);
    ASSERT_EQ(EVP_EncryptUpdate(a.get(), nullptr, &outl, nullptr, static_cast<int>(pt.size())), 1);
    ASSERT_EQ(EVP_EncryptUpdate(a.get(), nullptr, &outl, aad.data(), static_cast<int>(aad.size())), 1);
    CtxPtr b = ccm::new_ctx();
    ASSERT_EQ(EVP_CIPHER_CTX_copy(b.get(), a.get()), 1);
    Bytes c1(pt.size()), c2(pt.size()), t1(12), t2(12);
    for (auto [ctx, c, t] : {std::tuple{a.get(), &c1, &t1}, std::tuple{b.get(), &c2, &t2}}) {
        ASSERT_EQ(EVP_EncryptUpdate(ctx, c->data(), &outl, pt.data(), static_cast<int>(pt.size())), 1);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 12, t->data()), 1);
    }
    EXPECT_EQ(c1, c2);
    EXPECT_EQ(t1, t2);
    Bytes ref_c, ref_t;
    ASSERT_TRUE(ccm::encrypt(h.c, key, nonce, aad, pt, 12, ref_c, ref_t));
    EXPECT_EQ(c1, ref_c);
    EXPECT_EQ(t1, ref_t);
}

// ---- errors: each fails with an error on the queue and releases nothing ----

class CcmErrors : public ::testing::Test {
protected:
    void SetUp() override {
        c_.c = fetch_hwcipher("AES-128-CCM");
        ASSERT_TRUE(c_);
        key_ = random_bytes(16);
        nonce_ = random_bytes(7);
    }
    CtxPtr start(bool enc) {
        CtxPtr ctx = ccm::new_ctx();
        EXPECT_EQ(EVP_CipherInit_ex2(ctx.get(), c_.c, key_.data(), nonce_.data(), enc, nullptr), 1);
        return ctx;
    }
    static void expect_error() { EXPECT_FALSE(take_errors().empty()); }
    Cipher c_;
    Bytes key_, nonce_;
    int outl_ = 0;
    uint8_t buf_[64] = {};
};

TEST_F(CcmErrors, AadBeforeLength) {
    CtxPtr ctx = start(true);
    EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), nullptr, &outl_, buf_, 8), 0);
    expect_error();
}

TEST_F(CcmErrors, DataLengthMismatchAndSecondDataCall) {
    CtxPtr ctx = start(true);
    ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), nullptr, &outl_, nullptr, 20), 1);
    EXPECT_EQ(outl_, 20); // as the default provider
    EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), buf_, &outl_, buf_, 19), 0);
    expect_error();
    ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), buf_, &outl_, buf_, 20), 1);
    EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), buf_, &outl_, buf_, 20), 0);
    expect_error();
}

TEST_F(CcmErrors, TagLengthsAndNonceLengths) {
    CtxPtr ctx = ccm::new_ctx();
    ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), c_.c, nullptr, nullptr, nullptr), 1);
    for (int bad : {0, 2, 3, 5, 15, 17, 18}) {
        EXPECT_NE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, bad, nullptr), 1) << bad;
        expect_error();
    }
    for (int good : {4, 6, 8, 10, 12, 14, 16})
        EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, good, nullptr), 1) << good;
    for (int bad : {1, 6, 14, 15, 16}) { // L = 9, 1, 0 ... are out of range
        EXPECT_NE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, bad, nullptr), 1) << bad;
        expect_error();
    }
    for (int good = 7; good <= 13; ++good) {
        EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, good, nullptr), 1) << good;
        EXPECT_EQ(EVP_CIPHER_CTX_get_iv_length(ctx.get()), good);
    }
    // A tag value on encrypt is refused. (An IV of the wrong length cannot
    // be expressed through EVP: it always passes the context's IV length.)
    EXPECT_NE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 8, buf_), 1);
    expect_error();
}

TEST_F(CcmErrors, LengthMustFitL) {
    CtxPtr ctx = ccm::new_ctx();
    ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), c_.c, nullptr, nullptr, nullptr), 1);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, 13, nullptr), 1); // L = 2
    const Bytes n13 = random_bytes(13);
    ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), nullptr, key_.data(), n13.data(), nullptr), 1);
    EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), nullptr, &outl_, nullptr, 65536), 0);
    expect_error();
    EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), nullptr, &outl_, nullptr, 65535), 1);
}

TEST_F(CcmErrors, DecryptNeedsTagAndWipesOnMismatch) {
    CtxPtr ctx = start(false);
    EXPECT_EQ(EVP_DecryptUpdate(ctx.get(), buf_, &outl_, buf_, 16), 0); // no tag set
    expect_error();
    // In place, wrong tag: the buffer must not keep the decryption.
    Bytes pt = random_bytes(40), ct, tag;
    ASSERT_TRUE(ccm::encrypt(c_.c, key_, nonce_, {}, pt, 12, ct, tag));
    tag[3] ^= 1;
    CtxPtr d = start(false);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(d.get(), EVP_CTRL_AEAD_SET_TAG, 12, tag.data()), 1);
    Bytes io = ct;
    EXPECT_EQ(EVP_DecryptUpdate(d.get(), io.data(), &outl_, io.data(), static_cast<int>(io.size())), 0);
    expect_error();
    EXPECT_EQ(outl_, 0);
    EXPECT_EQ(io, Bytes(io.size(), 0));
}

TEST_F(CcmErrors, TagReadRules) {
    CtxPtr ctx = start(true);
    uint8_t tag[16];
    EXPECT_NE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 12, tag), 1); // no data yet
    expect_error();
    ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), buf_, &outl_, buf_, 10), 1);
    EXPECT_NE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag), 1); // not M
    expect_error();
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 12, tag), 1);
    EXPECT_NE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 12, tag), 1); // read once
    expect_error();
    // The nonce is spent: more data needs a new IV.
    EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), buf_, &outl_, buf_, 10), 0);
    expect_error();
}

TEST_F(CcmErrors, FinalCompletesOnlyEmptyMessages) {
    // Declared length 0 and no data call: final authenticates the empty
    // message, and the tag equals the default provider's.
    const Bytes aad = random_bytes(9);
    CtxPtr ctx = start(true);
    ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), nullptr, &outl_, nullptr, 0), 1);
    ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), nullptr, &outl_, aad.data(), 9), 1);
    ASSERT_EQ(EVP_EncryptFinal_ex(ctx.get(), buf_, &outl_), 1);
    EXPECT_EQ(outl_, 0);
    Bytes tag(12);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 12, tag.data()), 1);
    Cipher d(fetch_default, "AES-128-CCM");
    Bytes ct, dtag;
    ASSERT_TRUE(ccm::encrypt(d.c, key_, nonce_, aad, {}, 12, ct, dtag));
    EXPECT_EQ(tag, dtag);
    // A declared non-empty message whose data never came does not "succeed".
    CtxPtr dec = start(false);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(dec.get(), EVP_CTRL_AEAD_SET_TAG, 12, tag.data()), 1);
    ASSERT_EQ(EVP_DecryptUpdate(dec.get(), nullptr, &outl_, nullptr, 5), 1);
    EXPECT_EQ(EVP_DecryptFinal_ex(dec.get(), buf_, &outl_), 0);
    expect_error();
}

TEST_F(CcmErrors, TlsParamsValidated) {
    CtxPtr ctx = start(true);
    uint8_t fixed[12] = {};
    EXPECT_NE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IV_FIXED, 12, fixed), 1);
    expect_error();
    uint8_t aad[13] = {};
    aad[12] = 4; // shorter than the explicit nonce
    EXPECT_LE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad), 0);
    expect_error();
}

} // namespace
