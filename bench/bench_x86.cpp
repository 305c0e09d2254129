// SPDX-License-Identifier: Apache-2.0
// bench_x86: time every (cipher, mode, direction) hwcipher offers on x86_64,
// at 16 KiB and at 64 bytes, and AES and SM4 GCM and CCM as TLS-shaped
// messages (61 bytes, 13 of AAD), in one run: hwcipher and OpenSSL's default
// provider through EVP in this process (the system's libcrypto) and in one
// peer process per newer OpenSSL release (bench_x86_peer.cpp), and libgcrypt
// through its gcry_cipher API (the independent anchor); for the small
// messages also each libcrypto's EVP floor (bench_x86_floor.cpp), the time
// EVP takes with a provider that does no cryptography. scripts/bench_x86.sh
// builds and runs it; the tables go to stdout as Markdown.
//
//   bench_x86 [--modules DIR] [--peer CMD]... [--ms N] [--batches N] [--reps N]
//             [--only TEXT] [--chart FILE]
//
//   --modules  where hwcipher.so is (else $OPENSSL_MODULES)
//   --peer     a program that runs bench_x86_peer under another OpenSSL
//              release (scripts/bench_x86.sh writes one per release)
//   --ms       target time of one batch in ms (default 2)
//   --batches  batches per repetition, the fastest kept (default 10)
//   --reps     repetitions per runner, the median reported (default 3)
//   --only     only cases whose name (e.g. "AES-128-GCM") contains TEXT
//   --chart    write "label ratio16k ratio64" lines for the bar chart
//
// Method. A batch runs N units of work (bench_x86.h, Shape) back to back and
// reads the thread's CPU time (CLOCK_THREAD_CPUTIME_ID) around them, so time
// the thread spends descheduled is not counted; N is calibrated per runner to
// about --ms. A repetition keeps the fastest of --batches batches (on a shared
// machine, caches refilled after a context switch only ever add time), all
// runners of a case taking turns batch by batch (a peer's batch runs while
// this process waits for its answer, so never two at once); the figure
// reported is the median of --reps repetitions.
// Cycles are not counted (no PMU in this VM, perf_event gives "not
// supported"): cycles/B = ns/B x an estimated clock, the rate of a chain of
// dependent 64-bit adds (one per cycle), measured before and after the run.
// Before timing, all runners of a case must produce the same output and tag.
//
// The ratio compares hwcipher with each other implementation in the same
// libcrypto: a default provider with hwcipher loaded into that release's
// libcrypto (EVP's own per-call cost differs between releases, and at 64
// bytes it is most of the time), libgcrypt with hwcipher in this process.
// The smallest of these ratios is shown, so it is hwcipher against the best
// of all of them.
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <gcrypt.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "bench_x86.h"

namespace {

using bench::Case;
using bench::die;
using bench::Runner;
using bench::Shape;

// Clock in GHz: 64 dependent adds per iteration run at one per cycle; the
// fastest of several trials (any interruption only slows a trial down).
double estimate_ghz() {
    constexpr unsigned kIters = 100000;
    double best = 0;
    for (int trial = 0; trial < 15; ++trial) {
        uint64_t x = 0;
        const double t0 = bench::cpu_ns();
        for (unsigned i = 0; i < kIters; ++i)
            asm volatile(".rept 64\n\taddq $1, %0\n\t.endr" : "+r"(x));
        const double t = bench::cpu_ns() - t0;
        best = std::max(best, 64.0 * kIters / t);
    }
    return best;
}

struct Options {
    std::string modules, only, chart;
    std::vector<std::string> peers;
    double ms = 2;
    int reps = 3;
    int batches = 10;
};

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (i + 1 >= argc) die(a + ": unknown or missing its value (see bench/bench_x86.cpp)");
        const char* v = argv[++i];
        if (a == "--modules") o.modules = v;
        else if (a == "--peer") o.peers.push_back(v);
        else if (a == "--only") o.only = v;
        else if (a == "--chart") o.chart = v;
        else if (a == "--ms") o.ms = std::atof(v);
        else if (a == "--reps") o.reps = std::atoi(v);
        else if (a == "--batches") o.batches = std::atoi(v);
        else die("unknown argument " + a);
    }
    if (o.ms <= 0 || o.reps <= 0 || o.batches <= 0)
        die("--ms, --reps and --batches must be positive");
    return o;
}

