// SPDX-License-Identifier: Apache-2.0
// GCM record patterns of libssl (openssl-provider-contract.md §5.1, §5.2),
// replayed call for call, hwcipher against the default provider in both
// directions: TLS 1.2 (key-only init, tlsivfixed, tls-version/tls-mac-size,
// per record tlsaad + one in-place update) and TLS 1.3 (IV-only re-init per
// record, AAD, data, final, tag).
#include <gtest/gtest.h>

#include <string>

#include "test/test_gcm_util.h"

namespace hwc::test {
namespace {

using namespace gcm;

constexpr int kTls12 = 0x0303;

// TLS 1.2 AEAD setup. fixed.size() == 4: salt, the encrypting side draws the
// invocation field; whole == true passes the full 12-byte IV with -1.
bool tls12_setup(EVP_CIPHER_CTX* x, const EVP_CIPHER* c, const Bytes& key, Bytes fixed, bool enc,
                 bool whole) {
    if (!EVP_CipherInit_ex(x, c, nullptr, key.data(), nullptr, enc ? 1 : 0)) return false;
    if (EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_IV_FIXED, whole ? -1 : static_cast<int>(fixed.size()),
                            fixed.data()) <= 0)
        return false;
    int version = kTls12;
    size_t macsize = 0;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_TLS_VERSION, &version),
                      OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &macsize),
                      OSSL_PARAM_END};
    return EVP_CIPHER_CTX_set_params(x, p) == 1;
}

Bytes tls_aad(uint64_t seq, size_t len) {
    Bytes a(13);
    for (int i = 0; i < 8; ++i) a[i] = static_cast<uint8_t>(seq >> (56 - 8 * i));
    a[8] = 23;
    a[9] = 3;
    a[10] = 3;
    a[11] = static_cast<uint8_t>(len >> 8);
    a[12] = static_cast<uint8_t>(len);
    return a;
}

// Encrypts `payload` as record `seq`; returns the whole record or empty.
Bytes seal(EVP_CIPHER_CTX* x, uint64_t seq, const Bytes& payload) {
    Bytes aad = tls_aad(seq, 8 + payload.size());
    if (EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_TLS1_AAD, 13, aad.data()) != 16) return {};
    Bytes rec(8 + payload.size() + 16, 0);
    std::copy(payload.begin(), payload.end(), rec.begin() + 8);
    int outl = -1;
    if (!EVP_CipherUpdate(x, rec.data(), &outl, rec.data(), static_cast<int>(rec.size())) ||
        outl != static_cast<int>(rec.size()))
        return {};
    return rec;
}

// Decrypts record `seq` in place; false on failure (then `rec` is as left).
bool open(EVP_CIPHER_CTX* x, uint64_t seq, Bytes& rec, Bytes& payload) {
    Bytes aad = tls_aad(seq, rec.size());
    if (EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_TLS1_AAD, 13, aad.data()) != 16) return false;
    int outl = -1;
    if (!EVP_CipherUpdate(x, rec.data(), &outl, rec.data(), static_cast<int>(rec.size())))
        return false;
    if (outl != static_cast<int>(rec.size()) - 24) return false;
    payload.assign(rec.begin() + 8, rec.begin() + 8 + outl);
    return true;
}

uint64_t be64(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
    return v;
}

