// SPDX-License-Identifier: Apache-2.0
// HWCIPHER_TRACE: one whole line per cipher context keyed through hwcipher,
// none for re-inits without a key, whole lines under concurrent appends; a
// process whose file-size limit is 0 (OpenSSH's sandboxed child) loses its
// lines and lives on, while its own writes past the limit still end it.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <regex>
#include <string>
#include <thread>
#include <vector>

namespace {

// A library context of its own, so that hwcipher's init runs (and reads
// HWCIPHER_TRACE) while the variable is set, whatever other tests loaded.
class TraceTest : public ::testing::Test {
protected:
    void SetUp() override {
        path_ = ::testing::TempDir() + "hwcipher-trace-" + std::to_string(::getpid()) + ".log";
        std::remove(path_.c_str());
        ASSERT_EQ(setenv("HWCIPHER_TRACE", path_.c_str(), 1), 0);
        ctx_ = OSSL_LIB_CTX_new();
        ASSERT_NE(ctx_, nullptr);
#ifdef HWCIPHER_MODULES_DIR_DEFAULT
        if (std::getenv("OPENSSL_MODULES") == nullptr)
            OSSL_PROVIDER_set_default_search_path(ctx_, HWCIPHER_MODULES_DIR_DEFAULT);
#endif
        prov_ = OSSL_PROVIDER_load(ctx_, "hwcipher");
        unsetenv("HWCIPHER_TRACE"); // read once, at provider init
        ASSERT_NE(prov_, nullptr) << "cannot load hwcipher";
    }
    void TearDown() override {
        if (prov_ != nullptr) OSSL_PROVIDER_unload(prov_);
        OSSL_LIB_CTX_free(ctx_);
        std::remove(path_.c_str());
    }
    std::vector<std::string> lines() const {
        std::ifstream in(path_);
        std::vector<std::string> out;
        for (std::string l; std::getline(in, l);) out.push_back(l);
        return out;
    }
    // Keys (or, with key == false, re-initialises) one context.
    static bool init(EVP_CIPHER_CTX* c, const EVP_CIPHER* cipher, bool key, bool enc) {
        static const unsigned char k[32] = {1, 2, 3};
        static const unsigned char iv[16] = {4, 5, 6};
        return EVP_CipherInit_ex2(c, cipher, key ? k : nullptr, iv, enc ? 1 : 0, nullptr) == 1;
    }

    std::string path_;
    OSSL_LIB_CTX* ctx_ = nullptr;
    OSSL_PROVIDER* prov_ = nullptr;
};

TEST_F(TraceTest, OneLinePerKeyedInit) {
    EVP_CIPHER* gcm = EVP_CIPHER_fetch(ctx_, "id-aes128-GCM", "provider=hwcipher");
    EVP_CIPHER* cbc = EVP_CIPHER_fetch(ctx_, "AES-256-CBC", "provider=hwcipher");
    ASSERT_NE(gcm, nullptr);
    ASSERT_NE(cbc, nullptr);
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(init(c, gcm, true, true));
    EXPECT_TRUE(init(c, nullptr, false, true)); // new IV only: no line
    EXPECT_TRUE(init(c, cbc, true, false));
    EVP_CIPHER_CTX_free(c);
    EVP_CIPHER_free(gcm);
    EVP_CIPHER_free(cbc);

    const std::vector<std::string> got = lines();
    ASSERT_EQ(got.size(), 2u);
    const std::string pid = std::to_string(::getpid());
    // The primary name, not the alias the caller fetched by.
    EXPECT_TRUE(std::regex_match(got[0], std::regex("hwcipher-trace pid=" + pid +
                                                    " alg=AES-128-GCM core=[a-z0-9-]+ op=encrypt")))
        << got[0];
    EXPECT_TRUE(std::regex_match(got[1], std::regex("hwcipher-trace pid=" + pid +
                                                    " alg=AES-256-CBC core=[a-z0-9-]+ op=decrypt")))
        << got[1];
}

TEST_F(TraceTest, ConcurrentAppendsStayWholeLines) {
    EVP_CIPHER* ccm = EVP_CIPHER_fetch(ctx_, "AES-192-CCM", "provider=hwcipher");
    ASSERT_NE(ccm, nullptr);
    constexpr int kThreads = 4, kPerThread = 50;
    std::vector<std::thread> threads;
    std::vector<int> ok(kThreads, 0);
    for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
            EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
            for (int i = 0; c != nullptr && i < kPerThread; ++i) ok[t] += init(c, ccm, true, i % 2 == 0);
            EVP_CIPHER_CTX_free(c);
        });
    }
    for (auto& th : threads) th.join();
    EVP_CIPHER_free(ccm);
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(ok[t], kPerThread);

    const std::vector<std::string> got = lines();
    ASSERT_EQ(got.size(), size_t{kThreads * kPerThread});
    const std::regex line("hwcipher-trace pid=[0-9]+ alg=AES-192-CCM core=[a-z0-9-]+ op=(en|de)crypt");
    size_t enc = 0;
    for (const std::string& l : got) {
        EXPECT_TRUE(std::regex_match(l, line)) << l;
        enc += l.ends_with("op=encrypt");
    }
    EXPECT_EQ(enc, size_t{kThreads * kPerThread / 2});
}

