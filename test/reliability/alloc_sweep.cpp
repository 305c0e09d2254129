// SPDX-License-Identifier: Apache-2.0
// alloc_sweep: the reliability workload (workload.h) with its N-th
// allocation failing, for every N, each in a forked child. Built in the
// clang ASan/UBSan build (scripts/build.sh clang); LeakSanitizer checks each
// child.
//
//   alloc_sweep [--from N] [--to N] [--sample K] [--jobs J] [--expect FILE]
//               [--report FILE]
//
// --sample K (CI): every N whose allocation is made with hwcipher.so on the
// stack (recorded in the reference run), and of the others, those in libcrypto's
// own paths, every K-th (N = 1, K + 1, 2K + 1, ...). The allocations hwcipher
// makes or causes are where its error paths start, so they are all taken; a
// libcrypto allocation failing elsewhere reaches hwcipher only through the
// contexts it frees, which the sample still reaches from every workload step.
// Without it (scripts/test.sh full), every N.
//
// Allocations counted, in one sequence: libcrypto's (CRYPTO_set_mem_functions,
// installed before libcrypto allocates anything) and every C++ allocation in
// the process (operator new replaced below: hwcipher.so allocates only
// through it, libstdc++'s containers included). The workload itself
// allocates nothing. The parent runs the workload until its allocation
// count is stable, takes that run's count T and output as the reference,
// then forks a child per N in [1, T]: the child fails exactly its N-th
// allocation (a null return, or std::bad_alloc from a throwing new), runs the
// workload, and reports one of
//   success         the workload succeeded with the reference output
//   clean-failure   it failed, with an error on the OpenSSL error queue
//   silent-failure  it failed with nothing on the error queue
//   wrong-output    it succeeded with different output
//   crash           the child died (abort, signal, sanitizer report)
//   leak            LeakSanitizer found memory the run left behind (in
//                   addition to one of the above)
// success and clean-failure pass; everything else is a finding, shown with
// its N, the workload step, and the stack of the failed allocation (and the
// child's own report for crashes and leaks).
//
// A finding is hwcipher's when the failed allocation had hwcipher.so on its
// stack or the child's sanitizer report names it; the others are libcrypto
// failing in its own paths (OpenSSL 3.0 does not queue an error for every
// failed allocation, and leaks on some): listed in the report as OUTSIDE,
// counted apart, neither passed nor failed.
//
// A finding of hwcipher's whose kind and location (the first hwcipher.so
// frame of the failed allocation) match a line of the expected-failure file
// (--expect) is an
// expected failure: reported, never counted as passed, and not failing the
// run; an expected line that nothing matches fails the run (the bug is gone:
// remove the line). The last line is
//   alloc_sweep: T allocations, P passed, F failed, X expected failures (not
//   counted as passed), L failing only in libcrypto's own paths (not counted)
#include <openssl/crypto.h>
#include <openssl/err.h>

#include <dlfcn.h>
#include <link.h>
#include <execinfo.h>
#include <fcntl.h>
#include <poll.h>
#include <sanitizer/lsan_interface.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <new>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "test/reliability/workload.h"

// ---- the failing allocator ---------------------------------------------------

