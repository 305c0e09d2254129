// SPDX-License-Identifier: Apache-2.0
// XTS differential and behaviour tests: hwcipher against OpenSSL's default
// provider (AES-128/256-XTS) and libgcrypt (SM4, Twofish-128/256, IEEE tweak
// convention), data-unit semantics, parameters and errors.
#include <gcrypt.h>
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/params.h>
#include <sys/mman.h>

#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "test/support/ossl_env.h"

namespace hwc::test {
namespace {

using CtxPtr = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;
using CipherPtr = std::unique_ptr<EVP_CIPHER, decltype(&EVP_CIPHER_free)>;

CipherPtr hw(const std::string& n) { return {fetch_hwcipher(n), EVP_CIPHER_free}; }
CipherPtr def(const std::string& n) { return {fetch_default(n), EVP_CIPHER_free}; }
CtxPtr new_ctx() { return {EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free}; }

// A random XTS key whose halves differ.
Bytes xts_key(size_t len) {
    Bytes k = random_bytes(len);
    k[len / 2] = static_cast<uint8_t>(k[0] ^ 0x5a);
    return k;
}

// One data unit; `in` may equal `out` (in place). Returns false on failure.
bool run(const EVP_CIPHER* c, const Bytes& key, const Bytes& iv, const uint8_t* in,
         uint8_t* out, size_t len, bool enc, const char* standard = nullptr) {
    CtxPtr ctx = new_ctx();
    OSSL_PARAM params[2] = {OSSL_PARAM_END, OSSL_PARAM_END};
    if (standard != nullptr)
        params[0] = OSSL_PARAM_construct_utf8_string("xts_standard",
                                                     const_cast<char*>(standard), 0);
    int l1 = -1, l2 = -1;
    return EVP_CipherInit_ex2(ctx.get(), c, key.data(), iv.data(), enc, params) == 1 &&
           EVP_CipherUpdate(ctx.get(), out, &l1, in, static_cast<int>(len)) == 1 &&
           static_cast<size_t>(l1) == len && EVP_CipherFinal_ex(ctx.get(), out + l1, &l2) == 1 &&
           l2 == 0;
}

// Lengths 16..80 one by one (every tail size around the first blocks), a
// sample up to 4096 and the ends.
std::vector<size_t> lengths() {
    std::vector<size_t> v;
    for (size_t n = 16; n <= 80; ++n) v.push_back(n);
    for (size_t n : {127, 128, 129, 255, 511, 512, 513, 1000, 1023, 2049, 4095, 4096})
        v.push_back(n);
    for (int i = 0; i < 24; ++i) v.push_back(16 + random_below(4096 - 16 + 1));
    return v;
}

TEST(XtsDiff, AgainstDefaultProvider) {
    size_t cases = 0;
    for (const char* name : {"AES-128-XTS", "AES-256-XTS"}) {
        SCOPED_TRACE(name);
        CipherPtr h = hw(name), d = def(name);
        ASSERT_TRUE(h && d) << take_errors();
        const size_t klen = static_cast<size_t>(EVP_CIPHER_get_key_length(d.get()));
        ASSERT_EQ(EVP_CIPHER_get_key_length(h.get()), static_cast<int>(klen));
        for (size_t len : lengths()) {
            SCOPED_TRACE("len " + std::to_string(len) + " seed " + std::to_string(test_seed()));
            const Bytes key = xts_key(klen), iv = random_bytes(16), pt = random_bytes(len);
            Bytes ch(len), cd(len), back(len);
            ASSERT_TRUE(run(h.get(), key, iv, pt.data(), ch.data(), len, true)) << take_errors();
            ASSERT_TRUE(run(d.get(), key, iv, pt.data(), cd.data(), len, true)) << take_errors();
            ASSERT_EQ(to_hex(ch), to_hex(cd));
            ASSERT_TRUE(run(h.get(), key, iv, cd.data(), back.data(), len, false)) << take_errors();
            ASSERT_EQ(back, pt);
            // In place, both directions.
            Bytes buf = pt;
            ASSERT_TRUE(run(h.get(), key, iv, buf.data(), buf.data(), len, true));
            ASSERT_EQ(buf, cd);
            ASSERT_TRUE(run(h.get(), key, iv, buf.data(), buf.data(), len, false));
            ASSERT_EQ(buf, pt);
            ++cases;
        }
    }
    RecordProperty("cases", static_cast<int>(cases));
    EXPECT_GT(cases, 100u);
}

// Every unit length from 16 to 300 bytes (each tail size at each position of
// the last step of the x86 kernels: 1..8 and 16 blocks and over), both
// directions, AES-128 and AES-256, out of place and in place, against the
// default provider: the one-pass stealing of cores/modes.h and the x86 unit
// kernels (issue #32).
TEST(XtsDiff, EveryUnitLengthTo300) {
    size_t cases = 0;
    for (const char* name : {"AES-128-XTS", "AES-256-XTS"}) {
        SCOPED_TRACE(name);
        CipherPtr h = hw(name), d = def(name);
        ASSERT_TRUE(h && d) << take_errors();
        const size_t klen = static_cast<size_t>(EVP_CIPHER_get_key_length(d.get()));
        for (size_t len = 16; len <= 300; ++len) {
            SCOPED_TRACE("len " + std::to_string(len) + " seed " + std::to_string(test_seed()));
            const Bytes key = xts_key(klen), iv = random_bytes(16), data = random_bytes(len);
            for (bool enc : {true, false}) {
                Bytes want(len), got(len);
                ASSERT_TRUE(run(d.get(), key, iv, data.data(), want.data(), len, enc))
                    << take_errors();
                ASSERT_TRUE(run(h.get(), key, iv, data.data(), got.data(), len, enc))
                    << take_errors();
                ASSERT_EQ(to_hex(got), to_hex(want)) << (enc ? "enc" : "dec");
                got = data;
                ASSERT_TRUE(run(h.get(), key, iv, got.data(), got.data(), len, enc));
                ASSERT_EQ(to_hex(got), to_hex(want)) << (enc ? "enc" : "dec") << " in place";
                ++cases;
            }
        }
    }
    RecordProperty("cases", static_cast<int>(cases));
    EXPECT_EQ(cases, 2u * 2u * 285u);
}

// One context per direction, a random sequence of data units of random
// lengths (16..600 bytes), each under its own IV given by a key-less re-init
// (so the tweak computed at init, or cached, is exercised too), against the
// default provider doing the same.
TEST(XtsDiff, RandomUnitSequenceOneContext) {
    size_t units = 0;
    for (const char* name : {"AES-128-XTS", "AES-256-XTS"}) {
        SCOPED_TRACE(name);
        CipherPtr h = hw(name), d = def(name);
        ASSERT_TRUE(h && d) << take_errors();
        const size_t klen = static_cast<size_t>(EVP_CIPHER_get_key_length(d.get()));
        const Bytes key = xts_key(klen);
        for (int enc : {1, 0}) {
            SCOPED_TRACE(std::string(enc ? "enc" : "dec") + " seed " +
                         std::to_string(test_seed()));
            CtxPtr ch = new_ctx(), cd = new_ctx();
            ASSERT_EQ(EVP_CipherInit_ex2(ch.get(), h.get(), key.data(), nullptr, enc, nullptr), 1);
            ASSERT_EQ(EVP_CipherInit_ex2(cd.get(), d.get(), key.data(), nullptr, enc, nullptr), 1);
            Bytes iv;
            for (int i = 0; i < 60; ++i) {
                const size_t len = 16 + random_below(600 - 16 + 1);
                SCOPED_TRACE("unit " + std::to_string(i) + " len " + std::to_string(len));
                // Now and then the same IV twice: the unit restarts from it.
                if (iv.empty() || random_below(4) != 0) iv = random_bytes(16);
                const Bytes data = random_bytes(len);
                Bytes got(len), want(len);
                int lh = -1, ld = -1;
                ASSERT_EQ(EVP_CipherInit_ex2(ch.get(), nullptr, nullptr, iv.data(), enc, nullptr), 1);
                ASSERT_EQ(EVP_CipherInit_ex2(cd.get(), nullptr, nullptr, iv.data(), enc, nullptr), 1);
                ASSERT_EQ(EVP_CipherUpdate(ch.get(), got.data(), &lh, data.data(),
                                           static_cast<int>(len)), 1) << take_errors();
                ASSERT_EQ(EVP_CipherUpdate(cd.get(), want.data(), &ld, data.data(),
                                           static_cast<int>(len)), 1) << take_errors();
                ASSERT_EQ(lh, ld);
                ASSERT_EQ(to_hex(got), to_hex(want));
                ++units;
            }
        }
    }
    RecordProperty("units", static_cast<int>(units));
}

// Each update is its own data unit under the same tweak; EVP_Cipher returns
// the byte count (-1 on failure), as with the default provider.
TEST(XtsDiff, DataUnitSemanticsMatchDefault) {
    CipherPtr h = hw("AES-128-XTS"), d = def("AES-128-XTS");
    ASSERT_TRUE(h && d);
    const Bytes key = xts_key(32), iv = random_bytes(16), pt = random_bytes(100);
    for (const EVP_CIPHER* c : {h.get(), d.get()}) {
        CtxPtr ctx = new_ctx();
        ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), c, key.data(), iv.data(), nullptr), 1);
        Bytes a(100), b(100);
        int l = 0;
        ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), a.data(), &l, pt.data(), 100), 1);
        ASSERT_EQ(EVP_EncryptUpdate(ctx.get(), b.data(), &l, pt.data(), 100), 1);
        EXPECT_EQ(a, b);
        EXPECT_EQ(EVP_Cipher(ctx.get(), b.data(), pt.data(), 33), 33);
        EXPECT_EQ(EVP_Cipher(ctx.get(), b.data(), pt.data(), 15), -1);
        EXPECT_EQ(EVP_Cipher(ctx.get(), b.data(), nullptr, 0), -1);
        take_errors();
        // The IV reads back unchanged after processing.
        uint8_t ivb[16] = {}, uivb[16] = {};
        unsigned int pad = 9, num = 9;
        OSSL_PARAM ps[] = {OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, ivb, 16),
                           OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, uivb, 16),
                           OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &pad),
                           OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &num), OSSL_PARAM_END};
        ASSERT_EQ(EVP_CIPHER_CTX_get_params(ctx.get(), ps), 1);
        EXPECT_EQ(Bytes(ivb, ivb + 16), iv);
        EXPECT_EQ(Bytes(uivb, uivb + 16), iv);
        EXPECT_EQ(pad, 1u);
        EXPECT_EQ(num, 0u);
        // A copied context continues identically.
        CtxPtr copy = new_ctx();
        ASSERT_EQ(EVP_CIPHER_CTX_copy(copy.get(), ctx.get()), 1);
        Bytes e(100);
        ASSERT_EQ(EVP_EncryptUpdate(copy.get(), e.data(), &l, pt.data(), 100), 1);
        EXPECT_EQ(e, a);
    }
}

