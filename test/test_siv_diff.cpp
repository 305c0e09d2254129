// SPDX-License-Identifier: Apache-2.0
// AES-SIV differential and API tests: hwcipher against OpenSSL's default
// AES-SIV and libgcrypt's GCRY_CIPHER_MODE_SIV over random keys, 0..4 AAD
// components of 0..1100 bytes and messages of 0..700 bytes (OpenSSL 3.0
// cannot encrypt an empty message, so those compare with libgcrypt only);
// then the EVP semantics: in-place, "speed", EVP_Cipher, dup, errors.
#include <gtest/gtest.h>

#include <gcrypt.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <set>
#include <string>
#include <vector>

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

// Encrypts; returns tag || ciphertext (empty on failure).
Bytes seal(const EVP_CIPHER* c, const Bytes& key, const std::vector<Bytes>& aad, const Bytes& pt) {
    Ctx x;
    int outl = 0, fl = 0;
    Bytes out(pt.size() + 16);
    if (EVP_EncryptInit_ex2(x.p, c, key.data(), nullptr, nullptr) != 1) return {};
    // An empty component still needs a non-NULL pointer: OpenSSL 3.0's SIV
    // takes in == NULL as "finish" (hwcipher takes it as an empty component).
    static const uint8_t dummy = 0;
    for (const Bytes& a : aad)
        if (EVP_EncryptUpdate(x.p, nullptr, &outl, a.empty() ? &dummy : a.data(),
                              static_cast<int>(a.size())) != 1)
            return {};
    if (EVP_EncryptUpdate(x.p, out.data() + 16, &outl, pt.data(), static_cast<int>(pt.size())) != 1 ||
        EVP_EncryptFinal_ex(x.p, out.data() + 16 + outl, &fl) != 1 ||
        EVP_CIPHER_CTX_ctrl(x.p, EVP_CTRL_AEAD_GET_TAG, 16, out.data()) != 1)
        return {};
    return out;
}