// Runs `child` in a forked process with RLIMIT_FSIZE 0 (and no core
// file) and returns its wait status.
template <class F>
int in_child_with_fsize_zero(F child) {
    std::fflush(nullptr);
    const pid_t pid = ::fork();
    if (pid == 0) {
        const struct rlimit zero{0, 0};
        if (::setrlimit(RLIMIT_CORE, &zero) != 0 || ::setrlimit(RLIMIT_FSIZE, &zero) != 0) _exit(90);
        _exit(child());
    }
    int status = -1;
    if (pid > 0) ::waitpid(pid, &status, 0);
    return status;
}

std::string describe(int status);

bool sigxfsz_is_default() {
    struct sigaction sa{};
    return ::sigaction(SIGXFSZ, nullptr, &sa) == 0 && (sa.sa_flags & SA_SIGINFO) == 0 &&
           sa.sa_handler == SIG_DFL;
}

// sshd's pre-authentication child: forked after the provider was loaded,
// it inherits the trace's descriptor, then sets RLIMIT_FSIZE to 0 before
// its seccomp filter. Keying a context there must not kill it (SIGXFSZ);
// its line is lost, the parent's lines before and after are whole.
TEST_F(TraceTest, ZeroFileSizeLimitLosesLinesNotTheProcess) {
    EVP_CIPHER* ctr = EVP_CIPHER_fetch(ctx_, "AES-128-CTR", "provider=hwcipher");
    ASSERT_NE(ctr, nullptr);
    EVP_CIPHER_CTX* c = EVP_CIPHER_CTX_new();
    ASSERT_NE(c, nullptr);
    EXPECT_TRUE(init(c, ctr, true, true));
    const int status = in_child_with_fsize_zero([&] {
        bool ok = true;
        for (int i = 0; i < 3; ++i) ok = ok && init(c, ctr, true, false);
        return ok ? 0 : 1;
    });
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child: " << describe(status);
    EXPECT_TRUE(init(c, ctr, true, true));
    EVP_CIPHER_CTX_free(c);
    EVP_CIPHER_free(ctr);

    const std::vector<std::string> got = lines();
    ASSERT_EQ(got.size(), 2u);
    // Both the parent's (the child's decryptions are lost).
    const std::regex parent("hwcipher-trace pid=" + std::to_string(::getpid()) +
                            " alg=AES-128-CTR core=[a-z0-9-]+ op=encrypt");
    for (const std::string& l : got) EXPECT_TRUE(std::regex_match(l, parent)) << l;
}

