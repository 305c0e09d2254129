// SPDX-License-Identifier: Apache-2.0
// bench_tls: the CPU a TLS bulk transfer costs in libssl itself, with the
// client and the server in this one process over a memory BIO pair: no
// sockets, no kernel copies, no scheduler between the two ends. What is left
// is libssl's record layer and the cipher, so the figure moves with the
// cipher and little else (scripts/bench_apps.sh's tls-libssl rows and
// scripts/main.sh's TLS row; the same transfer through real servers and the
// loopback is bench_apps.sh's tls-nginx and tls-s_server rows).
//
//   bench_tls --mib 512 [--tls13 TLS_AES_128_GCM_SHA256 | --tls12 ECDHE-ECDSA-AES128-GCM-SHA256]
//
// The providers come from the configuration, as in any application:
// OPENSSL_CONF preferring hwcipher, or a configuration with the default
// provider alone (bench_apps.sh's hw.cnf and def.cnf). After a handshake
// (a P-256 self-signed certificate made here), the client sends --mib MiB
// in 16 KiB records and the server reads them; each record is written and
// then read at once. The records are authenticated (AES-GCM): a corrupted
// one fails SSL_read, which fails the run.
//
// Output: one line "<cpu seconds> <wall seconds>" of the transfer alone
// (CLOCK_PROCESS_CPUTIME_ID and CLOCK_MONOTONIC around it, the handshake
// outside), then "cipher: <suite> from <provider>" on stderr: the provider
// that serves AES-GCM in this configuration's default library context.
// Exits 1 with OpenSSL's error queue on any failure.
#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(const char* what) {
    std::fprintf(stderr, "bench_tls: %s failed\n", what);
    ERR_print_errors_fp(stderr);
    std::exit(1);
}