// Decrypts tag || ciphertext; false on failure.
bool open(const EVP_CIPHER* c, const Bytes& key, const std::vector<Bytes>& aad, const Bytes& in, Bytes& pt) {
    Ctx x;
    int outl = 0, fl = 0;
    // One spare byte: an empty message still needs a non-NULL output pointer,
    // since out == NULL means AAD.
    pt.assign(in.size() - 16 + 1, 0);
    Bytes tag(in.begin(), in.begin() + 16);
    return EVP_DecryptInit_ex2(x.p, c, key.data(), nullptr, nullptr) == 1 &&
           EVP_CIPHER_CTX_ctrl(x.p, EVP_CTRL_AEAD_SET_TAG, 16, tag.data()) == 1 &&
           [&] {
               static const uint8_t dummy = 0;
               for (const Bytes& a : aad)
                   if (EVP_DecryptUpdate(x.p, nullptr, &outl, a.empty() ? &dummy : a.data(),
                                         static_cast<int>(a.size())) != 1)
                       return false;
               return true;
           }() &&
           EVP_DecryptUpdate(x.p, pt.data(), &outl, in.data() + 16, static_cast<int>(in.size() - 16)) == 1 &&
           EVP_DecryptFinal_ex(x.p, pt.data() + outl, &fl) == 1 && (pt.pop_back(), true);
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

// libgcrypt SIV: each gcry_cipher_authenticate call is one S2V component.
Bytes gcrypt_seal(const Bytes& key, const std::vector<Bytes>& aad, const Bytes& pt) {
    gcrypt_init();
    const int algo = key.size() == 32 ? GCRY_CIPHER_AES128 : key.size() == 48 ? GCRY_CIPHER_AES192 : GCRY_CIPHER_AES256;
    gcry_cipher_hd_t h = nullptr;
    if (gcry_cipher_open(&h, algo, GCRY_CIPHER_MODE_SIV, 0) != 0) return {};
    Bytes out(pt.size() + 16);
    bool ok = gcry_cipher_setkey(h, key.data(), key.size()) == 0;
    for (const Bytes& a : aad) ok = ok && gcry_cipher_authenticate(h, a.data(), a.size()) == 0;
    ok = ok && gcry_cipher_encrypt(h, out.data() + 16, pt.size(), pt.data(), pt.size()) == 0 &&
         gcry_cipher_gettag(h, out.data(), 16) == 0;
    gcry_cipher_close(h);
    return ok ? out : Bytes{};
}

TEST(SivDiff, AgainstDefaultAndLibgcrypt) {
    size_t vs_default = 0, vs_gcrypt = 0;
    for (int bits : {128, 192, 256}) {
        const std::string name = "AES-" + std::to_string(bits) + "-SIV";
        vec::Cipher hw(fetch_hwcipher, name), def(fetch_default, name);
        ASSERT_TRUE(hw && def);
        for (int i = 0; i < 40; ++i) {
            const Bytes key = random_bytes(static_cast<size_t>(bits) / 4);
            std::vector<Bytes> aad(random_below(5));
            for (Bytes& a : aad) a = random_bytes(random_below(4) == 0 ? 1024 + random_below(77) : random_below(40));
            const size_t len = i < 3 ? static_cast<size_t>(i) : i < 6 ? 13 + i : random_below(701);
            const Bytes pt = random_bytes(len);
            SCOPED_TRACE(name + " len " + std::to_string(len) + " aads " + std::to_string(aad.size()) +
                         " seed " + std::to_string(test_seed()));
            const Bytes got = seal(hw.c, key, aad, pt);
            ASSERT_EQ(got.size(), len + 16) << take_errors();
            if (len != 0) { // OpenSSL 3.0's AES-SIV fails an empty message
                EXPECT_EQ(to_hex(got), to_hex(seal(def.c, key, aad, pt)));
                ++vs_default;
                Bytes back;
                EXPECT_TRUE(open(def.c, key, aad, got, back)) << "default rejects our output";
                EXPECT_EQ(back, pt);
            }
            const Bytes g = gcrypt_seal(key, aad, pt);
            if (!g.empty()) {
                EXPECT_EQ(to_hex(got), to_hex(g));
                ++vs_gcrypt;
            }
            Bytes back;
            ASSERT_TRUE(open(hw.c, key, aad, got, back)) << take_errors();
            EXPECT_EQ(back, pt);
            // Any flipped bit (tag or ciphertext) or a changed AAD list fails.
            Bytes bad = got;
            bad[random_below(bad.size())] ^= static_cast<uint8_t>(1u << random_below(8));
            EXPECT_FALSE(open(hw.c, key, aad, bad, back));
            std::vector<Bytes> more = aad;
            more.push_back({});
            EXPECT_FALSE(open(hw.c, key, more, got, back)) << "an extra empty component must change S2V";
            take_errors();
        }
    }
    EXPECT_GE(vs_default, 110u);
    EXPECT_GE(vs_gcrypt, 110u) << "libgcrypt SIV unavailable?";
}

std::set<std::string> keys(const OSSL_PARAM* p) {
    std::set<std::string> s;
    for (; p != nullptr && p->key != nullptr; ++p) s.insert(p->key);
    return s;
}

TEST(SivApi, ParamsFlagsAndListsMatchDefault) {
    for (const char* name : {"AES-128-SIV", "AES-192-SIV", "AES-256-SIV"}) {
        vec::Cipher hw(fetch_hwcipher, name), def(fetch_default, name);
        ASSERT_TRUE(hw && def);
        EXPECT_EQ(EVP_CIPHER_get_flags(hw.c), EVP_CIPHER_get_flags(def.c));
        EXPECT_EQ(EVP_CIPHER_get_mode(hw.c), EVP_CIPHER_get_mode(def.c));
        EXPECT_EQ(EVP_CIPHER_get_key_length(hw.c), EVP_CIPHER_get_key_length(def.c));
        EXPECT_EQ(EVP_CIPHER_get_iv_length(hw.c), 0);
        EXPECT_EQ(EVP_CIPHER_get_block_size(hw.c), 1);
        EXPECT_EQ(keys(EVP_CIPHER_gettable_ctx_params(hw.c)), keys(EVP_CIPHER_gettable_ctx_params(def.c)));
        EXPECT_EQ(keys(EVP_CIPHER_settable_ctx_params(hw.c)), keys(EVP_CIPHER_settable_ctx_params(def.c)));
    }
}

TEST(SivApi, InPlaceSpeedCipherDupAndErrors) {
    vec::Cipher c(fetch_hwcipher, "AES-128-SIV");
    ASSERT_TRUE(c);
    const Bytes key = random_bytes(32), aad = random_bytes(21), pt = random_bytes(77);
    const Bytes want = seal(c.c, key, {aad}, pt);
    ASSERT_EQ(want.size(), 93u);
    int outl = 0;

    {   // In place, and a dup taken after the AAD finishes the same message.
        Ctx x;
        Bytes buf = pt, tag(16);
        ASSERT_EQ(EVP_EncryptInit_ex2(x.p, c.c, key.data(), nullptr, nullptr), 1);
        ASSERT_EQ(EVP_EncryptUpdate(x.p, nullptr, &outl, aad.data(), 21), 1);
        EVP_CIPHER_CTX* d = EVP_CIPHER_CTX_new(); // EVP_CIPHER_CTX_dup is 3.1+
        ASSERT_EQ(EVP_CIPHER_CTX_copy(d, x.p), 1);
        ASSERT_EQ(EVP_EncryptUpdate(x.p, buf.data(), &outl, buf.data(), 77), 1);
        ASSERT_EQ(EVP_EncryptFinal_ex(x.p, nullptr, &outl), 1);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.p, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
        EXPECT_EQ(to_hex(tag) + to_hex(buf), to_hex(want));
        Bytes o(77);
        ASSERT_EQ(EVP_EncryptUpdate(d, o.data(), &outl, pt.data(), 77), 1);
        ASSERT_EQ(EVP_EncryptFinal_ex(d, nullptr, &outl), 1);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(d, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
        EXPECT_EQ(to_hex(tag) + to_hex(o), to_hex(want));
        EVP_CIPHER_CTX_free(d);
        // Second data update, AAD after data, tag set on encrypt, 12-byte tag: refused.
        EXPECT_EQ(EVP_EncryptUpdate(x.p, buf.data(), &outl, pt.data(), 77), 0);
        EXPECT_EQ(EVP_EncryptUpdate(x.p, nullptr, &outl, aad.data(), 21), 0);
        EXPECT_EQ(EVP_CIPHER_CTX_ctrl(x.p, EVP_CTRL_AEAD_GET_TAG, 12, tag.data()), 0);
        EXPECT_EQ(EVP_CIPHER_CTX_ctrl(x.p, EVP_CTRL_AEAD_SET_TAG, 16, tag.data()), 0);
        const std::string errs = take_errors();
        for (const char* e : {"data already processed", "aad after data", "invalid tag length", "tag not needed"})
            EXPECT_NE(errs.find(e), std::string::npos) << e << " in " << errs;
        // A key-less re-init starts a new message with the same key.
        ASSERT_EQ(EVP_EncryptInit_ex2(x.p, nullptr, nullptr, nullptr, nullptr), 1);
        ASSERT_EQ(EVP_EncryptUpdate(x.p, nullptr, &outl, aad.data(), 21), 1);
        ASSERT_EQ(EVP_EncryptUpdate(x.p, buf.data(), &outl, pt.data(), 77), 1);
        ASSERT_EQ(EVP_EncryptFinal_ex(x.p, nullptr, &outl), 1);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.p, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
        EXPECT_EQ(to_hex(tag) + to_hex(buf), to_hex(want));
    }
    {   // "speed": every data update is the same message again.
        Ctx x;
        unsigned int one = 1;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_SPEED, &one), OSSL_PARAM_construct_end()};
        ASSERT_EQ(EVP_EncryptInit_ex2(x.p, c.c, key.data(), nullptr, p), 1);
        ASSERT_EQ(EVP_EncryptUpdate(x.p, nullptr, &outl, aad.data(), 21), 1);
        Bytes o(77), tag(16);
        for (int i = 0; i < 3; ++i) {
            ASSERT_EQ(EVP_EncryptUpdate(x.p, o.data(), &outl, pt.data(), 77), 1);
            ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.p, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
            EXPECT_EQ(to_hex(tag) + to_hex(o), to_hex(want));
        }
    }
    {   // EVP_Cipher: byte counts back for AAD and data, 0 for the final call.
        Ctx x;
        Bytes o(77), tag(16);
        ASSERT_EQ(EVP_EncryptInit_ex2(x.p, c.c, key.data(), nullptr, nullptr), 1);
        EXPECT_EQ(EVP_Cipher(x.p, nullptr, aad.data(), 21), 21);
        EXPECT_EQ(EVP_Cipher(x.p, o.data(), pt.data(), 77), 77);
        EXPECT_EQ(EVP_Cipher(x.p, nullptr, nullptr, 0), 0);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.p, EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
        EXPECT_EQ(to_hex(tag) + to_hex(o), to_hex(want));
    }
    {   // Decrypt: no tag, bad tag (output wiped, final fails), wrong key length.
        Ctx x;
        Bytes o(77, 0x55);
        ASSERT_EQ(EVP_DecryptInit_ex2(x.p, c.c, key.data(), nullptr, nullptr), 1);
        EXPECT_EQ(EVP_DecryptUpdate(x.p, o.data(), &outl, want.data() + 16, 77), 0);
        EXPECT_NE(take_errors().find("tag not set"), std::string::npos);
        Bytes bad(want.begin(), want.begin() + 16);
        bad[5] ^= 4;
        ASSERT_EQ(EVP_DecryptInit_ex2(x.p, nullptr, nullptr, nullptr, nullptr), 1);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.p, EVP_CTRL_AEAD_SET_TAG, 16, bad.data()), 1);
        ASSERT_EQ(EVP_DecryptUpdate(x.p, nullptr, &outl, aad.data(), 21), 1);
        EXPECT_EQ(EVP_DecryptUpdate(x.p, o.data(), &outl, want.data() + 16, 77), 0);
        EXPECT_EQ(o, Bytes(77, 0)) << "unauthenticated plaintext released";
        EXPECT_EQ(EVP_DecryptFinal_ex(x.p, o.data(), &outl), 0);
        EXPECT_NE(take_errors().find("tag mismatch"), std::string::npos);
        EXPECT_EQ(EVP_CIPHER_CTX_set_key_length(x.p, 48), 0);
        EXPECT_EQ(EVP_CIPHER_CTX_ctrl(x.p, EVP_CTRL_AEAD_SET_IVLEN, 12, nullptr), 0);
        EXPECT_FALSE(take_errors().empty());
        // An empty message with the tag over AAD only, decrypted by final alone.
        const Bytes empty = seal(c.c, key, {aad}, {});
        ASSERT_EQ(empty.size(), 16u);
        ASSERT_EQ(EVP_DecryptInit_ex2(x.p, nullptr, nullptr, nullptr, nullptr), 1);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.p, EVP_CTRL_AEAD_SET_TAG, 16, const_cast<uint8_t*>(empty.data())), 1);
        ASSERT_EQ(EVP_DecryptUpdate(x.p, nullptr, &outl, aad.data(), 21), 1);
        EXPECT_EQ(EVP_DecryptFinal_ex(x.p, o.data(), &outl), 1) << take_errors();
    }
}

} // namespace
} // namespace hwc::test
