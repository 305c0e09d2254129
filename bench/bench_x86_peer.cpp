// SPDX-License-Identifier: Apache-2.0
// bench_x86_peer: runs EVP cases for bench_x86 under another OpenSSL
// release. One libcrypto per process, so a newer release (unpacked by
// scripts/openssl_release.sh, run on its own loader) lives in a process of
// its own; the driver sends it one request at a time over a pipe and
// waits, so the peer's batches take turns with everyone else's and never
// run alongside them.
//
//   bench_x86_peer [--modules DIR]    # DIR: where this release's hwcipher.so is
//
// Requests on stdin, one per line; one answer line each on stdout:
//   open <slot> <provider> <case>  -> "ok <digest hex>" after one unit of
//                                     work (the output to compare), or
//                                     "absent" if the provider lacks it;
//                                     <provider>: hwcipher, default or
//                                     evp-floor (bench_x86_floor.cpp, built in)
//   cal <slot> <target ns>         -> units for one batch of about that long
//   time <slot> <units>            -> thread CPU ns of that many units
//   close                          -> "ok" (every slot freed)
// On start it prints "hello <OpenSSL version>\t<hwcipher-cores or ->".
// <case> is bench::encode_case's line; slots are small integers.
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

#include "bench_x86.h"

int main(int argc, char** argv) {
    std::string modules;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--modules" && i + 1 < argc) modules = argv[++i];
        else bench::die("bench_x86_peer: unknown argument " + a);
    }
    if (OPENSSL_init_crypto(OPENSSL_INIT_NO_LOAD_CONFIG, nullptr) != 1) bench::die("OPENSSL_init_crypto");
    if (!modules.empty() && OSSL_PROVIDER_set_default_search_path(nullptr, modules.c_str()) != 1)
        bench::die("OSSL_PROVIDER_set_default_search_path");
    if (OSSL_PROVIDER_load(nullptr, "default") == nullptr) bench::die("loading the default provider");
    // hwcipher is optional here: a release it cannot load into still
    // measures its own default provider.
    std::string cores = "-";
    if (OSSL_PROVIDER* hw = modules.empty() ? nullptr : OSSL_PROVIDER_load(nullptr, "hwcipher")) {
        const char* report = nullptr;
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_utf8_ptr("hwcipher-cores", const_cast<char**>(&report), 0),
            OSSL_PARAM_construct_end(),
        };
        if (OSSL_PROVIDER_get_params(hw, params) == 1 && report != nullptr) cores = report;
    }
    if (!bench::load_floor_provider()) bench::die("bench_x86_peer: loading the EVP floor provider");
    ERR_clear_error();
    std::cout << "hello " << OpenSSL_version(OPENSSL_VERSION) << '\t' << cores << std::endl;

    std::map<int, std::unique_ptr<bench::Runner>> slots;
    std::string line;
    while (std::getline(std::cin, line)) {
        std::istringstream in(line);
        std::string verb;
        in >> verb;
        int slot = -1;
        if (verb == "open") {
            std::string provider, rest;
            in >> slot >> provider;
            std::getline(in, rest);
            const bench::Case c = bench::decode_case(rest);
            auto r = bench::open_evp(c, provider);
            if (!r) {
                std::cout << "absent" << std::endl;
                continue;
            }
            r->once();
            char hex[17];
            std::snprintf(hex, sizeof hex, "%016llx",
                          static_cast<unsigned long long>(r->digest(c.len)));
            slots[slot] = std::move(r);
            std::cout << "ok " << hex << std::endl;
        } else if (verb == "cal" || verb == "time") {
            double arg = 0;
            in >> slot >> arg;
            auto it = slots.find(slot);
            if (it == slots.end()) bench::die("bench_x86_peer: no slot " + std::to_string(slot));
            if (verb == "cal")
                std::cout << bench::calibrate(*it->second, arg) << std::endl;
            else
                std::cout << std::fixed << bench::time_units(*it->second, static_cast<size_t>(arg))
                          << std::endl;
        } else if (verb == "close") {
            slots.clear();
            std::cout << "ok" << std::endl;
        } else {
            bench::die("bench_x86_peer: unknown request " + line);
        }
    }
    return 0;
}
