// SPDX-License-Identifier: Apache-2.0
// Where applications depend on the default provider's behaviour (issue #15,
// items 1-5): the calls they make must give them what the default provider
// gives, and a refused step must never end in a successful message.
//   SIV/GCM-SIV  EVP_CTRL_AEAD_SET_TAG(16, NULL) before an encryption works
//   CCM          a refused tag fails the final call too; refused AAD fails
//                the message (a deliberate difference: the default provider
//                goes on without the AAD)
//   XTS          a refused key-less re-init does not switch the direction
//   no IV        CBC/CTS/CFB/OFB/CTR use the zero IV, as the default
//                provider does; "strict-iv" (config) or HWCIPHER_STRICT_IV
//                makes hwcipher refuse instead
#include <gtest/gtest.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <string>

#include <unistd.h>

#include "test/support/ossl_env.h"

namespace {

using namespace hwc::test;

using CtxPtr = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;
using CipherPtr = std::unique_ptr<EVP_CIPHER, decltype(&EVP_CIPHER_free)>;
CtxPtr new_ctx() { return CtxPtr(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free); }
CipherPtr hw(const std::string& name) { return CipherPtr(fetch_hwcipher(name), &EVP_CIPHER_free); }
CipherPtr dflt(const std::string& name) { return CipherPtr(fetch_default(name), &EVP_CIPHER_free); }

// ---- 1. SIV and GCM-SIV: the tag length on encrypt ---------------------------

// One SIV-like encryption with OpenSSL's evp_test call order: cipher, then
// EVP_CTRL_AEAD_SET_TAG(16, NULL) (before or after the key), AAD, data,
// final, tag. Returns ciphertext || tag, or "" when a call fails.
std::string siv_encrypt(const EVP_CIPHER* c, bool tag_ctrl, bool ctrl_before_key,
                        const Bytes& key, const Bytes& nonce, const Bytes& aad, const Bytes& msg) {
    CtxPtr ctx = new_ctx();
    const uint8_t* iv = nonce.empty() ? nullptr : nonce.data();
    if (EVP_CipherInit_ex(ctx.get(), c, nullptr, nullptr, nullptr, 1) != 1) return "";
    if (tag_ctrl && ctrl_before_key &&
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, nullptr) != 1)
        return "";
    if (EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, key.data(), iv, 1) != 1) return "";
    if (tag_ctrl && !ctrl_before_key &&
        EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, nullptr) != 1)
        return "";
    int outl = 0;
    if (EVP_CipherUpdate(ctx.get(), nullptr, &outl, aad.data(), static_cast<int>(aad.size())) != 1)
        return "";
    Bytes out(msg.size() + 16);
    if (EVP_CipherUpdate(ctx.get(), out.data(), &outl, msg.data(), static_cast<int>(msg.size())) != 1)
        return "";
    int fl = 0;
    if (EVP_CipherFinal_ex(ctx.get(), out.data() + outl, &fl) != 1) return "";
    Bytes tag(16);
    if (EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()) != 1) return "";
    out.resize(static_cast<size_t>(outl + fl));
    return to_hex(out) + to_hex(tag);
}

TEST(DefaultParity, SivAcceptsTagLengthOnEncrypt) {
    const Bytes aad = random_bytes(20), msg = random_bytes(45);
    for (const char* name : {"AES-128-SIV", "AES-256-SIV", "AES-128-GCM-SIV", "AES-256-GCM-SIV"}) {
        CipherPtr c = hw(name);
        ASSERT_TRUE(c) << name;
        const Bytes key = random_bytes(static_cast<size_t>(EVP_CIPHER_get_key_length(c.get())));
        const Bytes nonce = random_bytes(static_cast<size_t>(EVP_CIPHER_get_iv_length(c.get())));
        const std::string plain = siv_encrypt(c.get(), false, false, key, nonce, aad, msg);
        ASSERT_FALSE(plain.empty()) << name << take_errors();
        for (bool before : {true, false}) {
            EXPECT_EQ(siv_encrypt(c.get(), true, before, key, nonce, aad, msg), plain)
                << name << (before ? " (ctrl before the key) " : " (ctrl after the key) ")
                << take_errors();
        }
        // The default provider (AES-SIV in 3.0; AES-GCM-SIV from 3.2) gives
        // the same bytes with the same calls.
        if (CipherPtr d = dflt(name)) {
            EXPECT_EQ(siv_encrypt(d.get(), true, true, key, nonce, aad, msg), plain) << name;
        }
        take_errors();
        // A tag of another length is still refused.
        CtxPtr ctx = new_ctx();
        ASSERT_EQ(EVP_EncryptInit_ex(ctx.get(), c.get(), nullptr, key.data(),
                                     nonce.empty() ? nullptr : nonce.data()), 1);
        EXPECT_NE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 12, nullptr), 1) << name;
        take_errors();
    }
}

