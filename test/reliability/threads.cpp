// SPDX-License-Identifier: Apache-2.0
// threads: the reliability workload (workload.h) on many threads at once,
// built with ThreadSanitizer (scripts/build.sh tsan; scripts/test.sh tsan).
//
//   threads [--rounds R] [--threads T] [--repeat K]
//
// Each round is a fresh process (this program re-executed with --child), so
// every first-use path is cold in every round: hwcipher's provider init,
// libcrypto's method stores, the error strings (only the mapping of
// hwcipher.so is done before the threads start: see child()). In a round, T threads start
// together at a barrier; half of them share one library context (each
// loading hwcipher into it: one more reference), the other half each
// create their own context and load hwcipher into it, so provider inits run
// while other threads raise errors and run ciphers. Each thread runs the
// workload K times; every run of every thread must give the same output.
// The round itself holds one reference to both providers of the shared
// context from before the threads start until they end: OpenSSL 3.0's
// provider store flushes its method cache whenever a provider becomes
// active, and a fetch in another thread at that moment can fail with
// "unsupported" (openssl/openssl#17633, in libcrypto, not hwcipher: a CI
// round saw all four sharing threads fail so). The threads' own loads and
// unloads then only count references there; hwcipher's provider init still
// runs in the other threads' contexts while these run ciphers.
//
// The parent reads each child's stderr: any ThreadSanitizer report fails the
// round. Reports are counted apart when a frame lies in hwcipher.so or in
// this program; a report in neither (libcrypto is not instrumented, so both
// racing accesses could not be seen there) would be counted too, but then
// as "other". The last line is "threads: <R> rounds, <N> reports (<H> in
// hwcipher.so), <M> output mismatches".
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/provider.h>

#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "test/reliability/workload.h"

namespace {

using hwc::rel::Output;

struct Options {
    int rounds = 20;
    int threads = 8;
    int repeat = 3;
    bool child = false;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        auto next = [&] {
            if (i + 1 >= argc) {
                std::fprintf(stderr, "threads: %s needs a value\n", a.c_str());
                std::exit(2);
            }
            return std::atoi(argv[++i]);
        };
        if (a == "--rounds") o.rounds = next();
        else if (a == "--threads") o.threads = next();
        else if (a == "--repeat") o.repeat = next();
        else if (a == "--child") o.child = true;
        else {
            std::fprintf(stderr, "threads: unknown argument %s\n", a.c_str());
            std::exit(2);
        }
    }
    return o;
}

// One round: returns 0 when every run of every thread succeeded with the
// same output.
int child(const Options& o) {
    // hwcipher.so is mapped here, before the threads start. When two
    // threads dlopen the same object, the loader orders them with a lock
    // TSan cannot see (ld.so calls libc's mutex directly), so TSan would
    // report the module's static constructors as racing with the other
    // thread's first use: a loader artefact, not hwcipher's. Everything
    // after the mapping (provider init, fetches, contexts) is still cold in
    // the threads.
    const char* dir = std::getenv("OPENSSL_MODULES");
    const std::string module = std::string(dir != nullptr ? dir : ".") + "/hwcipher.so";
    if (dlopen(module.c_str(), RTLD_NOW) == nullptr) {
        std::fprintf(stderr, "cannot map %s: %s\n", module.c_str(), dlerror());
        return 3;
    }
    OSSL_LIB_CTX* shared = OSSL_LIB_CTX_new();
    if (shared == nullptr) return 3;
    OSSL_PROVIDER* held_default = OSSL_PROVIDER_load(shared, "default");
    OSSL_PROVIDER* held = OSSL_PROVIDER_load(shared, "hwcipher");
    if (held_default == nullptr || held == nullptr) {
        std::fprintf(stderr, "cannot load the providers into the shared context\n");
        return 3;
    }
    const int n = o.threads;
    std::vector<std::unique_ptr<Output>> outs;
    for (int t = 0; t < n * o.repeat; ++t) outs.push_back(std::make_unique<Output>());
    std::vector<std::string> failures(static_cast<size_t>(n));
    std::barrier start(n);
    std::vector<std::thread> pool;
    for (int t = 0; t < n; ++t) {
        pool.emplace_back([&, t] {
            start.arrive_and_wait();
            for (int k = 0; k < o.repeat; ++k) {
                Output& out = *outs[static_cast<size_t>(t * o.repeat + k)];
                const hwc::rel::Outcome r = hwc::rel::run_workload(t % 2 == 0 ? shared : nullptr, out);
                if (!r.ok) {
                    char err[256];
                    ERR_error_string_n(ERR_peek_last_error(), err, sizeof err);
                    failures[static_cast<size_t>(t)] = std::string(r.step) + ": " + err;
                    ERR_clear_error();
                    return;
                }
            }
        });
    }
    for (std::thread& th : pool) th.join();
    OSSL_PROVIDER_unload(held);
    OSSL_PROVIDER_unload(held_default);
    OSSL_LIB_CTX_free(shared);
    int rc = 0;
    for (int t = 0; t < n; ++t) {
        if (!failures[static_cast<size_t>(t)].empty()) {
            std::fprintf(stderr, "thread %d failed at %s\n", t, failures[static_cast<size_t>(t)].c_str());
            rc = 1;
        }
    }
    if (rc == 0) {
        for (size_t i = 1; i < outs.size(); ++i) {
            if (!(*outs[i] == *outs[0])) {
                std::fprintf(stderr, "thread %zu run %zu: output differs from thread 0's\n",
                             i / static_cast<size_t>(o.repeat), i % static_cast<size_t>(o.repeat));
                rc = 1;
            }
        }
        if (outs[0]->len == 0) rc = 1;
    }
    std::fprintf(stderr, "child: %d threads x %d runs, %zu output bytes each, %s\n", n, o.repeat,
                 outs[0]->len, rc == 0 ? "all equal" : "FAILED");
    return rc;
}