namespace {

bool g_armed = false;        // counting inside the workload
unsigned long g_count = 0;   // allocations seen while armed
unsigned long g_fail_at = 0; // 0: never fail
int g_report_fd = -1;        // the child's result pipe

// The reference run's record of which allocations had hwcipher.so on the
// stack, one flag per N (fixed storage: it is written from inside the
// allocator, which must not allocate).
constexpr unsigned long kMaxRecorded = 1ul << 20;
bool g_recording = false;
unsigned char g_in_hwcipher[kMaxRecorded + 1];

void report_injection();
bool hwcipher_on_stack();

bool fail_now() {
    if (!g_armed) return false;
    ++g_count;
    if (g_recording && g_count <= kMaxRecorded) g_in_hwcipher[g_count] = hwcipher_on_stack() ? 1 : 0;
    if (g_count != g_fail_at) return false;
    report_injection();
    return true;
}

void* crypto_malloc(size_t n, const char*, int) { return fail_now() ? nullptr : std::malloc(n); }
void* crypto_realloc(void* p, size_t n, const char*, int) {
    if (n != 0 && fail_now()) return nullptr;
    return std::realloc(p, n);
}
void crypto_free(void* p, const char*, int) { std::free(p); }

void* plain_new(size_t n) {
    if (fail_now()) return nullptr;
    return std::malloc(n != 0 ? n : 1);
}
void* aligned_new(size_t n, std::align_val_t a) {
    if (fail_now()) return nullptr;
    void* p = nullptr;
    const size_t align = static_cast<size_t>(a) < sizeof(void*) ? sizeof(void*) : static_cast<size_t>(a);
    return posix_memalign(&p, align, n != 0 ? n : 1) == 0 ? p : nullptr;
}
void* must(void* p) {
    if (p == nullptr) throw std::bad_alloc();
    return p;
}

} // namespace

void* operator new(size_t n) { return must(plain_new(n)); }
void* operator new[](size_t n) { return must(plain_new(n)); }
void* operator new(size_t n, const std::nothrow_t&) noexcept { return plain_new(n); }
void* operator new[](size_t n, const std::nothrow_t&) noexcept { return plain_new(n); }
void* operator new(size_t n, std::align_val_t a) { return must(aligned_new(n, a)); }
void* operator new[](size_t n, std::align_val_t a) { return must(aligned_new(n, a)); }
void* operator new(size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return aligned_new(n, a); }
void* operator new[](size_t n, std::align_val_t a, const std::nothrow_t&) noexcept { return aligned_new(n, a); }
// GCC 12 inlines these into the standard containers' deallocation in this
// file, sees free() given memory from ::operator new and warns
// (-Wmismatched-new-delete); the operator new above is ours and took it from
// malloc, so the pair matches.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace {

using hwc::rel::Outcome;
using hwc::rel::Output;

// ---- the child -----------------------------------------------------------------

// Writes "INJECT module+0xoffset,..." for the failed allocation, innermost
// frame first, to the result pipe at once (so a child that dies afterwards
// still tells where). No allocation: backtrace (its unwinder is loaded by
// the parent beforehand), dladdr and snprintf into fixed buffers.
void report_injection() {
    if (g_report_fd < 0) return;
    void* frames[48];
    const int depth = backtrace(frames, 48);
    static char line[4096];
    size_t len = static_cast<size_t>(std::snprintf(line, sizeof line, "INJECT "));
    for (int i = 1; i < depth && len + 80 < sizeof line; ++i) { // frame 0 is this function
        Dl_info info{};
        const char* mod = "?";
        uintptr_t off = reinterpret_cast<uintptr_t>(frames[i]);
        if (dladdr(frames[i], &info) != 0 && info.dli_fname != nullptr) {
            const char* slash = std::strrchr(info.dli_fname, '/');
            mod = slash != nullptr ? slash + 1 : info.dli_fname;
            off -= reinterpret_cast<uintptr_t>(info.dli_fbase);
        }
        // Return addresses: the call instruction ends just before.
        const int w = std::snprintf(line + len, sizeof line - len, "%s%s+0x%lx", i > 1 ? "," : "",
                                    mod, static_cast<unsigned long>(off - 1));
        if (w < 0) break;
        len += static_cast<size_t>(w);
    }
    line[len++] = '\n';
    // Where hwcipher.so is mapped now: after the workload unloads it, a
    // leak report shows its frames only as addresses.
    struct Range {
        uintptr_t lo = 0, hi = 0;
    } range;
    dl_iterate_phdr(
        [](dl_phdr_info* info, size_t, void* arg) {
            if (info->dlpi_name == nullptr || std::strstr(info->dlpi_name, "hwcipher.so") == nullptr)
                return 0;
            auto* r = static_cast<Range*>(arg);
            for (int i = 0; i < info->dlpi_phnum; ++i) {
                const ElfW(Phdr)& ph = info->dlpi_phdr[i];
                if (ph.p_type != PT_LOAD) continue;
                const uintptr_t a = info->dlpi_addr + ph.p_vaddr, b = a + ph.p_memsz;
                if (r->lo == 0 || a < r->lo) r->lo = a;
                if (b > r->hi) r->hi = b;
            }
            return 1;
        },
        &range);
    if (range.lo != 0 && len + 64 < sizeof line)
        len += static_cast<size_t>(std::snprintf(line + len, sizeof line - len, "RANGE %lx %lx\n",
                                                 static_cast<unsigned long>(range.lo),
                                                 static_cast<unsigned long>(range.hi)));
    (void)!write(g_report_fd, line, len);
}