// ---- 2. and 3. CCM: no success after a refused step ----------------------------

struct Ccm {
    CipherPtr c = hw("AES-128-CCM");
    Bytes key = random_bytes(16), nonce = random_bytes(12), aad = random_bytes(13),
          msg = random_bytes(40);

    CtxPtr start(bool enc, const uint8_t* tag, const EVP_CIPHER* other = nullptr) const {
        CtxPtr ctx = new_ctx();
        EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), other ? other : c.get(), nullptr, nullptr, nullptr, enc), 1);
        EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_IVLEN, 12, nullptr), 1);
        EXPECT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16,
                                      const_cast<uint8_t*>(tag)), 1);
        EXPECT_EQ(EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, key.data(), nonce.data(), enc), 1);
        return ctx;
    }
    // A well-formed encryption: ciphertext and tag.
    void seal(Bytes& ct, Bytes& tag, bool with_aad = true) const {
        CtxPtr ctx = start(true, nullptr);
        int outl = 0;
        ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), nullptr, &outl, nullptr, static_cast<int>(msg.size())), 1);
        if (with_aad) {
            ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), nullptr, &outl, aad.data(), static_cast<int>(aad.size())), 1);
        }
        ct.resize(msg.size());
        ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), ct.data(), &outl, msg.data(), static_cast<int>(msg.size())), 1);
        ASSERT_EQ(EVP_EncryptFinal_ex(ctx.get(), ct.data() + outl, &outl), 1);
        tag.resize(16);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
    }
};

// Code that checks only EVP_DecryptFinal_ex (as it must for GCM) must not
// accept a forged CCM message. (OpenSSL 3.0's default provider returns 1
// from that final: a deliberate difference, README.)
TEST(DefaultParity, CcmFinalFailsAfterRefusedTag) {
    Ccm m;
    ASSERT_TRUE(m.c);
    Bytes ct, tag;
    m.seal(ct, tag);
    tag[3] ^= 1;
    for (const bool declare : {true, false}) {
        CtxPtr ctx = m.start(false, tag.data());
        int outl = 0;
        Bytes out(ct.size() + 16);
        if (declare) {
            ASSERT_EQ(EVP_DecryptUpdate(ctx.get(), nullptr, &outl, nullptr, static_cast<int>(ct.size())), 1);
            ASSERT_EQ(EVP_DecryptUpdate(ctx.get(), nullptr, &outl, m.aad.data(), static_cast<int>(m.aad.size())), 1);
        }
        EXPECT_EQ(EVP_DecryptUpdate(ctx.get(), out.data(), &outl, ct.data(), static_cast<int>(ct.size())), 0);
        EXPECT_EQ(EVP_DecryptFinal_ex(ctx.get(), out.data(), &outl), 0)
            << "final accepted a refused tag" << (declare ? "" : " (no length declared)");
        // EVP_Cipher's legacy "finish" call must not succeed either.
        EXPECT_LE(EVP_Cipher(ctx.get(), nullptr, nullptr, 0), 0);
        take_errors();
    }
    // A good tag still decrypts after all this (a fresh context).
    tag[3] ^= 1;
    CtxPtr ctx = m.start(false, tag.data());
    int outl = 0;
    Bytes out(ct.size());
    ASSERT_EQ(EVP_DecryptUpdate(ctx.get(), nullptr, &outl, nullptr, static_cast<int>(ct.size())), 1);
    ASSERT_EQ(EVP_DecryptUpdate(ctx.get(), nullptr, &outl, m.aad.data(), static_cast<int>(m.aad.size())), 1);
    ASSERT_EQ(EVP_DecryptUpdate(ctx.get(), out.data(), &outl, ct.data(), static_cast<int>(ct.size())), 1);
    EXPECT_EQ(out, m.msg);
    EXPECT_EQ(EVP_DecryptFinal_ex(ctx.get(), out.data(), &outl), 1);
}

