// SPDX-License-Identifier: Apache-2.0
// Real TLS through hwcipher: an in-process client and server (own library contexts, BIO pair) exchanging data, with proof that hwcipher's cipher contexts carried the records.
#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cstdio>
#include <memory>
#include <ostream>
#include <string>

#include "test/support/ossl_env.h"

namespace {

using hwc::test::Bytes;
using hwc::test::random_below;
using hwc::test::random_bytes;

std::string errors() {
    std::string s = hwc::test::take_errors();
    return s.empty() ? "(no error queued)" : s;
}

// One side of a connection: its own library context with the default
// provider and hwcipher, and default properties choosing between them.
struct Peer {
    OSSL_LIB_CTX* lib = nullptr;
    OSSL_PROVIDER* deflt = nullptr;
    OSSL_PROVIDER* hw = nullptr;
    EVP_PKEY* key = nullptr; // server only
    X509* cert = nullptr;

    explicit Peer(const char* properties) {
        lib = OSSL_LIB_CTX_new();
        deflt = OSSL_PROVIDER_load(lib, "default");
        hw = OSSL_PROVIDER_load(lib, "hwcipher");
        // The CTR-DRBG of a library context preferring hwcipher would also
        // run on hwcipher's AES (it fetches AES-256-CTR/ECB under the default
        // properties, and makes new contexts whenever it reseeds). Pin it to
        // the default provider so that every hwcipher context counted below
        // belongs to the record layer.
        if (deflt == nullptr || hw == nullptr ||
            !RAND_set_DRBG_type(lib, nullptr, "provider=default", nullptr, nullptr) ||
            !EVP_set_default_properties(lib, properties)) {
            std::fprintf(stderr, "cannot set up a TLS peer: %s\n", errors().c_str());
            std::abort();
        }
    }
    ~Peer() {
        X509_free(cert);
        EVP_PKEY_free(key);
        OSSL_PROVIDER_unload(hw);
        OSSL_PROVIDER_unload(deflt);
        OSSL_LIB_CTX_free(lib);
    }
    Peer(const Peer&) = delete;
    Peer& operator=(const Peer&) = delete;

    // hwcipher's count of cipher contexts created in this library context.
    uint64_t hwcipher_contexts() const {
        uint64_t n = 0;
        OSSL_PARAM params[] = {OSSL_PARAM_construct_uint64("hwcipher-contexts", &n),
                               OSSL_PARAM_construct_end()};
        EXPECT_EQ(OSSL_PROVIDER_get_params(hw, params), 1);
        EXPECT_TRUE(OSSL_PARAM_modified(params)) << "hwcipher does not report hwcipher-contexts";
        return n;
    }

    // Which provider this library context gives libssl for `name`.
    std::string provider_for(const char* name) const {
        EVP_CIPHER* c = EVP_CIPHER_fetch(lib, name, nullptr);
        std::string who = c ? OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)) : "";
        EVP_CIPHER_free(c);
        return who;
    }

    // An RSA key and a self-signed certificate for "localhost", made here
    // and now (no key material is checked in).
    void make_identity() {
        key = EVP_PKEY_Q_keygen(lib, nullptr, "RSA", static_cast<size_t>(2048));
        cert = X509_new_ex(lib, nullptr);
        ASSERT_TRUE(key && cert) << errors();
        X509_set_version(cert, X509_VERSION_3);
        ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
        X509_gmtime_adj(X509_getm_notBefore(cert), -3600);
        X509_gmtime_adj(X509_getm_notAfter(cert), 24 * 3600);
        X509_set_pubkey(cert, key);
        // A name of its own (OpenSSL 4.0's X509_get_subject_name is const).
        X509_NAME* name = X509_NAME_new();
        ASSERT_NE(name, nullptr);
        X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                                   reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
        X509_set_subject_name(cert, name);
        X509_set_issuer_name(cert, name);
        X509_NAME_free(name);
        ASSERT_GT(X509_sign(cert, key, EVP_sha256()), 0) << errors();
    }
};

// Peers live for the whole run, and share one server identity: RSA key
// generation is the slow part, above all under QEMU. One pair prefers
// hwcipher, the other the default provider.
struct Peers {
    Peer server, client;
    explicit Peers(const char* properties, const Peer* identity = nullptr)
        : server(properties), client(properties) {
        if (identity == nullptr) {
            server.make_identity();
            return;
        }
        EVP_PKEY_up_ref(identity->key);
        X509_up_ref(identity->cert);
        server.key = identity->key;
        server.cert = identity->cert;
    }
};
Peers& hwcipher_peers() {
    static Peers p("?provider=hwcipher");
    return p;
}
Peers& default_peers() {
    static Peers p("?provider=default", &hwcipher_peers().server);
    return p;
}

