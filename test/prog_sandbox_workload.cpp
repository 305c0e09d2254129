// SPDX-License-Identifier: Apache-2.0
// Sandbox workload: what a sandboxed application (sshd's pre-authentication
// child) does after it has loaded hwcipher, with marks around it that a
// system-call trace can find. test/cli/trace_sandbox.native.sh runs it under
// strace with HWCIPHER_TRACE on and checks that between the marks (the
// workload and a teardown of hwcipher) it makes only the system calls
// OpenSSH's seccomp sandbox allows: nothing opened, nothing mapped from a
// file, no thread or process started, no signal handler returning;
// ctest also runs it alone, where its own checks (every cipher served by
// hwcipher, every round trip exact, the reliability workload's steps) stand.
//
// The marks are access(2) calls on paths that do not exist: a file system
// call, so `strace -e trace=%file` shows them in order with the calls it is
// looking for, and harmless.
//
//   sandbox_workload [--fsize-zero] [--open-after-load]
//   --fsize-zero       afterwards, set RLIMIT_FSIZE to 0 as OpenSSH's sandbox
//                      does, and key contexts again: with the trace on a
//                      regular file the appends fail, the process must live
//                      (its own output must then go to a pipe or terminal:
//                      a write of its own to a regular file ends it, SIGXFSZ)
//   --open-after-load  open /dev/null between the marks (the CLI test's
//                      check that it can see an open)
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <string>

#include "test/reliability/workload.h"

