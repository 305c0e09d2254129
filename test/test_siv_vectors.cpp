// SPDX-License-Identifier: Apache-2.0
// AES-SIV known answers through EVP: Wycheproof aes_siv_cmac_test.json
// (deterministic SIV: `aad` is one S2V component, `ct` = SIV || ciphertext)
// and aead_aes_siv_cmac_test.json (nonce-based SIV: the nonce is the last
// associated-data component, after `aad`, per RFC 5297 §3). Valid cases must
// encrypt to the expected output and decrypt back; invalid ones must fail to
// decrypt and release no plaintext.
#include <gtest/gtest.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <string>
#include <vector>

#include "test/support/json.h"
#include "test/support/ossl_env.h"
#include "test/support/vectors.h"

namespace hwc::test {
namespace {

std::string siv_name(size_t keylen) { return "AES-" + std::to_string(keylen * 4) + "-SIV"; }

// One SIV message: the AAD components in order, then the data in one update.
struct SivResult {
    bool ok = false;
    Bytes out;
    Bytes tag;
    std::string err;
};

SivResult siv_run(EVP_CIPHER* c, bool enc, const Bytes& key, const std::vector<Bytes>& aad,
                  const Bytes& in, const Bytes& tag = {}) {
    SivResult r;
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    int outl = 0;
    r.out.assign(in.size() + 16, 0xa5);
    bool ok = EVP_CipherInit_ex2(ctx, c, nullptr, nullptr, enc ? 1 : 0, nullptr) == 1;
    if (ok && !enc)
        ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(tag.size()),
                                 const_cast<uint8_t*>(tag.data())) == 1;
    ok = ok && EVP_CipherInit_ex2(ctx, nullptr, key.data(), nullptr, -1, nullptr) == 1;
    for (const Bytes& a : aad) {
        if (!ok) break;
        ok = EVP_CipherUpdate(ctx, nullptr, &outl, a.data(), static_cast<int>(a.size())) == 1 &&
             outl == static_cast<int>(a.size());
    }
    ok = ok && EVP_CipherUpdate(ctx, r.out.data(), &outl, in.data(), static_cast<int>(in.size())) == 1 &&
         outl == static_cast<int>(in.size());
    int fl = 0;
    ok = ok && EVP_CipherFinal_ex(ctx, r.out.data() + outl, &fl) == 1 && fl == 0;
    if (ok && enc) {
        r.tag.assign(16, 0);
        ok = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, r.tag.data()) == 1;
    }
    if (!ok) {
        r.err = take_errors();
        // On failure nothing of the plaintext may be left in the buffer.
        for (size_t i = 0; !enc && i < in.size(); ++i)
            if (r.out[i] != 0 && r.out[i] != 0xa5) {
                r.err += " [plaintext byte released at " + std::to_string(i) + "]";
                break;
            }
    }
    r.out.resize(in.size());
    r.ok = ok;
    EVP_CIPHER_CTX_free(ctx);
    return r;
}

struct Counts {
    size_t valid = 0, invalid = 0;
};