double seconds(clockid_t clock) {
    timespec ts{};
    clock_gettime(clock, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

// A self-signed P-256 certificate for CN=localhost, valid for a day.
void make_identity(EVP_PKEY** key, X509** cert) {
    *key = EVP_PKEY_Q_keygen(nullptr, nullptr, "EC", "P-256");
    *cert = X509_new();
    if (*key == nullptr || *cert == nullptr) die("key generation");
    X509_set_version(*cert, X509_VERSION_3);
    ASN1_INTEGER_set(X509_get_serialNumber(*cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(*cert), -3600);
    X509_gmtime_adj(X509_getm_notAfter(*cert), 24 * 3600);
    X509_set_pubkey(*cert, *key);
    X509_NAME* name = X509_NAME_new();
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                               reinterpret_cast<const unsigned char*>("localhost"), -1, -1, 0);
    X509_set_subject_name(*cert, name);
    X509_set_issuer_name(*cert, name);
    X509_NAME_free(name);
    if (X509_sign(*cert, *key, EVP_sha256()) <= 0) die("X509_sign");
}

SSL_CTX* make_ctx(bool server, bool tls13, const std::string& suite) {
    SSL_CTX* ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
    if (ctx == nullptr) die("SSL_CTX_new");
    const int version = tls13 ? TLS1_3_VERSION : TLS1_2_VERSION;
    SSL_CTX_set_min_proto_version(ctx, version);
    SSL_CTX_set_max_proto_version(ctx, version);
    if (tls13 ? SSL_CTX_set_ciphersuites(ctx, suite.c_str()) != 1
              : SSL_CTX_set_cipher_list(ctx, suite.c_str()) != 1)
        die("setting the suite");
    if (server) SSL_CTX_set_num_tickets(ctx, 0);   // nothing unread on the client
    return ctx;
}

// Runs the handshake of a connected client/server pair to its end.
void handshake(SSL* client, SSL* server) {
    for (int turn = 0; turn < 100; ++turn) {
        const int c = SSL_do_handshake(client);
        const int s = SSL_do_handshake(server);
        if (c == 1 && s == 1) return;
        for (auto [ssl, rc] : {std::pair{client, c}, std::pair{server, s}}) {
            const int e = rc == 1 ? SSL_ERROR_NONE : SSL_get_error(ssl, rc);
            if (e != SSL_ERROR_NONE && e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
                die("SSL_do_handshake");
        }
    }
    die("the handshake (no progress)");
}

}  // namespace

int main(int argc, char** argv) {
    long mib = 512;
    bool tls13 = true;
    std::string suite = "TLS_AES_128_GCM_SHA256";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string opt = argv[i];
        if (opt == "--mib") mib = std::strtol(argv[i + 1], nullptr, 10);
        else if (opt == "--tls13") { tls13 = true; suite = argv[i + 1]; }
        else if (opt == "--tls12") { tls13 = false; suite = argv[i + 1]; }
        else { std::fprintf(stderr, "bench_tls: unknown option %s\n", argv[i]); return 2; }
    }
    if ((argc - 1) % 2 != 0 || mib <= 0) {
        std::fprintf(stderr, "usage: bench_tls --mib N [--tls13 SUITE | --tls12 CIPHER]\n");
        return 2;
    }

    EVP_PKEY* key = nullptr;
    X509* cert = nullptr;
    make_identity(&key, &cert);
    SSL_CTX* sctx = make_ctx(true, tls13, suite);
    SSL_CTX* cctx = make_ctx(false, tls13, suite);
    if (SSL_CTX_use_certificate(sctx, cert) != 1 || SSL_CTX_use_PrivateKey(sctx, key) != 1)
        die("loading the certificate");
    SSL* server = SSL_new(sctx);
    SSL* client = SSL_new(cctx);
    BIO* cbio = nullptr;
    BIO* sbio = nullptr;
    // Room for a few full records each way.
    if (server == nullptr || client == nullptr || BIO_new_bio_pair(&cbio, 1 << 17, &sbio, 1 << 17) != 1)
        die("SSL_new / BIO_new_bio_pair");
    SSL_set_bio(client, cbio, cbio);
    SSL_set_bio(server, sbio, sbio);
    SSL_set_connect_state(client);
    SSL_set_accept_state(server);
    handshake(client, server);

    constexpr int kRecord = 16384;
    std::vector<unsigned char> out(kRecord), in(kRecord);
    for (int i = 0; i < kRecord; ++i) out[static_cast<size_t>(i)] = static_cast<unsigned char>(i * 131 + 7);
    const long long total = static_cast<long long>(mib) << 20;
    const double cpu0 = seconds(CLOCK_PROCESS_CPUTIME_ID), wall0 = seconds(CLOCK_MONOTONIC);
    for (long long sent = 0; sent < total; sent += kRecord) {
        if (SSL_write(client, out.data(), kRecord) != kRecord) die("SSL_write");
        for (int got = 0; got < kRecord;) {
            const int n = SSL_read(server, in.data() + got, kRecord - got);
            if (n <= 0) die("SSL_read");
            got += n;
        }
    }
    const double cpu = seconds(CLOCK_PROCESS_CPUTIME_ID) - cpu0, wall = seconds(CLOCK_MONOTONIC) - wall0;
    if (std::memcmp(in.data(), out.data(), kRecord) != 0) die("the last record's comparison");
    std::printf("%.4f %.4f\n", cpu, wall);

    const SSL_CIPHER* negotiated = SSL_get_current_cipher(client);
    EVP_CIPHER* aes = EVP_CIPHER_fetch(nullptr, "AES-128-GCM", nullptr);
    std::fprintf(stderr, "suite: %s; AES-128-GCM fetched from %s\n",
                 negotiated != nullptr ? SSL_CIPHER_get_name(negotiated) : "?",
                 aes != nullptr ? OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(aes)) : "?");
    EVP_CIPHER_free(aes);
    SSL_free(client);
    SSL_free(server);
    SSL_CTX_free(cctx);
    SSL_CTX_free(sctx);
    X509_free(cert);
    EVP_PKEY_free(key);
    return 0;
}
