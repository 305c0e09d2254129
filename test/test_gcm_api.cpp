// SPDX-License-Identifier: Apache-2.0
// GCM through the EVP API as applications and libssl drive it: parameter
// lists and values against the default provider, error cases, IV
// generation and reuse, EVP_Cipher() byte counts, context copies, and the
// TLS 1.2 (tlsaad/tlsivfixed/tlsivgen/tlsivinv) and TLS 1.3 record patterns,
// each cross-checked against the default provider.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <utility>

#include "provider/module/catalogue.h"
#include "test/test_gcm_util.h"

namespace hwc::test {
namespace {

using namespace gcm;

std::set<std::pair<std::string, unsigned>> names_of(const OSSL_PARAM* p) {
    std::set<std::pair<std::string, unsigned>> out;
    for (; p != nullptr && p->key != nullptr; ++p) out.insert({p->key, p->data_type});
    return out;
}

TEST(GcmApi, ParamListsMatchDefault) {
    CipherPtr ref = def("AES-128-GCM");
    ASSERT_NE(ref, nullptr);
    size_t rows = 0;
    for (const AlgorithmRow& row : kCatalogue) {
        if (row.mode != Mode::gcm) continue;
        const std::string name = std::string(row.names).substr(0, std::string(row.names).find(':'));
        SCOPED_TRACE(name);
        CipherPtr c = hw(name);
        ASSERT_NE(c, nullptr) << take_errors();
        EXPECT_EQ(names_of(EVP_CIPHER_gettable_ctx_params(c.get())),
                  names_of(EVP_CIPHER_gettable_ctx_params(ref.get())));
        EXPECT_EQ(names_of(EVP_CIPHER_settable_ctx_params(c.get())),
                  names_of(EVP_CIPHER_settable_ctx_params(ref.get())));
        EXPECT_EQ(EVP_CIPHER_get_flags(c.get()), EVP_CIPHER_get_flags(ref.get()));
        EXPECT_EQ(EVP_CIPHER_get_iv_length(c.get()), 12);
        EXPECT_EQ(EVP_CIPHER_get_block_size(c.get()), 1);
        ++rows;
    }
    EXPECT_EQ(rows, 7u); // AES-128/192/256, SM4, Twofish-128/192/256
}

// Runs `f(ctx, cipher)` on a fresh context of each provider: both must give
// the same result, and success must be `want`.
template <typename F>
void both_agree(const char* what, bool want, F f) {
    int r[2];
    for (int k = 0; k < 2; ++k) {
        CipherPtr c = k == 0 ? hw("AES-128-GCM") : def("AES-128-GCM");
        CtxPtr ctx = new_ctx();
        r[k] = f(ctx.get(), c.get());
        take_errors();
    }
    EXPECT_EQ(r[0], r[1]) << what << ": hwcipher " << r[0] << ", default " << r[1];
    EXPECT_EQ(r[0] > 0, want) << what;
}

TEST(GcmApi, ErrorCasesAgreeWithDefault) {
    const Bytes key = random_bytes(16), iv = random_bytes(12);
    uint8_t buf[64] = {}, tag[17] = {};
    int outl = 0;
    // Each lambda returns the result of the call under test.
    both_agree("ivlen 0", false, [&](EVP_CIPHER_CTX* x, const EVP_CIPHER* c) {
        EVP_EncryptInit_ex(x, c, nullptr, nullptr, nullptr);
        return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_IVLEN, 0, nullptr);
    });
    both_agree("get tag 17", false, [&](EVP_CIPHER_CTX* x, const EVP_CIPHER* c) {
        EVP_EncryptInit_ex(x, c, nullptr, key.data(), iv.data());
        EVP_EncryptFinal_ex(x, buf, &outl);
        return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 17, tag);
    });
    both_agree("get tag 0", false, [&](EVP_CIPHER_CTX* x, const EVP_CIPHER* c) {
        EVP_EncryptInit_ex(x, c, nullptr, key.data(), iv.data());
        EVP_EncryptFinal_ex(x, buf, &outl);
        return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 0, tag);
    });
    both_agree("set tag 17 on decrypt", false, [&](EVP_CIPHER_CTX* x, const EVP_CIPHER* c) {
        EVP_DecryptInit_ex(x, c, nullptr, key.data(), iv.data());
        return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, 17, tag);
    });
    both_agree("set tag on encrypt", false, [&](EVP_CIPHER_CTX* x, const EVP_CIPHER* c) {
        EVP_EncryptInit_ex(x, c, nullptr, key.data(), iv.data());
        return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, 16, tag);
    });
    both_agree("get tag on decrypt", false, [&](EVP_CIPHER_CTX* x, const EVP_CIPHER* c) {
        EVP_DecryptInit_ex(x, c, nullptr, key.data(), iv.data());
        EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, 16, tag);
        return EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_GET_TAG, 16, tag);
    });
    both_agree("aad after data", false, [&](EVP_CIPHER_CTX* x, const EVP_CIPHER* c) {
        EVP_EncryptInit_ex(x, c, nullptr, key.data(), iv.data());
        EVP_EncryptUpdate(x, buf, &outl, buf, 5);
        return EVP_EncryptUpdate(x, nullptr, &outl, buf, 5);
    });
    both_agree("data after final", false, [&](EVP_CIPHER_CTX* x, const EVP_CIPHER* c) {
        EVP_EncryptInit_ex(x, c, nullptr, key.data(), iv.data());
        EVP_EncryptFinal_ex(x, buf, &outl);
        return EVP_EncryptUpdate(x, buf, &outl, buf, 5);
    });
    both_agree("final after final", false, [&](EVP_CIPHER_CTX* x, const EVP_CIPHER* c) {
        EVP_EncryptInit_ex(x, c, nullptr, key.data(), iv.data());
        EVP_EncryptFinal_ex(x, buf, &outl);
        return EVP_EncryptFinal_ex(x, buf, &outl);
    });
    both_agree("key-only re-init does not renew the iv", false, [&](EVP_CIPHER_CTX* x, const EVP_CIPHER* c) {
        EVP_EncryptInit_ex(x, c, nullptr, key.data(), iv.data());
        EVP_EncryptFinal_ex(x, buf, &outl);
        EVP_EncryptInit_ex(x, nullptr, nullptr, key.data(), nullptr);
        return EVP_EncryptUpdate(x, buf, &outl, buf, 5);
    });
    both_agree("iv-only re-init renews", true, [&](EVP_CIPHER_CTX* x, const EVP_CIPHER* c) {
        EVP_EncryptInit_ex(x, c, nullptr, key.data(), iv.data());
        EVP_EncryptFinal_ex(x, buf, &outl);
        EVP_EncryptInit_ex(x, nullptr, nullptr, nullptr, iv.data());
        return EVP_EncryptUpdate(x, buf, &outl, buf, 5);
    });
    both_agree("decrypt final without tag", false, [&](EVP_CIPHER_CTX* x, const EVP_CIPHER* c) {
        EVP_DecryptInit_ex(x, c, nullptr, key.data(), iv.data());
        EVP_DecryptUpdate(x, buf, &outl, buf, 5);
        return EVP_DecryptFinal_ex(x, buf, &outl);
    });
    both_agree("no random iv below 96 bits", false, [&](EVP_CIPHER_CTX* x, const EVP_CIPHER* c) {
        EVP_EncryptInit_ex(x, c, nullptr, nullptr, nullptr);
        EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_IVLEN, 8, nullptr);
        EVP_EncryptInit_ex(x, nullptr, nullptr, key.data(), nullptr);
        return EVP_EncryptUpdate(x, buf, &outl, buf, 5);
    });
    both_agree("decrypt without iv", false, [&](EVP_CIPHER_CTX* x, const EVP_CIPHER* c) {
        EVP_DecryptInit_ex(x, c, nullptr, key.data(), nullptr);
        return EVP_DecryptUpdate(x, buf, &outl, buf, 5);
    });
}