namespace {

int failures = 0;

void check(bool ok, const std::string& what) {
    if (ok) return;
    std::printf("FAIL: %s\n", what.c_str());
    ERR_print_errors_fp(stdout);
    ++failures;
}

void mark(const char* name) {
    const std::string path = std::string("/hwcipher-sandbox-workload/") + name;
    (void)::access(path.c_str(), F_OK);
}

// Deterministic bytes, distinct per `seed`.
void fill(unsigned char* p, size_t n, unsigned seed) {
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<unsigned char>(i * 29 + seed * 13 + 1);
}

const char* provider_of(const EVP_CIPHER* c) {
    const OSSL_PROVIDER* p = c != nullptr ? EVP_CIPHER_get0_provider(c) : nullptr;
    return p != nullptr ? OSSL_PROVIDER_get0_name(p) : "(none)";
}

// Encrypts 1000 bytes in three updates and decrypts them in two, through the
// default library context and its configured preference (as sshd and every
// legacy application fetch); the cipher must come from hwcipher.
void round_trip(const EVP_CIPHER* c, const std::string& name) {
    unsigned char key[64], iv[16], pt[1000], ct[1100], back[1100];
    fill(key, sizeof key, 1);
    fill(iv, sizeof iv, 3);
    fill(pt, sizeof pt, 4);
    EVP_CIPHER_CTX* e = EVP_CIPHER_CTX_new();
    EVP_CIPHER_CTX* d = EVP_CIPHER_CTX_new();
    int n = 0, total = 0, got = 0;
    bool ok = e != nullptr && d != nullptr && EVP_EncryptInit_ex2(e, c, key, iv, nullptr) == 1;
    // The context's cipher: a legacy EVP_aes_128_ctr() gets its provider
    // (an implicit fetch) only when a context is initialised with it.
    const char* served_by = ok ? provider_of(EVP_CIPHER_CTX_get0_cipher(e)) : "(init failed)";
    check(std::strcmp(served_by, "hwcipher") == 0,
          name + ": served by " + served_by + ", not hwcipher");
    const size_t cuts[] = {0, 17, 500, sizeof pt};
    for (size_t i = 0; i + 1 < std::size(cuts); ++i) {
        ok = ok && EVP_EncryptUpdate(e, ct + total, &n, pt + cuts[i],
                                     static_cast<int>(cuts[i + 1] - cuts[i])) == 1;
        total += ok ? n : 0;
    }
    ok = ok && EVP_EncryptFinal_ex(e, ct + total, &n) == 1;
    total += ok ? n : 0;
    ok = ok && EVP_DecryptInit_ex2(d, c, key, iv, nullptr) == 1 &&
         EVP_DecryptUpdate(d, back, &n, ct, 33) == 1;
    got = ok ? n : 0;
    ok = ok && EVP_DecryptUpdate(d, back + got, &n, ct + 33, total - 33) == 1;
    got += ok ? n : 0;
    ok = ok && EVP_DecryptFinal_ex(d, back + got, &n) == 1;
    got += ok ? n : 0;
    check(ok && got == static_cast<int>(sizeof pt) && std::memcmp(back, pt, sizeof pt) == 0,
          name + ": round trip");
    EVP_CIPHER_CTX_free(e);
    EVP_CIPHER_CTX_free(d);
}

// AES-GCM as OpenSSH drives it: the whole IV fixed, then one generated per
// packet; and as TLS 1.2 does, a 4-byte fixed part and the rest random
// (hwcipher draws it from the loading context's generator).
void gcm_iv_gen(const EVP_CIPHER* c, const std::string& name, int fixed) {
    unsigned char key[32], iv[12], aad[13], pt[300], ct[300], tag[16], back[300];
    fill(key, sizeof key, 5);
    fill(iv, sizeof iv, 6);
    fill(aad, sizeof aad, 7);
    fill(pt, sizeof pt, 8);
    EVP_CIPHER_CTX* e = EVP_CIPHER_CTX_new();
    EVP_CIPHER_CTX* d = EVP_CIPHER_CTX_new();
    bool ok = e != nullptr && d != nullptr && EVP_CipherInit_ex2(e, c, key, nullptr, 1, nullptr) == 1 &&
              EVP_CipherInit_ex2(d, c, key, nullptr, 0, nullptr) == 1 &&
              EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_SET_IV_FIXED, fixed, iv) == 1;
    for (int packet = 0; ok && packet < 3; ++packet) {
        unsigned char used[12];
        int n = 0, m = 0;
        ok = EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_GCM_IV_GEN, sizeof used, used) == 1 &&
             EVP_CipherUpdate(e, nullptr, &n, aad, sizeof aad) == 1 &&
             EVP_CipherUpdate(e, ct, &n, pt, sizeof pt) == 1 && EVP_CipherFinal_ex(e, ct + n, &m) == 1 &&
             EVP_CIPHER_CTX_ctrl(e, EVP_CTRL_AEAD_GET_TAG, sizeof tag, tag) == 1 &&
             EVP_CipherInit_ex2(d, nullptr, nullptr, used, 0, nullptr) == 1 &&
             EVP_CIPHER_CTX_ctrl(d, EVP_CTRL_AEAD_SET_TAG, sizeof tag, tag) == 1 &&
             EVP_CipherUpdate(d, nullptr, &n, aad, sizeof aad) == 1 &&
             EVP_CipherUpdate(d, back, &n, ct, sizeof pt) == 1 &&
             EVP_CipherFinal_ex(d, back + n, &m) == 1 && std::memcmp(back, pt, sizeof pt) == 0;
    }
    check(ok, name + ": IV generation (" + std::to_string(fixed) + "-byte fixed part)");
    EVP_CIPHER_CTX_free(e);
    EVP_CIPHER_CTX_free(d);
}

// Every family and the common modes, fetched by name from the default
// library context; AES-128-CTR also through the legacy EVP_aes_128_ctr().
// (XTS, CCM, OCB, SIV, key wrap: the reliability workload's one-shot steps.)
void default_context_pass() {
    for (const char* name :
         {"AES-128-ECB", "AES-192-CBC", "AES-256-CTR", "AES-128-CFB", "AES-256-OFB", "AES-128-CFB8",
          "SM4-ECB", "SM4-CBC", "SM4-CTR", "SM4-OFB", "TWOFISH-128-CBC",
          "TWOFISH-256-CTR"}) {
        EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, name, nullptr);
        check(c != nullptr, std::string(name) + ": fetch");
        if (c != nullptr) round_trip(c, name);
        EVP_CIPHER_free(c);
    }
    round_trip(EVP_aes_128_ctr(), "EVP_aes_128_ctr()");
    for (const char* name : {"AES-128-GCM", "AES-256-GCM", "SM4-GCM"}) {
        EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, name, nullptr);
        check(c != nullptr && std::strcmp(provider_of(c), "hwcipher") == 0,
              std::string(name) + ": fetch from hwcipher");
        if (c != nullptr) {
            gcm_iv_gen(c, name, -1);
            gcm_iv_gen(c, name, 4);
        }
        EVP_CIPHER_free(c);
    }
}

} // namespace