// "OpenSSL 3.5.9 29 Sep 2026" -> "3.5".
std::string release_of(const std::string& version) {
    const size_t a = version.find(' ');
    const size_t b = version.find('.', a + 1);
    const size_t c = b == std::string::npos ? b : version.find('.', b + 1);
    if (a == std::string::npos || c == std::string::npos) return version;
    return version.substr(a + 1, c - a - 1);
}

// ---- peer processes ------------------------------------------------------------

// A bench_x86_peer process (under another OpenSSL release) and its pipes.
class Peer {
public:
    explicit Peer(const std::string& cmd) : cmd_(cmd) {
        // Close-on-exec: a later peer must not inherit this one's pipe ends,
        // or this one would never see EOF on its stdin.
        int to[2], from[2];
        if (pipe2(to, O_CLOEXEC) != 0 || pipe2(from, O_CLOEXEC) != 0) die("pipe");
        pid_ = fork();
        if (pid_ < 0) die("fork");
        if (pid_ == 0) {
            dup2(to[0], 0);
            dup2(from[1], 1);
            close(to[0]), close(to[1]), close(from[0]), close(from[1]);
            execl(cmd.c_str(), cmd.c_str(), static_cast<char*>(nullptr));
            std::fprintf(stderr, "bench_x86: cannot run %s: %s\n", cmd.c_str(), std::strerror(errno));
            _exit(127);
        }
        close(to[0]), close(from[1]);
        out_ = fdopen(to[1], "w");
        in_ = fdopen(from[0], "r");
        if (out_ == nullptr || in_ == nullptr) die("fdopen");
        const std::string hello = read_line();
        const size_t tab = hello.find('\t');
        if (hello.rfind("hello ", 0) != 0 || tab == std::string::npos)
            die(cmd + ": unexpected greeting '" + hello + "'");
        version_ = hello.substr(6, tab - 6);
        cores_ = hello.substr(tab + 1);
    }
    ~Peer() {
        std::fclose(out_); // EOF: the peer exits
        std::fclose(in_);
        int status = 0;
        waitpid(pid_, &status, 0);
    }
    Peer(const Peer&) = delete;
    Peer& operator=(const Peer&) = delete;

    const std::string& version() const { return version_; }
    const std::string& cores() const { return cores_; }

    std::string request(const std::string& line) {
        std::fprintf(out_, "%s\n", line.c_str());
        std::fflush(out_);
        return read_line();
    }

private:
    std::string read_line() {
        char* buf = nullptr;
        size_t cap = 0;
        const ssize_t n = getline(&buf, &cap, in_);
        std::string s = n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
        std::free(buf);
        if (n <= 0) die(cmd_ + " ended unexpectedly (see its messages above)");
        while (!s.empty() && s.back() == '\n') s.pop_back();
        return s;
    }

    std::string cmd_, version_, cores_;
    pid_t pid_ = -1;
    FILE* out_ = nullptr;
    FILE* in_ = nullptr;
};

// One implementation of one case, wherever it runs.
class Timed {
public:
    virtual ~Timed() = default;
    virtual uint64_t digest() const = 0; // of its first unit's output (bench::Runner::digest)
    virtual size_t calibrate(double target_ns) = 0;
    virtual double time(size_t units) = 0;
};

class LocalTimed final : public Timed {
public:
    LocalTimed(std::unique_ptr<Runner> r, size_t len) : r_(std::move(r)), len_(len) { r_->once(); }
    uint64_t digest() const override { return r_->digest(len_); }
    size_t calibrate(double target_ns) override { return bench::calibrate(*r_, target_ns); }
    double time(size_t units) override { return bench::time_units(*r_, units); }

private:
    std::unique_ptr<Runner> r_;
    size_t len_;
};

class PeerTimed final : public Timed {
public:
    PeerTimed(Peer& p, int slot, uint64_t digest) : p_(p), slot_(slot), digest_(digest) {}
    uint64_t digest() const override { return digest_; }
    size_t calibrate(double target_ns) override {
        return std::strtoull(request("cal", target_ns).c_str(), nullptr, 10);
    }
    double time(size_t units) override {
        return std::strtod(request("time", static_cast<double>(units)).c_str(), nullptr);
    }

private:
    std::string request(const char* verb, double arg) {
        char line[64];
        std::snprintf(line, sizeof line, "%s %d %.0f", verb, slot_, arg);
        return p_.request(line);
    }
    Peer& p_;
    int slot_;
    uint64_t digest_;
};