TEST(GcmApi, ErrorsAreOnTheQueue) {
    CipherPtr c = hw("AES-256-GCM");
    CtxPtr x = new_ctx();
    const Bytes key = random_bytes(32), iv = random_bytes(12);
    uint8_t buf[32] = {};
    int outl = 0;
    take_errors();
    ASSERT_TRUE(EVP_EncryptInit_ex(x.get(), c.get(), nullptr, key.data(), iv.data()));
    ASSERT_TRUE(EVP_EncryptUpdate(x.get(), buf, &outl, buf, 3));
    EXPECT_FALSE(EVP_EncryptUpdate(x.get(), nullptr, &outl, buf, 3));
    EXPECT_NE(take_errors().find("aad after data"), std::string::npos);
    ASSERT_TRUE(EVP_EncryptFinal_ex(x.get(), buf, &outl));
    EXPECT_FALSE(EVP_EncryptUpdate(x.get(), buf, &outl, buf, 3));
    EXPECT_NE(take_errors().find("iv already used"), std::string::npos);
    EXPECT_LE(EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_AEAD_SET_IVLEN, 0, nullptr), 0);
    EXPECT_NE(take_errors().find("invalid iv length"), std::string::npos);
}

// A tag mismatch fails final and a tag is used once: stricter than OpenSSL
// 3.0, which keeps the previous expected tag for the next message.
TEST(GcmApi, TagMismatchAndTagReuse) {
    CipherPtr c = hw("AES-128-GCM");
    const Message m{random_bytes(16), random_bytes(12), random_bytes(7), random_bytes(40)};
    Bytes ct, tag, pt;
    ASSERT_TRUE(encrypt(c.get(), m, ct, tag));
    CtxPtr x = new_ctx();
    ASSERT_TRUE(gcm_init(x.get(), c.get(), m.key, m.iv, false));
    Bytes bad = tag;
    bad[0] ^= 1;
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_AEAD_SET_TAG, 16, bad.data()), 1);
    int outl = 0;
    ASSERT_TRUE(EVP_DecryptUpdate(x.get(), nullptr, &outl, m.aad.data(), 7));
    pt.resize(ct.size());
    ASSERT_TRUE(EVP_DecryptUpdate(x.get(), pt.data(), &outl, ct.data(), 40));
    EXPECT_FALSE(EVP_DecryptFinal_ex(x.get(), pt.data(), &outl));
    EXPECT_NE(take_errors().find("tag mismatch"), std::string::npos);
    // New IV, correct tag: fine; then the same again without a tag: refused.
    for (int round = 0; round < 2; ++round) {
        ASSERT_TRUE(EVP_DecryptInit_ex(x.get(), nullptr, nullptr, nullptr, m.iv.data()));
        if (round == 0) {
            ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_AEAD_SET_TAG, 16, tag.data()), 1);
        }
        ASSERT_TRUE(EVP_DecryptUpdate(x.get(), nullptr, &outl, m.aad.data(), 7));
        ASSERT_TRUE(EVP_DecryptUpdate(x.get(), pt.data(), &outl, ct.data(), 40));
        EXPECT_EQ(EVP_DecryptFinal_ex(x.get(), pt.data(), &outl), round == 0 ? 1 : 0);
        take_errors();
    }
}