// Runs every test of a Wycheproof SIV file. `aead` selects the nonce-based
// file layout; `components` builds the AAD vector of a test.
void run_file(const std::string& rel, bool aead, Counts& n) {
    const json::Value doc = json::load_file(vec::path(rel));
    const json::Value& groups = doc["testGroups"];
    for (size_t g = 0; g < groups.size(); ++g) {
        const json::Value& tests = groups[g]["tests"];
        for (size_t t = 0; t < tests.size(); ++t) {
            const json::Value& tc = tests[t];
            SCOPED_TRACE(rel + " tcId " + std::to_string(static_cast<int>(tc["tcId"].num())) + " " +
                         tc["comment"].str());
            const Bytes key = from_hex(tc["key"].str());
            const Bytes msg = from_hex(tc["msg"].str());
            Bytes ct = from_hex(tc["ct"].str());
            Bytes tag;
            std::vector<Bytes> aad{from_hex(tc["aad"].str())};
            if (aead) {
                aad.push_back(from_hex(tc["iv"].str()));
                tag = from_hex(tc["tag"].str());
            } else if (ct.size() >= 16) {
                tag.assign(ct.begin(), ct.begin() + 16);
                ct.erase(ct.begin(), ct.begin() + 16);
            }
            const bool valid = tc["result"].str() == "valid";
            vec::Cipher c(fetch_hwcipher, siv_name(key.size()));
            if (!c) {
                // Only AES-128/192/256-SIV exist; every key in these files is one of them.
                ADD_FAILURE() << "no " << siv_name(key.size()) << " in hwcipher";
                continue;
            }
            if (valid) {
                const SivResult e = siv_run(c.c, true, key, aad, msg);
                ASSERT_TRUE(e.ok) << e.err;
                EXPECT_EQ(to_hex(e.tag), to_hex(tag));
                EXPECT_EQ(to_hex(e.out), to_hex(ct));
            }
            const SivResult d = siv_run(c.c, false, key, aad, ct, tag);
            if (valid) {
                EXPECT_TRUE(d.ok) << d.err;
                EXPECT_EQ(to_hex(d.out), to_hex(msg));
                ++n.valid;
            } else {
                EXPECT_FALSE(d.ok) << "an invalid case decrypted";
                EXPECT_EQ(d.err.find("plaintext byte released"), std::string::npos) << d.err;
                ++n.invalid;
            }
        }
    }
    EXPECT_EQ(n.valid + n.invalid, static_cast<size_t>(doc["numberOfTests"].num()));
}

TEST(SivWycheproof, DeterministicAesSivCmac) {
    Counts n;
    run_file("wycheproof/testvectors_v1/aes_siv_cmac_test.json", false, n);
    EXPECT_EQ(n.valid, 118u);
    EXPECT_EQ(n.invalid, 324u);
}

TEST(SivWycheproof, NonceBasedAeadAesSivCmac) {
    Counts n;
    run_file("wycheproof/testvectors_v1/aead_aes_siv_cmac_test.json", true, n);
    EXPECT_EQ(n.valid, 252u);
    EXPECT_EQ(n.invalid, 648u);
}

// RFC 5297 Appendix A.1 (deterministic) and A.2 (nonce-based, three AD
// components: two headers and the nonce), typed from the RFC.
TEST(SivRfc5297, AppendixA) {
    struct Ex {
        const char* key;
        std::vector<const char*> aad;
        const char* pt;
        const char* v;
        const char* ct;
    };
    const Ex kEx[] = {
        {"fffefdfcfbfaf9f8f7f6f5f4f3f2f1f0f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff",
         {"101112131415161718191a1b1c1d1e1f2021222324252627"},
         "112233445566778899aabbccddee", "85632d07c6e8f37f950acd320a2ecc93", "40c02b9690c4dc04daef7f6afe5c"},
        {"7f7e7d7c7b7a79787776757473727170404142434445464748494a4b4c4d4e4f",
         {"00112233445566778899aabbccddeeffdeaddadadeaddadaffeeddccbbaa99887766554433221100",
          "102030405060708090a0", "09f911029d74e35bd84156c5635688c0"},
         "7468697320697320736f6d6520706c61696e7465787420746f20656e6372797074207573696e67205349562d414553",
         "7bdb6e3b432667eb06f4d14bff2fbd0f",
         "cb900f2fddbe404326601965c889bf17dba77ceb094fa663b7a3f748ba8af829ea64ad544a272e9c485b62a3fd5c0d"},
    };
    vec::Cipher c(fetch_hwcipher, "AES-128-SIV");
    ASSERT_TRUE(c);
    for (const Ex& e : kEx) {
        std::vector<Bytes> aad;
        for (const char* a : e.aad) aad.push_back(from_hex(a));
        const SivResult r = siv_run(c.c, true, from_hex(e.key), aad, from_hex(e.pt));
        ASSERT_TRUE(r.ok) << r.err;
        EXPECT_EQ(to_hex(r.tag), e.v);
        EXPECT_EQ(to_hex(r.out), e.ct);
        const SivResult d = siv_run(c.c, false, from_hex(e.key), aad, from_hex(e.ct), from_hex(e.v));
        ASSERT_TRUE(d.ok) << d.err;
        EXPECT_EQ(to_hex(d.out), e.pt);
    }
}

} // namespace
} // namespace hwc::test