// The tweak E(key 2, IV) follows every way the key and IV can change: key and
// IV in one init, IV-only and key-only re-inits, IV before key in separate
// inits, and a legacy caller writing the IV through the pointer that
// EVP_CIPHER_CTX_iv_noconst returns. (hwcipher computes the tweak at init
// where the core has no whole-unit kernel, and must notice all of these.)
// Same sequence on the default provider, outputs compared step by step.
TEST(XtsDiff, TweakFollowsEveryKeyAndIvChange) {
    for (const char* name : {"AES-128-XTS", "AES-256-XTS"}) {
        SCOPED_TRACE(name);
        CipherPtr h = hw(name), d = def(name);
        ASSERT_TRUE(h && d);
        const size_t klen = static_cast<size_t>(EVP_CIPHER_get_key_length(d.get()));
        const Bytes k1 = xts_key(klen), k2 = xts_key(klen), iv1 = random_bytes(16),
                    iv2 = random_bytes(16), iv3 = random_bytes(16), pt = random_bytes(64);
        for (int enc = 0; enc <= 1; ++enc) {
            SCOPED_TRACE(enc ? "encrypt" : "decrypt");
            std::vector<Bytes> outs[2];
            for (int which = 0; which < 2; ++which) {
                const EVP_CIPHER* c = which == 0 ? h.get() : d.get();
                CtxPtr ctx = new_ctx();
                auto unit = [&] {
                    Bytes out(pt.size());
                    int l = 0;
                    EXPECT_EQ(EVP_CipherUpdate(ctx.get(), out.data(), &l, pt.data(),
                                               static_cast<int>(pt.size())), 1);
                    outs[which].push_back(out);
                };
                ASSERT_EQ(EVP_CipherInit_ex2(ctx.get(), c, k1.data(), iv1.data(), enc, nullptr),
                          1);
                unit();
                ASSERT_EQ(
                    EVP_CipherInit_ex2(ctx.get(), nullptr, nullptr, iv2.data(), enc, nullptr), 1);
                unit();
                ASSERT_EQ(
                    EVP_CipherInit_ex2(ctx.get(), nullptr, k2.data(), nullptr, enc, nullptr), 1);
                unit();
                // What EVP_CIPHER_CTX_iv_noconst (deprecated) asks for.
                void* live = nullptr;
                OSSL_PARAM ps[] = {OSSL_PARAM_construct_octet_ptr(OSSL_CIPHER_PARAM_UPDATED_IV,
                                                                  &live, 16),
                                   OSSL_PARAM_construct_end()};
                ASSERT_EQ(EVP_CIPHER_CTX_get_params(ctx.get(), ps), 1);
                ASSERT_NE(live, nullptr);
                std::memcpy(live, iv3.data(), 16);
                unit();
                CtxPtr split = new_ctx();
                ASSERT_EQ(EVP_CipherInit_ex2(split.get(), c, nullptr, iv1.data(), enc, nullptr),
                          1);
                ASSERT_EQ(
                    EVP_CipherInit_ex2(split.get(), nullptr, k2.data(), nullptr, enc, nullptr), 1);
                ctx = std::move(split);
                unit();
            }
            ASSERT_EQ(outs[0].size(), 5u);
            for (size_t i = 0; i < outs[0].size(); ++i)
                EXPECT_EQ(outs[0][i], outs[1][i]) << "step " << i;
            // And the steps differ from each other: each change took effect.
            for (size_t i = 1; i < outs[1].size(); ++i) EXPECT_NE(outs[1][i], outs[1][i - 1]);
        }
    }
}

