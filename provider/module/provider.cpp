// SPDX-License-Identifier: Apache-2.0
// The provider entry point: detect the CPU once, choose a core per cipher
// family, build the algorithm table from the catalogue, answer provider-level
// parameters.
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>
#include <string>

#include "cores/cpu.h"
#include "cores/registry.h"
#include "provider/dispatch/dispatch.h"
#include "provider/dispatch/thunks.h"
#include "provider/modes/cipher_ctx.h"
#include "provider/module/catalogue.h"
#include "provider/module/errors.h"
#include "provider/module/provider.h"
#include "provider/module/trace.h"
#include "provider/params/param_table.h"

#include "hwcipher_build_id.h" // generated: HWCIPHER_VERSION_STR, _GIT_COMMIT, _OPENSSL_HEADERS

namespace hwc {

Upcalls& upcalls() {
    static Upcalls u;
    return u;
}

namespace {

constexpr const char* kProviderName = "hwcipher: AES, SM4 and Twofish on the fastest instructions the CPU has";
constexpr const char* kCoresParam = "hwcipher-cores";
constexpr const char* kCpuParam = "hwcipher-cpu-features";
constexpr const char* kConfigErrorsParam = "hwcipher-config-errors";
constexpr const char* kContextsParam = "hwcipher-contexts"; // uint64, see ProvCtx

// The core's upcalls are the same for every instance (one libcrypto per
// process), but instances may be created concurrently (hwcipher loaded into
// several library contexts from several threads) while others raise errors:
// the table is filled once, by the first init, and only read afterwards.
void fill_upcalls(const OSSL_DISPATCH* in) {
    Upcalls& u = upcalls();
    for (; in != nullptr && in->function_id != 0; ++in) {
        switch (in->function_id) {
        case OSSL_FUNC_CORE_NEW_ERROR:
            u.new_error = OSSL_FUNC_core_new_error(in);
            break;
        case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
            u.set_error_debug = OSSL_FUNC_core_set_error_debug(in);
            break;
        case OSSL_FUNC_CORE_VSET_ERROR:
            u.vset_error = OSSL_FUNC_core_vset_error(in);
            break;
        case OSSL_FUNC_CORE_GET_PARAMS:
            u.get_params = OSSL_FUNC_core_get_params(in);
            break;
        default:
            break;
        }
    }
}

// A setting: the environment variable `env`, else the `key = ...` line in
// the provider's openssl.cnf section, else "". `origin` names where it came
// from, for reports.
std::string setting(const OSSL_CORE_HANDLE* handle, const char* env, const char* key,
                    std::string& origin) {
    if (const char* value = std::getenv(env)) {
        origin = std::string(env) + "=" + value;
        return value;
    }
    const char* from_config = nullptr;
    if (upcalls().get_params != nullptr) {
        OSSL_PARAM params[] = {
            OSSL_PARAM_construct_utf8_ptr(key, const_cast<char**>(&from_config), 0),
            OSSL_PARAM_construct_end(),
        };
        if (!upcalls().get_params(handle, params)) from_config = nullptr;
    }
    if (from_config == nullptr) return "";
    origin = std::string(key) + " = " + from_config + " (openssl.cnf)";
    return from_config;
}

// A bad override does not stop the provider from loading: an application
// cannot see a provider that failed to load from its configuration and would
// run on the default provider without a word. The automatic selection is
// kept and the setting reported (hwcipher-config-errors, the trace,
// hwcipher-info).
void choose_cores(ProvCtx& p, const OSSL_CORE_HANDLE* handle) {
    std::string origin, error;
    const std::string spec = setting(handle, "HWCIPHER_CORES", "cores", origin);
    if (select_cores(p.cpu_features, spec.c_str(), p.cores, error)) return;
    p.config_errors = origin + ": " + error + "; using the automatic selection";
    select_cores(p.cpu_features, "", p.cores, error); // cannot fail
}

void add_config_error(ProvCtx& p, const std::string& text) {
    if (text.empty()) return;
    p.config_errors += (p.config_errors.empty() ? "" : "; ") + text;
}

std::string feature_report(uint32_t features) {
    std::string out;
    for (unsigned i = 0; i < kCpuFeatureCount; ++i)
        if (features & kCpuFeatureNames[i].bit)
            out += std::string(out.empty() ? "" : ",") + kCpuFeatureNames[i].name;
    return out;
}

// An on/off setting's value: false when unset; unknown words are refused.
bool parse_switch(const std::string& v, bool& on) {
    for (const char* w : {"1", "yes", "on", "true"})
        if (v == w) return on = true;
    for (const char* w : {"", "0", "no", "off", "false"})
        if (v == w) return !(on = false);
    return false;
}

// "strict-iv": like a bad core override, an unknown value does not stop the
// load (which the application could not see); it keeps the default (off,
// the default provider's zero IV) and is reported.
void choose_strict_iv(ProvCtx& p, const OSSL_CORE_HANDLE* handle) {
    std::string origin;
    const std::string value = setting(handle, "HWCIPHER_STRICT_IV", "strict-iv", origin);
    if (!parse_switch(value, p.strict_iv))
        add_config_error(p, origin + ": not yes/no, 1/0, on/off or true/false; strict-iv stays off");
}

void build_algorithm_table(ProvCtx& p) {
    p.properties.resize(kCatalogueSize);
    p.descriptions.resize(kCatalogueSize);
    p.ciphers.clear();
    for (size_t i = 0; i < kCatalogueSize; ++i) {
        const AlgorithmRow& row = kCatalogue[i];
        const BlockCore* core = p.cores.for_family(row.family);
        p.properties[i] = std::string("provider=hwcipher,hwcipher.accel=") +
                          (core->hardware ? "yes" : "no");
        p.descriptions[i] = std::string(primary_name(row)) + " (" + core->name + " core)";
        p.ciphers.push_back({row.names, p.properties[i].c_str(), cipher_dispatch(i),
                             p.descriptions[i].c_str()});
    }
    p.ciphers.push_back({nullptr, nullptr, nullptr, nullptr});

    p.macs.clear();
    for (size_t i = 0; i < kMacCount; ++i)
        p.macs.push_back({kMacs[i]->names, "provider=hwcipher", mac_dispatch(i), nullptr});
    p.macs.push_back({nullptr, nullptr, nullptr, nullptr});
}

// --- provider-level dispatch ---------------------------------------------------

void teardown(void* provctx) noexcept {
    auto* p = static_cast<ProvCtx*>(provctx);
    trace_close(p->trace_fd);
    OSSL_LIB_CTX_free(p->libctx);
    delete p;
}

using ProviderGetter = Getter<const ProvCtx>;

bool utf8_answer(OSSL_PARAM& p, const char* value) {
    return OSSL_PARAM_set_utf8_ptr(&p, value) == 1;
}

// A report the provider context keeps as a string.
template <std::string ProvCtx::*S>
bool report(const ProvCtx& c, OSSL_PARAM& p) {
    return utf8_answer(p, (c.*S).c_str());
}

constexpr ParamTable kProviderParams{std::array{
    ProviderGetter{OSSL_PROV_PARAM_NAME, kUtf8Ptr,
                   [](const ProvCtx&, OSSL_PARAM& p) { return utf8_answer(p, kProviderName); }},
    ProviderGetter{OSSL_PROV_PARAM_VERSION, kUtf8Ptr,
                   [](const ProvCtx&, OSSL_PARAM& p) { return utf8_answer(p, HWCIPHER_VERSION_STR); }},
    ProviderGetter{OSSL_PROV_PARAM_BUILDINFO, kUtf8Ptr, report<&ProvCtx::buildinfo>},
    ProviderGetter{OSSL_PROV_PARAM_STATUS, kInt,
                   [](const ProvCtx&, OSSL_PARAM& p) { return OSSL_PARAM_set_int(&p, 1) == 1; }},
    ProviderGetter{kCoresParam, kUtf8Ptr, report<&ProvCtx::core_report>},
    ProviderGetter{kCpuParam, kUtf8Ptr, report<&ProvCtx::cpu_report>},
    ProviderGetter{kConfigErrorsParam, kUtf8Ptr, report<&ProvCtx::config_errors>},
    ProviderGetter{kContextsParam, kUint64,
                   [](const ProvCtx& c, OSSL_PARAM& p) {
                       return OSSL_PARAM_set_uint64(
                                  &p, c.contexts_created.load(std::memory_order_relaxed)) == 1;
                   }},
}};

const OSSL_PARAM* gettable_params(void*) noexcept { return kProviderParams.span().list; }

int get_params(void* provctx, OSSL_PARAM params[]) noexcept {
    return kProviderParams.span().apply(*static_cast<const ProvCtx*>(provctx), params) ? 1 : 0;
}

const OSSL_ALGORITHM* query_operation(void* provctx, int operation_id, int* no_store) noexcept {
    *no_store = 0; // the table lives until teardown
    auto* p = static_cast<ProvCtx*>(provctx);
    if (operation_id == OSSL_OP_CIPHER) return p->ciphers.data();
    if (operation_id == OSSL_OP_MAC) return p->macs.data();
    return nullptr;
}

const OSSL_ITEM* get_reason_strings(void*) noexcept { return kReasonStrings; }

using thunks::as_fn;

const OSSL_DISPATCH kProviderDispatch[] = {
    {OSSL_FUNC_PROVIDER_TEARDOWN, as_fn(&teardown)},
    {OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, as_fn(&gettable_params)},
    {OSSL_FUNC_PROVIDER_GET_PARAMS, as_fn(&get_params)},
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, as_fn(&query_operation)},
    {OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, as_fn(&get_reason_strings)},
    {0, nullptr},
};

} // namespace

} // namespace hwc

