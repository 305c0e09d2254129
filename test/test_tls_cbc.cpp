// SPDX-License-Identifier: Apache-2.0
// TLS CBC record mode ("tls-version", "tls-mac-size", "tls-mac"): hwcipher against the default provider, record by record.
#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/prov_ssl.h>

#include <memory>
#include <set>
#include <string>

#include "test/support/ossl_env.h"

namespace {

using namespace hwc::test;

using CipherPtr = std::unique_ptr<EVP_CIPHER, decltype(&EVP_CIPHER_free)>;
using CtxPtr = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

constexpr size_t kBlock = 16;

const char* const kCiphers[] = {"AES-128-CBC",     "AES-192-CBC",     "AES-256-CBC",    "SM4-CBC",
                                "TWOFISH-128-CBC", "TWOFISH-192-CBC", "TWOFISH-256-CBC"};
const unsigned kVersions[] = {SSL3_VERSION, TLS1_VERSION, TLS1_1_VERSION, TLS1_2_VERSION,
                              DTLS1_2_VERSION};
const size_t kMacSizes[] = {0, 20, 32, 48};

bool explicit_iv(unsigned v) { return v != SSL3_VERSION && v != TLS1_VERSION; }

CtxPtr make_ctx(EVP_CIPHER* cipher, bool enc, const Bytes& key, const Bytes& iv) {
    CtxPtr ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    if (!ctx || !EVP_CipherInit_ex2(ctx.get(), cipher, key.data(), iv.data(), enc ? 1 : 0, nullptr))
        return CtxPtr(nullptr, EVP_CIPHER_CTX_free);
    return ctx;
}

// Puts a context in record mode the way libssl does (the version as an int).
bool set_record_mode(EVP_CIPHER_CTX* ctx, unsigned version, size_t mac) {
    int v = static_cast<int>(version);
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_TLS_VERSION, &v),
        OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &mac),
        OSSL_PARAM_construct_end(),
    };
    return EVP_CIPHER_CTX_set_params(ctx, params) == 1;
}

struct Outcome {
    int ok = 0;
    int outl = -1;
    Bytes data; // the whole record buffer after the call
    Bytes mac;  // "tls-mac" (when ok and mac > 0)
};

Outcome run_record(EVP_CIPHER_CTX* ctx, Bytes rec, size_t extra, size_t mac) {
    Outcome o;
    const size_t inl = rec.size();
    rec.resize(inl + extra);
    o.ok = EVP_CipherUpdate(ctx, rec.data(), &o.outl, rec.data(), static_cast<int>(inl));
    if (o.ok && mac != 0 && !EVP_CIPHER_CTX_is_encrypting(ctx)) {
        void* p = nullptr;
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, &p, mac),
            OSSL_PARAM_construct_end(),
        };
        if (EVP_CIPHER_CTX_get_params(ctx, params) && p != nullptr)
            o.mac.assign(static_cast<uint8_t*>(p), static_cast<uint8_t*>(p) + mac);
    }
    o.data = std::move(rec);
    return o;
}

// The TLS padding this test expects, built independently of the provider.
Bytes padding_for(unsigned version, size_t len) {
    const size_t n = kBlock - len % kBlock;
    Bytes pad(n, static_cast<uint8_t>(n - 1));
    if (version == SSL3_VERSION) std::fill(pad.begin(), pad.end() - 1, 0);
    return pad;
}

Bytes concat(std::initializer_list<const Bytes*> parts) {
    Bytes out;
    for (const Bytes* p : parts) out.insert(out.end(), p->begin(), p->end());
    return out;
}

struct Combo {
    std::string cipher;
    CipherPtr hw{nullptr, EVP_CIPHER_free};
    CipherPtr def{nullptr, EVP_CIPHER_free}; // null for Twofish (only hwcipher has it)
    Bytes key, iv;
};

Combo make_combo(const char* name) {
    Combo c;
    c.cipher = name;
    c.hw.reset(fetch_hwcipher(name));
    c.def.reset(fetch_default(name));
    if (c.hw) {
        c.key = random_bytes(static_cast<size_t>(EVP_CIPHER_get_key_length(c.hw.get())));
        c.iv = random_bytes(kBlock);
    }
    return c;
}