// ---- the cases -------------------------------------------------------------------

struct ModeSpec {
    const char* name;
    int gcry_mode;
    Shape shape;
    bool both_dirs;  // false: CTR and OFB, where decryption is encryption
};

constexpr ModeSpec kModes[] = {
    {"ECB", GCRY_CIPHER_MODE_ECB, Shape::stream, true},
    {"CBC", GCRY_CIPHER_MODE_CBC, Shape::stream, true},
    {"CFB", GCRY_CIPHER_MODE_CFB, Shape::stream, true},
    {"CFB8", GCRY_CIPHER_MODE_CFB8, Shape::stream, true},
    {"OFB", GCRY_CIPHER_MODE_OFB, Shape::stream, false},
    {"CTR", GCRY_CIPHER_MODE_CTR, Shape::stream, false},
    {"XTS", GCRY_CIPHER_MODE_XTS, Shape::xts, true},
    {"OCB", GCRY_CIPHER_MODE_OCB, Shape::aead, true},
    {"GCM", GCRY_CIPHER_MODE_GCM, Shape::aead, true},
    {"CCM", GCRY_CIPHER_MODE_CCM, Shape::aead, true},
};

struct CipherSpec {
    const char* prefix;  // EVP name before the mode
    const char* family;  // hwcipher-cores family
    int gcry_algo;
    std::vector<std::string> modes;
};

std::vector<Case> all_cases(size_t len) {
    const std::vector<std::string> all = {"ECB", "CBC", "CFB", "CFB8", "OFB",
                                          "CTR", "XTS", "OCB", "GCM",  "CCM"};
    const std::vector<std::string> twofish = {"ECB", "CBC", "CFB", "OFB",
                                              "CTR", "XTS", "OCB", "GCM"};
    const CipherSpec ciphers[] = {
        {"AES-128", "aes", GCRY_CIPHER_AES128, all},
        {"AES-256", "aes", GCRY_CIPHER_AES256, all},
        {"SM4", "sm4", GCRY_CIPHER_SM4, all},
        {"TWOFISH-128", "twofish", GCRY_CIPHER_TWOFISH128, twofish},
        {"TWOFISH-256", "twofish", GCRY_CIPHER_TWOFISH, twofish},
    };
    std::vector<Case> cases;
    for (const CipherSpec& cs : ciphers) {
        for (const std::string& m : cs.modes) {
            const ModeSpec* ms = nullptr;
            for (const ModeSpec& x : kModes)
                if (m == x.name) ms = &x;
            for (bool enc : {true, false}) {
                if (!enc && !ms->both_dirs) continue;
                Case c;
                c.evp_name = std::string(cs.prefix) + "-" + m;
                c.mode = m;
                c.gcry_algo = cs.gcry_algo;
                c.gcry_mode = ms->gcry_mode;
                c.shape = ms->shape;
                c.ccm = m == "CCM";
                c.ocb = m == "OCB";
                c.enc = enc;
                c.len = len;
                cases.push_back(c);
            }
        }
    }
    return cases;
}

// TLS-shaped AEAD messages: 61 bytes of data (a partial last block, as in
// most records) and 13 bytes of AAD (TLS 1.2's record header), for the
// ciphers and modes TLS uses (AES and SM4 in GCM and CCM).
constexpr size_t kTlsLen = 61;
std::vector<Case> tls_cases() {
    std::vector<Case> cases;
    for (const Case& c : all_cases(kTlsLen)) {
        if ((c.mode != "GCM" && c.mode != "CCM") || c.evp_name.rfind("TWOFISH", 0) == 0)
            continue;
        Case t = c;
        t.aad = bench::kTlsAadLen;
        cases.push_back(t);
    }
    return cases;
}

// XTS data units of lengths that are not whole blocks but for 4,100 B's
// neighbours' sake (100 B: 6 blocks + 4 bytes, 520 B: a 512-byte sector
// plus 8 bytes, 4,100 B: a 4 KiB page plus 4 bytes), each with ciphertext
// stealing: AES-128 and AES-256, both directions (issue #32, item 4).
constexpr size_t kXtsUnitLens[] = {100, 520, 4100};
std::vector<Case> xts_unit_cases() {
    std::vector<Case> cases;
    for (size_t len : kXtsUnitLens)
        for (const Case& c : all_cases(len))
            if (c.mode == "XTS" && c.evp_name.rfind("AES", 0) == 0) cases.push_back(c);
    return cases;
}