struct Reports {
    int total = 0, hwcipher = 0, program = 0, other = 0;
};

// Splits the TSan reports out of a child's stderr and sorts them by where
// their frames lie.
Reports scan(const std::string& log, std::string& first_report) {
    Reports r;
    size_t pos = 0;
    const std::string start = "WARNING: ThreadSanitizer:";
    while ((pos = log.find(start, pos)) != std::string::npos) {
        size_t end = log.find("SUMMARY: ThreadSanitizer", pos);
        end = end == std::string::npos ? log.size() : log.find('\n', end);
        const std::string rep = log.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
        ++r.total;
        if (rep.find("hwcipher.so") != std::string::npos || rep.find("/provider/") != std::string::npos ||
            rep.find("/cores/") != std::string::npos)
            ++r.hwcipher;
        else if (rep.find("/test/reliability/") != std::string::npos)
            ++r.program;
        else
            ++r.other;
        if (first_report.empty()) first_report = rep;
        pos = end == std::string::npos ? log.size() : end;
    }
    return r;
}

int parent(const Options& o, const char* self) {
    Reports sum;
    int failed_rounds = 0, mismatches = 0;
    std::string first;
    const std::string log_path = std::string("threads-child-") + std::to_string(getpid()) + ".log";
    for (int round = 0; round < o.rounds; ++round) {
        const pid_t pid = fork();
        if (pid < 0) {
            std::perror("fork");
            return 1;
        }
        if (pid == 0) {
            if (!std::freopen(log_path.c_str(), "w", stderr)) _exit(4);
            const std::string threads = std::to_string(o.threads), rep = std::to_string(o.repeat);
            execl(self, self, "--child", "--threads", threads.c_str(), "--repeat", rep.c_str(),
                  static_cast<char*>(nullptr));
            _exit(5);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        std::ifstream in(log_path);
        std::stringstream ss;
        ss << in.rdbuf();
        const std::string log = ss.str();
        const Reports r = scan(log, first);
        sum.total += r.total;
        sum.hwcipher += r.hwcipher;
        sum.program += r.program;
        sum.other += r.other;
        const bool exited = WIFEXITED(status);
        const int code = exited ? WEXITSTATUS(status) : -1;
        // TSan exits with 66 when it reported; 1 is a mismatch or failure.
        const bool mismatch = log.find("FAILED") != std::string::npos || (exited && code == 1);
        if (mismatch) ++mismatches;
        if (!exited || code != 0 || r.total != 0) {
            ++failed_rounds;
            std::fprintf(stderr, "round %d: %s %d, %d TSan reports\n", round,
                         exited ? "exit" : "signal", exited ? code : WTERMSIG(status), r.total);
            if (mismatch || !exited) std::fprintf(stderr, "%s\n", log.c_str());
        }
    }
    std::remove(log_path.c_str());
    if (!first.empty()) std::fprintf(stderr, "first report:\n%s\n", first.c_str());
    std::printf("threads: %d rounds x %d threads x %d runs, %d reports (%d in hwcipher.so, "
                "%d in this program, %d elsewhere), %d output mismatches or failures, %d failed rounds\n",
                o.rounds, o.threads, o.repeat, sum.total, sum.hwcipher, sum.program, sum.other,
                mismatches, failed_rounds);
    return failed_rounds == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    if (o.child) return child(o);
    return parent(o, "/proc/self/exe");
}