TEST(GcmTls, Tls12RecordsAcrossProviders) {
    size_t records = 0;
    for (const char* name : {"AES-128-GCM", "AES-256-GCM"}) {
        const size_t keylen = std::string(name) == "AES-128-GCM" ? 16 : 32;
        for (int dir = 0; dir < 3; ++dir) { // hw->default, default->hw, hw->hw
            SCOPED_TRACE(std::string(name) + " direction " + std::to_string(dir));
            CipherPtr ce = dir == 1 ? def(name) : hw(name), cd = dir == 0 ? def(name) : hw(name);
            const Bytes key = random_bytes(keylen), salt = random_bytes(4);
            CtxPtr e = new_ctx(), d = new_ctx();
            ASSERT_TRUE(tls12_setup(e.get(), ce.get(), key, salt, true, false)) << take_errors();
            ASSERT_TRUE(tls12_setup(d.get(), cd.get(), key, salt, false, false)) << take_errors();
            uint64_t prev_nonce = 0;
            for (uint64_t seq = 0; seq < 6; ++seq, ++records) {
                const Bytes payload = random_bytes(seq == 0 ? 0 : random_below(1500));
                Bytes rec = seal(e.get(), seq, payload), got;
                ASSERT_FALSE(rec.empty()) << take_errors();
                // The explicit nonce is the invocation field, counting up.
                if (seq > 0) {
                    EXPECT_EQ(be64(rec.data()), prev_nonce + 1);
                }
                prev_nonce = be64(rec.data());
                ASSERT_TRUE(open(d.get(), seq, rec, got)) << take_errors();
                EXPECT_EQ(got, payload);
            }
        }
    }
    EXPECT_EQ(records, 36u);
}

// With the whole IV given (-1) nothing is random: both providers must emit
// identical records.
TEST(GcmTls, Tls12WholeIvRecordsIdentical) {
    const Bytes key = random_bytes(16), iv = random_bytes(12);
    CipherPtr h = hw("AES-128-GCM"), d = def("AES-128-GCM");
    CtxPtr eh = new_ctx(), ed = new_ctx();
    ASSERT_TRUE(tls12_setup(eh.get(), h.get(), key, iv, true, true)) << take_errors();
    ASSERT_TRUE(tls12_setup(ed.get(), d.get(), key, iv, true, true)) << take_errors();
    for (uint64_t seq = 0; seq < 4; ++seq) {
        const Bytes payload = random_bytes(random_below(300));
        const Bytes a = seal(eh.get(), seq, payload), b = seal(ed.get(), seq, payload);
        ASSERT_FALSE(a.empty());
        EXPECT_EQ(to_hex(a), to_hex(b)) << "record " << seq;
    }
}

TEST(GcmTls, Tls12FailuresWipeAndRefuse) {
    const Bytes key = random_bytes(16), salt = random_bytes(4);
    CipherPtr h = hw("AES-128-GCM");
    CtxPtr e = new_ctx(), d = new_ctx();
    ASSERT_TRUE(tls12_setup(e.get(), h.get(), key, salt, true, false));
    ASSERT_TRUE(tls12_setup(d.get(), h.get(), key, salt, false, false));
    const Bytes payload = random_bytes(100);
    Bytes rec = seal(e.get(), 0, payload), got;
    ASSERT_FALSE(rec.empty());
    Bytes bad = rec;
    bad[8 + 50] ^= 0x04;
    EXPECT_FALSE(open(d.get(), 0, bad, got));
    EXPECT_NE(take_errors().find("tag mismatch"), std::string::npos);
    EXPECT_EQ(Bytes(bad.begin() + 8, bad.begin() + 108), Bytes(100, 0)) << "plaintext not wiped";
    // The tlsaad was consumed: a plain update afterwards is not a record.
    int outl = 0;
    EXPECT_FALSE(EVP_CipherUpdate(d.get(), rec.data(), &outl, rec.data(), static_cast<int>(rec.size())));
    take_errors();
    // The genuine record still opens; wrong sequence number does not.
    Bytes copy = rec;
    EXPECT_FALSE(open(d.get(), 1, copy, got));
    take_errors();
    ASSERT_TRUE(open(d.get(), 0, rec, got)) << take_errors();
    EXPECT_EQ(got, payload);
    // Too short (below nonce + tag) and not in place.
    Bytes aad = tls_aad(1, 8);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(e.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad.data()), 16);
    Bytes shortrec(23);
    EXPECT_FALSE(EVP_CipherUpdate(e.get(), shortrec.data(), &outl, shortrec.data(), 23));
    aad = tls_aad(1, 8 + 10);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(e.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad.data()), 16);
    Bytes src(34), dst(34);
    EXPECT_FALSE(EVP_CipherUpdate(e.get(), dst.data(), &outl, src.data(), 34));
    // tlsaad must be 13 bytes, and its length must cover nonce (+ tag).
    EXPECT_LE(EVP_CIPHER_CTX_ctrl(e.get(), EVP_CTRL_AEAD_TLS1_AAD, 12, aad.data()), 0);
    aad = tls_aad(1, 7);
    EXPECT_LE(EVP_CIPHER_CTX_ctrl(e.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad.data()), 0);
    aad = tls_aad(1, 23);
    EXPECT_LE(EVP_CIPHER_CTX_ctrl(d.get(), EVP_CTRL_AEAD_TLS1_AAD, 13, aad.data()), 0);
    // Fixed part: 4..ivlen-8 bytes.
    EXPECT_LE(EVP_CIPHER_CTX_ctrl(e.get(), EVP_CTRL_AEAD_SET_IV_FIXED, 3, aad.data()), 0);
    EXPECT_LE(EVP_CIPHER_CTX_ctrl(e.get(), EVP_CTRL_AEAD_SET_IV_FIXED, 5, aad.data()), 0);
    // tlsivinv is for the decrypting side only.
    EXPECT_LE(EVP_CIPHER_CTX_ctrl(e.get(), EVP_CTRL_GCM_SET_IV_INV, 8, aad.data()), 0);
    take_errors();
}