int main(int argc, char** argv) {
    bool fsize_zero = false, open_after_load = false;
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--fsize-zero") == 0) {
            fsize_zero = true;
        } else if (std::strcmp(argv[i], "--open-after-load") == 0) {
            open_after_load = true;
        } else {
            std::fprintf(stderr, "usage: %s [--fsize-zero] [--open-after-load]\n", argv[0]);
            return 2;
        }
    }
    // What sshd does before it forks its sandboxed child: the configuration
    // (OPENSSL_CONF, which loads hwcipher) is read at start-up.
    if (OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, nullptr) != 1 ||
        OSSL_PROVIDER_available(nullptr, "hwcipher") != 1) {
        std::printf("FAIL: hwcipher not loaded by OPENSSL_CONF (%s)\n",
                    std::getenv("OPENSSL_CONF") ? std::getenv("OPENSSL_CONF") : "unset");
        return 1;
    }
    // A library context of the application's own with hwcipher loaded too,
    // unloaded inside the window: teardown runs inside sandboxes as well
    // (sshd's sandboxed child unloads its providers at exit).
    OSSL_LIB_CTX* own = OSSL_LIB_CTX_new();
    OSSL_PROVIDER* own_default = own ? OSSL_PROVIDER_load(own, "default") : nullptr;
    OSSL_PROVIDER* own_hwcipher = own ? OSSL_PROVIDER_load(own, "hwcipher") : nullptr;
    if (own_default == nullptr || own_hwcipher == nullptr) {
        std::printf("FAIL: hwcipher not loaded into a library context of its own\n");
        return 1;
    }
    mark("provider-loaded");
    if (open_after_load) {
        const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
        if (fd >= 0) ::close(fd);
    }
    default_context_pass();
    // Every mode family, both MACs, a TLS CBC record, provider parameters:
    // the reliability workload, on the configuration's providers.
    hwc::rel::Output out;
    const hwc::rel::Outcome r = hwc::rel::run_workload(OSSL_LIB_CTX_get0_global_default(), out);
    check(r.ok, std::string("reliability workload: ") + (r.step ? r.step : "?"));
    mark("workload-done");

    if (fsize_zero) {
        const struct rlimit zero{0, 0};
        check(::setrlimit(RLIMIT_FSIZE, &zero) == 0, "setrlimit(RLIMIT_FSIZE, 0)");
        default_context_pass();
        mark("fsize-zero-done");
    }
    EVP_CIPHER* own_ctr = EVP_CIPHER_fetch(own, "AES-128-CTR", "provider=hwcipher");
    check(own_ctr != nullptr, "AES-128-CTR: fetch from the own library context");
    if (own_ctr != nullptr) round_trip(own_ctr, "AES-128-CTR (own library context)");
    EVP_CIPHER_free(own_ctr);
    check(OSSL_PROVIDER_unload(own_hwcipher) == 1 && OSSL_PROVIDER_unload(own_default) == 1,
          "unloading the own library context's providers");
    OSSL_LIB_CTX_free(own); // hwcipher's teardown: the CLI test sees its close()
    // The end of the window the CLI test inspects: its own output (stdio's
    // first write inspects stdout) comes after.
    mark("done");
    if (fsize_zero) std::printf("ok: keyed contexts again with RLIMIT_FSIZE 0, still running\n");
    if (failures != 0) {
        std::printf("FAIL: sandbox_workload: %d failure(s)\n", failures);
        return 1;
    }
    std::printf("PASS: sandbox_workload\n");
    return 0;
}