TEST(XtsDiff, AlgorithmAndParameterListsMatchDefault) {
    for (const char* name : {"AES-128-XTS", "AES-256-XTS"}) {
        SCOPED_TRACE(name);
        CipherPtr h = hw(name), d = def(name);
        ASSERT_TRUE(h && d);
        EXPECT_EQ(EVP_CIPHER_get_flags(h.get()), EVP_CIPHER_get_flags(d.get()));
        EXPECT_EQ(EVP_CIPHER_get_mode(h.get()), EVP_CIPH_XTS_MODE);
        EXPECT_EQ(EVP_CIPHER_get_block_size(h.get()), 1);
        EXPECT_EQ(EVP_CIPHER_get_iv_length(h.get()), 16);
        auto keys = [](const OSSL_PARAM* p) {
            std::set<std::string> s;
            for (; p != nullptr && p->key != nullptr; ++p) s.insert(p->key);
            return s;
        };
        EXPECT_EQ(keys(EVP_CIPHER_gettable_ctx_params(h.get())),
                  keys(EVP_CIPHER_gettable_ctx_params(d.get())));
        // Ours adds SM4-XTS's "xts_standard" (one list per mode family).
        std::set<std::string> settable = keys(EVP_CIPHER_settable_ctx_params(d.get()));
        settable.insert("xts_standard");
        EXPECT_EQ(keys(EVP_CIPHER_settable_ctx_params(h.get())), settable);
    }
    for (const char* name : {"SM4-XTS", "TWOFISH-128-XTS", "TWOFISH-256-XTS"}) {
        CipherPtr h = hw(name);
        ASSERT_TRUE(h) << name;
        EXPECT_EQ(EVP_CIPHER_get_flags(h.get()), 0x110011u) << name;
    }
    CipherPtr h = hw("TWOFISH-256-XTS");
    EXPECT_EQ(EVP_CIPHER_get_key_length(h.get()), 64);
}