// Whether a frame of the current stack lies in hwcipher.so (no allocation:
// backtrace's unwinder is loaded before the reference run, dladdr allocates
// nothing).
bool hwcipher_on_stack() {
    void* frames[48];
    const int depth = backtrace(frames, 48);
    for (int i = 1; i < depth; ++i) {
        Dl_info info{};
        if (dladdr(frames[i], &info) != 0 && info.dli_fname != nullptr &&
            std::strstr(info.dli_fname, "hwcipher.so") != nullptr)
            return true;
    }
    return false;
}

// Runs the workload failing allocation N; writes its RESULT line to `fd`.
[[noreturn]] void child(unsigned long n, const Output& reference, int fd) {
    static Output out;
    ERR_clear_error();
    g_report_fd = fd;
    g_count = 0;
    g_fail_at = n;
    g_armed = true;
    const Outcome r = hwc::rel::run_workload(nullptr, out);
    g_armed = false;
    const bool injected = g_count >= n;
    const bool queued = ERR_peek_error() != 0;
    const char* verdict = r.ok ? (out == reference ? "success" : "wrong-output")
                               : (queued ? "clean-failure" : "silent-failure");
    ERR_clear_error();
    const int leaks = __lsan_do_recoverable_leak_check();
    static char line[512];
    const int w = std::snprintf(line, sizeof line, "RESULT %s %d %d %s\n", verdict,
                                injected ? 1 : 0, leaks, r.step ? r.step : "-");
    if (w > 0) (void)!write(fd, line, static_cast<size_t>(w));
    _exit(0);
}

// ---- the parent ----------------------------------------------------------------

struct Options {
    unsigned long from = 1, to = 0; // to 0: the whole count
    unsigned long sample = 0;       // --sample K: see the header; 0: every N
    unsigned long replay = 0;       // --replay N: run N alone, in this process
    int jobs = 2;
    std::string expect, report = "alloc_sweep-report.txt";
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) {
            std::fprintf(stderr, "alloc_sweep: %s needs a value\n", a.c_str());
            std::exit(2);
        }
        const std::string v = argv[++i];
        if (a == "--from") o.from = std::stoul(v);
        else if (a == "--to") o.to = std::stoul(v);
        else if (a == "--sample") o.sample = std::stoul(v);
        else if (a == "--jobs") o.jobs = std::max(1, std::atoi(v.c_str()));
        else if (a == "--expect") o.expect = v;
        else if (a == "--report") o.report = v;
        else if (a == "--replay") o.replay = std::stoul(v);
        else {
            std::fprintf(stderr, "alloc_sweep: unknown argument %s\n", a.c_str());
            std::exit(2);
        }
    }
    return o;
}

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

std::vector<std::string> split_str(const std::string& s, const std::string& sep) {
    std::vector<std::string> v;
    size_t at = 0, next;
    while ((next = s.find(sep, at)) != std::string::npos) {
        v.push_back(s.substr(at, next - at));
        at = next + sep.size();
    }
    v.push_back(s.substr(at));
    return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> v;
    std::string cur;
    std::istringstream in(s);
    while (std::getline(in, cur, sep)) v.push_back(cur);
    return v;
}