// Encrypting: hwcipher's record equals the default provider's and plain CBC
// of record || expected padding, record after record on one context.
TEST(TlsCbcRecord, EncryptMatchesDefaultAndPlainCbc) {
    size_t records = 0, with_default = 0;
    for (const char* name : kCiphers) {
        Combo c = make_combo(name);
        ASSERT_TRUE(c.hw) << name;
        EVP_CIPHER* raw_cipher = c.def ? c.def.get() : c.hw.get();
        for (unsigned version : kVersions) {
            for (size_t mac : kMacSizes) {
                SCOPED_TRACE(c.cipher + " version " + std::to_string(version) + " mac " +
                             std::to_string(mac) + " seed " + std::to_string(test_seed()));
                CtxPtr hw = make_ctx(c.hw.get(), true, c.key, c.iv);
                CtxPtr raw = make_ctx(raw_cipher, true, c.key, c.iv);
                ASSERT_TRUE(hw && raw);
                ASSERT_TRUE(set_record_mode(hw.get(), version, mac)) << take_errors();
                EVP_CIPHER_CTX_set_padding(raw.get(), 0);
                CtxPtr def(nullptr, EVP_CIPHER_CTX_free);
                if (c.def) {
                    def = make_ctx(c.def.get(), true, c.key, c.iv);
                    ASSERT_TRUE(def && set_record_mode(def.get(), version, mac));
                }
                for (int r = 0; r < 6; ++r) {
                    const Bytes ivblock = random_bytes(explicit_iv(version) ? kBlock : 0);
                    const Bytes payload = random_bytes(r == 5 ? 2000 + random_below(300) : random_below(300));
                    const Bytes tag = random_bytes(mac);
                    const Bytes rec = concat({&ivblock, &payload, &tag});
                    const Bytes pad = padding_for(version, rec.size());

                    const Outcome h = run_record(hw.get(), rec, kBlock, 0);
                    ASSERT_EQ(h.ok, 1) << take_errors();
                    ASSERT_EQ(static_cast<size_t>(h.outl), rec.size() + pad.size());
                    const Bytes padded = concat({&rec, &pad});
                    Bytes expect(padded.size());
                    int outl = 0;
                    ASSERT_TRUE(EVP_CipherUpdate(raw.get(), expect.data(), &outl, padded.data(),
                                                 static_cast<int>(padded.size())));
                    ASSERT_EQ(to_hex(h.data.data(), h.outl), to_hex(expect));
                    if (def) {
                        const Outcome d = run_record(def.get(), rec, kBlock, 0);
                        ASSERT_EQ(d.ok, 1);
                        ASSERT_EQ(d.outl, h.outl);
                        ASSERT_EQ(to_hex(d.data.data(), d.outl), to_hex(h.data.data(), h.outl));
                        ++with_default;
                    }
                    ++records;
                }
            }
        }
    }
    EXPECT_GT(records, 700u);
    EXPECT_GT(with_default, 400u);
    std::printf("encrypted %zu records, %zu compared with the default provider\n", records,
                with_default);
}

enum class Padding { minimal, long_valid, flipped_byte, length_too_big, ssl3_not_minimal };

// The plaintext of a record whose padding is good or bad in a given way;
// returns false when `kind` does not apply to this version/length.
bool build_plaintext(unsigned version, const Bytes& body, Padding kind, Bytes& out) {
    size_t n = kBlock - body.size() % kBlock; // padding bytes incl. the length byte
    out = body;
    switch (kind) {
    case Padding::minimal: break;
    case Padding::long_valid:
        if (version == SSL3_VERSION) return false;
        n += kBlock * random_below((256 - n) / kBlock + 1);
        break;
    case Padding::flipped_byte:
        if (version == SSL3_VERSION || n < 2) return false;
        break;
    case Padding::length_too_big: break;
    case Padding::ssl3_not_minimal:
        if (version != SSL3_VERSION) return false;
        n += kBlock;
        break;
    }
    Bytes pad(n, static_cast<uint8_t>(n - 1));
    if (version == SSL3_VERSION) {
        const Bytes junk = random_bytes(n - 1); // SSL 3.0 does not check these
        std::copy(junk.begin(), junk.end(), pad.begin());
    }
    if (kind == Padding::flipped_byte) pad[random_below(n - 1)] ^= static_cast<uint8_t>(1 + random_below(255));
    if (kind == Padding::length_too_big) {
        // Claim the whole record as padding: more than it holds next to the
        // length byte and MAC (and, for SSL 3.0, more than a block).
        const size_t len = body.size() + n;
        if (len > 255) return false;
        pad.back() = static_cast<uint8_t>(len);
    }
    out.insert(out.end(), pad.begin(), pad.end());
    return true;
}