extern "C" __attribute__((visibility("default"))) int
OSSL_provider_init(const OSSL_CORE_HANDLE* handle, const OSSL_DISPATCH* in,
                   const OSSL_DISPATCH** out, void** provctx) {
    using namespace hwc;
    // Every failure frees what was built (the context, its strings and
    // tables, its child library context) and leaves an error on the queue.
    std::unique_ptr<ProvCtx, void (*)(void*) noexcept> p(nullptr, teardown);
    try {
        static std::once_flag upcalls_taken;
        std::call_once(upcalls_taken, [in] { fill_upcalls(in); });
        p.reset(new ProvCtx);
        p->handle = handle;
        // A child library context reaches the loading application's providers
        // (for randomness: generated GCM IVs, TLS nonces) without recursion.
        p->libctx = OSSL_LIB_CTX_new_child(handle, in);
        if (p->libctx == nullptr)
            return HWC_FAIL(p.get(), kErrOutOfMemory, "no child library context");
        p->cpu_features = detect_cpu_features();
        p->cpu_report = feature_report(p->cpu_features);
        choose_cores(*p, handle);
        choose_strict_iv(*p, handle);
        for (Family f : {Family::aes, Family::sm4, Family::twofish}) {
            if (!p->core_report.empty()) p->core_report += ",";
            p->core_report += std::string(family_name(f)) + "=" + p->cores.for_family(f)->name;
        }
        p->core_report += std::string(",ghash=") + p->cores.ghash->name;
        // What `openssl list -providers -verbose` prints as "build info".
        p->buildinfo = std::string("hwcipher ") + HWCIPHER_VERSION_STR + " (git " +
                       HWCIPHER_GIT_COMMIT + ", built against OpenSSL " + HWCIPHER_OPENSSL_HEADERS +
                       ", C++" + std::to_string(__cplusplus / 100 % 100) + "); cores " +
                       p->core_report;
        build_algorithm_table(*p);
        std::string trace_error;
        // Last: no failure path follows. The module's only open(2).
        p->trace_fd = trace_open_from_env(trace_error);
        add_config_error(*p, trace_error);
        if (!p->config_errors.empty()) trace_config_problem(p->trace_fd, p->config_errors);
        *out = kProviderDispatch;
        *provctx = p.release();
        return 1;
    } catch (const std::bad_alloc&) {
        HWC_RAISE(handle, kErrOutOfMemory, "loading the provider");
    } catch (...) {
        HWC_RAISE(handle, kErrInternal, "loading the provider");
    }
    return 0;
}