// Where each shared object of the process lives, by file name.
std::map<std::string, std::string> module_paths() {
    std::map<std::string, std::string> m;
    std::istringstream maps(slurp("/proc/self/maps"));
    std::string line;
    while (std::getline(maps, line)) {
        const size_t slash = line.find('/');
        if (slash == std::string::npos) continue;
        const std::string path = line.substr(slash);
        m[path.substr(path.rfind('/') + 1)] = path;
    }
    return m;
}

// "module+0xoffset" -> "function at file:line" (innermost inlined frame
// first), through one llvm-symbolizer process.
std::map<std::string, std::string> symbolize(const std::set<std::string>& frames,
                                             const std::map<std::string, std::string>& modules) {
    std::map<std::string, std::string> names;
    if (frames.empty()) return names;
    const std::string in = "alloc_sweep-frames.txt", out = "alloc_sweep-symbols.txt";
    std::vector<std::string> order;
    {
        std::ofstream f(in);
        for (const std::string& fr : frames) {
            const size_t plus = fr.find('+');
            auto it = modules.find(fr.substr(0, plus));
            if (it == modules.end()) continue;
            f << it->second << " " << fr.substr(plus + 1) << "\n";
            order.push_back(fr);
        }
    }
    const std::string cmd = "llvm-symbolizer --demangle --inlines < " + in + " > " + out + " 2>/dev/null";
    if (std::system(cmd.c_str()) == 0) {
        std::istringstream s(slurp(out));
        std::string line, acc;
        size_t k = 0, pair = 0;
        while (std::getline(s, line)) {
            if (line.empty()) {
                if (k < order.size()) names[order[k++]] = acc;
                acc.clear();
                pair = 0;
                continue;
            }
            if (pair % 2 == 0) {
                if (!acc.empty()) acc += " <- ";
                acc += line;
            } else {
                // file:line:column, shortened to the last two folders.
                size_t cut = line.size();
                for (int k2 = 0; k2 < 3 && cut != std::string::npos && cut > 0; ++k2)
                    cut = line.rfind('/', cut - 1);
                acc += " at " + (cut == std::string::npos ? line : line.substr(cut + 1));
            }
            ++pair;
        }
    }
    std::remove(in.c_str());
    std::remove(out.c_str());
    return names;
}

struct Finding {
    unsigned long n = 0;
    std::string kind, step, stack, log;
};

struct Expected {
    std::string kind, where, note;
    unsigned long hits = 0;
};

std::vector<Expected> read_expected(const std::string& path) {
    std::vector<Expected> v;
    if (path.empty()) return v;
    std::istringstream in(slurp(path));
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty() || line[0] == '#') continue;
        const std::vector<std::string> f = split(line, '|');
        if (f.size() < 2) continue;
        v.push_back({f[0], f[1], f.size() > 2 ? f[2] : ""});
    }
    return v;
}

// The frames of a sanitizer report: the "#k 0x... in f (module+0x...)"
// lines after `start`, up to the first blank line.
std::vector<std::string> frames_after(const std::string& log, size_t start) {
    std::vector<std::string> v;
    std::istringstream in(log.substr(start));
    std::string line;
    std::getline(in, line); // the heading
    while (std::getline(in, line) && !line.empty())
        if (line.find(" #") != std::string::npos || line.rfind("#", 0) == 0) v.push_back(line);
    return v;
}