// Decrypting: good records give the payload and MAC, bad padding gives a
// successful call, the same length as the default provider and a MAC that
// cannot verify (or, with encrypt-then-MAC, a failure like the default's).
TEST(TlsCbcRecord, DecryptMatchesDefaultGoodAndBadPadding) {
    size_t good = 0, bad = 0, compared = 0;
    const Padding kinds[] = {Padding::minimal, Padding::long_valid, Padding::flipped_byte,
                             Padding::length_too_big, Padding::ssl3_not_minimal};
    for (const char* name : kCiphers) {
        Combo c = make_combo(name);
        ASSERT_TRUE(c.hw) << name;
        EVP_CIPHER* raw_cipher = c.def ? c.def.get() : c.hw.get();
        for (unsigned version : kVersions) {
            for (size_t mac : kMacSizes) {
                SCOPED_TRACE(c.cipher + " version " + std::to_string(version) + " mac " +
                             std::to_string(mac) + " seed " + std::to_string(test_seed()));
                CtxPtr raw = make_ctx(raw_cipher, true, c.key, c.iv);
                CtxPtr hw = make_ctx(c.hw.get(), false, c.key, c.iv);
                ASSERT_TRUE(raw && hw);
                EVP_CIPHER_CTX_set_padding(raw.get(), 0);
                ASSERT_TRUE(set_record_mode(hw.get(), version, mac));
                CtxPtr def(nullptr, EVP_CIPHER_CTX_free);
                if (c.def) {
                    def = make_ctx(c.def.get(), false, c.key, c.iv);
                    ASSERT_TRUE(def && set_record_mode(def.get(), version, mac));
                }
                for (int round = 0; round < 3; ++round) {
                    for (Padding kind : kinds) {
                        const Bytes ivblock = random_bytes(explicit_iv(version) ? kBlock : 0);
                        const Bytes payload = random_bytes(random_below(round == 2 ? 1500 : 90));
                        const Bytes tag = random_bytes(mac);
                        const Bytes body = concat({&payload, &tag});
                        Bytes plain;
                        if (!build_plaintext(version, body, kind, plain)) continue;
                        const bool valid = kind == Padding::minimal || kind == Padding::long_valid;
                        plain.insert(plain.begin(), ivblock.begin(), ivblock.end());
                        Bytes ct(plain.size());
                        int outl = 0;
                        ASSERT_TRUE(EVP_CipherUpdate(raw.get(), ct.data(), &outl, plain.data(),
                                                     static_cast<int>(plain.size())));
                        const size_t skip = ivblock.size();

                        const Outcome h = run_record(hw.get(), ct, 0, mac);
                        std::string herr = take_errors();
                        if (valid) {
                            ASSERT_EQ(h.ok, 1) << herr;
                            ASSERT_EQ(static_cast<size_t>(h.outl), payload.size());
                            ASSERT_EQ(to_hex(h.data.data() + skip, h.outl), to_hex(payload));
                            ASSERT_EQ(to_hex(h.mac), to_hex(tag));
                            ++good;
                        } else if (mac == 0) {
                            ASSERT_EQ(h.ok, 0) << "bad padding accepted with encrypt-then-MAC";
                            ASSERT_FALSE(herr.empty());
                            ++bad;
                        } else {
                            ASSERT_EQ(h.ok, 1) << "bad padding must not fail the call: " << herr;
                            ASSERT_EQ(static_cast<size_t>(h.outl), plain.size() - skip - mac);
                            ASSERT_EQ(h.mac.size(), mac);
                            ASSERT_NE(to_hex(h.mac), to_hex(tag));
                            ASSERT_NE(to_hex(h.mac), to_hex(plain.data() + h.outl + skip, mac));
                            ++bad;
                        }
                        if (def) {
                            const Outcome d = run_record(def.get(), ct, 0, mac);
                            take_errors();
                            ASSERT_EQ(d.ok, h.ok);
                            if (d.ok) {
                                ASSERT_EQ(d.outl, h.outl);
                                ASSERT_EQ(to_hex(d.data.data() + skip, d.outl),
                                          to_hex(h.data.data() + skip, h.outl));
                                if (valid) {
                                    ASSERT_EQ(to_hex(d.mac), to_hex(h.mac));
                                }
                            }
                            ++compared;
                        }
                    }
                }
            }
        }
    }
    EXPECT_GT(good, 500u);
    EXPECT_GT(bad, 300u);
    EXPECT_GT(compared, 400u);
    std::printf("decrypted %zu good and %zu bad-padding records, %zu compared with default\n",
                good, bad, compared);
}