// ---- libgcrypt: SM4 and Twofish ---------------------------------------------

void gcrypt_init() {
    static const bool done = [] {
        gcry_check_version(nullptr);
        gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
        gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
        return true;
    }();
    (void)done;
}

bool gcrypt_xts(int algo, const Bytes& key, const Bytes& iv, const Bytes& in, Bytes& out,
                bool enc) {
    gcrypt_init();
    gcry_cipher_hd_t h = nullptr;
    if (gcry_cipher_open(&h, algo, GCRY_CIPHER_MODE_XTS, 0) != 0) return false;
    out.assign(in.size(), 0);
    bool ok = gcry_cipher_setkey(h, key.data(), key.size()) == 0 &&
              gcry_cipher_setiv(h, iv.data(), iv.size()) == 0 &&
              (enc ? gcry_cipher_encrypt(h, out.data(), out.size(), in.data(), in.size())
                   : gcry_cipher_decrypt(h, out.data(), out.size(), in.data(), in.size())) == 0;
    gcry_cipher_close(h);
    return ok;
}

// An XTS cipher hwcipher and libgcrypt both have: its key length and the
// standard hwcipher is asked for (libgcrypt implements IEEE 1619).
struct GcryXts {
    const char* name;
    int algo;
    size_t klen;
    const char* standard;
};