// AAD given before the length is declared is refused; the message must then
// fail: no ciphertext and tag that silently leave the AAD out (encrypt), no
// acceptance of a tag computed without it (decrypt). Deliberately unlike the
// default provider, which goes on without the AAD. A new init starts over.
TEST(DefaultParity, CcmRefusedAadFailsTheMessage) {
    Ccm m;
    ASSERT_TRUE(m.c);
    Bytes ct_noaad, tag_noaad;
    m.seal(ct_noaad, tag_noaad, false);
    for (const bool enc : {true, false}) {
        CtxPtr ctx = m.start(enc, enc ? nullptr : tag_noaad.data());
        int outl = 0;
        Bytes out(m.msg.size() + 16);
        EXPECT_EQ(EVP_CipherUpdate(ctx.get(), nullptr, &outl, m.aad.data(), static_cast<int>(m.aad.size())), 0)
            << "aad before the length declaration is refused";
        const Bytes& in = enc ? m.msg : ct_noaad;
        const int data = EVP_CipherUpdate(ctx.get(), out.data(), &outl, in.data(), static_cast<int>(in.size()));
        const int fin = EVP_CipherFinal_ex(ctx.get(), out.data() + 16, &outl);
        EXPECT_EQ(data, 0) << (enc ? "encrypt" : "decrypt") << ": data accepted after refused aad";
        EXPECT_EQ(fin, 0) << (enc ? "encrypt" : "decrypt") << ": final accepted after refused aad";
        if (enc) {
            Bytes tag(16);
            EXPECT_NE(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_GET_TAG, 16, tag.data()), 1);
        }
        take_errors();
        // Re-initialised with its nonce, the context works again.
        ASSERT_EQ(EVP_CipherInit_ex(ctx.get(), nullptr, nullptr, nullptr, m.nonce.data(), -1), 1);
        if (!enc) { ASSERT_EQ(EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_AEAD_SET_TAG, 16, tag_noaad.data()), 1); }
        ASSERT_EQ(EVP_CipherUpdate(ctx.get(), nullptr, &outl, nullptr, static_cast<int>(in.size())), 1);
        ASSERT_EQ(EVP_CipherUpdate(ctx.get(), out.data(), &outl, in.data(), static_cast<int>(in.size())), 1)
            << take_errors();
        out.resize(in.size());
        EXPECT_EQ(out, enc ? ct_noaad : m.msg);
    }
    take_errors();
}

// ---- 4. XTS: a refused re-init keeps the direction ----------------------------

TEST(DefaultParity, XtsRefusedReinitKeepsDirection) {
    for (const char* name : {"AES-128-XTS", "AES-256-XTS"}) {
        CipherPtr c = hw(name), d = dflt(name);
        ASSERT_TRUE(c && d) << name;
        const size_t keylen = static_cast<size_t>(EVP_CIPHER_get_key_length(c.get()));
        Bytes key = random_bytes(keylen / 2);
        key.insert(key.end(), key.begin(), key.end()); // equal halves
        const Bytes iv = random_bytes(16), in = random_bytes(48);
        // What decryption of `in` gives (the default provider decrypts with
        // equal halves, as hwcipher does).
        Bytes want(in.size());
        int outl = 0;
        {
            CtxPtr ctx = new_ctx();
            ASSERT_EQ(EVP_DecryptInit_ex(ctx.get(), d.get(), nullptr, key.data(), iv.data()), 1);
            ASSERT_EQ(EVP_DecryptUpdate(ctx.get(), want.data(), &outl, in.data(), static_cast<int>(in.size())), 1);
        }
        CtxPtr ctx = new_ctx();
        ASSERT_EQ(EVP_CipherInit_ex2(ctx.get(), c.get(), key.data(), iv.data(), 0, nullptr), 1);
        EXPECT_EQ(EVP_CipherInit_ex2(ctx.get(), nullptr, nullptr, nullptr, 1, nullptr), 0)
            << name << ": an encryptor with equal key halves";
        take_errors();
        Bytes out(in.size());
        if (EVP_CipherUpdate(ctx.get(), out.data(), &outl, in.data(), static_cast<int>(in.size())) == 1) {
            EXPECT_EQ(out, want) << name << ": the refused re-init switched the direction";
        }
        take_errors();
    }
}