// Whether, of the frames that are hwcipher's or libcrypto's, the first is
// hwcipher's (the C library, libstdc++, the sanitizer runtime and this
// program are passed over). hwcipher's frames carry its module name or its
// source paths, or (module unloaded) an address in [lo, hi).
bool first_frame_in_hwcipher(const std::vector<std::string>& frames, uintptr_t lo = 0, uintptr_t hi = 0) {
    for (const std::string& fr : frames) {
        if (fr.find("<unknown module>") != std::string::npos) {
            if (lo == 0) continue;
            const size_t at = fr.find("0x");
            const uintptr_t pc = at == std::string::npos ? 0 : std::stoul(fr.substr(at), nullptr, 16);
            if (pc >= lo && pc < hi) return true;
            continue;
        }
        if (fr.find("hwcipher.so") != std::string::npos || fr.find("/provider/") != std::string::npos ||
            fr.find("/cores/") != std::string::npos)
            return true;
        if (fr.find("libcrypto.so") != std::string::npos) return false;
    }
    return false;
}
bool first_frame_in_hwcipher(const std::string& log, const char* heading) {
    const size_t at = log.find(heading);
    return at != std::string::npos && first_frame_in_hwcipher(frames_after(log, at));
}

// Runs N again in a fresh process with full malloc stacks; its stderr.
std::string replay(unsigned long n) {
    const std::string log = "alloc_sweep-replay-" + std::to_string(n) + ".log";
    const char* old = std::getenv("ASAN_OPTIONS");
    const std::string opts = std::string(old != nullptr ? old : "") + ":fast_unwind_on_malloc=0";
    const std::string cmd = "ASAN_OPTIONS='" + opts + "' /proc/" + std::to_string(getpid()) +
                            "/exe --replay " + std::to_string(n) + " > /dev/null 2> " + log;
    (void)std::system(cmd.c_str());
    const std::string out = slurp(log);
    std::remove(log.c_str());
    return out;
}

bool leak_in_hwcipher(const std::string& log, const Options&) {
    uintptr_t lo = 0, hi = 0;
    const size_t r = log.find("RANGE ");
    if (r != std::string::npos) {
        std::istringstream in(log.substr(r + 6));
        in >> std::hex >> lo >> hi;
    }
    size_t at = 0;
    while ((at = log.find("Direct leak of", at)) != std::string::npos) {
        if (first_frame_in_hwcipher(frames_after(log, at), lo, hi)) return true;
        ++at;
    }
    return false;
}