struct Case {
    const char* name;
    int version;           // TLS1_VERSION .. TLS1_3_VERSION
    const char* suite;     // cipher list (<= 1.2) or ciphersuite (1.3)
    bool etm;              // encrypt-then-MAC offered (CBC suites)
    const char* record;    // the cipher libssl fetches for the records
    const char* stitched;  // default's stitched cipher libssl tries first for MtE, if any
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

// Where the records went: "hwcipher", or "stitched" when libssl takes the
// default provider's AES-CBC-HMAC-SHA cipher (x86-64 with AES-NI) for MtE.
std::string expected_server(const Peer& p, const Case& c) {
    if (!c.etm && c.stitched != nullptr && !p.provider_for(c.stitched).empty()) return "stitched";
    return "hwcipher";
}

// Reads the encrypt_then_mac extension (type 22) out of the ServerHello.
void watch_server_hello(int write_p, int, int content_type, const void* buf, size_t len, SSL*,
                        void* arg) {
    const auto* p = static_cast<const uint8_t*>(buf);
    if (write_p || content_type != SSL3_RT_HANDSHAKE || len < 39 || p[0] != SSL3_MT_SERVER_HELLO)
        return;
    size_t at = 4 + 2 + 32;
    at += 1 + p[at];  // session id
    at += 2 + 1;      // cipher suite, compression
    if (at + 2 > len) return;
    const size_t end = std::min(len, at + 2 + (size_t{p[at]} << 8 | p[at + 1]));
    for (at += 2; at + 4 <= end; at += 4 + (size_t{p[at + 2]} << 8 | p[at + 3])) {
        if ((p[at] << 8 | p[at + 1]) == 22) *static_cast<bool*>(arg) = true;
    }
}

using CtxPtr = std::unique_ptr<SSL_CTX, decltype(&SSL_CTX_free)>;
using SslPtr = std::unique_ptr<SSL, decltype(&SSL_free)>;

CtxPtr make_ctx(Peer& peer, bool server, const Case& c) {
    CtxPtr ctx(SSL_CTX_new_ex(peer.lib, nullptr, server ? TLS_server_method() : TLS_client_method()),
               SSL_CTX_free);
    if (!ctx) return ctx;
    bool ok = SSL_CTX_set_min_proto_version(ctx.get(), c.version) == 1 &&
              SSL_CTX_set_max_proto_version(ctx.get(), c.version) == 1;
    // TLS 1.0/1.1 sign with MD5+SHA-1, which only security level 0 allows.
    SSL_CTX_set_security_level(ctx.get(), c.version < TLS1_2_VERSION ? 0 : 1);
    if (c.version == TLS1_3_VERSION) ok = ok && SSL_CTX_set_ciphersuites(ctx.get(), c.suite) == 1;
    else ok = ok && SSL_CTX_set_cipher_list(ctx.get(), c.suite) == 1;
    if (!c.etm) SSL_CTX_set_options(ctx.get(), SSL_OP_NO_ENCRYPT_THEN_MAC);
    // Session tickets are encrypted with AES-256-CBC: leave them out so every
    // cipher context counted belongs to the record layer.
    SSL_CTX_set_options(ctx.get(), SSL_OP_NO_TICKET);
    SSL_CTX_set_num_tickets(ctx.get(), 0);
    if (server) {
        ok = ok && SSL_CTX_use_certificate(ctx.get(), peer.cert) == 1 &&
             SSL_CTX_use_PrivateKey(ctx.get(), peer.key) == 1;
    }
    if (!ok) ctx.reset();
    return ctx;
}

bool want_more(SSL* ssl, int rc) {
    const int e = SSL_get_error(ssl, rc);
    return e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE;
}

// Moves `a` from client to server and `b` from server to client, in writes
// of random sizes (1 byte .. several records), reading as it goes.
::testing::AssertionResult exchange(SSL* client, SSL* server, const Bytes& a, const Bytes& b) {
    struct Dir {
        SSL* from;
        SSL* to;
        const Bytes* data;
        size_t sent = 0, pending = 0;
        Bytes got;
    } dirs[2] = {{client, server, &a, 0, 0, {}}, {server, client, &b, 0, 0, {}}};
    uint8_t buf[20000];
    for (int round = 0; round < 100000; ++round) {
        bool done = true;
        for (Dir& d : dirs) {
            if (d.sent < d.data->size()) {
                if (d.pending == 0) {
                    d.pending = random_below(8) == 0 ? 20000 : 1 + random_below(6000);
                    d.pending = std::min(d.pending, d.data->size() - d.sent);
                }
                const int rc = SSL_write(d.from, d.data->data() + d.sent, static_cast<int>(d.pending));
                if (rc > 0) {
                    d.sent += static_cast<size_t>(rc);
                    d.pending = 0;
                } else if (!want_more(d.from, rc)) {
                    return ::testing::AssertionFailure() << "SSL_write: " << errors();
                }
            }
            for (;;) {
                const int rc = SSL_read(d.to, buf, sizeof buf);
                if (rc > 0) {
                    d.got.insert(d.got.end(), buf, buf + rc);
                    continue;
                }
                if (!want_more(d.to, rc)) return ::testing::AssertionFailure() << "SSL_read: " << errors();
                break;
            }
            done = done && d.got.size() >= d.data->size();
        }
        if (done) break;
    }
    for (const Dir& d : dirs) {
        if (d.got != *d.data)
            return ::testing::AssertionFailure()
                   << "received " << d.got.size() << " bytes of " << d.data->size() << ", or different";
    }
    return ::testing::AssertionSuccess();
}

struct Result {
    std::string version, cipher;
    bool etm = false;
    uint64_t client_contexts = 0, server_contexts = 0; // hwcipher contexts made during the session
};

// One full connection: handshake, 48 KiB each way, bidirectional close.
void run_session(Peers& peers, const Case& c, Result& r) {
    CtxPtr sctx = make_ctx(peers.server, true, c), cctx = make_ctx(peers.client, false, c);
    ASSERT_TRUE(sctx && cctx) << errors();
    SslPtr server(SSL_new(sctx.get()), SSL_free), client(SSL_new(cctx.get()), SSL_free);
    ASSERT_TRUE(server && client);
    SSL_set_verify(client.get(), SSL_VERIFY_PEER, nullptr);
    ASSERT_EQ(X509_STORE_add_cert(SSL_CTX_get_cert_store(cctx.get()), peers.server.cert), 1);
    // (SSL_set1_host is deprecated in OpenSSL 4.0; this is what it does.)
    ASSERT_EQ(X509_VERIFY_PARAM_set1_host(SSL_get0_param(client.get()), "localhost", 0), 1);
    SSL_set_msg_callback(client.get(), watch_server_hello);
    SSL_set_msg_callback_arg(client.get(), &r.etm);
    BIO *cbio = nullptr, *sbio = nullptr;
    ASSERT_EQ(BIO_new_bio_pair(&cbio, 0, &sbio, 0), 1);
    SSL_set_bio(client.get(), cbio, cbio);
    SSL_set_bio(server.get(), sbio, sbio);
    SSL_set_connect_state(client.get());
    SSL_set_accept_state(server.get());

    const uint64_t c0 = peers.client.hwcipher_contexts(), s0 = peers.server.hwcipher_contexts();
    bool client_done = false, server_done = false;
    for (int i = 0; i < 100 && !(client_done && server_done); ++i) {
        int rc = SSL_do_handshake(client.get());
        client_done = rc == 1;
        ASSERT_TRUE(client_done || want_more(client.get(), rc)) << "client: " << errors();
        rc = SSL_do_handshake(server.get());
        server_done = rc == 1;
        ASSERT_TRUE(server_done || want_more(server.get(), rc)) << "server: " << errors();
    }
    ASSERT_TRUE(client_done && server_done) << "handshake did not finish";
    EXPECT_EQ(SSL_get_verify_result(client.get()), X509_V_OK);

    const Bytes up = random_bytes(48 * 1024), down = random_bytes(48 * 1024);
    ASSERT_TRUE(exchange(client.get(), server.get(), up, down));

    // close_notify both ways (one more record per direction).
    ASSERT_GE(SSL_shutdown(client.get()), 0) << errors();
    uint8_t byte;
    ASSERT_LE(SSL_read(server.get(), &byte, 1), 0);
    ASSERT_EQ(SSL_get_error(server.get(), 0), SSL_ERROR_ZERO_RETURN);
    ASSERT_EQ(SSL_shutdown(server.get()), 1) << errors();
    ASSERT_EQ(SSL_shutdown(client.get()), 1) << errors();

    r.version = SSL_get_version(client.get());
    r.cipher = SSL_get_cipher_name(client.get());
    r.client_contexts = peers.client.hwcipher_contexts() - c0;
    r.server_contexts = peers.server.hwcipher_contexts() - s0;
}

const char* version_name(int v) {
    switch (v) {
    case TLS1_VERSION: return "TLSv1";
    case TLS1_1_VERSION: return "TLSv1.1";
    case TLS1_2_VERSION: return "TLSv1.2";
    default: return "TLSv1.3";
    }
}

class TlsSession : public ::testing::TestWithParam<Case> {};

// With hwcipher preferred, both peers' record ciphers are hwcipher contexts.
TEST_P(TlsSession, HwcipherCarriesTheRecords) {
    const Case& c = GetParam();
    Peers& peers = hwcipher_peers();
    const std::string who = expected_server(peers.client, c);
    if (who == "hwcipher") {
        EXPECT_EQ(peers.client.provider_for(c.record), "hwcipher");
        EXPECT_EQ(peers.server.provider_for(c.record), "hwcipher");
    }
    Result r;
    ASSERT_NO_FATAL_FAILURE(run_session(peers, c, r));
    EXPECT_EQ(r.version, version_name(c.version));
    EXPECT_EQ(r.cipher, c.suite);
    if (c.version < TLS1_3_VERSION) {
        EXPECT_EQ(r.etm, c.etm) << "encrypt-then-MAC negotiated";
    }
    if (who == "hwcipher") {
        // Each peer keys a reading and a writing context (TLS 1.3 twice:
        // handshake and application traffic).
        const uint64_t at_least = c.version == TLS1_3_VERSION ? 4 : 2;
        EXPECT_GE(r.client_contexts, at_least);
        EXPECT_GE(r.server_contexts, at_least);
    } else {
        // libssl prefers the default provider's stitched cipher for MtE; no
        // hwcipher context is involved (contract §5.3).
        EXPECT_EQ(r.client_contexts, 0u);
        EXPECT_EQ(r.server_contexts, 0u);
    }
    std::printf("%s %s etm=%d: %s served; hwcipher contexts client %llu, server %llu\n",
                r.version.c_str(), r.cipher.c_str(), r.etm ? 1 : 0, who.c_str(),
                static_cast<unsigned long long>(r.client_contexts),
                static_cast<unsigned long long>(r.server_contexts));
}

// Control: with the default provider preferred, the same sessions create no
// hwcipher context -- so the counts above come from the record layer.
TEST_P(TlsSession, DefaultPreferredUsesNoHwcipherContext) {
    const Case& c = GetParam();
    Result r;
    ASSERT_NO_FATAL_FAILURE(run_session(default_peers(), c, r));
    EXPECT_EQ(r.cipher, c.suite);
    EXPECT_EQ(r.client_contexts, 0u);
    EXPECT_EQ(r.server_contexts, 0u);
}

const Case kCases[] = {
    {"tls12_aes128_sha256_etm", TLS1_2_VERSION, "ECDHE-RSA-AES128-SHA256", true, "AES-128-CBC",
     "AES-128-CBC-HMAC-SHA256"},
    // MtE with HMAC-SHA384: the default provider has no stitched cipher for
    // it, so hwcipher's CBC record mode runs on every architecture.
    {"tls12_aes256_sha384_mte", TLS1_2_VERSION, "ECDHE-RSA-AES256-SHA384", false, "AES-256-CBC",
     nullptr},
    // MtE with HMAC-SHA256: hwcipher where the default has no stitched
    // cipher (aarch64, s390x), the stitched cipher on x86-64.
    {"tls12_aes128_sha256_mte", TLS1_2_VERSION, "ECDHE-RSA-AES128-SHA256", false, "AES-128-CBC",
     "AES-128-CBC-HMAC-SHA256"},
    // TLS 1.0: no explicit IV, and libssl's empty-fragment records.
    {"tls10_aes128_sha_etm", TLS1_VERSION, "ECDHE-RSA-AES128-SHA", true, "AES-128-CBC",
     "AES-128-CBC-HMAC-SHA1"},
    {"tls10_aes256_sha_mte", TLS1_VERSION, "ECDHE-RSA-AES256-SHA", false, "AES-256-CBC",
     "AES-256-CBC-HMAC-SHA1"},
    {"tls12_aes128_gcm", TLS1_2_VERSION, "ECDHE-RSA-AES128-GCM-SHA256", false, "AES-128-GCM",
     nullptr},
    {"tls13_aes128_gcm", TLS1_3_VERSION, "TLS_AES_128_GCM_SHA256", false, "AES-128-GCM", nullptr},
    {"tls13_aes128_ccm", TLS1_3_VERSION, "TLS_AES_128_CCM_SHA256", false, "AES-128-CCM", nullptr},
};

INSTANTIATE_TEST_SUITE_P(Suites, TlsSession, ::testing::ValuesIn(kCases),
                         [](const ::testing::TestParamInfo<Case>& info) {
                             return std::string(info.param.name);
                         });

} // namespace
