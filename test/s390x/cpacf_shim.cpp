// SPDX-License-Identifier: Apache-2.0
// The CPACF shim's plumbing (see cpacf_shim.h): installation, the SIGILL
// handler, declining, partial-completion settings, statistics and the
// detection hook. The instruction semantics live in cpacf_model.cpp.
//
// Facts this relies on, measured under qemu-s390x 7.2 and 11.1: a trapping
// CPACF instruction delivers SIGILL with si_addr = the instruction and the
// PSW address already past it; GR0-GR15, the PSW mask (CC in bits 18-19) and
// the PSW address are read from and written back to the ucontext.
#include "test/s390x/cpacf_shim.h"

#include <signal.h>
#include <sys/auxv.h>
#include <ucontext.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace hwc::test::cpacf_shim {
namespace {

static_assert(std::atomic<uint64_t>::is_always_lock_free, "counters must be signal-safe");

using Counter = std::atomic<uint64_t>;

struct Counters {
    Counter traps{0};
    Counter emulated[cpacf::kOpCount] = {};
    Counter cc3{0};
    Counter declined{0};
    Counter query_hooks[cpacf::kOpCount] = {};
};

// Written once by install() before the handler can run, read by it.
struct State {
    struct sigaction previous {};
    cpacf::Facilities facilities;
    // The setting's budgets, taken in turn by successive executions.
    size_t env_budgets[4] = {0};
    size_t env_count = 1;
    char setting[24] = "never";
    bool installed = false;
};

Counters g_count;
State g_state;
std::atomic<long> g_override{-1};  // ScopedPartial's budget, -1 = none
std::atomic<size_t> g_turn{0};     // executions that took an environment budget

inline void bump(Counter& c) { c.fetch_add(1, std::memory_order_relaxed); }

// ---- async-signal-safe reporting -----------------------------------------

struct Line {
    char buf[320];
    size_t len = 0;
    void add(const char* s) {
        while (*s && len < sizeof buf - 1) buf[len++] = *s++;
    }
    void hex(uint64_t v) {
        char d[17];
        int n = 0;
        do {
            d[n++] = "0123456789abcdef"[v & 15];
            v >>= 4;
        } while (v && n < 16);
        add("0x");
        while (n > 0 && len < sizeof buf - 1) buf[len++] = d[--n];
    }
    void emit() {
        add("\n");
        ssize_t ignored = write(STDERR_FILENO, buf, len);
        (void)ignored;
    }
};

// The budget of the execution being emulated: ScopedPartial's, else the
// environment's next in turn.
size_t budget_now() {
    const long o = g_override.load(std::memory_order_relaxed);
    if (o >= 0) return static_cast<size_t>(o);
    if (g_state.env_count == 1) return g_state.env_budgets[0];
    return g_state.env_budgets[g_turn.fetch_add(1, std::memory_order_relaxed) % g_state.env_count];
}

bool previous_is_default() {
    const struct sigaction& prev = g_state.previous;
    if (prev.sa_flags & SA_SIGINFO) return prev.sa_sigaction == nullptr;
    return prev.sa_handler == SIG_DFL || prev.sa_handler == SIG_IGN;
}

// Hands the signal on: to the handler that was installed before ours, or to
// the default action. For a fault the PSW goes back to the instruction, so it
// executes again and the process dies with SIGILL exactly there; simply
// returning would resume after it as if it had run.
void pass_on(int sig, siginfo_t* si, void* ctx, bool fault) {
    bump(g_count.declined);
    const struct sigaction& prev = g_state.previous;
    if (!previous_is_default()) {
        if (prev.sa_flags & SA_SIGINFO) prev.sa_sigaction(sig, si, ctx);
        else prev.sa_handler(sig);
        return;
    }
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(SIGILL, &dfl, nullptr);
    if (fault) {
        auto* uc = static_cast<ucontext_t*>(ctx);
        uc->uc_mcontext.psw.addr = reinterpret_cast<uintptr_t>(si->si_addr);
    } else {
        raise(SIGILL);  // blocked until the handler returns, then fatal
    }
}

void report_decline(const uint8_t* insn, const uint64_t* gr, const cpacf::Outcome& o) {
    Line l;
    l.add("cpacf-shim: declined ");
    if (o.known_op) {
        l.add(cpacf::op_name(o.op));
        l.add(" ");
    }
    l.hex(uint64_t{insn[0]} << 24 | uint64_t{insn[1]} << 16 | uint64_t{insn[2]} << 8 | insn[3]);
    l.add(" at ");
    l.hex(reinterpret_cast<uintptr_t>(insn));
    l.add(", GR0 ");
    l.hex(gr[0]);
    l.add(": ");
    l.add(o.reason);
    l.add(previous_is_default() ? "; the process dies with SIGILL there"
                                : "; passed to the previous SIGILL handler");
    l.emit();
}

void on_sigill(int sig, siginfo_t* si, void* ctx) {
    const int saved_errno = errno;
    bump(g_count.traps);
    if (si->si_code <= 0) {
        // Sent by kill/raise: no instruction to look at.
        Line l;
        l.add("cpacf-shim: SIGILL sent by a process, not raised by an instruction");
        l.emit();
        pass_on(sig, si, ctx, false);
        errno = saved_errno;
        return;
    }
    auto* uc = static_cast<ucontext_t*>(ctx);
    const auto* insn = static_cast<const uint8_t*>(si->si_addr);
    uint64_t* gr = uc->uc_mcontext.gregs;
    const cpacf::Outcome o = cpacf::execute(insn, gr, g_state.facilities, budget_now());
    if (!o.emulated) {
        report_decline(insn, gr, o);
        pass_on(sig, si, ctx, true);
        errno = saved_errno;
        return;
    }
    bump(g_count.emulated[static_cast<int>(o.op)]);
    if (o.cc == 3) bump(g_count.cc3);
    constexpr uint64_t kCcMask = uint64_t{3} << 44;  // PSW bits 18-19
    uc->uc_mcontext.psw.mask = (uc->uc_mcontext.psw.mask & ~kCcMask) |
                               (static_cast<uint64_t>(o.cc) << 44);
    uc->uc_mcontext.psw.addr = reinterpret_cast<uintptr_t>(insn) + 4;
    errno = saved_errno;
}

// ---- installation -----------------------------------------------------------

constexpr unsigned long kHwcapStfle = 4;  // HWCAP_S390_STFLE

// The shim asks STFLE itself rather than trusting hwcipher's detection,
// which is what it is testing.
cpacf::Facilities read_facilities() {
    cpacf::Facilities f;
    if (!(getauxval(AT_HWCAP) & kHwcapStfle)) return f;
    uint64_t list[3] = {0, 0, 0};
    register unsigned long r0 __asm__("0") = sizeof(list) / 8 - 1;
    __asm__ volatile(".insn s,0xb2b00000,%0"  // STFLE
                     : "=Q"(list), "+d"(r0)
                     :
                     : "cc", "memory");
    auto bit = [&](unsigned n) { return ((list[n / 64] >> (63 - n % 64)) & 1) != 0; };
    f.msa = bit(17);
    f.msa4 = bit(77);
    f.msa8 = bit(146);
    return f;
}

// HWCIPHER_SHIM_PARTIAL: never | block | N > 0, or up to four of them
// separated by commas, which successive executions take in turn (block,208:
// CC 3 after one block, then after 208 more bytes, then after one block...).
// A typo must not silently mean "never", so anything else stops the run.
size_t parse_one(const char* s, size_t len) {
    char word[24] = {0};
    if (len >= sizeof word) return SIZE_MAX;
    std::memcpy(word, s, len);
    if (std::strcmp(word, "never") == 0) return 0;
    if (std::strcmp(word, "block") == 0) return 16;
    char* end = nullptr;
    errno = 0;
    const unsigned long long n = std::strtoull(word, &end, 10);
    if (errno == 0 && end != word && *end == '\0' && n > 0 && word[0] != '-') return n;
    return SIZE_MAX;
}

void parse_partial(const char* s) {
    g_state.env_count = 1;
    g_state.env_budgets[0] = 0;
    if (s == nullptr || *s == '\0') return;
    size_t count = 0;
    for (const char* p = s;; ++count) {
        const char* comma = std::strchr(p, ',');
        const size_t len = comma ? static_cast<size_t>(comma - p) : std::strlen(p);
        const size_t b = count < 4 ? parse_one(p, len) : SIZE_MAX;
        if (b == SIZE_MAX) {
            std::fprintf(stderr,
                         "cpacf-shim: HWCIPHER_SHIM_PARTIAL='%s' is not never, block, a byte "
                         "count or up to four of them separated by commas\n",
                         s);
            std::abort();
        }
        g_state.env_budgets[count] = b;
        if (!comma) break;
        p = comma + 1;
    }
    g_state.env_count = count + 1;
}

void install_handler() {
    struct sigaction sa {};
    sa.sa_sigaction = on_sigill;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGILL, &sa, &g_state.previous) != 0) {
        std::perror("cpacf-shim: sigaction");
        std::abort();
    }
}