// One unit of `len` bytes: hwcipher's encryption equals libgcrypt's, and its
// decryption (in place or not) gives the plaintext back.
void check_unit_against_gcrypt(const GcryXts& g, const EVP_CIPHER* h, size_t len,
                               bool decrypt_in_place) {
    SCOPED_TRACE("len " + std::to_string(len) + " seed " + std::to_string(test_seed()));
    const Bytes key = xts_key(g.klen), iv = random_bytes(16), pt = random_bytes(len);
    Bytes want, got(len), back(len);
    ASSERT_TRUE(gcrypt_xts(g.algo, key, iv, pt, want, true));
    ASSERT_TRUE(run(h, key, iv, pt.data(), got.data(), len, true, g.standard)) << take_errors();
    ASSERT_EQ(to_hex(got), to_hex(want));
    Bytes& dec = decrypt_in_place ? got : back;
    ASSERT_TRUE(run(h, key, iv, got.data(), dec.data(), len, false, g.standard));
    ASSERT_EQ(dec, pt);
}

// SM4-XTS (IEEE) and Twofish-XTS at every unit length from 16 to 300 bytes
// against libgcrypt: the one-pass stealing of cores/modes.h through each
// core's own XTS kernel or generic::xts_steal_ecb.
TEST(XtsDiff, EveryUnitLengthTo300Libgcrypt) {
    const GcryXts cases[] = {
        {"SM4-XTS", GCRY_CIPHER_SM4, 32, "IEEE"},
        {"TWOFISH-128-XTS", GCRY_CIPHER_TWOFISH128, 32, nullptr},
    };
    for (const GcryXts& g : cases) {
        SCOPED_TRACE(g.name);
        CipherPtr h = hw(g.name);
        ASSERT_TRUE(h) << take_errors();
        for (size_t len = 16; len <= 300; ++len) {
            check_unit_against_gcrypt(g, h.get(), len, false);
            if (testing::Test::HasFatalFailure()) return;
        }
    }
}