// ---- 5. no IV given --------------------------------------------------------------

const char* const kIvModes[] = {"AES-128-CBC", "AES-256-CFB", "AES-128-CFB1", "AES-128-CFB8",
                                "AES-192-OFB", "AES-128-CTR", "AES-128-CBC-CTS", "SM4-CBC",
                                "SM4-CTR",     "SM4-OFB",     "SM4-CFB"};

// Encrypts `in` with key only (iv == nullptr) or with `iv`, in two messages
// (the second after a key-less, IV-less re-init). "" when a call fails.
std::string encrypt_two(const EVP_CIPHER* c, const Bytes& key, const uint8_t* iv, const Bytes& in) {
    CtxPtr ctx = new_ctx();
    std::string hex;
    for (int round = 0; round < 2; ++round) {
        const int ok = round == 0 ? EVP_EncryptInit_ex(ctx.get(), c, nullptr, key.data(), iv)
                                  : EVP_EncryptInit_ex(ctx.get(), nullptr, nullptr, nullptr, nullptr);
        if (ok != 1) return "";
        Bytes out(in.size() + 32);
        int outl = 0, fl = 0;
        if (EVP_EncryptUpdate(ctx.get(), out.data(), &outl, in.data(), static_cast<int>(in.size())) != 1)
            return "";
        if (EVP_EncryptFinal_ex(ctx.get(), out.data() + outl, &fl) != 1) return "";
        out.resize(static_cast<size_t>(outl + fl));
        hex += to_hex(out) + "|";
    }
    return hex;
}

TEST(DefaultParity, NoIvMeansZeroIvLikeTheDefaultProvider) {
    const Bytes in = random_bytes(37), zero(16, 0);
    for (const char* name : kIvModes) {
        CipherPtr c = hw(name), d = dflt(name);
        ASSERT_TRUE(c) << name;
        const Bytes key = random_bytes(static_cast<size_t>(EVP_CIPHER_get_key_length(c.get())));
        const std::string ours = encrypt_two(c.get(), key, nullptr, in);
        EXPECT_FALSE(ours.empty()) << name << ": refused without an iv: " << take_errors();
        if (d) { EXPECT_EQ(ours, encrypt_two(d.get(), key, nullptr, in)) << name; }
        // The first message is the zero IV's.
        const std::string with_zero = encrypt_two(c.get(), key, zero.data(), in);
        EXPECT_EQ(ours.substr(0, ours.find('|')), with_zero.substr(0, with_zero.find('|'))) << name;
        take_errors();
    }
}

// A library context with hwcipher alone, loaded with HWCIPHER_STRICT_IV set
// or from a config whose hwcipher section says strict-iv = `value`. The
// explicit load is undone before the context goes.
struct StrictLib {
    OSSL_LIB_CTX* lib = OSSL_LIB_CTX_new();
    OSSL_PROVIDER* loaded = nullptr;
    OSSL_LIB_CTX* get() const { return lib; }
    StrictLib() = default;
    StrictLib(const StrictLib&) = delete;
    StrictLib& operator=(const StrictLib&) = delete;
    ~StrictLib() {
        if (loaded != nullptr) OSSL_PROVIDER_unload(loaded);
        OSSL_LIB_CTX_free(lib);
    }
};