bool install() {
    const char* env = std::getenv("HWCIPHER_SHIM_PARTIAL");
    parse_partial(env);
    if (env && *env) std::snprintf(g_state.setting, sizeof g_state.setting, "%s", env);
    g_state.facilities = read_facilities();
    install_handler();
    g_state.installed = true;
    return true;
}

// Runs once, from whichever comes first: the static initialiser below or a
// detection hook call from another static initialiser.
bool ensure_installed() {
    static const bool done = install();
    return done;
}

// Installs before main and prints what the shim did at exit (shown by ctest
// -V or on failure), which is how the runs report their trap counts.
struct Lifetime {
    Lifetime() { ensure_installed(); }
    ~Lifetime() {
        const Stats s = stats();
        uint64_t hooks = 0;
        for (uint64_t q : s.query_hooks) hooks += q;
        if (s.traps == 0 && hooks == 0) return;
        std::fprintf(stderr, "cpacf-shim: partial=%s: %llu traps, %llu emulated (", g_state.setting,
                     static_cast<unsigned long long>(s.traps),
                     static_cast<unsigned long long>(emulated_total(s)));
        for (int i = 0; i < cpacf::kOpCount; ++i)
            std::fprintf(stderr, "%s%s %llu", i ? ", " : "",
                         cpacf::op_name(static_cast<cpacf::Op>(i)),
                         static_cast<unsigned long long>(s.emulated[i]));
        std::fprintf(stderr, "), %llu CC 3 injected, %llu declined, %llu query hook calls\n",
                     static_cast<unsigned long long>(s.cc3),
                     static_cast<unsigned long long>(s.declined),
                     static_cast<unsigned long long>(hooks));
    }
};