// tlsivgen / tlsivinv driven directly (the 1.1.1-era record code path).
TEST(GcmTls, IvGenAndIvInvAgreeWithDefault) {
    const Bytes key = random_bytes(16), iv = random_bytes(12), aad = random_bytes(13),
                pt = random_bytes(50);
    Bytes outs[2], tags[2];
    for (int k = 0; k < 2; ++k) {
        CipherPtr c = k == 0 ? hw("AES-128-GCM") : def("AES-128-GCM");
        CtxPtr x = new_ctx();
        ASSERT_TRUE(EVP_EncryptInit_ex(x.get(), c.get(), nullptr, key.data(), nullptr));
        Bytes fixed = iv;
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_AEAD_SET_IV_FIXED, -1, fixed.data()), 1);
        uint8_t gen[8];
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_GCM_IV_GEN, 8, gen), 1);
        EXPECT_EQ(Bytes(gen, gen + 8), Bytes(iv.begin() + 4, iv.end()));
        int outl = 0;
        outs[k].assign(50, 0);
        ASSERT_TRUE(EVP_EncryptUpdate(x.get(), nullptr, &outl, aad.data(), 13));
        ASSERT_TRUE(EVP_EncryptUpdate(x.get(), outs[k].data(), &outl, pt.data(), 50));
        ASSERT_TRUE(EVP_EncryptFinal_ex(x.get(), outs[k].data(), &outl));
        tags[k].assign(16, 0);
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_AEAD_GET_TAG, 16, tags[k].data()), 1);
        // The next generated nonce is one more.
        ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_GCM_IV_GEN, 8, gen), 1);
        EXPECT_EQ(be64(gen), be64(iv.data() + 4) + 1);
    }
    EXPECT_EQ(outs[0], outs[1]);
    EXPECT_EQ(tags[0], tags[1]);
    // Decrypt with hwcipher through tlsivinv.
    CipherPtr c = hw("AES-128-GCM");
    CtxPtr x = new_ctx();
    ASSERT_TRUE(EVP_DecryptInit_ex(x.get(), c.get(), nullptr, key.data(), nullptr));
    Bytes fixed(iv.begin(), iv.begin() + 4), inv(iv.begin() + 4, iv.end());
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_AEAD_SET_IV_FIXED, 4, fixed.data()), 1);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_GCM_SET_IV_INV, 8, inv.data()), 1);
    ASSERT_EQ(EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_AEAD_SET_TAG, 16, tags[0].data()), 1);
    int outl = 0;
    Bytes back(50);
    ASSERT_TRUE(EVP_DecryptUpdate(x.get(), nullptr, &outl, aad.data(), 13));
    ASSERT_TRUE(EVP_DecryptUpdate(x.get(), back.data(), &outl, outs[0].data(), 50));
    EXPECT_TRUE(EVP_DecryptFinal_ex(x.get(), back.data(), &outl)) << take_errors();
    EXPECT_EQ(back, pt);
}