// Only the public shape of a record may fail the call; these do, for both.
TEST(TlsCbcRecord, PubliclyInvalidLengthsFail) {
    Combo c = make_combo("AES-128-CBC");
    ASSERT_TRUE(c.hw && c.def);
    struct Case { unsigned version; size_t mac; size_t len; };
    const Case cases[] = {
        {TLS1_2_VERSION, 32, 17},  // not whole blocks
        {TLS1_2_VERSION, 32, 32},  // explicit IV + 16 < IV + MAC + 1
        {TLS1_2_VERSION, 0, 16},   // explicit IV only
        {TLS1_VERSION, 20, 16},    // 16 < MAC + 1
        {TLS1_VERSION, 0, 15},
    };
    for (const Case& k : cases) {
        for (EVP_CIPHER* cipher : {c.hw.get(), c.def.get()}) {
            CtxPtr ctx = make_ctx(cipher, false, c.key, c.iv);
            ASSERT_TRUE(ctx && set_record_mode(ctx.get(), k.version, k.mac));
            const Outcome o = run_record(ctx.get(), random_bytes(k.len), 0, k.mac);
            EXPECT_EQ(o.ok, 0) << provider_of(ctx.get()) << " accepted " << k.len << " bytes";
            take_errors();
        }
    }
    // An empty record is refused too (hwcipher only: default is not asked).
    CtxPtr ctx = make_ctx(c.hw.get(), false, c.key, c.iv);
    ASSERT_TRUE(ctx && set_record_mode(ctx.get(), TLS1_2_VERSION, 20));
    uint8_t buf[32] = {};
    int outl = 0;
    EXPECT_EQ(EVP_CipherUpdate(ctx.get(), buf, &outl, buf, 0), 0);
    EXPECT_FALSE(take_errors().empty());
}

// Record mode's rules: in place only, padding on, no final; parameters are
// checked; tls-version 0 returns to plain CBC.
TEST(TlsCbcRecord, ApiRules) {
    Combo c = make_combo("SM4-CBC");
    ASSERT_TRUE(c.hw);
    for (bool enc : {true, false}) {
        CtxPtr ctx = make_ctx(c.hw.get(), enc, c.key, c.iv);
        ASSERT_TRUE(ctx && set_record_mode(ctx.get(), TLS1_2_VERSION, 20));
        Bytes in = random_bytes(64), out(96);
        int outl = 0;
        EXPECT_EQ(EVP_CipherUpdate(ctx.get(), out.data(), &outl, in.data(), 64), 0) << "not in place";
        EXPECT_FALSE(take_errors().empty());
        EXPECT_EQ(EVP_CipherFinal_ex(ctx.get(), out.data(), &outl), 0) << "final in record mode";
        EXPECT_FALSE(take_errors().empty());
        EVP_CIPHER_CTX_set_padding(ctx.get(), 0);
        EXPECT_EQ(EVP_CipherUpdate(ctx.get(), in.data(), &outl, in.data(), 64), 0) << "padding off";
        EXPECT_FALSE(take_errors().empty());
    }
    CtxPtr ctx = make_ctx(c.hw.get(), true, c.key, c.iv);
    ASSERT_TRUE(ctx);
    EXPECT_FALSE(set_record_mode(ctx.get(), TLS1_2_VERSION, 65)) << "MAC larger than any digest";
    EXPECT_FALSE(take_errors().empty());
    int negative = -1;
    OSSL_PARAM bad[] = {OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_TLS_VERSION, &negative),
                        OSSL_PARAM_construct_end()};
    EXPECT_EQ(EVP_CIPHER_CTX_set_params(ctx.get(), bad), 0) << "negative tls-version";
    take_errors();
    // Back to plain CBC: a 20-byte update emits 16 bytes, as without TLS.
    ASSERT_TRUE(set_record_mode(ctx.get(), TLS1_2_VERSION, 0));
    ASSERT_TRUE(set_record_mode(ctx.get(), 0, 0));
    Bytes buf(64);
    int outl = 0;
    ASSERT_TRUE(EVP_CipherUpdate(ctx.get(), buf.data(), &outl, buf.data(), 20));
    EXPECT_EQ(outl, 16);
}

