// SPDX-License-Identifier: Apache-2.0
// bench_x86's pieces shared by the driver and its peer processes: dying with
// OpenSSL's error queue, the deterministic input pattern, cases as one line
// of text, output digests and the timing loop.
#include <openssl/err.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <sstream>

#include "bench_x86.h"

namespace bench {

void die(const std::string& what) {
    std::fprintf(stderr, "bench_x86: %s\n", what.c_str());
    ERR_print_errors_fp(stderr);
    std::exit(1);
}

std::vector<unsigned char> pattern(size_t n, unsigned seed) {
    std::vector<unsigned char> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>(i * 31 + seed);
    return v;
}

// Names contain no spaces; the numbers follow in a fixed order.
std::string encode_case(const Case& c) {
    std::ostringstream s;
    s << c.evp_name << ' ' << c.mode << ' ' << c.gcry_algo << ' ' << c.gcry_mode << ' '
      << static_cast<int>(c.shape) << ' ' << c.ccm << ' ' << c.ocb << ' ' << c.enc << ' '
      << c.len << ' ' << c.aad;
    return s.str();
}

Case decode_case(const std::string& line) {
    std::istringstream s(line);
    Case c;
    int shape = 0;
    if (!(s >> c.evp_name >> c.mode >> c.gcry_algo >> c.gcry_mode >> shape >> c.ccm >> c.ocb >>
          c.enc >> c.len >> c.aad) ||
        shape < 0 || shape > static_cast<int>(Shape::aead) || c.aad > kAadLen)
        die("malformed case line: " + line);
    c.shape = static_cast<Shape>(shape);
    return c;
}

uint64_t Runner::digest(size_t len) const {
    uint64_t h = 0xcbf29ce484222325ull;
    auto add = [&h](const unsigned char* p, size_t n) {
        for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    };
    add(out_.data(), std::min(len, out_.size()));
    add(tag_.data(), tag_.size());
    return h;
}

double cpu_ns() {
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

double time_units(Runner& r, size_t units) {
    const double t0 = cpu_ns();
    for (size_t i = 0; i < units; ++i) r.once();
    return cpu_ns() - t0;
}

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

} // namespace bench