TEST(GcmApi, GeneratedIvIsExposedAndUsable) {
    CipherPtr c = hw("AES-128-GCM");
    CtxPtr x = new_ctx();
    const Bytes key = random_bytes(16), pt = random_bytes(33);
    uint8_t got[16] = {};
    OSSL_PARAM before[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_IV, got, 16),
                           OSSL_PARAM_END};
    ASSERT_TRUE(EVP_EncryptInit_ex(x.get(), c.get(), nullptr, key.data(), nullptr));
    EXPECT_FALSE(EVP_CIPHER_CTX_get_params(x.get(), before)) << "iv reported before one exists";
    take_errors();
    Bytes ct(33);
    int outl = 0;
    ASSERT_TRUE(EVP_EncryptUpdate(x.get(), ct.data(), &outl, pt.data(), 33));
    ASSERT_TRUE(EVP_EncryptFinal_ex(x.get(), got, &outl));
    Bytes tag(16);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
    Bytes iv(12), uiv(12);
    ASSERT_TRUE(EVP_CIPHER_CTX_get_original_iv(x.get(), iv.data(), 12));
    ASSERT_TRUE(EVP_CIPHER_CTX_get_updated_iv(x.get(), uiv.data(), 12));
    EXPECT_EQ(iv, uiv);
    EXPECT_NE(iv, Bytes(12, 0));
    // The default provider decrypts with the exposed IV.
    CipherPtr d = def("AES-128-GCM");
    Bytes back;
    EXPECT_TRUE(decrypt(d.get(), Message{key, iv, {}, ct}, tag, back));
    EXPECT_EQ(back, pt);
}