// The wait status of a child that writes one byte of its own to a regular
// file past a file-size limit of 0.
int own_write_past_the_limit(const std::string& path) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    const int status = in_child_with_fsize_zero([&] {
        const ssize_t n = ::write(fd, "x", 1);
        return n < 0 && errno == EFBIG ? 3 : 4; // reached only if the signal did not end it
    });
    ::close(fd);
    std::remove(path.c_str());
    return status;
}

std::string describe(int status) {
    if (WIFEXITED(status)) return "exited " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) return strsignal(WTERMSIG(status));
    return "status " + std::to_string(status);
}

// The guard is for the trace's appends only: the application's own write
// past its file-size limit still ends the process with SIGXFSZ, as it would
// without hwcipher.
TEST_F(TraceTest, OwnWritePastTheLimitStillRaisesSigxfsz) {
    EXPECT_FALSE(sigxfsz_is_default()) << "tracing a regular file: the guard should be installed";
    const int status = own_write_past_the_limit(path_ + ".own");
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ) << "child: " << describe(status);
}

// The handler stays when the provider is gone (teardown may run inside a
// sandbox, where changing it would kill the process), and so does the
// module's code under it: an own write past the limit still ends the
// process with SIGXFSZ, not with a jump into unmapped memory.
TEST_F(TraceTest, HandlerOutlivesTeardownSafely) {
    ASSERT_EQ(OSSL_PROVIDER_unload(prov_), 1);
    prov_ = nullptr;
    OSSL_LIB_CTX_free(ctx_);
    ctx_ = nullptr;
    EXPECT_FALSE(sigxfsz_is_default());
    const int status = own_write_past_the_limit(path_ + ".own");
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGXFSZ) << "child: " << describe(status);
}

// An application's own SIGXFSZ disposition (here SIG_IGN) is left alone,
// and a trace that is not a regular file (here /dev/null) guards nothing.
// (Each case starts from the disposition it sets, whatever ran before.)
TEST(TraceGuard, LeavesTheApplicationsChoiceAndNonFiles) {
    struct Case {
        const char* trace;
        bool app_ignores;
    };
    for (const Case k : {Case{"/dev/null", false}, Case{nullptr, true}}) {
        const std::string path =
            k.trace ? k.trace : ::testing::TempDir() + "hwcipher-guard-" + std::to_string(::getpid());
        struct sigaction ign{};
        ign.sa_handler = k.app_ignores ? SIG_IGN : SIG_DFL;
        sigemptyset(&ign.sa_mask);
        ASSERT_EQ(::sigaction(SIGXFSZ, &ign, nullptr), 0);
        ASSERT_EQ(setenv("HWCIPHER_TRACE", path.c_str(), 1), 0);
        OSSL_LIB_CTX* lib = OSSL_LIB_CTX_new();
        ASSERT_NE(lib, nullptr);
#ifdef HWCIPHER_MODULES_DIR_DEFAULT
        if (std::getenv("OPENSSL_MODULES") == nullptr)
            OSSL_PROVIDER_set_default_search_path(lib, HWCIPHER_MODULES_DIR_DEFAULT);
#endif
        OSSL_PROVIDER* prov = OSSL_PROVIDER_load(lib, "hwcipher");
        unsetenv("HWCIPHER_TRACE");
        EXPECT_NE(prov, nullptr);
        struct sigaction now{};
        ASSERT_EQ(::sigaction(SIGXFSZ, nullptr, &now), 0);
        EXPECT_EQ(now.sa_handler, k.app_ignores ? SIG_IGN : SIG_DFL) << path;
        if (prov != nullptr) OSSL_PROVIDER_unload(prov);
        OSSL_LIB_CTX_free(lib);
        ASSERT_EQ(::sigaction(SIGXFSZ, nullptr, &now), 0);
        EXPECT_EQ(now.sa_handler, k.app_ignores ? SIG_IGN : SIG_DFL) << path << " after unload";
        if (!k.trace) std::remove(path.c_str());
        ign.sa_handler = SIG_DFL;
        ::sigaction(SIGXFSZ, &ign, nullptr);
    }
}

} // namespace
