// SPDX-License-Identifier: Apache-2.0
// hwcipher-info: what hwcipher does in this environment, so that nothing
// about it is silent. Loads OpenSSL's configuration exactly as an
// application does (OPENSSL_CONF, else the default openssl.cnf), then prints
//   - the versions (this tool, the libcrypto it runs on, the module's build),
//   - the environment and the hwcipher parts of the configuration file,
//   - whether hwcipher is loaded and active, the CPU features it saw, the
//     cores it chose and any setting it could not use (bad cores value,
//     unwritable trace file),
//   - which provider serves one cipher of each family under the
//     configuration's default properties.
// Exit status: 0 hwcipher is configured, active, serving and reports no
// problem; 1 it is configured but not serving, or something is wrong (each
// problem is printed on a "problem:" line); 2 the configuration does not
// mention hwcipher at all (the cores it would choose are still shown).
#include <openssl/conf.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/opensslv.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <sys/stat.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "hwcipher_build_id.h"

namespace {

std::vector<std::string> problems;

void problem(const std::string& text) {
    problems.push_back(text);
    std::printf("  problem: %s\n", text.c_str());
}

std::string env_or(const char* name, const char* fallback) {
    const char* v = std::getenv(name);
    return v != nullptr ? std::string(v) : std::string(fallback);
}

bool exists(const std::string& path) {
    struct stat st;
    return ::stat(path.c_str(), &st) == 0;
}

// Every queued OpenSSL error, one per line, indented; clears the queue.
std::string take_errors() {
    std::string out;
    unsigned long e;
    const char *file, *data;
    int line, flags;
    while ((e = ERR_get_error_all(&file, &line, nullptr, &data, &flags)) != 0) {
        char buf[256];
        ERR_error_string_n(e, buf, sizeof buf);
        out += std::string("      ") + buf;
        if ((flags & ERR_TXT_STRING) != 0 && data != nullptr && *data != '\0')
            out += std::string(" (") + data + ")";
        out += "\n";
    }
    return out;
}

// ---- the configuration file, read the way OpenSSL's config modules do -----

struct HwcipherSection {
    std::string list_section; // e.g. hwcipher_providers (from providers[.x] = ...)
    std::string section;      // e.g. hwcipher_sect
    std::string module, activate, cores;
    bool has_module = false, has_activate = false, has_cores = false;
};

struct ConfigView {
    std::string file;
    bool readable = false;
    std::string load_error;
    std::string init_section;  // the value of openssl_conf
    std::vector<HwcipherSection> hwcipher;
    std::vector<std::string> default_properties;
};

const char* value_of(const CONF* conf, const std::string& section, const char* name) {
    return NCONF_get_string(conf, section.c_str(), name);
}

// "providers" or "providers.<anything>": OpenSSL strips a ".suffix" from a
// module name, so both run the provider module.
bool is_module(const char* key, const char* module) {
    const size_t n = std::strlen(module);
    return std::strncmp(key, module, n) == 0 && (key[n] == '\0' || key[n] == '.');
}

ConfigView read_config() {
    ConfigView v;
    char* file = CONF_get1_default_config_file();
    v.file = file != nullptr ? file : "";
    OPENSSL_free(file);
    CONF* conf = NCONF_new(nullptr);
    long errline = -1;
    if (conf == nullptr) return v;
    if (NCONF_load(conf, v.file.c_str(), &errline) <= 0) {
        v.load_error = exists(v.file) ? "cannot be parsed (line " + std::to_string(errline) + ")"
                                      : "does not exist";
        ERR_clear_error();
        NCONF_free(conf);
        return v;
    }
    v.readable = true;
    const char* init = NCONF_get_string(conf, nullptr, "openssl_conf");
    ERR_clear_error();
    if (init == nullptr) {
        NCONF_free(conf);
        return v;
    }
    v.init_section = init;
    STACK_OF(CONF_VALUE)* init_values = NCONF_get_section(conf, init);
    for (int i = 0; init_values != nullptr && i < sk_CONF_VALUE_num(init_values); ++i) {
        const CONF_VALUE* iv = sk_CONF_VALUE_value(init_values, i);
        if (is_module(iv->name, "alg_section")) {
            if (const char* p = value_of(conf, iv->value, "default_properties"))
                v.default_properties.push_back(std::string(p) + "   (in [" + iv->value + "])");
            ERR_clear_error();
        }
        if (!is_module(iv->name, "providers")) continue;
        STACK_OF(CONF_VALUE)* provs = NCONF_get_section(conf, iv->value);
        for (int j = 0; provs != nullptr && j < sk_CONF_VALUE_num(provs); ++j) {
            const CONF_VALUE* pv = sk_CONF_VALUE_value(provs, j);
            const char* identity = value_of(conf, pv->value, "identity");
            const char* module = value_of(conf, pv->value, "module");
            ERR_clear_error();
            const std::string name = identity != nullptr ? identity : pv->name;
            const bool named = name == "hwcipher";
            const bool by_module = module != nullptr && std::strstr(module, "hwcipher") != nullptr;
            if (!named && !by_module) continue;
            HwcipherSection h;
            h.list_section = iv->value;
            h.section = pv->value;
            if (module != nullptr) h.module = module, h.has_module = true;
            if (const char* a = value_of(conf, pv->value, "activate")) h.activate = a, h.has_activate = true;
            if (const char* c = value_of(conf, pv->value, "cores")) h.cores = c, h.has_cores = true;
            ERR_clear_error();
            v.hwcipher.push_back(h);
        }
    }
    NCONF_free(conf);
    return v;
}

// Where OpenSSL will look for a module named in the configuration (or for
// "hwcipher" when no module line is given).
std::string resolve_module(const HwcipherSection& h) {
    std::string m = h.has_module ? h.module : "hwcipher";
    if (!m.empty() && m[0] == '/') return m;
    if (m.find(".so") == std::string::npos) m += ".so";
    const char* dir = std::getenv("OPENSSL_MODULES");
    const std::string base = dir != nullptr ? dir : OPENSSL_info(OPENSSL_INFO_MODULES_DIR);
    return base + "/" + m;
}

bool truthy(const std::string& s) {
    return s == "1" || s == "yes" || s == "YES" || s == "true" || s == "TRUE" || s == "on" ||
           s == "ON";
}

// ---- the provider -----------------------------------------------------------

struct ProviderView {
    std::string name, version, buildinfo, cores, cpu, config_errors;
    int status = -1;
    bool has_cpu = false, has_errors = false;
};

std::string get_utf8(OSSL_PROVIDER* p, const char* key, bool* found = nullptr) {
    const char* value = nullptr;
    OSSL_PARAM params[] = {OSSL_PARAM_construct_utf8_ptr(key, const_cast<char**>(&value), 0),
                           OSSL_PARAM_construct_end()};
    const bool ok = OSSL_PROVIDER_get_params(p, params) && OSSL_PARAM_modified(&params[0]);
    if (found != nullptr) *found = ok && value != nullptr;
    return ok && value != nullptr ? value : "";
}

ProviderView describe(OSSL_PROVIDER* p) {
    ProviderView v;
    v.name = get_utf8(p, "name");
    v.version = get_utf8(p, "version");
    v.buildinfo = get_utf8(p, "buildinfo");
    v.cores = get_utf8(p, "hwcipher-cores");
    v.cpu = get_utf8(p, "hwcipher-cpu-features", &v.has_cpu);
    v.config_errors = get_utf8(p, "hwcipher-config-errors", &v.has_errors);
    OSSL_PARAM params[] = {OSSL_PARAM_construct_int("status", &v.status), OSSL_PARAM_construct_end()};
    if (!OSSL_PROVIDER_get_params(p, params)) v.status = -1;
    return v;
}

void print_provider(const ProviderView& v) {
    std::printf("  name:        %s\n", v.name.c_str());
    std::printf("  version:     %s\n", v.version.c_str());
    std::printf("  build info:  %s\n", v.buildinfo.c_str());
    std::printf("  status:      %s\n", v.status == 1 ? "active" : "inactive");
    std::printf("  CPU features seen: %s\n",
                v.has_cpu ? (v.cpu.empty() ? "(none it uses)" : v.cpu.c_str())
                          : "(this module does not report them)");
    std::printf("  cores:       %s\n", v.cores.c_str());
}

int find_hwcipher(OSSL_PROVIDER* p, void* out) {
    if (std::strcmp(OSSL_PROVIDER_get0_name(p), "hwcipher") == 0 ||
        get_utf8(p, "hwcipher-cores").size() > 0) {
        *static_cast<OSSL_PROVIDER**>(out) = p;
        return 0;
    }
    return 1;
}

// Files mapped into this process whose names start with `stem`.
std::set<std::string> mapped(const char* stem) {
    std::ifstream maps("/proc/self/maps");
    std::set<std::string> files;
    const size_t n = std::strlen(stem);
    for (std::string line; std::getline(maps, line);) {
        const size_t slash = line.rfind('/');
        if (slash != std::string::npos && line.compare(slash + 1, n, stem) == 0)
            files.insert(line.substr(line.find('/')));
    }
    return files;
}

void usage(FILE* to) {
    std::fprintf(to,
                 "usage: hwcipher-info [--help]\n"
                 "Shows whether OpenSSL, configured as applications see it (OPENSSL_CONF,\n"
                 "OPENSSL_MODULES, HWCIPHER_CORES, HWCIPHER_TRACE), loads and uses hwcipher.\n"
                 "Exit status: 0 configured, active and serving; 1 configured but not\n"
                 "serving, or a problem reported; 2 hwcipher not in the configuration.\n");
}

} // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--help") == 0 || std::strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            return 0;
        }
        usage(stderr);
        return 2;
    }

    std::printf("hwcipher-info %s (git %s), built against OpenSSL %s; running on %s\n",
                HWCIPHER_VERSION_STR, HWCIPHER_GIT_COMMIT, HWCIPHER_OPENSSL_HEADERS,
                OpenSSL_version(OPENSSL_VERSION));

    // ---- environment and configuration file --------------------------------
    std::printf("\nenvironment\n");
    for (const char* var : {"OPENSSL_CONF", "OPENSSL_MODULES", "HWCIPHER_CORES", "HWCIPHER_TRACE"})
        std::printf("  %-16s %s\n", var, env_or(var, "(unset)").c_str());
    std::printf("  OpenSSL's MODULESDIR %s\n", OPENSSL_info(OPENSSL_INFO_MODULES_DIR));

    const ConfigView cfg = read_config();
    std::printf("\nconfiguration file %s\n", cfg.file.c_str());
    bool configured = false;
    if (!cfg.readable) {
        std::printf("  (%s)\n", cfg.load_error.c_str());
        if (std::getenv("OPENSSL_CONF") != nullptr)
            problem("OPENSSL_CONF names " + cfg.file + ", which " + cfg.load_error);
    } else if (cfg.init_section.empty()) {
        std::printf("  no openssl_conf line: OpenSSL loads no providers from it\n");
    } else {
        std::printf("  openssl_conf = %s\n", cfg.init_section.c_str());
        for (const std::string& p : cfg.default_properties)
            std::printf("  default_properties = %s\n", p.c_str());
        if (cfg.default_properties.empty())
            std::printf("  no default_properties: OpenSSL prefers no provider\n");
        for (const HwcipherSection& h : cfg.hwcipher) {
            configured = true;
            const std::string path = resolve_module(h);
            std::printf("  hwcipher: [%s] listed in [%s]\n", h.section.c_str(), h.list_section.c_str());
            std::printf("    module   = %s -> %s (%s)\n",
                        h.has_module ? h.module.c_str() : "(none: by name)", path.c_str(),
                        exists(path) ? "exists" : "MISSING");
            std::printf("    activate = %s\n", h.has_activate ? h.activate.c_str() : "(missing)");
            std::printf("    cores    = %s\n", h.has_cores ? h.cores.c_str() : "(unset)");
            if (!exists(path))
                problem("[" + h.section + "] module " + path + " does not exist" +
                        (h.has_module ? "" : " (no module line: OpenSSL looks for hwcipher.so in "
                                             "OPENSSL_MODULES, else its MODULESDIR)"));
            if (!h.has_activate || !truthy(h.activate))
                problem("[" + h.section + "] has no 'activate = 1': OpenSSL registers hwcipher "
                        "but does not load it");
        }
        if (cfg.hwcipher.empty())
            std::printf("  hwcipher: not mentioned (no providers section lists it)\n");
    }

    // ---- load the configuration as an application would --------------------
    ERR_clear_error();
    const int init_ok = OPENSSL_init_crypto(OPENSSL_INIT_LOAD_CONFIG, nullptr);
    const std::string init_errors = take_errors();
    if (!init_ok || !init_errors.empty()) {
        std::printf("\nOpenSSL's configuration load %s:\n%s",
                    init_ok ? "succeeded with errors queued" : "FAILED", init_errors.c_str());
        if (configured) problem("OpenSSL reported errors while loading the configuration (above)");
    }

    OSSL_PROVIDER* hw = nullptr;
    OSSL_PROVIDER_do_all(nullptr, find_hwcipher, &hw);
    const bool active = hw != nullptr && OSSL_PROVIDER_available(nullptr, OSSL_PROVIDER_get0_name(hw));
    std::printf("\nhwcipher in this configuration: %s\n",
                hw == nullptr ? "NOT loaded" : active ? "loaded and active" : "loaded, NOT active");
    ProviderView pv;
    if (hw != nullptr) {
        pv = describe(hw);
        print_provider(pv);
    } else {
        // Show what it would choose, from a library context of its own.
        OSSL_LIB_CTX* own = OSSL_LIB_CTX_new();
        OSSL_PROVIDER* p = own != nullptr ? OSSL_PROVIDER_load(own, "hwcipher") : nullptr;
        if (p != nullptr) {
            std::printf("  loaded directly instead (OPENSSL_MODULES or MODULESDIR; without the "
                        "configuration's cores line):\n");
            pv = describe(p);
            print_provider(pv);
            OSSL_PROVIDER_unload(p);
        } else {
            std::printf("  cannot be loaded directly either (OPENSSL_MODULES or MODULESDIR):\n%s",
                        take_errors().c_str());
        }
        OSSL_LIB_CTX_free(own);
        if (configured) problem("hwcipher is configured but OpenSSL did not load it");
    }
    if (pv.has_errors && !pv.config_errors.empty())
        problem("hwcipher reports: " + pv.config_errors);
    const std::set<std::string> cryptos = mapped("libcrypto.so");
    if (cryptos.size() > 1) {
        std::string all;
        for (const std::string& f : cryptos) all += " " + f;
        problem("more than one libcrypto in this process (hwcipher.so built for another OpenSSL "
                "major version?):" + all);
    }

    // ---- who serves each family ----------------------------------------------
    std::printf("\nwho serves (fetched with the configuration's default properties)\n");
    struct Rep {
        const char* cipher;
        const char* families;
    };
    const Rep reps[] = {{"AES-128-GCM", "aes, ghash"}, {"SM4-CBC", "sm4"}, {"TWOFISH-256-CBC", "twofish"}};
    int served = 0;
    for (const Rep& r : reps) {
        EVP_CIPHER* c = EVP_CIPHER_fetch(nullptr, r.cipher, nullptr);
        const OSSL_PROVIDER* by = c != nullptr ? EVP_CIPHER_get0_provider(c) : nullptr;
        const std::string who = by != nullptr ? OSSL_PROVIDER_get0_name(by) : "nobody";
        const char* desc = c != nullptr ? EVP_CIPHER_get0_description(c) : nullptr;
        std::printf("  %-16s %-10s %s  [%s]\n", r.cipher, who.c_str(), desc != nullptr ? desc : "",
                    r.families);
        EVP_CIPHER_free(c);
        ERR_clear_error();
        if (hw == nullptr || !active) continue;
        if (who == OSSL_PROVIDER_get0_name(hw)) {
            ++served;
            continue;
        }
        // Another provider serves it: a problem where hwcipher has it on a
        // hardware core (then the configuration does not prefer hwcipher).
        EVP_CIPHER* mine = EVP_CIPHER_fetch(nullptr, r.cipher, "provider=hwcipher,hwcipher.accel=yes");
        ERR_clear_error();
        if (mine != nullptr)
            problem(std::string(r.cipher) + " is served by " + who +
                    " although hwcipher runs it on a hardware core: default_properties do not "
                    "prefer hwcipher (?provider=hwcipher)");
        EVP_CIPHER_free(mine);
    }

    std::printf("\n");
    if (!configured && hw == nullptr) {
        std::printf("hwcipher is not in this configuration (%s): applications do not use it.\n",
                    cfg.file.c_str());
        return problems.empty() ? 2 : 1;
    }
    if (problems.empty() && active && served > 0) {
        std::printf("OK: hwcipher is loaded, active and serves %d of %zu families' ciphers.\n",
                    served, std::size(reps));
        return 0;
    }
    if (problems.empty()) problem("hwcipher serves none of the ciphers above");
    std::printf("NOT OK: %zu problem%s (lines starting with 'problem:').\n", problems.size(),
                problems.size() == 1 ? "" : "s");
    return 1;
}