std::string family_of(const std::string& name) {
    if (name.rfind("AES", 0) == 0) return "aes";
    if (name.rfind("SM4", 0) == 0) return "sm4";
    return "twofish";
}

// "aes=aes-aesni,sm4=...,ghash=ghash-clmul" -> the value for `family`.
std::string core_of(const std::string& report, const std::string& family) {
    const std::string key = family + "=";
    size_t pos = 0;
    while (pos < report.size()) {
        size_t end = report.find(',', pos);
        if (end == std::string::npos) end = report.size();
        if (report.compare(pos, key.size(), key) == 0)
            return report.substr(pos + key.size(), end - pos - key.size());
        pos = end + 1;
    }
    return "?";
}

// ---- implementations, results and tables -------------------------------------------

// Where implementations run: hosts[0] is this process (the system's
// libcrypto, and libgcrypt), the others are peers.
struct Host {
    std::string release; // "3.0", "3.5", ...
    std::string version;
    std::string cores;   // hwcipher-cores report, "-" when hwcipher did not load
    Peer* peer = nullptr;
};

// floor: the EVP floor provider (bench_x86_floor.cpp) in each libcrypto,
// timed for the small messages only and never compared or checked.
enum class Lib { hwcipher, openssl, gcrypt, floor };

struct Impl {
    Lib lib;
    size_t host;
};

std::string impl_label(const Impl& im, const std::vector<Host>& hosts) {
    switch (im.lib) {
    case Lib::hwcipher: return "hwcipher in " + hosts[im.host].release;
    case Lib::openssl: return "default " + hosts[im.host].release;
    case Lib::floor: return "EVP floor in " + hosts[im.host].release;
    case Lib::gcrypt: break;
    }
    return "libgcrypt";
}

struct Row {
    Case c;
    std::string core;
    std::vector<double> ns_per_byte; // per Impl, NAN where not run
    bool mismatch = false;
};

// The index of `lib`'s implementation in `host`, or -1.
int impl_in(const std::vector<Impl>& impls, Lib lib, size_t host) {
    for (size_t i = 0; i < impls.size(); ++i)
        if (impls[i].lib == lib && impls[i].host == host) return static_cast<int>(i);
    return -1;
}
int hw_in(const std::vector<Impl>& impls, size_t host) {
    return impl_in(impls, Lib::hwcipher, host);
}

// The floor is timed (and has a column) only where EVP's per-call cost
// matters: the 64-byte and TLS-shaped messages.
constexpr size_t kFloorBelow = 1024;
bool has_column(const Impl& im, size_t len) { return im.lib != Lib::floor || len < kFloorBelow; }

// hwcipher's own share of a unit in this process: its time less the floor's.
double own_ns_per_byte(const Row& r, const std::vector<Impl>& impls) {
    const int hw = hw_in(impls, 0), fl = impl_in(impls, Lib::floor, 0);
    if (hw < 0 || fl < 0) return NAN;
    return r.ns_per_byte[static_cast<size_t>(hw)] - r.ns_per_byte[static_cast<size_t>(fl)];
}

// hwcipher's speed over each other implementation's, hwcipher taken in that
// one's libcrypto (libgcrypt: this process; a release without hwcipher: this
// process too); the smallest, and whose (> 1: hwcipher is faster).
double ratio(const Row& r, const std::vector<Impl>& impls, int* best = nullptr) {
    double q = NAN;
    int b = -1;
    for (size_t i = 0; i < impls.size(); ++i) {
        if (impls[i].lib == Lib::hwcipher || impls[i].lib == Lib::floor ||
            std::isnan(r.ns_per_byte[i]))
            continue;
        int h = hw_in(impls, impls[i].host);
        if (h < 0 || std::isnan(r.ns_per_byte[static_cast<size_t>(h)])) h = hw_in(impls, 0);
        if (h < 0 || std::isnan(r.ns_per_byte[static_cast<size_t>(h)])) continue;
        const double x = r.ns_per_byte[i] / r.ns_per_byte[static_cast<size_t>(h)];
        if (std::isnan(q) || x < q) q = x, b = static_cast<int>(i);
    }
    if (best) *best = b;
    return q;
}