const Lifetime g_lifetime;

} // namespace

bool active() { return ensure_installed() && g_state.installed; }

void reinstall() {
    ensure_installed();
    install_handler();
}

Stats stats() {
    Stats s{};
    s.traps = g_count.traps.load();
    s.cc3 = g_count.cc3.load();
    s.declined = g_count.declined.load();
    for (int i = 0; i < cpacf::kOpCount; ++i) {
        s.emulated[i] = g_count.emulated[i].load();
        s.query_hooks[i] = g_count.query_hooks[i].load();
    }
    return s;
}

uint64_t emulated_total(const Stats& s) {
    uint64_t n = 0;
    for (uint64_t e : s.emulated) n += e;
    return n;
}

cpacf::Facilities facilities() {
    ensure_installed();
    return g_state.facilities;
}

size_t partial_budget() {
    ensure_installed();
    const long o = g_override.load(std::memory_order_relaxed);
    return o >= 0 ? static_cast<size_t>(o) : g_state.env_budgets[0];
}

const char* partial_setting() {
    ensure_installed();
    return g_state.setting;
}

ScopedPartial::ScopedPartial(size_t bytes_per_execution)
    : previous_(g_override.exchange(static_cast<long>(bytes_per_execution))) {}

ScopedPartial::~ScopedPartial() { g_override.store(previous_); }

} // namespace hwc::test::cpacf_shim

// Exported from the executable (see test/CMakeLists.txt) so that the weak
// reference in the dlopen-ed hwcipher.so binds to it as well.
extern "C" __attribute__((visibility("default"))) void hwcipher_test_cpacf_query(
    unsigned opcode, unsigned char mask[16]) {
    using namespace hwc::test;
    cpacf_shim::ensure_installed();
    for (int i = 0; i < cpacf::kOpCount; ++i)
        if (cpacf::op_opcode(static_cast<cpacf::Op>(i)) == opcode)
            cpacf_shim::bump(cpacf_shim::g_count.query_hooks[i]);
    cpacf::add_query_bits(opcode, mask, cpacf_shim::facilities());
}