TEST(GcmApi, TaglenAndIvParamsMatchDefault) {
    for (bool hwc : {true, false}) {
        CipherPtr c = hwc ? hw("AES-192-GCM") : def("AES-192-GCM");
        CtxPtr x = new_ctx();
        const Bytes key(24, 7), iv(20, 9), tag(16, 1);
        ASSERT_TRUE(EVP_DecryptInit_ex(x.get(), c.get(), nullptr, nullptr, nullptr));
        EXPECT_EQ(EVP_CIPHER_CTX_get_tag_length(x.get()), 16);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_AEAD_SET_IVLEN, 20, nullptr), 1);
        EXPECT_EQ(EVP_CIPHER_CTX_get_iv_length(x.get()), 20);
        ASSERT_TRUE(EVP_DecryptInit_ex(x.get(), nullptr, nullptr, key.data(), iv.data()));
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_AEAD_SET_TAG, 5,
                                      const_cast<uint8_t*>(tag.data())), 1);
        EXPECT_EQ(EVP_CIPHER_CTX_get_tag_length(x.get()), 5);
        Bytes got(20);
        ASSERT_TRUE(EVP_CIPHER_CTX_get_original_iv(x.get(), got.data(), 20));
        EXPECT_EQ(got, iv);
        // An octet pointer (legacy EVP_CIPHER_CTX_iv()): the default provider
        // refuses IVs longer than the 16 bytes that call announces; hwcipher
        // answers.
        if (!hwc) continue;
        const void* ptr = nullptr;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_ptr(OSSL_CIPHER_PARAM_UPDATED_IV,
                                                         const_cast<void**>(&ptr), 0),
                          OSSL_PARAM_END};
        ASSERT_TRUE(EVP_CIPHER_CTX_get_params(x.get(), p)) << take_errors();
        ASSERT_NE(ptr, nullptr);
        EXPECT_EQ(Bytes(static_cast<const uint8_t*>(ptr), static_cast<const uint8_t*>(ptr) + 20), iv);
    }
}

TEST(GcmApi, EvpCipherByteCounts) {
    const Bytes key = random_bytes(16), iv = random_bytes(12), data = random_bytes(64);
    int res[2][5];
    Bytes out[2], tags[2];
    for (int k = 0; k < 2; ++k) {
        CipherPtr c = k == 0 ? hw("AES-128-GCM") : def("AES-128-GCM");
        CtxPtr x = new_ctx();
        ASSERT_TRUE(EVP_EncryptInit_ex(x.get(), c.get(), nullptr, key.data(), iv.data()));
        out[k].assign(64, 0);
        res[k][0] = EVP_Cipher(x.get(), nullptr, data.data(), 20);
        res[k][1] = EVP_Cipher(x.get(), out[k].data(), data.data(), 33);
        res[k][2] = EVP_Cipher(x.get(), out[k].data() + 33, data.data() + 33, 31);
        res[k][3] = EVP_Cipher(x.get(), nullptr, nullptr, 0);
        tags[k].assign(16, 0);
        EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_AEAD_GET_TAG, 16, tags[k].data());
        res[k][4] = EVP_Cipher(x.get(), out[k].data(), data.data(), 3);
        take_errors();
    }
    EXPECT_EQ(res[0][0], 20);
    EXPECT_EQ(res[0][1], 33);
    EXPECT_EQ(res[0][3], 0);
    EXPECT_EQ(res[0][4], -1);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(res[0][i], res[1][i]) << "call " << i;
    EXPECT_EQ(out[0], out[1]);
    EXPECT_EQ(tags[0], tags[1]);
}

TEST(GcmApi, CopiedContextContinuesIdentically) {
    CipherPtr c = hw("SM4-GCM");
    const Message m{random_bytes(16), random_bytes(12), random_bytes(21), random_bytes(77)};
    CtxPtr a = new_ctx(), b = new_ctx();
    ASSERT_TRUE(gcm_init(a.get(), c.get(), m.key, m.iv, true));
    int outl = 0;
    ASSERT_TRUE(EVP_EncryptUpdate(a.get(), nullptr, &outl, m.aad.data(), 21));
    Bytes ca(77), cb(77);
    ASSERT_TRUE(EVP_EncryptUpdate(a.get(), ca.data(), &outl, m.in.data(), 19));
    ASSERT_TRUE(EVP_CIPHER_CTX_copy(b.get(), a.get())) << take_errors();
    cb = ca;
    Bytes ta(16), tb(16);
    for (auto& [x, out, tag] : {std::tie(a, ca, ta), std::tie(b, cb, tb)}) {
        ASSERT_TRUE(EVP_EncryptUpdate(x.get(), out.data() + 19, &outl, m.in.data() + 19, 58));
        ASSERT_TRUE(EVP_EncryptFinal_ex(x.get(), out.data(), &outl));
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
    }
    EXPECT_EQ(ca, cb);
    EXPECT_EQ(ta, tb);
    Bytes one, onetag;
    ASSERT_TRUE(encrypt(c.get(), m, one, onetag));
    EXPECT_EQ(ca, one);
    EXPECT_EQ(ta, onetag);
}

} // namespace
} // namespace hwc::test
