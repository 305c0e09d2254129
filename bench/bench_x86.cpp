// SPDX-License-Identifier: Apache-2.0
// bench_x86: time every (cipher, mode, direction) hwcipher offers on x86_64,
// at 16 KiB and at 64 bytes, through hwcipher (EVP, propq provider=hwcipher),
// OpenSSL's default provider (EVP, provider=default) and libgcrypt (its
// gcry_cipher API: the independent anchor), in one run. scripts/bench_x86.sh
// builds and runs it; the tables go to stdout as Markdown.
//
//   bench_x86 [--modules DIR] [--ms N] [--batches N] [--reps N] [--only TEXT]
//             [--chart FILE]
//
//   --modules  where hwcipher.so is (else $OPENSSL_MODULES)
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
// machine, caches refilled after a context switch only ever add time), the
// three runners of a case taking turns batch by batch; the figure reported is
// the median of --reps repetitions.
// Cycles are not counted (no PMU in this VM, perf_event gives "not
// supported"): cycles/B = ns/B x an estimated clock, the rate of a chain of
// dependent 64-bit adds (one per cycle), measured before and after the run.
// Before timing, all runners of a case must produce the same output and tag.
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <gcrypt.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#include "bench_x86.h"

namespace {

using bench::Case;
using bench::die;
using bench::Runner;
using bench::Shape;

double cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// Clock in GHz: 64 dependent adds per iteration run at one per cycle; the
// fastest of several trials (any interruption only slows a trial down).
double estimate_ghz() {
    constexpr unsigned kIters = 100000;
    double best = 0;
    for (int trial = 0; trial < 15; ++trial) {
        uint64_t x = 0;
        const double t0 = cpu_ns();
        for (unsigned i = 0; i < kIters; ++i)
            asm volatile(".rept 64\n\taddq $1, %0\n\t.endr" : "+r"(x));
        const double t = cpu_ns() - t0;
        best = std::max(best, 64.0 * kIters / t);
    }
    return best;
}

double time_units(Runner& r, size_t units) {
    const double t0 = cpu_ns();
    for (size_t i = 0; i < units; ++i) r.once();
    return cpu_ns() - t0;
}

// Units for one measurement of about target_ns (this also warms up).
size_t calibrate(Runner& r, double target_ns) {
    size_t units = 1;
    for (;;) {
        const double t = time_units(r, units);
        if (t >= 1e6 || units >= (size_t{1} << 28))
            return std::max<size_t>(1, static_cast<size_t>(static_cast<double>(units) * target_ns /
                                                           std::max(t, 1.0)));
        units *= 4;
    }
}

struct Options {
    std::string modules, only, chart;
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

// ---- results and tables ----------------------------------------------------------

enum { kHw, kDefault, kGcrypt, kImpls };
constexpr const char* kImplNames[kImpls] = {"hwcipher", "default", "libgcrypt"};

struct Row {
    Case c;
    std::string core;
    double ns_per_byte[kImpls] = {NAN, NAN, NAN};
    bool mismatch = false;
};

// hwcipher's speed over the best other's (> 1: hwcipher is faster).
double ratio(const Row& r, int* best = nullptr) {
    int b = -1;
    for (int i : {kDefault, kGcrypt})
        if (!std::isnan(r.ns_per_byte[i]) && (b < 0 || r.ns_per_byte[i] < r.ns_per_byte[b])) b = i;
    if (best) *best = b;
    if (b < 0 || std::isnan(r.ns_per_byte[kHw])) return NAN;
    return r.ns_per_byte[b] / r.ns_per_byte[kHw];
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

std::string ratio_cell(const Row& r) {
    int best = -1;
    const double q = ratio(r, &best);
    if (std::isnan(q)) return "—";
    return fmt("%.2f", q) + " (" + (best == kDefault ? "default" : "libgcrypt") + ")" +
           (r.mismatch ? " !" : "");
}

void print_bulk_table(const std::vector<Row>& rows, size_t len, double ghz) {
    std::printf("\n### %zu-byte %s\n\n", len, len >= 1024 ? "buffers" : "messages");
    std::printf("| cipher | mode | direction | hwcipher core");
    for (const char* n : kImplNames) std::printf(" | %s ns/B | MiB/s | c/B", n);
    std::printf(" | hwcipher ÷ best other |\n| --- | --- | --- | ---");
    for (int i = 0; i < kImpls; ++i) std::printf(" | ---: | ---: | ---:");
    std::printf(" | ---: |\n");
    for (const Row& r : rows) {
        if (r.c.len != len) continue;
        std::printf("| %s | %s | %s | %s", cipher_of(r.c).c_str(), r.c.mode.c_str(),
                    dir_of(r.c).c_str(), r.core.c_str());
        for (double ns : r.ns_per_byte)
            std::printf(" | %s | %s | %s", fmt(ns < 1 ? "%.3f" : "%.2f", ns).c_str(),
                        fmt("%.0f", 1e9 / ns / 1048576.0).c_str(),
                        fmt(ns * ghz < 10 ? "%.2f" : "%.1f", ns * ghz).c_str());
        std::printf(" | %s |\n", ratio_cell(r).c_str());
    }
}

void print_aead_table(const std::vector<Row>& rows, size_t len, double ghz) {
    std::printf("\n### AEAD, one %zu-byte message (nonce + %zu B AAD + data + final + tag)\n\n",
                len, bench::kAadLen);
    std::printf("| cipher | mode | direction | hwcipher core");
    for (const char* n : kImplNames) std::printf(" | %s ns/msg | cycles/msg", n);
    std::printf(" | hwcipher ÷ best other |\n| --- | --- | --- | ---");
    for (int i = 0; i < kImpls; ++i) std::printf(" | ---: | ---:");
    std::printf(" | ---: |\n");
    for (const Row& r : rows) {
        if (r.c.len != len || r.c.shape != Shape::aead) continue;
        std::printf("| %s | %s | %s | %s", cipher_of(r.c).c_str(), r.c.mode.c_str(),
                    dir_of(r.c).c_str(), r.core.c_str());
        for (double ns : r.ns_per_byte) {
            const double msg = ns * static_cast<double>(len);
            std::printf(" | %s | %s", fmt("%.0f", msg).c_str(), fmt("%.0f", msg * ghz).c_str());
        }
        std::printf(" | %s |\n", ratio_cell(r).c_str());
    }
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
    const std::string cores = report;
    const std::string gcry = bench::gcry_setup();

    const double ghz_before = estimate_ghz();
    std::vector<Row> rows;
    const double start = std::time(nullptr);
    for (size_t len : {size_t{16384}, size_t{64}}) {
        for (const Case& c : all_cases(len)) {
            if (!o.only.empty() && c.evp_name.find(o.only) == std::string::npos) continue;
            Row row;
            row.c = c;
            std::unique_ptr<Runner> runners[kImpls];
            const char* props[2] = {"provider=hwcipher", "provider=default"};
            for (int i : {kHw, kDefault}) {
                EVP_CIPHER* ciph = EVP_CIPHER_fetch(nullptr, c.evp_name.c_str(), props[i]);
                if (ciph == nullptr) continue;
                const char* from = OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(ciph));
                if (from == nullptr || std::string(from) != kImplNames[i])
                    die(c.evp_name + " came from provider " + (from ? from : "?") + ", not " +
                        kImplNames[i]);
                runners[i] = bench::make_evp_runner(c, ciph);
                EVP_CIPHER_free(ciph);  // the context keeps its own reference
            }
            ERR_clear_error();  // failed fetches only mean "not offered"
            if (!runners[kHw]) {
                std::fprintf(stderr, "bench_x86: hwcipher does not offer %s, skipped\n",
                             c.evp_name.c_str());
                continue;
            }
            row.core = core_of(cores, family_of(c.evp_name));
            if (c.mode == "GCM") row.core += " + " + core_of(cores, "ghash");
            gcry_cipher_hd_t probe = nullptr;
            if (gcry_cipher_open(&probe, c.gcry_algo, c.gcry_mode, 0) == 0) {
                gcry_cipher_close(probe);
                runners[kGcrypt] = bench::make_gcry_runner(c);
            }
            // Same output and tag from every runner, or the row is flagged.
            for (auto& r : runners)
                if (r) r->once();
            for (int i : {kDefault, kGcrypt}) {
                if (!runners[i]) continue;
                const auto& a = runners[kHw]->output();
                const auto& b = runners[i]->output();
                if (!std::equal(a.begin(), a.begin() + static_cast<long>(c.len), b.begin()) ||
                    runners[kHw]->tag() != runners[i]->tag()) {
                    row.mismatch = true;
                    std::fprintf(stderr, "bench_x86: %s %s %zu B: hwcipher and %s disagree\n",
                                 c.evp_name.c_str(), c.enc ? "enc" : "dec", c.len, kImplNames[i]);
                }
            }
            size_t units[kImpls] = {};
            for (int i = 0; i < kImpls; ++i)
                if (runners[i]) units[i] = calibrate(*runners[i], o.ms * 1e6);
            // A repetition is the fastest of o.batches short batches (time
            // lost to other processes only ever adds); the runners take
            // turns batch by batch, so they see the same machine.
            std::vector<double> t[kImpls];
            for (int rep = 0; rep < o.reps; ++rep) {
                double best[kImpls] = {HUGE_VAL, HUGE_VAL, HUGE_VAL};
                for (int b = 0; b < o.batches; ++b)
                    for (int i = 0; i < kImpls; ++i)
                        if (runners[i])
                            best[i] = std::min(best[i], time_units(*runners[i], units[i]));
                for (int i = 0; i < kImpls; ++i)
                    if (runners[i]) t[i].push_back(best[i]);
            }
            for (int i = 0; i < kImpls; ++i) {
                if (!runners[i]) continue;
                std::sort(t[i].begin(), t[i].end());
                const double bytes = static_cast<double>(units[i]) * static_cast<double>(len);
                row.ns_per_byte[i] = t[i][t[i].size() / 2] / bytes;
            }
            rows.push_back(row);
        }
    }
    const double ghz_after = estimate_ghz();
    const double ghz = (ghz_before + ghz_after) / 2;

    std::printf("Measured in one run by bench/bench_x86 (scripts/bench_x86.sh): %s; %s;\n"
                "hwcipher cores: %s.\n",
                OpenSSL_version(OPENSSL_VERSION), gcry.c_str(), cores.c_str());
    std::printf(
        "Median of %d repetitions, each the fastest of %d batches of about %.0f ms of thread\n"
        "CPU time, the implementations taking turns batch by batch; cycles/B = ns/B x %.2f GHz,\n"
        "the clock estimated from a chain of dependent adds (%.2f before, %.2f after the run;\n"
        "no cycle counter available). Bulk modes: one update per buffer on a running context;\n"
        "XTS: each buffer is a data unit with its own tweak; AEAD (OCB, GCM, CCM): each buffer\n"
        "is a whole message with a 12-byte nonce, %zu B of AAD and a %zu-byte tag. Ratio:\n"
        "hwcipher's speed over the faster of the other two (named); > 1 means hwcipher is\n"
        "faster. \"!\": the outputs differed (see stderr). %.0f s.\n",
        o.reps, o.batches, o.ms, ghz, ghz_before, ghz_after, bench::kAadLen, bench::kTagLen,
        std::time(nullptr) - start);
    print_bulk_table(rows, 16384, ghz);
    print_bulk_table(rows, 64, ghz);
    print_aead_table(rows, 64, ghz);

    if (!o.chart.empty()) {
        FILE* f = std::fopen(o.chart.c_str(), "w");
        if (f == nullptr) die("cannot write " + o.chart);
        for (const Row& r : rows) {
            if (r.c.len != 16384) continue;
            double small = NAN;
            for (const Row& s : rows)
                if (s.c.len == 64 && s.c.evp_name == r.c.evp_name && s.c.enc == r.c.enc)
                    small = ratio(s);
            const std::string label =
                r.c.evp_name + (dir_of(r.c) == "enc = dec" ? "" : r.c.enc ? " enc" : " dec");
            auto num = [](double v) { return std::isnan(v) ? std::string("?") : fmt("%.3f", v); };
            std::fprintf(f, "\"%s\" %s %s\n", label.c_str(), num(ratio(r)).c_str(),
                         num(small).c_str());
        }
        std::fclose(f);
    }
    return 0;
}