TEST(XtsDiff, AgainstLibgcrypt) {
    const GcryXts cases[] = {
        {"SM4-XTS", GCRY_CIPHER_SM4, 32, "IEEE"},
        {"TWOFISH-128-XTS", GCRY_CIPHER_TWOFISH128, 32, nullptr},
        {"TWOFISH-256-XTS", GCRY_CIPHER_TWOFISH, 64, nullptr},
    };
    size_t n = 0;
    for (const GcryXts& g : cases) {
        SCOPED_TRACE(g.name);
        CipherPtr h = hw(g.name);
        ASSERT_TRUE(h) << take_errors();
        for (size_t len : lengths()) {
            check_unit_against_gcrypt(g, h.get(), len, true);
            if (testing::Test::HasFatalFailure()) return;
            ++n;
        }
    }
    RecordProperty("cases", static_cast<int>(n));
    EXPECT_GT(n, 100u);
}

// GB differs from IEEE exactly from the second block on, and round-trips.
TEST(XtsDiff, Sm4GbRoundTrip) {
    CipherPtr h = hw("SM4-XTS");
    ASSERT_TRUE(h);
    for (size_t len : {16, 17, 31, 32, 33, 100, 4096}) {
        SCOPED_TRACE(len);
        const Bytes key = xts_key(32), iv = random_bytes(16), pt = random_bytes(len);
        Bytes gb(len), ieee(len), back(len);
        ASSERT_TRUE(run(h.get(), key, iv, pt.data(), gb.data(), len, true, "GB"));
        ASSERT_TRUE(run(h.get(), key, iv, pt.data(), ieee.data(), len, true, "IEEE"));
        ASSERT_TRUE(run(h.get(), key, iv, gb.data(), back.data(), len, false, "GB"));
        EXPECT_EQ(back, pt);
        if (len >= 32) {
            // Stealing moves the second tweak into block 0 when len < 32.
            EXPECT_EQ(Bytes(gb.begin(), gb.begin() + 16), Bytes(ieee.begin(), ieee.begin() + 16));
            EXPECT_NE(gb, ieee);
        }
    }
}

// ---- errors ------------------------------------------------------------------

const char* const kAllXts[] = {"AES-128-XTS", "AES-256-XTS", "SM4-XTS", "TWOFISH-128-XTS",
                               "TWOFISH-256-XTS"};

TEST(XtsErrors, ShortDataUnit) {
    for (const char* name : kAllXts) {
        SCOPED_TRACE(name);
        CipherPtr h = hw(name);
        ASSERT_TRUE(h);
        const size_t klen = static_cast<size_t>(EVP_CIPHER_get_key_length(h.get()));
        const Bytes key = xts_key(klen), iv = random_bytes(16), pt = random_bytes(16);
        for (int len : {0, 1, 15}) {
            CtxPtr ctx = new_ctx();
            ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), h.get(), key.data(), iv.data(), nullptr), 1);
            uint8_t out[32];
            int outl = -1;
            EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), out, &outl, pt.data(), len), 0) << len;
            EXPECT_EQ(outl, 0);
            EXPECT_NE(take_errors(), "") << len;
        }
    }
    // The default provider also refuses an empty update.
    CipherPtr d = def("AES-128-XTS");
    CtxPtr ctx = new_ctx();
    const Bytes key = xts_key(32), iv = random_bytes(16);
    ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), d.get(), key.data(), iv.data(), nullptr), 1);
    uint8_t out[16];
    int outl = 0;
    EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), out, &outl, out, 0), 0);
    take_errors();
}

