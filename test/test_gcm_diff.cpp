// SPDX-License-Identifier: Apache-2.0
// GCM differential tests: hwcipher against OpenSSL's default provider
// (AES-128/192/256-GCM: random key, IV lengths 1..128 with and without the
// 96-bit fast path, AAD 0..1300 bytes, data 0..4 KiB, random splits,
// in-place, truncated tags, cross-decryption, forgeries; and every data
// length 0..600) and against
// libgcrypt's GCM for SM4 and Twofish-128/256. Twofish-192 has no oracle:
// it is checked for one-shot/split agreement and round trips.
#include <gcrypt.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "test/test_gcm_util.h"

namespace hwc::test {
namespace {

using namespace gcm;

Message random_message(size_t keylen, size_t max_iv) {
    Message m;
    m.key = random_bytes(keylen);
    m.iv = random_bytes(random_below(2) == 0 ? 12 : 1 + random_below(max_iv));
    // AAD: mostly short, sometimes beyond 1 KiB.
    m.aad = random_bytes(random_below(4) == 0 ? random_below(1300) : random_below(40));
    m.in = random_bytes(random_below(3) == 0 ? random_below(4097) : random_below(100));
    return m;
}

TEST(GcmDiffOpenssl, AesAgainstDefaultProvider) {
    size_t cases = 0;
    for (size_t keylen : {16u, 24u, 32u}) {
        const std::string name = "AES-" + std::to_string(keylen * 8) + "-GCM";
        CipherPtr h = hw(name), d = def(name);
        ASSERT_NE(h, nullptr) << name;
        ASSERT_NE(d, nullptr) << name;
        for (int i = 0; i < 60; ++i, ++cases) {
            const Message m = random_message(keylen, 128);
            const size_t taglen = random_below(3) == 0 ? 1 + random_below(16) : 16;
            const bool split = random_below(2), inplace = random_below(2);
            SCOPED_TRACE(name + " case " + std::to_string(i) + " seed " + std::to_string(test_seed()) +
                         " iv " + std::to_string(m.iv.size()) + " aad " +
                         std::to_string(m.aad.size()) + " data " + std::to_string(m.in.size()) +
                         " tag " + std::to_string(taglen) + (split ? " split" : "") +
                         (inplace ? " inplace" : ""));
            Bytes hct, htag, dct, dtag;
            ASSERT_TRUE(encrypt(h.get(), m, hct, htag, taglen, split, inplace)) << take_errors();
            ASSERT_TRUE(encrypt(d.get(), m, dct, dtag, taglen)) << take_errors();
            EXPECT_EQ(to_hex(hct), to_hex(dct));
            EXPECT_EQ(to_hex(htag), to_hex(dtag));

            // Each decrypts the other's output, with the (truncated) tag.
            const Message cm{m.key, m.iv, m.aad, hct};
            Bytes hpt, dpt;
            EXPECT_TRUE(decrypt(h.get(), cm, dtag, hpt, !split, !inplace)) << take_errors();
            EXPECT_EQ(to_hex(hpt), to_hex(m.in));
            EXPECT_TRUE(decrypt(d.get(), cm, htag, dpt)) << take_errors();
            EXPECT_EQ(to_hex(dpt), to_hex(m.in));

            // A forgery (flip one bit of tag, AAD or ciphertext) fails in both.
            Bytes bad_tag = htag;
            Message bm = cm;
            const size_t which = random_below(3);
            if (which == 1 && !bm.aad.empty())
                bm.aad[random_below(bm.aad.size())] ^= 0x01;
            else if (which == 2 && !bm.in.empty())
                bm.in[random_below(bm.in.size())] ^= 0x80;
            else
                bad_tag[random_below(bad_tag.size())] ^= 0x10;
            EXPECT_FALSE(decrypt(h.get(), bm, bad_tag, hpt, split));
            EXPECT_FALSE(decrypt(d.get(), bm, bad_tag, dpt));
            take_errors();
        }
    }
    EXPECT_EQ(cases, 180u);
}

// Every data length 0..600 (the stitched kernels' steps, masked tails and
// the partial-block path at each length, 12-byte IV and 16 bytes of AAD as
// in TLS), one-shot and with random update splits, AES-128 and AES-256:
// ciphertext and tag equal to the default provider's, and hwcipher decrypts
// the default provider's output.
TEST(GcmDiffOpenssl, EveryLengthTo600) {
    size_t cases = 0;
    for (size_t keylen : {16u, 32u}) {
        const std::string name = "AES-" + std::to_string(keylen * 8) + "-GCM";
        CipherPtr h = hw(name), d = def(name);
        ASSERT_NE(h, nullptr) << name;
        ASSERT_NE(d, nullptr) << name;
        for (size_t len = 0; len <= 600; ++len, ++cases) {
            const Message m{random_bytes(keylen), random_bytes(12), random_bytes(16),
                            random_bytes(len)};
            const bool split = len % 2 == 1, inplace = len % 4 >= 2;
            SCOPED_TRACE(name + " data " + std::to_string(len) + " seed " +
                         std::to_string(test_seed()) + (split ? " split" : "") +
                         (inplace ? " inplace" : ""));
            Bytes hct, htag, dct, dtag, hpt;
            ASSERT_TRUE(encrypt(h.get(), m, hct, htag, 16, split, inplace)) << take_errors();
            ASSERT_TRUE(encrypt(d.get(), m, dct, dtag, 16)) << take_errors();
            EXPECT_EQ(to_hex(hct), to_hex(dct));
            EXPECT_EQ(to_hex(htag), to_hex(dtag));
            EXPECT_TRUE(decrypt(h.get(), Message{m.key, m.iv, m.aad, dct}, dtag, hpt, !split,
                                !inplace))
                << take_errors();
            EXPECT_EQ(to_hex(hpt), to_hex(m.in));
            if (HasFailure()) return;
        }
    }
    EXPECT_EQ(cases, 1202u);
}

// ---- libgcrypt -----------------------------------------------------------------

void gcrypt_init() {
    static const bool done = [] {
        gcry_check_version(nullptr);
        gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
        gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
        return true;
    }();
    (void)done;
}

bool gcrypt_gcm(int algo, const Message& m, Bytes& ct, Bytes& tag) {
    gcrypt_init();
    gcry_cipher_hd_t hd;
    if (gcry_cipher_open(&hd, algo, GCRY_CIPHER_MODE_GCM, 0) != 0) return false;
    bool ok = gcry_cipher_setkey(hd, m.key.data(), m.key.size()) == 0 &&
              gcry_cipher_setiv(hd, m.iv.data(), m.iv.size()) == 0 &&
              gcry_cipher_authenticate(hd, m.aad.data(), m.aad.size()) == 0;
    ct.assign(m.in.size(), 0);
    tag.assign(16, 0);
    ok = ok && gcry_cipher_final(hd) == 0 &&
         gcry_cipher_encrypt(hd, ct.data(), ct.size(), m.in.data(), m.in.size()) == 0 &&
         gcry_cipher_gettag(hd, tag.data(), tag.size()) == 0;
    gcry_cipher_close(hd);
    return ok;
}

struct GcryptCase {
    const char* name;
    int algo;
    size_t keylen;
};

TEST(GcmDiffGcrypt, Sm4AndTwofishAgainstLibgcrypt) {
    const GcryptCase kCases[] = {
        {"SM4-GCM", GCRY_CIPHER_SM4, 16},
        {"TWOFISH-128-GCM", GCRY_CIPHER_TWOFISH128, 16},
        {"TWOFISH-256-GCM", GCRY_CIPHER_TWOFISH, 32},
    };
    size_t cases = 0;
    for (const GcryptCase& gc : kCases) {
        CipherPtr h = hw(gc.name);
        ASSERT_NE(h, nullptr) << gc.name;
        for (int i = 0; i < 40; ++i, ++cases) {
            const Message m = random_message(gc.keylen, 200);
            const bool split = random_below(2), inplace = random_below(2);
            SCOPED_TRACE(std::string(gc.name) + " case " + std::to_string(i) + " seed " +
                         std::to_string(test_seed()) + " iv " + std::to_string(m.iv.size()) +
                         " aad " + std::to_string(m.aad.size()) + " data " +
                         std::to_string(m.in.size()));
            Bytes gct, gtag, hct, htag, pt;
            ASSERT_TRUE(gcrypt_gcm(gc.algo, m, gct, gtag));
            ASSERT_TRUE(encrypt(h.get(), m, hct, htag, 16, split, inplace)) << take_errors();
            EXPECT_EQ(to_hex(hct), to_hex(gct));
            EXPECT_EQ(to_hex(htag), to_hex(gtag));
            const Message cm{m.key, m.iv, m.aad, gct};
            EXPECT_TRUE(decrypt(h.get(), cm, gtag, pt, !split, inplace)) << take_errors();
            EXPECT_EQ(to_hex(pt), to_hex(m.in));
        }
    }
    EXPECT_EQ(cases, 120u);
}

// ---- the 32-bit counter's wrap ---------------------------------------------------

// x^-1 = x^(2^128 - 2): the product of x^(2^i) for i = 1..127.
Block gf_inv(const Block& x) {
    Block r{}, sq = x;
    r[0] = 0x80; // 1
    for (int i = 1; i < 128; ++i) {
        sq = gf_mul(sq, sq);
        r = gf_mul(r, sq);
    }
    return r;
}

// A 16-byte IV whose J0 is `j0` under hash key h: J0 = ((IV H) ^ L) H with
// L the lengths block of a 128-bit IV, so IV = ((J0 H^-1) ^ L) H^-1.
Bytes iv_for_j0(const Block& h, const Block& j0) {
    const Block hi = gf_inv(h);
    Block t = gf_mul(j0, hi);
    t[15] ^= 0x80; // L = 0^64 || [128]_64
    const Block iv = gf_mul(t, hi);
    return Bytes(iv.begin(), iv.end());
}

// GCM counts in the low 32 bits of the counter block and wraps there,
// leaving the upper 96 bits as they are (SP 800-38D inc32). IVs of 16 bytes
// are solved for a J0 whose low word is 2^32 - 1, - 2 or - 7, so the
// counter wraps at the first, second or seventh block: in the stitched
// kernels' split, the two-pass ctr32, and the short first call that takes
// E(K, J0) with the data's counter blocks (GCM engine, cores without a
// stitched kernel: SM4 and Twofish, and AES in the portable tier). Against
// the default provider (AES) and libgcrypt (SM4, Twofish), one-shot and
// split, every length below crossing the wrap or the short call's limit.
TEST(GcmDiff, CounterWrapsInItsLow32Bits) {
    struct Case {
        const char* name;
        int gcry_algo; // 0: the default provider is the oracle
        size_t keylen;
    };
    const Case kCases[] = {{"AES-128-GCM", 0, 16},
                           {"AES-256-GCM", 0, 32},
                           {"SM4-GCM", GCRY_CIPHER_SM4, 16},
                           {"TWOFISH-128-GCM", GCRY_CIPHER_TWOFISH128, 16}};
    size_t cases = 0;
    for (const Case& c : kCases) {
        CipherPtr h = hw(c.name);
        ASSERT_NE(h, nullptr) << c.name;
        CipherPtr d = c.gcry_algo == 0 ? def(c.name) : CipherPtr(nullptr, EVP_CIPHER_free);
        for (uint32_t back : {1u, 2u, 7u}) {
            for (size_t len : {0u, 15u, 16u, 47u, 61u, 100u, 143u, 144u, 300u}) {
                Message m{random_bytes(c.keylen), {}, random_bytes(13), random_bytes(len)};
                // H = E(K, 0^128), from the oracle's ECB.
                Block hk{};
                if (c.gcry_algo == 0) {
                    const std::string ecb = std::string(c.name).substr(0, 8) + "ECB";
                    CipherPtr e = def(ecb);
                    ASSERT_NE(e, nullptr) << ecb;
                    CtxPtr ctx = new_ctx();
                    int outl = 0;
                    ASSERT_TRUE(EVP_EncryptInit_ex(ctx.get(), e.get(), nullptr, m.key.data(),
                                                   nullptr));
                    const Block zero{};
                    ASSERT_TRUE(EVP_EncryptUpdate(ctx.get(), hk.data(), &outl, zero.data(), 16));
                } else {
                    gcrypt_init();
                    gcry_cipher_hd_t hd;
                    ASSERT_EQ(gcry_cipher_open(&hd, c.gcry_algo, GCRY_CIPHER_MODE_ECB, 0), 0);
                    const Block zero{};
                    EXPECT_EQ(gcry_cipher_setkey(hd, m.key.data(), m.key.size()), 0);
                    EXPECT_EQ(gcry_cipher_encrypt(hd, hk.data(), 16, zero.data(), 16), 0);
                    gcry_cipher_close(hd);
                }
                Block j0{};
                const Bytes upper = random_bytes(12);
                std::copy(upper.begin(), upper.end(), j0.begin());
                const uint32_t low = 0xFFFFFFFFu - (back - 1);
                for (int i = 0; i < 4; ++i) j0[12 + i] = static_cast<uint8_t>(low >> (24 - 8 * i));
                m.iv = iv_for_j0(hk, j0);
                for (bool split : {false, true}) {
                    SCOPED_TRACE(std::string(c.name) + " J0 low word 2^32 - " +
                                 std::to_string(back) + " data " + std::to_string(len) +
                                 (split ? " split" : "") + " seed " + std::to_string(test_seed()));
                    Bytes hct, htag, oct, otag, pt;
                    ASSERT_TRUE(encrypt(h.get(), m, hct, htag, 16, split)) << take_errors();
                    if (c.gcry_algo == 0) {
                        ASSERT_TRUE(encrypt(d.get(), m, oct, otag)) << take_errors();
                    } else {
                        ASSERT_TRUE(gcrypt_gcm(c.gcry_algo, m, oct, otag));
                    }
                    EXPECT_EQ(to_hex(hct), to_hex(oct));
                    EXPECT_EQ(to_hex(htag), to_hex(otag));
                    EXPECT_TRUE(decrypt(h.get(), Message{m.key, m.iv, m.aad, oct}, otag, pt, split))
                        << take_errors();
                    EXPECT_EQ(to_hex(pt), to_hex(m.in));
                    ++cases;
                }
            }
        }
    }
    EXPECT_EQ(cases, 4u * 3 * 9 * 2);
}

// No independent Twofish-192 GCM exists here: one-shot and split runs must
// agree and decrypt back.
TEST(GcmDiffGcrypt, Twofish192SelfConsistent) {
    CipherPtr h = hw("TWOFISH-192-GCM");
    ASSERT_NE(h, nullptr);
    for (int i = 0; i < 20; ++i) {
        const Message m = random_message(24, 64);
        Bytes a, atag, b, btag, pt;
        ASSERT_TRUE(encrypt(h.get(), m, a, atag)) << take_errors();
        ASSERT_TRUE(encrypt(h.get(), m, b, btag, 16, true, true)) << take_errors();
        EXPECT_EQ(to_hex(a), to_hex(b));
        EXPECT_EQ(to_hex(atag), to_hex(btag));
        if (!m.in.empty()) {
            EXPECT_NE(to_hex(a), to_hex(m.in));
        }
        const Message cm{m.key, m.iv, m.aad, a};
        EXPECT_TRUE(decrypt(h.get(), cm, atag, pt, true)) << take_errors();
        EXPECT_EQ(to_hex(pt), to_hex(m.in));
    }
}

} // namespace
} // namespace hwc::test