// A duplicated decrypting context keeps the record state and its own MAC.
TEST(TlsCbcRecord, CopiedContextContinues) {
    Combo c = make_combo("AES-256-CBC");
    ASSERT_TRUE(c.hw);
    CtxPtr enc = make_ctx(c.hw.get(), true, c.key, c.iv);
    CtxPtr dec = make_ctx(c.hw.get(), false, c.key, c.iv);
    ASSERT_TRUE(enc && dec && set_record_mode(enc.get(), TLS1_2_VERSION, 32) &&
                set_record_mode(dec.get(), TLS1_2_VERSION, 32));
    Bytes recs[2];
    for (Bytes& r : recs) {
        const Outcome o = run_record(enc.get(), random_bytes(16 + 100 + 32), kBlock, 0);
        ASSERT_EQ(o.outl, 160); // 148 bytes + 12 of padding
        r.assign(o.data.begin(), o.data.begin() + o.outl);
    }
    const Outcome first = run_record(dec.get(), recs[0], 0, 32);
    ASSERT_EQ(first.ok, 1);
    CtxPtr copy(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    ASSERT_TRUE(copy && EVP_CIPHER_CTX_copy(copy.get(), dec.get())) << take_errors();
    const Outcome a = run_record(dec.get(), recs[1], 0, 32);
    const Outcome b = run_record(copy.get(), recs[1], 0, 32);
    ASSERT_EQ(a.ok, 1);
    ASSERT_EQ(b.ok, 1);
    EXPECT_EQ(a.outl, 100);
    EXPECT_EQ(to_hex(a.data), to_hex(b.data));
    EXPECT_EQ(to_hex(a.mac), to_hex(b.mac));
}

// The parameter lists name the TLS keys exactly as the default provider's do.
TEST(TlsCbcRecord, ParameterListsMatchDefault) {
    // OpenSSL 3.6's default provider declares "tls-mac" an octet string;
    // 3.0-3.5 declare an octet pointer, which is what both return (libssl
    // asks for a pointer) and what hwcipher declares on every release.
    auto names = [](const OSSL_PARAM* p) {
        std::set<std::string> s;
        for (; p != nullptr && p->key != nullptr; ++p) {
            unsigned type = p->data_type;
            if (std::string(p->key) == OSSL_CIPHER_PARAM_TLS_MAC) type = OSSL_PARAM_OCTET_PTR;
            s.insert(std::string(p->key) + "/" + std::to_string(type));
        }
        return s;
    };
    int checked = 0;
    for (const char* name : {"AES-128-ECB", "AES-128-CBC", "AES-192-CFB", "AES-256-OFB",
                             "AES-128-CTR", "SM4-CBC", "SM4-CTR"}) {
        CipherPtr hw(fetch_hwcipher(name), EVP_CIPHER_free), def(fetch_default(name), EVP_CIPHER_free);
        ASSERT_TRUE(hw && def) << name;
        EXPECT_EQ(names(EVP_CIPHER_gettable_ctx_params(hw.get())),
                  names(EVP_CIPHER_gettable_ctx_params(def.get())))
            << name;
        EXPECT_EQ(names(EVP_CIPHER_settable_ctx_params(hw.get())),
                  names(EVP_CIPHER_settable_ctx_params(def.get())))
            << name;
        const auto settable = names(EVP_CIPHER_settable_ctx_params(hw.get()));
        EXPECT_TRUE(settable.count(std::string(OSSL_CIPHER_PARAM_TLS_VERSION) + "/" +
                                   std::to_string(OSSL_PARAM_UNSIGNED_INTEGER)))
            << name;
        ++checked;
    }
    EXPECT_EQ(checked, 7);
}

} // namespace
