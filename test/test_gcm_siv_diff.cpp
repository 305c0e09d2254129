// SPDX-License-Identifier: Apache-2.0
// AES-GCM-SIV differential and API tests. Debian's OpenSSL 3.0 has no
// GCM-SIV, so the oracle is libgcrypt's GCRY_CIPHER_MODE_GCM_SIV: random
// keys and nonces (AES-128/256: libgcrypt follows RFC 8452 and refuses
// 192-bit keys, which pyca's vectors cover), AAD of 0..1100 bytes (fed to hwcipher in random pieces),
// messages of 0..700 bytes, both directions. Then the EVP semantics: nonce
// and tag lengths, one data update, in-place, "speed", EVP_Cipher, errors.
#include <gtest/gtest.h>

#include <gcrypt.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <set>
#include <string>

#include "test/support/ossl_env.h"
#include "test/support/vectors.h"

namespace hwc::test {
namespace {

struct Ctx {
    EVP_CIPHER_CTX* p = EVP_CIPHER_CTX_new();
    ~Ctx() { EVP_CIPHER_CTX_free(p); }
    Ctx() = default;
    Ctx(const Ctx&) = delete;
    Ctx& operator=(const Ctx&) = delete;
};

const uint8_t kDummy = 0; // a non-NULL pointer for empty inputs (out == NULL means AAD)

// Feeds AAD in random pieces.
bool feed_aad(EVP_CIPHER_CTX* x, const Bytes& aad) {
    size_t off = 0;
    int outl = 0;
    do {
        const size_t n = std::min(aad.size() - off, random_below(300));
        if (EVP_CipherUpdate(x, nullptr, &outl, n ? aad.data() + off : &kDummy, static_cast<int>(n)) != 1)
            return false;
        off += n;
    } while (off < aad.size());
    return true;
}

// tag || ciphertext, empty on failure.
Bytes seal(const EVP_CIPHER* c, const Bytes& key, const Bytes& nonce, const Bytes& aad, const Bytes& pt) {
    Ctx x;
    int outl = 0, fl = 0;
    Bytes out(pt.size() + 17);
    const bool ok = EVP_EncryptInit_ex2(x.p, c, key.data(), nonce.data(), nullptr) == 1 && feed_aad(x.p, aad) &&
                    EVP_EncryptUpdate(x.p, out.data() + 16, &outl, pt.empty() ? &kDummy : pt.data(),
                                      static_cast<int>(pt.size())) == 1 &&
                    EVP_EncryptFinal_ex(x.p, out.data() + 16 + outl, &fl) == 1 &&
                    EVP_CIPHER_CTX_ctrl(x.p, EVP_CTRL_AEAD_GET_TAG, 16, out.data()) == 1;
    if (!ok) return {};
    out.pop_back();
    return out;
}

bool open(const EVP_CIPHER* c, const Bytes& key, const Bytes& nonce, const Bytes& aad, const Bytes& in, Bytes& pt) {
    Ctx x;
    int outl = 0, fl = 0;
    pt.assign(in.size() - 16 + 1, 0);
    Bytes tag(in.begin(), in.begin() + 16);
    const bool ok = EVP_DecryptInit_ex2(x.p, c, key.data(), nonce.data(), nullptr) == 1 &&
                    EVP_CIPHER_CTX_ctrl(x.p, EVP_CTRL_AEAD_SET_TAG, 16, tag.data()) == 1 && feed_aad(x.p, aad) &&
                    EVP_DecryptUpdate(x.p, pt.data(), &outl, in.size() > 16 ? in.data() + 16 : &kDummy,
                                      static_cast<int>(in.size() - 16)) == 1 &&
                    EVP_DecryptFinal_ex(x.p, pt.data() + outl, &fl) == 1;
    pt.pop_back();
    return ok;
}

void gcrypt_init() {
    static const bool done = [] {
        gcry_check_version(nullptr);
        gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
        gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
        return true;
    }();
    (void)done;
}

int gcry_algo(size_t keylen) {
    return keylen == 16 ? GCRY_CIPHER_AES128 : GCRY_CIPHER_AES256;
}

Bytes gcrypt_seal(const Bytes& key, const Bytes& nonce, const Bytes& aad, const Bytes& pt) {
    gcrypt_init();
    gcry_cipher_hd_t h = nullptr;
    if (gcry_cipher_open(&h, gcry_algo(key.size()), GCRY_CIPHER_MODE_GCM_SIV, 0) != 0) return {};
    Bytes out(pt.size() + 16);
    const bool ok = gcry_cipher_setkey(h, key.data(), key.size()) == 0 &&
                    gcry_cipher_setiv(h, nonce.data(), nonce.size()) == 0 &&
                    (aad.empty() || gcry_cipher_authenticate(h, aad.data(), aad.size()) == 0) &&
                    gcry_cipher_final(h) == 0 &&
                    gcry_cipher_encrypt(h, out.data() + 16, pt.size(), pt.empty() ? &kDummy : pt.data(),
                                        pt.size()) == 0 &&
                    gcry_cipher_gettag(h, out.data(), 16) == 0;
    gcry_cipher_close(h);
    return ok ? out : Bytes{};
}

bool gcrypt_open(const Bytes& key, const Bytes& nonce, const Bytes& aad, const Bytes& in, Bytes& pt) {
    gcrypt_init();
    gcry_cipher_hd_t h = nullptr;
    if (gcry_cipher_open(&h, gcry_algo(key.size()), GCRY_CIPHER_MODE_GCM_SIV, 0) != 0) return false;
    pt.assign(in.size() - 16 + 1, 0);
    const bool ok = gcry_cipher_setkey(h, key.data(), key.size()) == 0 &&
                    gcry_cipher_setiv(h, nonce.data(), nonce.size()) == 0 &&
                    // libgcrypt wants the AAD before the expected tag.
                    (aad.empty() || gcry_cipher_authenticate(h, aad.data(), aad.size()) == 0) &&
                    gcry_cipher_set_decryption_tag(h, in.data(), 16) == 0 && gcry_cipher_final(h) == 0 &&
                    gcry_cipher_decrypt(h, pt.data(), in.size() - 16, in.size() > 16 ? in.data() + 16 : &kDummy,
                                        in.size() - 16) == 0;
    gcry_cipher_close(h);
    pt.pop_back();
    return ok;
}

TEST(GcmSivDiff, AgainstLibgcrypt) {
    size_t compared = 0;
    for (size_t keylen : {16u, 32u}) {
        const std::string name = "AES-" + std::to_string(keylen * 8) + "-GCM-SIV";
        vec::Cipher c(fetch_hwcipher, name);
        ASSERT_TRUE(c);
        for (int i = 0; i < 60; ++i) {
            const Bytes key = random_bytes(keylen), nonce = random_bytes(12);
            const Bytes aad = random_bytes(random_below(4) == 0 ? 1024 + random_below(77) : random_below(40));
            const size_t len = i < 3 ? static_cast<size_t>(i) : i < 6 ? 13 + i : random_below(701);
            const Bytes pt = random_bytes(len);
            SCOPED_TRACE(name + " len " + std::to_string(len) + " aad " + std::to_string(aad.size()) + " seed " +
                         std::to_string(test_seed()));
            const Bytes got = seal(c.c, key, nonce, aad, pt);
            ASSERT_EQ(got.size(), len + 16) << take_errors();
            const Bytes want = gcrypt_seal(key, nonce, aad, pt);
            ASSERT_EQ(want.size(), len + 16) << "libgcrypt failed";
            EXPECT_EQ(to_hex(got), to_hex(want));
            Bytes back;
            EXPECT_TRUE(gcrypt_open(key, nonce, aad, got, back));
            EXPECT_EQ(back, pt);
            ASSERT_TRUE(open(c.c, key, nonce, aad, want, back)) << take_errors();
            EXPECT_EQ(back, pt);
            Bytes bad = got;
            bad[random_below(bad.size())] ^= static_cast<uint8_t>(1u << random_below(8));
            EXPECT_FALSE(open(c.c, key, nonce, aad, bad, back));
            Bytes other = nonce;
            other[random_below(12)] ^= 1;
            EXPECT_FALSE(open(c.c, key, other, aad, got, back));
            take_errors();
            ++compared;
        }
    }
    EXPECT_EQ(compared, 120u);
}

std::set<std::string> keys(const OSSL_PARAM* p) {
    std::set<std::string> s;
    for (; p != nullptr && p->key != nullptr; ++p) s.insert(p->key);
    return s;
}

TEST(GcmSivApi, AlgorithmAndParameterLists) {
    for (const char* name : {"AES-128-GCM-SIV", "AES-192-GCM-SIV", "AES-256-GCM-SIV"}) {
        vec::Cipher c(fetch_hwcipher, name);
        ASSERT_TRUE(c);
        EXPECT_EQ(EVP_CIPHER_get_mode(c.c), 0x10005); // EVP_CIPH_GCM_SIV_MODE (3.2+)
        EXPECT_EQ(EVP_CIPHER_get_iv_length(c.c), 12);
        EXPECT_EQ(EVP_CIPHER_get_block_size(c.c), 1);
        EXPECT_NE(EVP_CIPHER_get_flags(c.c) & EVP_CIPH_FLAG_AEAD_CIPHER, 0u);
        EXPECT_EQ(keys(EVP_CIPHER_gettable_ctx_params(c.c)),
                  (std::set<std::string>{"keylen", "ivlen", "taglen", "tag"}));
        EXPECT_EQ(keys(EVP_CIPHER_settable_ctx_params(c.c)), (std::set<std::string>{"keylen", "speed", "tag"}));
    }
}

TEST(GcmSivApi, SemanticsAndErrors) {
    vec::Cipher c(fetch_hwcipher, "AES-256-GCM-SIV");
    ASSERT_TRUE(c);
    const Bytes key = random_bytes(32), nonce = random_bytes(12), aad = random_bytes(33), pt = random_bytes(50);
    const Bytes want = seal(c.c, key, nonce, aad, pt);
    ASSERT_EQ(want.size(), 66u);
    int outl = 0;
    Ctx x;
    Bytes buf = pt, tag(16);
    // Nonce of another length, no nonce, and an ivlen change are refused.
    const Bytes n16 = random_bytes(16);
    EXPECT_EQ(EVP_EncryptInit_ex2(x.p, c.c, key.data(), nullptr, nullptr), 1);
    EXPECT_EQ(EVP_EncryptUpdate(x.p, buf.data(), &outl, pt.data(), 50), 0);
    EXPECT_NE(take_errors().find("no iv set"), std::string::npos);
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(x.p, EVP_CTRL_AEAD_SET_IVLEN, 16, nullptr), 0);
    EXPECT_FALSE(take_errors().empty());
    // In place, nonce given after the key (IV-only re-init).
    ASSERT_EQ(EVP_EncryptInit_ex2(x.p, nullptr, nullptr, nonce.data(), nullptr), 1);
    ASSERT_EQ(EVP_EncryptUpdate(x.p, nullptr, &outl, aad.data(), 10), 1);
    ASSERT_EQ(EVP_EncryptUpdate(x.p, nullptr, &outl, aad.data() + 10, 23), 1);
    ASSERT_EQ(EVP_EncryptUpdate(x.p, buf.data(), &outl, buf.data(), 50), 1);
    ASSERT_EQ(EVP_EncryptFinal_ex(x.p, nullptr, &outl), 1);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.p, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
    EXPECT_EQ(to_hex(tag) + to_hex(buf), to_hex(want));
    EXPECT_EQ(EVP_EncryptUpdate(x.p, buf.data(), &outl, pt.data(), 50), 0);
    EXPECT_EQ(EVP_EncryptUpdate(x.p, nullptr, &outl, aad.data(), 3), 0);
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(x.p, EVP_CTRL_AEAD_GET_TAG, 8, tag.data()), 0);
    EXPECT_FALSE(take_errors().empty());
    // The nonce first and the key later (key-only re-init) gives the same.
    Ctx y;
    ASSERT_EQ(EVP_EncryptInit_ex2(y.p, c.c, nullptr, nonce.data(), nullptr), 1);
    ASSERT_EQ(EVP_EncryptInit_ex2(y.p, nullptr, key.data(), nullptr, nullptr), 1);
    EXPECT_EQ(EVP_Cipher(y.p, nullptr, aad.data(), 33), 33);
    EXPECT_EQ(EVP_Cipher(y.p, buf.data(), pt.data(), 50), 50);
    EXPECT_EQ(EVP_Cipher(y.p, nullptr, nullptr, 0), 0);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(y.p, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
    EXPECT_EQ(to_hex(tag) + to_hex(buf), to_hex(want));
    EXPECT_EQ(EVP_EncryptInit_ex2(y.p, nullptr, nullptr, n16.data(), nullptr), 1) << "EVP passes ivlen 12";
    // Decrypt failure wipes the output and final fails too.
    Ctx z;
    Bytes bad(want.begin(), want.begin() + 16), out(50, 0x77);
    bad[15] ^= 0x80;
    ASSERT_EQ(EVP_DecryptInit_ex2(z.p, c.c, key.data(), nonce.data(), nullptr), 1);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(z.p, EVP_CTRL_AEAD_SET_TAG, 16, bad.data()), 1);
    EXPECT_EQ(EVP_CIPHER_CTX_ctrl(z.p, EVP_CTRL_AEAD_SET_TAG, 15, bad.data()), 0);
    ASSERT_EQ(EVP_DecryptUpdate(z.p, nullptr, &outl, aad.data(), 33), 1);
    EXPECT_EQ(EVP_DecryptUpdate(z.p, out.data(), &outl, want.data() + 16, 50), 0);
    EXPECT_EQ(out, Bytes(50, 0));
    EXPECT_EQ(EVP_DecryptFinal_ex(z.p, out.data(), &outl), 0);
    EXPECT_NE(take_errors().find("tag mismatch"), std::string::npos);
    // "speed": repeated data updates, each the same message.
    unsigned int one = 1;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_SPEED, &one), OSSL_PARAM_construct_end()};
    ASSERT_EQ(EVP_EncryptInit_ex2(z.p, nullptr, nullptr, nonce.data(), p), 1);
    ASSERT_EQ(EVP_EncryptUpdate(z.p, nullptr, &outl, aad.data(), 33), 1);
    for (int i = 0; i < 3; ++i) {
        ASSERT_EQ(EVP_EncryptUpdate(z.p, buf.data(), &outl, pt.data(), 50), 1);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(z.p, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
        EXPECT_EQ(to_hex(tag) + to_hex(buf), to_hex(want));
    }
}

} // namespace
} // namespace hwc::test