std::string fmt(const char* f, double v) {
    if (std::isnan(v)) return "—";
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string dir_of(const Case& c) {
    if (c.mode == "CTR" || c.mode == "OFB") return "enc = dec";
    return c.enc ? "enc" : "dec";
}

std::string cipher_of(const Case& c) {
    return c.evp_name.substr(0, c.evp_name.size() - c.mode.size() - 1);
}

std::string ratio_cell(const Row& r, const std::vector<Impl>& impls,
                       const std::vector<Host>& hosts) {
    int best = -1;
    const double q = ratio(r, impls, &best);
    if (std::isnan(q)) return "—";
    return fmt("%.2f", q) + " (" + impl_label(impls[static_cast<size_t>(best)], hosts) + ")" +
           (r.mismatch ? " !" : "");
}

// `own`: a column for hwcipher's time less the EVP floor's.
void print_header(const std::vector<Impl>& impls, const std::vector<Host>& hosts, size_t len,
                  const char* unit, bool cycles, bool own) {
    std::printf("| cipher | mode | direction | hwcipher core");
    size_t numeric = (cycles ? 1 : 0) + (own ? 1 : 0);
    for (const Impl& im : impls) {
        if (!has_column(im, len)) continue;
        std::printf(" | %s %s", impl_label(im, hosts).c_str(), unit);
        ++numeric;
    }
    if (own) std::printf(" | hwcipher in %s − EVP floor %s", hosts[0].release.c_str(), unit);
    if (cycles) std::printf(" | hwcipher c/B");
    std::printf(" | hwcipher ÷ best other |\n| --- | --- | --- | ---");
    for (size_t i = 0; i < numeric; ++i) std::printf(" | ---:");
    std::printf(" | ---: |\n");
}

void print_row_start(const Row& r) {
    std::printf("| %s | %s | %s | %s", cipher_of(r.c).c_str(), r.c.mode.c_str(),
                dir_of(r.c).c_str(), r.core.c_str());
}

void print_bulk_table(const std::vector<Row>& rows, const std::vector<Impl>& impls,
                      const std::vector<Host>& hosts, size_t len, double ghz) {
    std::printf("\n### %zu-byte %s, ns/B\n\n", len, len >= 1024 ? "buffers" : "messages");
    const bool own = impl_in(impls, Lib::floor, 0) >= 0 && len < kFloorBelow;
    print_header(impls, hosts, len, "ns/B", true, own);
    const int hw0 = hw_in(impls, 0);
    auto cell = [](double ns) { return fmt(ns < 1 ? "%.3f" : "%.2f", ns); };
    for (const Row& r : rows) {
        if (r.c.len != len) continue;
        print_row_start(r);
        for (size_t i = 0; i < impls.size(); ++i)
            if (has_column(impls[i], len)) std::printf(" | %s", cell(r.ns_per_byte[i]).c_str());
        if (own) std::printf(" | %s", cell(own_ns_per_byte(r, impls)).c_str());
        const double cb = r.ns_per_byte[static_cast<size_t>(hw0)] * ghz;
        std::printf(" | %s | %s |\n", fmt(cb < 10 ? "%.2f" : "%.1f", cb).c_str(),
                    ratio_cell(r, impls, hosts).c_str());
    }
}

void print_aead_table(const std::vector<Row>& rows, const std::vector<Impl>& impls,
                      const std::vector<Host>& hosts, size_t len, size_t aad,
                      const char* note) {
    std::printf("\n### AEAD, one %zu-byte message (nonce + %zu B AAD + data + final + tag%s), "
                "ns/msg\n\n",
                len, aad, note);
    const bool own = impl_in(impls, Lib::floor, 0) >= 0 && len < kFloorBelow;
    print_header(impls, hosts, len, "ns", false, own);
    auto cell = [len](double ns) { return fmt("%.0f", ns * static_cast<double>(len)); };
    for (const Row& r : rows) {
        if (r.c.len != len || r.c.aad != aad || r.c.shape != Shape::aead) continue;
        print_row_start(r);
        for (size_t i = 0; i < impls.size(); ++i)
            if (has_column(impls[i], len)) std::printf(" | %s", cell(r.ns_per_byte[i]).c_str());
        if (own) std::printf(" | %s", cell(own_ns_per_byte(r, impls)).c_str());
        std::printf(" | %s |\n", ratio_cell(r, impls, hosts).c_str());
    }
}

// The XTS data units of kXtsUnitLens: ns per unit, and hwcipher's c/B.
void print_xts_unit_table(const std::vector<Row>& rows, const std::vector<Impl>& impls,
                          const std::vector<Host>& hosts, double ghz) {
    std::printf("\n### XTS data units of 100, 520 and 4,100 bytes (ciphertext stealing), "
                "ns/unit\n\n");
    std::printf("| cipher | unit | direction | hwcipher core");
    size_t numeric = 1;
    for (const Impl& im : impls) {
        if (im.lib == Lib::floor) continue;
        std::printf(" | %s ns", impl_label(im, hosts).c_str());
        ++numeric;
    }
    std::printf(" | hwcipher c/B | hwcipher ÷ best other |\n| --- | ---: | --- | ---");
    for (size_t i = 0; i < numeric; ++i) std::printf(" | ---:");
    std::printf(" | ---: |\n");
    const int hw0 = hw_in(impls, 0);
    for (size_t len : kXtsUnitLens) {
        for (const Row& r : rows) {
            if (r.c.len != len || r.c.mode != "XTS" || r.c.shape != Shape::xts) continue;
            std::printf("| %s | %zu B | %s | %s", cipher_of(r.c).c_str(), len,
                        dir_of(r.c).c_str(), r.core.c_str());
            for (size_t i = 0; i < impls.size(); ++i)
                if (impls[i].lib != Lib::floor)
                    std::printf(" | %s",
                                fmt("%.1f", r.ns_per_byte[i] * static_cast<double>(len)).c_str());
            const double cb = r.ns_per_byte[static_cast<size_t>(hw0)] * ghz;
            std::printf(" | %s | %s |\n", fmt("%.2f", cb).c_str(),
                        ratio_cell(r, impls, hosts).c_str());
        }
    }
}

// Times one case on every implementation; the row, or false if hwcipher
// does not offer it.
bool run_case(const Case& c, const Options& o, const std::vector<Host>& hosts,
              const std::vector<Impl>& impls, Row& row) {
    row.c = c;
    row.ns_per_byte.assign(impls.size(), NAN);
    std::vector<std::unique_ptr<Timed>> timed(impls.size());
    for (size_t i = 0; i < impls.size(); ++i) {
        const Impl& im = impls[i];
        const Host& h = hosts[im.host];
        if (im.lib == Lib::gcrypt) {
            gcry_cipher_hd_t probe = nullptr;
            if (gcry_cipher_open(&probe, c.gcry_algo, c.gcry_mode, 0) != 0) continue;
            gcry_cipher_close(probe);
            timed[i] = std::make_unique<LocalTimed>(bench::make_gcry_runner(c), c.len);
            continue;
        }
        if (!has_column(im, c.len)) continue;
        const char* provider = im.lib == Lib::hwcipher  ? "hwcipher"
                               : im.lib == Lib::floor ? bench::kFloorProvider
                                                      : "default";
        if (h.peer == nullptr) {
            if (auto r = bench::open_evp(c, provider))
                timed[i] = std::make_unique<LocalTimed>(std::move(r), c.len);
            continue;
        }
        const int slot = static_cast<int>(i);
        const std::string answer = h.peer->request("open " + std::to_string(slot) + " " +
                                                   provider + " " + bench::encode_case(c));
        if (answer == "absent") continue;
        if (answer.rfind("ok ", 0) != 0) die("peer answered '" + answer + "'");
        timed[i] = std::make_unique<PeerTimed>(*h.peer, slot,
                                               std::strtoull(answer.c_str() + 3, nullptr, 16));
    }
    const int hw0 = hw_in(impls, 0);
    if (!timed[static_cast<size_t>(hw0)]) {
        std::fprintf(stderr, "bench_x86: hwcipher does not offer %s, skipped\n", c.evp_name.c_str());
        for (const Host& h : hosts)
            if (h.peer) h.peer->request("close");
        return false;
    }
    row.core = core_of(hosts[0].cores, family_of(c.evp_name));
    if (c.mode == "GCM") row.core += " + " + core_of(hosts[0].cores, "ghash");
    // Same output and tag from every runner, or the row is flagged.
    const uint64_t want = timed[static_cast<size_t>(hw0)]->digest();
    for (size_t i = 0; i < impls.size(); ++i) {
        if (timed[i] && impls[i].lib != Lib::floor && timed[i]->digest() != want) {
            row.mismatch = true;
            std::fprintf(stderr, "bench_x86: %s %s %zu B: hwcipher and %s disagree\n",
                         c.evp_name.c_str(), c.enc ? "enc" : "dec", c.len,
                         impl_label(impls[i], hosts).c_str());
        }
    }
    std::vector<size_t> units(impls.size());
    for (size_t i = 0; i < impls.size(); ++i)
        if (timed[i]) units[i] = timed[i]->calibrate(o.ms * 1e6);
    // A repetition is the fastest of o.batches short batches (time lost to
    // other processes only ever adds); the runners take turns batch by
    // batch, so they see the same machine.
    std::vector<std::vector<double>> t(impls.size());
    for (int rep = 0; rep < o.reps; ++rep) {
        std::vector<double> best(impls.size(), HUGE_VAL);
        for (int b = 0; b < o.batches; ++b)
            for (size_t i = 0; i < impls.size(); ++i)
                if (timed[i]) best[i] = std::min(best[i], timed[i]->time(units[i]));
        for (size_t i = 0; i < impls.size(); ++i)
            if (timed[i]) t[i].push_back(best[i]);
    }
    for (size_t i = 0; i < impls.size(); ++i) {
        if (!timed[i]) continue;
        std::sort(t[i].begin(), t[i].end());
        const double bytes = static_cast<double>(units[i]) * static_cast<double>(c.len);
        row.ns_per_byte[i] = t[i][t[i].size() / 2] / bytes;
    }
    for (const Host& h : hosts)
        if (h.peer) h.peer->request("close");
    return true;
}

} // namespace