TEST(XtsErrors, EqualKeyHalves) {
    for (const char* name : kAllXts) {
        SCOPED_TRACE(name);
        CipherPtr h = hw(name);
        ASSERT_TRUE(h);
        const size_t klen = static_cast<size_t>(EVP_CIPHER_get_key_length(h.get()));
        Bytes key = random_bytes(klen);
        std::copy(key.begin(), key.begin() + klen / 2, key.begin() + klen / 2);
        const Bytes iv = random_bytes(16), ct = random_bytes(48);
        CtxPtr ctx = new_ctx();
        EXPECT_EQ(EVP_EncryptInit_ex2(ctx.get(), h.get(), key.data(), iv.data(), nullptr), 0);
        EXPECT_NE(take_errors().find("duplicated keys"), std::string::npos);
        // Decryption is allowed (OpenSSL 3.0 default provider behaviour), but
        // the context cannot then be turned into an encryptor without a key.
        ctx = new_ctx();
        ASSERT_EQ(EVP_DecryptInit_ex2(ctx.get(), h.get(), key.data(), iv.data(), nullptr), 1);
        Bytes out(48);
        int outl = 0;
        ASSERT_EQ(EVP_DecryptUpdate(ctx.get(), out.data(), &outl, ct.data(), 48), 1);
        EXPECT_EQ(EVP_CipherInit_ex2(ctx.get(), nullptr, nullptr, nullptr, 1, nullptr), 0);
        EXPECT_NE(take_errors().find("duplicated keys"), std::string::npos);
        if (std::string(name).rfind("AES", 0) == 0) {
            CipherPtr d = def(name);
            Bytes want(48);
            ASSERT_TRUE(run(d.get(), key, iv, ct.data(), want.data(), 48, false));
            EXPECT_EQ(out, want);
        }
    }
}

TEST(XtsErrors, MissingKeyOrIvAndKeyLength) {
    CipherPtr h = hw("AES-256-XTS");
    const Bytes key = xts_key(64), iv = random_bytes(16), pt = random_bytes(32);
    uint8_t out[48];
    int outl = 0;
    CtxPtr ctx = new_ctx();
    ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), h.get(), nullptr, iv.data(), nullptr), 1);
    EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), out, &outl, pt.data(), 32), 0);
    EXPECT_NE(take_errors().find("no key set"), std::string::npos);
    ctx = new_ctx();
    ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), h.get(), key.data(), nullptr, nullptr), 1);
    EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), out, &outl, pt.data(), 32), 0);
    EXPECT_NE(take_errors().find("no iv set"), std::string::npos);
    size_t kl = 32;
    OSSL_PARAM ps[] = {OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, &kl), OSSL_PARAM_END};
    EXPECT_EQ(EVP_CIPHER_CTX_set_params(ctx.get(), ps), 0);
    take_errors();
    kl = 64;
    EXPECT_EQ(EVP_CIPHER_CTX_set_params(ctx.get(), ps), 1);
}

// More than 2^20 blocks in one data unit is refused before any data is read.
// The buffers are 16 MiB + 16 of untouched anonymous mappings: no memory is
// committed unless the implementation (wrongly) starts processing.
TEST(XtsErrors, DataUnitTooLarge) {
    const size_t len = (size_t(1) << 24) + 16;
    void* in = mmap(nullptr, len, PROT_READ | PROT_WRITE,
                    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    void* out = mmap(nullptr, len + 16, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    ASSERT_NE(in, MAP_FAILED);
    ASSERT_NE(out, MAP_FAILED);
    CipherPtr h = hw("AES-128-XTS");
    const Bytes key = xts_key(32), iv = random_bytes(16);
    CtxPtr ctx = new_ctx();
    ASSERT_EQ(EVP_EncryptInit_ex2(ctx.get(), h.get(), key.data(), iv.data(), nullptr), 1);
    int outl = -1;
    EXPECT_EQ(EVP_EncryptUpdate(ctx.get(), static_cast<uint8_t*>(out), &outl,
                                static_cast<const uint8_t*>(in), static_cast<int>(len)),
              0);
    EXPECT_EQ(outl, 0);
    EXPECT_NE(take_errors().find("too large"), std::string::npos);
    munmap(in, len);
    munmap(out, len + 16);
    // Exactly 2^20 blocks is allowed; not run here (16 MiB of work is too
    // slow under QEMU for what it would add).
}

} // namespace
} // namespace hwc::test