int sweep(const Options& opt) {
    // Warm up until one run's count is stable: libcrypto and the loader set
    // up process-wide state on first use, which a child (forked after this)
    // then finds done. backtrace() loads its unwinder on first use too.
    void* dummy[4];
    (void)backtrace(dummy, 4);
    static Output reference, scratch;
    unsigned long total = 0, prev = ~0ul;
    for (int i = 0; i < 8 && total != prev; ++i) {
        prev = total;
        g_count = 0;
        g_fail_at = 0;
        g_armed = true;
        const Outcome r = hwc::rel::run_workload(nullptr, i % 2 ? scratch : reference);
        g_armed = false;
        if (!r.ok) {
            std::fprintf(stderr, "alloc_sweep: the workload fails without injection at %s\n", r.step);
            ERR_print_errors_fp(stderr);
            return 1;
        }
        total = g_count;
    }
    if (total != prev || !(reference == scratch)) {
        std::fprintf(stderr, "alloc_sweep: the workload is not deterministic (%lu vs %lu allocations)\n",
                     prev, total);
        return 1;
    }
    if (__lsan_do_recoverable_leak_check() != 0) {
        std::fprintf(stderr, "alloc_sweep: the workload leaks without injection\n");
        return 1;
    }
    if (opt.replay != 0) child(opt.replay, reference, 2);
    const unsigned long last = opt.to != 0 && opt.to < total ? opt.to : total;

    // The N to run: all of them, or (--sample) those with hwcipher.so on
    // the stack and every K-th other, from one more run that records
    // which are which.
    std::vector<unsigned long> ns;
    unsigned long with_hwcipher = 0;
    if (opt.sample > 1) {
        if (total > kMaxRecorded) {
            std::fprintf(stderr, "alloc_sweep: %lu allocations, more than --sample records\n", total);
            return 1;
        }
        g_count = 0;
        g_fail_at = 0;
        g_recording = g_armed = true;
        const Outcome r = hwc::rel::run_workload(nullptr, scratch);
        g_recording = g_armed = false;
        if (!r.ok || g_count != total || !(reference == scratch)) {
            std::fprintf(stderr, "alloc_sweep: the recording run differs (%lu allocations)\n", g_count);
            return 1;
        }
        for (unsigned long n = opt.from; n <= last; ++n) {
            with_hwcipher += g_in_hwcipher[n];
            if (g_in_hwcipher[n] || (n - 1) % opt.sample == 0) ns.push_back(n);
        }
    } else {
        for (unsigned long n = opt.from; n <= last; ++n) ns.push_back(n);
    }
    std::fprintf(stderr, "alloc_sweep: %lu allocations per run, %zu output bytes; N = %lu..%lu, %d jobs\n",
                 total, reference.len, opt.from, last, opt.jobs);
    if (opt.sample > 1)
        std::fprintf(stderr,
                     "alloc_sweep: sample: the %lu N with hwcipher.so on the stack and every %lu-th other:"
                     " %zu N\n",
                     with_hwcipher, opt.sample, ns.size());

    struct Child {
        unsigned long n;
        int fd;
        std::string log;
    };
    std::map<pid_t, Child> running;
    std::vector<Finding> findings;
    std::map<std::string, unsigned long> verdicts;
    unsigned long passed = 0, done = 0, not_injected = 0;
    const unsigned long count = ns.size();
    size_t next = 0;
    while (next < ns.size() || !running.empty()) {
        while (next < ns.size() && running.size() < static_cast<size_t>(opt.jobs)) {
            int p[2];
            if (pipe(p) != 0) return 1;
            const unsigned long n = ns[next++];
            const std::string log = "alloc_sweep-child-" + std::to_string(n) + ".log";
            std::fflush(nullptr);
            const pid_t pid = fork();
            if (pid < 0) return 1;
            if (pid == 0) {
                close(p[0]);
                const int lf = open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
                if (lf >= 0) dup2(lf, 2);
                child(n, reference, p[1]);
            }
            close(p[1]);
            running[pid] = {n, p[0], log};
        }
        int status = 0;
        const pid_t pid = waitpid(-1, &status, 0);
        auto it = running.find(pid);
        if (it == running.end()) continue;
        const Child c = it->second;
        running.erase(it);
        std::string res;
        char buf[4096];
        ssize_t k;
        while ((k = read(c.fd, buf, sizeof buf)) > 0) res.append(buf, static_cast<size_t>(k));
        close(c.fd);
        Finding f;
        f.n = c.n;
        std::string verdict = "crash";
        int injected = 1, leaks = 0;
        for (const std::string& line : split(res, '\n')) {
            if (line.rfind("INJECT ", 0) == 0) f.stack = line.substr(7);
            if (line.rfind("RESULT ", 0) == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0) {
                const std::vector<std::string> p = split(line, ' ');
                if (p.size() < 5) continue;
                verdict = p[1];
                injected = std::atoi(p[2].c_str());
                leaks = std::atoi(p[3].c_str());
                f.step = line.substr(line.find(' ', line.find(' ', line.find(' ', 7) + 1) + 1) + 1);
            }
        }
        const std::string log = slurp(c.log);
        std::remove(c.log.c_str());
        ++done;
        if (!injected) ++not_injected;
        ++verdicts[verdict];
        if (leaks) ++verdicts["leak"];
        const bool bad = verdict != "success" && verdict != "clean-failure";
        if (!bad && !leaks) ++passed;
        if (bad) {
            f.kind = verdict;
            f.log = verdict == "crash" ? log : "";
            findings.push_back(f);
        }
        if (leaks) {
            f.kind = "leak";
            f.log = log;
            findings.push_back(f);
        }
        if (done % 1000 == 0) std::fprintf(stderr, "alloc_sweep: %lu/%lu done\n", done, count);
    }

    // Name each finding by its first frame in hwcipher.so (else the first
    // outside this program, libc and the sanitizer runtime).
    std::set<std::string> frames;
    for (const Finding& f : findings)
        for (const std::string& fr : split(f.stack, ',')) frames.insert(fr);
    auto modules = module_paths();
    // hwcipher.so is unloaded by now: it is where OPENSSL_MODULES says.
    if (const char* dir = std::getenv("OPENSSL_MODULES")) modules["hwcipher.so"] = std::string(dir) + "/hwcipher.so";
    const auto names = symbolize(frames, modules);
    auto where = [&](const Finding& f) {
        std::string first_other;
        for (const std::string& fr : split(f.stack, ',')) {
            const std::string mod = fr.substr(0, fr.find('+'));
            auto nm = names.find(fr);
            const std::string name = nm != names.end() ? nm->second : fr;
            if (mod == "hwcipher.so") {
                // The innermost function of hwcipher's own, not a library
                // template inlined into it; else the outermost of those.
                std::string last;
                for (const std::string& seg : split_str(name, " <- ")) {
                    const size_t at = seg.find(" at ");
                    const std::string loc = at == std::string::npos ? "" : seg.substr(at);
                    if (loc.find("provider/") != std::string::npos || loc.find("cores/") != std::string::npos)
                        return seg;
                    last = seg;
                }
                continue; // only library code in this frame: look further out
            }
            if (first_other.empty() && mod.find("alloc_sweep") == std::string::npos &&
                mod.find("libc.so") == std::string::npos && mod.find("clang_rt") == std::string::npos &&
                mod.find("libstdc++") == std::string::npos)
                first_other = mod + ": " + name.substr(0, name.find(" <- "));
        }
        return first_other.empty() ? std::string("?") : first_other;
    };
    auto full_stack = [&](const Finding& f) {
        std::string s;
        for (const std::string& fr : split(f.stack, ',')) {
            auto nm = names.find(fr);
            s += "    " + fr + (nm != names.end() ? "  " + nm->second : "") + "\n";
        }
        return s;
    };

    // hwcipher's findings: the failed allocation was made with hwcipher.so
    // on the stack, or the child's own report (leak, crash) names it.
    // Others are libcrypto failing in its own paths (OpenSSL 3.0 does not
    // queue an error for every failed allocation): reported apart, neither
    // passed nor failed.
    //
    // Silent failures and wrong output: hwcipher.so on the failed
    // allocation's stack (it made the allocation, or called the libcrypto
    // function that failed, and then reported nothing). Crashes: the first
    // frame of the crash outside libc, libstdc++ and the sanitizer runtime
    // is in hwcipher.so. Leaks: one N of each group is replayed in a fresh
    // process with full malloc stacks (fast_unwind_on_malloc=0, too slow
    // for the whole sweep), and a directly leaked object whose allocation's
    // first frame outside the allocators is in hwcipher.so makes it ours.
    std::map<std::string, bool> leak_owner; // by where
    auto ours = [&](const Finding& f, const std::string& w) {
        if (f.kind == "crash") return first_frame_in_hwcipher(f.log, "ERROR: AddressSanitizer");
        if (f.kind == "leak") {
            auto it = leak_owner.find(w);
            if (it == leak_owner.end())
                it = leak_owner.emplace(w, leak_in_hwcipher(replay(f.n), opt)).first;
            return it->second;
        }
        return f.stack.find("hwcipher.so+") != std::string::npos;
    };
    std::vector<Expected> expected = read_expected(opt.expect);
    struct Group {
        std::vector<unsigned long> ns;
        const Finding* first = nullptr;
        std::string where;
        const Expected* expected = nullptr;
        bool ours = false;
    };
    std::map<std::string, Group> groups; // by owner + kind + where
    std::set<unsigned long> failed_ns, xfailed_ns, outside_ns;
    for (const Finding& f : findings) {
        const std::string w = where(f);
        const bool mine = ours(f, w);
        Group& g = groups[std::string(mine ? "hwcipher " : "libcrypto ") + f.kind + " @ " + w];
        if (g.first == nullptr) {
            g.first = &f;
            g.where = w;
            g.ours = mine;
            for (Expected& e : expected)
                if (mine && e.kind == f.kind && w.find(e.where) != std::string::npos) g.expected = &e;
        }
        g.ns.push_back(f.n);
        if (!mine) {
            outside_ns.insert(f.n);
        } else if (g.expected != nullptr) {
            ++const_cast<Expected*>(g.expected)->hits;
            xfailed_ns.insert(f.n);
        } else {
            failed_ns.insert(f.n);
        }
    }
    for (unsigned long n : failed_ns) xfailed_ns.erase(n), outside_ns.erase(n);
    for (unsigned long n : xfailed_ns) outside_ns.erase(n);
    const unsigned long failed = failed_ns.size(), xfailed = xfailed_ns.size(),
                        outside = outside_ns.size();

    std::ostringstream rep;
    rep << "alloc_sweep: " << total << " allocations per run (libcrypto's and every C++ allocation), "
        << "N = " << opt.from << ".." << last;
    if (opt.sample > 1)
        rep << ", sampled: the " << with_hwcipher << " with hwcipher.so on the stack and every "
            << opt.sample << "-th other, " << ns.size() << " in all";
    rep << "\n";
    for (const auto& [v, c2] : verdicts) rep << "  " << v << ": " << c2 << "\n";
    rep << "  N past the run's allocations (nothing injected): " << not_injected << "\n\n";
    for (const auto& [sig, g] : groups) {
        rep << (!g.ours ? "OUTSIDE " : g.expected ? "EXPECTED " : "FINDING ") << sig << "\n  " << g.ns.size()
            << " N:";
        for (size_t i = 0; i < g.ns.size() && i < 12; ++i) rep << " " << g.ns[i];
        if (g.ns.size() > 12) rep << " ...";
        rep << "\n  step: " << g.first->step << "\n";
        if (g.expected) rep << "  expected: " << g.expected->note << "\n";
        rep << "  failed allocation (N=" << g.first->n << "):\n" << full_stack(*g.first);
        if (!g.first->log.empty()) {
            // The sanitizer's own report, trimmed.
            std::string l = g.first->log;
            if (l.size() > 6000) l = l.substr(0, 6000) + "\n    ...\n";
            rep << "  child's report:\n" << l << "\n";
        }
        rep << "\n";
    }
    int stale = 0;
    for (const Expected& e : expected) {
        // A sample need not reach every expected failure.
        if (e.hits != 0 || opt.sample > 1) continue;
        ++stale;
        rep << "STALE expected failure (nothing matched; remove it from " << opt.expect
            << "): " << e.kind << "|" << e.where << "\n";
    }
    std::ofstream(opt.report) << rep.str();
    std::fputs(rep.str().c_str(), stderr);
    const unsigned long fail_total = failed + static_cast<unsigned long>(stale);
    std::printf("alloc_sweep: %lu allocations, %lu passed, %lu failed, %lu expected failures "
                "(not counted as passed), %lu failing only in libcrypto's own paths (not counted)\n",
                total, passed, fail_total, xfailed, outside);
    return fail_total == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    // Before libcrypto allocates anything (it refuses afterwards).
    if (CRYPTO_set_mem_functions(crypto_malloc, crypto_realloc, crypto_free) != 1) {
        std::fprintf(stderr, "alloc_sweep: CRYPTO_set_mem_functions refused\n");
        return 1;
    }
    return sweep(parse(argc, argv));
}