int main(int argc, char** argv) {
    const Options o = parse(argc, argv);
    // No openssl.cnf: exactly the providers named here are loaded.
    if (OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, nullptr) != 1) die("OPENSSL_init_crypto");
    if (!o.modules.empty() &&
        OSSL_PROVIDER_set_default_search_path(nullptr, o.modules.c_str()) != 1)
        die("OSSL_PROVIDER_set_default_search_path");
    if (OSSL_PROVIDER_load(nullptr, "default") == nullptr) die("loading the default provider");
    OSSL_PROVIDER* hw = OSSL_PROVIDER_load(nullptr, "hwcipher");
    if (hw == nullptr) die("loading hwcipher (give --modules or set OPENSSL_MODULES)");
    const char* report = nullptr;
    OSSL_PARAM params[] = {
        OSSL_PARAM_construct_utf8_ptr("hwcipher-cores", const_cast<char**>(&report), 0),
        OSSL_PARAM_construct_end(),
    };
    if (OSSL_PROVIDER_get_params(hw, params) != 1 || report == nullptr)
        die("reading hwcipher's hwcipher-cores parameter");
    const std::string gcry = bench::gcry_setup();

    std::vector<Host> hosts;
    const std::string local_version = OpenSSL_version(OPENSSL_VERSION);
    hosts.push_back({release_of(local_version), local_version, report, nullptr});
    std::vector<std::unique_ptr<Peer>> peers;
    for (const std::string& cmd : o.peers) {
        peers.push_back(std::make_unique<Peer>(cmd));
        Peer& p = *peers.back();
        hosts.push_back({release_of(p.version()), p.version(), p.cores(), &p});
        if (p.cores() != "-" && p.cores() != hosts[0].cores)
            std::fprintf(stderr, "bench_x86: hwcipher in %s chose %s, here %s\n",
                         p.version().c_str(), p.cores().c_str(), hosts[0].cores.c_str());
    }
    std::vector<Impl> impls;
    for (size_t h = 0; h < hosts.size(); ++h) {
        if (hosts[h].cores != "-") impls.push_back({Lib::hwcipher, h});
        impls.push_back({Lib::openssl, h});
        if (h == 0 && !bench::load_floor_provider()) die("loading the EVP floor provider");
        impls.push_back({Lib::floor, h});
    }
    impls.push_back({Lib::gcrypt, 0});

    const double ghz_before = estimate_ghz();
    std::vector<Row> rows;
    const double start = std::time(nullptr);
    std::vector<Case> cases = all_cases(16384);
    for (const std::vector<Case>& more : {all_cases(64), tls_cases(), xts_unit_cases()})
        cases.insert(cases.end(), more.begin(), more.end());
    for (const Case& c : cases) {
        if (!o.only.empty() && c.evp_name.find(o.only) == std::string::npos) continue;
        Row row;
        if (run_case(c, o, hosts, impls, row)) rows.push_back(std::move(row));
    }
    const double ghz_after = estimate_ghz();
    const double ghz = (ghz_before + ghz_after) / 2;

    std::printf("Measured in one run by bench/bench_x86 (scripts/bench_x86.sh): %s (this "
                "process)",
                local_version.c_str());
    for (size_t h = 1; h < hosts.size(); ++h)
        std::printf(", %s (a peer process on its own loader%s)", hosts[h].version.c_str(),
                    hosts[h].cores == "-" ? "; hwcipher not loaded" : "");
    std::printf(";\n%s;\nhwcipher cores: %s.\n", gcry.c_str(), hosts[0].cores.c_str());
    std::printf(
        "Median of %d repetitions, each the fastest of %d batches of about %.0f ms of thread\n"
        "CPU time, all implementations taking turns batch by batch; c/B = ns/B x %.2f GHz,\n"
        "the clock estimated from a chain of dependent adds (%.2f before, %.2f after the run;\n"
        "no cycle counter available). Bulk modes: one update per buffer on a running context;\n"
        "XTS: each buffer is a data unit with its own tweak; AEAD (OCB, GCM, CCM): each buffer\n"
        "is a whole message with a 12-byte nonce, %zu B of AAD (%zu B in the %zu-byte\n"
        "TLS-shaped messages) and a %zu-byte tag.\n"
        "\"hwcipher in R\": hwcipher through EVP in OpenSSL R's libcrypto; \"default R\": that\n"
        "release's default provider. Ratio: hwcipher's speed over each other implementation's,\n"
        "hwcipher taken in the same libcrypto (libgcrypt: in %s), the smallest shown and named;\n"
        "> 1 means hwcipher is faster than all of them. \"!\": the outputs differed (see\n"
        "stderr). \"EVP floor in R\" (64-byte and TLS-shaped messages): the same calls in\n"
        "R's libcrypto into a built-in provider that does no cryptography (it copies its\n"
        "input, hands out a zero tag, checks none): what EVP itself costs there, which\n"
        "libgcrypt's own API does not pay; never compared or checked. \"hwcipher in %s −\n"
        "EVP floor\": hwcipher's own share. %.0f s.\n",
        o.reps, o.batches, o.ms, ghz, ghz_before, ghz_after, bench::kAadLen, bench::kTlsAadLen,
        kTlsLen, bench::kTagLen, hosts[0].release.c_str(), hosts[0].release.c_str(),
        std::time(nullptr) - start);
    print_bulk_table(rows, impls, hosts, 16384, ghz);
    print_bulk_table(rows, impls, hosts, 64, ghz);
    print_aead_table(rows, impls, hosts, 64, bench::kAadLen, "");
    print_aead_table(rows, impls, hosts, kTlsLen, bench::kTlsAadLen, "; TLS 1.2's record shape");
    print_xts_unit_table(rows, impls, hosts, ghz);

    if (!o.chart.empty()) {
        FILE* f = std::fopen(o.chart.c_str(), "w");
        if (f == nullptr) die("cannot write " + o.chart);
        for (const Row& r : rows) {
            if (r.c.len != 16384) continue;
            double small = NAN;
            for (const Row& s : rows)
                if (s.c.len == 64 && s.c.evp_name == r.c.evp_name && s.c.enc == r.c.enc)
                    small = ratio(s, impls);
            const std::string label =
                r.c.evp_name + (dir_of(r.c) == "enc = dec" ? "" : r.c.enc ? " enc" : " dec");
            auto num = [](double v) { return std::isnan(v) ? std::string("?") : fmt("%.3f", v); };
            std::fprintf(f, "\"%s\" %s %s\n", label.c_str(), num(ratio(r, impls)).c_str(),
                         num(small).c_str());
        }
        std::fclose(f);
    }
    peers.clear(); // the peers see EOF and exit
    return 0;
}