std::unique_ptr<StrictLib> strict_ctx(const char* env, const char* value) {
    auto ctx = std::make_unique<StrictLib>();
    if (env != nullptr) {
        setenv("HWCIPHER_STRICT_IV", env, 1);
        ctx->loaded = OSSL_PROVIDER_load(ctx->get(), "hwcipher");
        EXPECT_NE(ctx->loaded, nullptr) << take_errors();
        unsetenv("HWCIPHER_STRICT_IV");
        return ctx;
    }
    const std::string cnf = "strict_iv_" + std::to_string(getpid()) + ".cnf";
    std::ofstream(cnf) << "openssl_conf = init\n[init]\nproviders = prov\n[prov]\nhwcipher = hw\n"
                       << "[hw]\nactivate = 1\nstrict-iv = " << value << "\n";
    EXPECT_EQ(OSSL_LIB_CTX_load_config(ctx->get(), cnf.c_str()), 1) << take_errors();
    std::remove(cnf.c_str());
    return ctx;
}

bool refuses_without_iv(OSSL_LIB_CTX* lib, const char* name) {
    CipherPtr c(EVP_CIPHER_fetch(lib, name, "provider=hwcipher"), &EVP_CIPHER_free);
    EXPECT_TRUE(c) << name;
    if (!c) return false;
    const Bytes key(static_cast<size_t>(EVP_CIPHER_get_key_length(c.get())), 7), in(32, 1);
    const bool refused = encrypt_two(c.get(), key, nullptr, in).empty();
    const std::string errors = take_errors();
    if (refused) { EXPECT_NE(errors.find("no iv set"), std::string::npos) << name << ": " << errors; }
    // With an IV it works as ever.
    EXPECT_FALSE(encrypt_two(c.get(), key, key.data(), in).empty()) << name << take_errors();
    return refused;
}

TEST(DefaultParity, StrictIvIsAnExplicitChoice) {
    for (const char* env : {"1", "yes"}) {
        auto lib = strict_ctx(env, nullptr);
        for (const char* name : kIvModes) EXPECT_TRUE(refuses_without_iv(lib->get(), name)) << name;
    }
    for (const char* value : {"yes", "1", "on", "true"}) {
        auto lib = strict_ctx(nullptr, value);
        for (const char* name : kIvModes) EXPECT_TRUE(refuses_without_iv(lib->get(), name)) << value << " " << name;
    }
    for (const char* value : {"no", "0", "off", "false"}) {
        auto lib = strict_ctx(nullptr, value);
        for (const char* name : kIvModes) EXPECT_FALSE(refuses_without_iv(lib->get(), name)) << value << " " << name;
    }
    auto env_off = strict_ctx("0", nullptr);
    EXPECT_FALSE(refuses_without_iv(env_off->get(), "AES-128-CBC"));
    // An unknown value is reported, not fatal (a provider that failed to load
    // from a config would leave the application silently on the default
    // provider): hwcipher loads, strict mode stays off, and the setting is
    // named in hwcipher-config-errors (what hwcipher-info and the trace show).
    StrictLib bad;
    setenv("HWCIPHER_STRICT_IV", "maybe", 1);
    bad.loaded = OSSL_PROVIDER_load(bad.get(), "hwcipher");
    unsetenv("HWCIPHER_STRICT_IV");
    ASSERT_NE(bad.loaded, nullptr) << take_errors();
    EXPECT_FALSE(refuses_without_iv(bad.get(), "AES-128-CBC"));
    char* reported = nullptr;
    OSSL_PARAM q[] = {OSSL_PARAM_construct_utf8_ptr("hwcipher-config-errors", &reported, 0),
                      OSSL_PARAM_construct_end()};
    ASSERT_EQ(OSSL_PROVIDER_get_params(bad.loaded, q), 1) << take_errors();
    ASSERT_NE(reported, nullptr);
    EXPECT_NE(std::string(reported).find("HWCIPHER_STRICT_IV=maybe"), std::string::npos) << reported;
}

} // namespace