// TLS 1.3: nonce = static IV xor sequence number, IV-only re-init per record.
struct Tls13 {
    CtxPtr x = new_ctx();
    Bytes static_iv;
    bool enc;

    bool setup(const EVP_CIPHER* c, const Bytes& key, const Bytes& iv, bool e) {
        static_iv = iv;
        enc = e;
        return EVP_CipherInit_ex(x.get(), c, nullptr, nullptr, nullptr, e) &&
               EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_AEAD_SET_IVLEN, 12, nullptr) == 1 &&
               EVP_CipherInit_ex(x.get(), nullptr, nullptr, key.data(), nullptr, e);
    }
    // Encrypt: `data` -> ciphertext || tag. Decrypt: ciphertext || tag -> plaintext.
    bool record(uint64_t seq, const Bytes& data, Bytes& out) {
        Bytes nonce = static_iv;
        for (int i = 0; i < 8; ++i) nonce[4 + i] ^= static_cast<uint8_t>(seq >> (56 - 8 * i));
        if (!EVP_CipherInit_ex(x.get(), nullptr, nullptr, nullptr, nonce.data(), enc)) return false;
        size_t len = data.size();
        Bytes tag(16);
        if (!enc) {
            if (len < 16) return false;
            len -= 16;
            tag.assign(data.end() - 16, data.end());
            if (EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_AEAD_SET_TAG, 16, tag.data()) != 1) return false;
        }
        const uint8_t hdr[5] = {23, 3, 3, static_cast<uint8_t>((len + 16) >> 8),
                                static_cast<uint8_t>(len + 16)};
        int lenu = 0, lenf = 0;
        out.assign(len + 16, 0);
        if (!EVP_CipherUpdate(x.get(), nullptr, &lenu, hdr, 5)) return false;
        if (!EVP_CipherUpdate(x.get(), out.data(), &lenu, data.data(), static_cast<int>(len)) ||
            !EVP_CipherFinal_ex(x.get(), out.data() + lenu, &lenf) || lenf != 0 ||
            static_cast<size_t>(lenu) != len)
            return false;
        if (enc) return EVP_CIPHER_CTX_ctrl(x.get(), EVP_CTRL_AEAD_GET_TAG, 16, out.data() + len) == 1;
        out.resize(len);
        return true;
    }
};

TEST(GcmTls, Tls13RecordsAcrossProviders) {
    size_t records = 0;
    for (const char* name : {"AES-128-GCM", "AES-256-GCM"}) {
        const size_t keylen = std::string(name) == "AES-128-GCM" ? 16 : 32;
        const Bytes key = random_bytes(keylen), iv = random_bytes(12);
        CipherPtr h = hw(name), d = def(name);
        Tls13 eh, ed, dh, dd;
        ASSERT_TRUE(eh.setup(h.get(), key, iv, true) && ed.setup(d.get(), key, iv, true));
        ASSERT_TRUE(dh.setup(h.get(), key, iv, false) && dd.setup(d.get(), key, iv, false));
        for (uint64_t seq = 0; seq < 8; ++seq, ++records) {
            const Bytes pt = random_bytes(seq == 0 ? 0 : random_below(2000));
            Bytes a, b, back1, back2;
            ASSERT_TRUE(eh.record(seq, pt, a)) << take_errors();
            ASSERT_TRUE(ed.record(seq, pt, b)) << take_errors();
            EXPECT_EQ(to_hex(a), to_hex(b));
            ASSERT_TRUE(dh.record(seq, b, back1)) << take_errors();
            ASSERT_TRUE(dd.record(seq, a, back2)) << take_errors();
            EXPECT_EQ(back1, pt);
            EXPECT_EQ(back2, pt);
            // A replay under the next sequence number fails.
            EXPECT_FALSE(dh.record(seq + 100, a, back1));
            take_errors();
        }
    }
    EXPECT_EQ(records, 16u);
}

} // namespace
} // namespace hwc::test
