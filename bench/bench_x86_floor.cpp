// SPDX-License-Identifier: Apache-2.0
// bench_x86's EVP floor: a provider that does no cryptography, built into
// bench_x86 and bench_x86_peer and registered with OSSL_PROVIDER_add_builtin
// as "evp-floor". It offers every algorithm of hwcipher's catalogue under
// the same names, with the same mode, key, IV and block lengths and flags
// (provider/module/catalogue.h), and every call does the least any provider
// must: update copies its input to its output, final writes nothing, the tag
// it hands out is zeros and the tag it is given is not checked, a parameter
// is found by string comparisons. A 64-byte case timed through it is the
// time EVP itself (with bench_x86_evp.cpp's calls) takes in that libcrypto:
// the floor under every provider there, which libgcrypt's own API does not
// pay. It is a measurement, never a cipher: bench_x86 leaves it out of the
// output check and of every ratio, and times it only for the small messages.
#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <array>
#include <cstring>
#include <utility>

#include "bench_x86.h"
#include "provider/module/catalogue.h"

namespace bench {

namespace {

using hwc::kCatalogue;
using hwc::kCatalogueSize;
using hwc::mode_traits;

struct FloorCtx {
    size_t keylen, ivlen, taglen;
};

// OSSL_DISPATCH holds every function as void (*)(void).
auto as_fn(auto f) { return reinterpret_cast<void (*)()>(f); }

bool is(const OSSL_PARAM& p, const char* key) { return std::strcmp(p.key, key) == 0; }

int init(void* vctx, const unsigned char*, size_t, const unsigned char*, size_t ivlen,
         const OSSL_PARAM[]) {
    auto* ctx = static_cast<FloorCtx*>(vctx);
    if (ivlen != 0) ctx->ivlen = ivlen;
    return 1;
}

int update(void*, unsigned char* out, size_t* outl, size_t outsize, const unsigned char* in,
           size_t inl) {
    if (out != nullptr && in != nullptr) {
        if (outsize < inl) return 0;
        std::memmove(out, in, inl);
    }
    *outl = inl;
    return 1;
}

int final(void*, unsigned char*, size_t* outl, size_t) {
    *outl = 0;
    return 1;
}

void freectx(void* vctx) { delete static_cast<FloorCtx*>(vctx); }

void* dupctx(void* vctx) { return new FloorCtx(*static_cast<FloorCtx*>(vctx)); }

int get_ctx_params(void* vctx, OSSL_PARAM params[]) {
    const auto* ctx = static_cast<FloorCtx*>(vctx);
    for (OSSL_PARAM* p = params; p != nullptr && p->key != nullptr; ++p) {
        if (is(*p, OSSL_CIPHER_PARAM_IVLEN)) {
            if (!OSSL_PARAM_set_size_t(p, ctx->ivlen)) return 0;
        } else if (is(*p, OSSL_CIPHER_PARAM_KEYLEN)) {
            if (!OSSL_PARAM_set_size_t(p, ctx->keylen)) return 0;
        } else if (is(*p, OSSL_CIPHER_PARAM_AEAD_TAGLEN)) {
            if (!OSSL_PARAM_set_size_t(p, ctx->taglen)) return 0;
        } else if (is(*p, OSSL_CIPHER_PARAM_AEAD_TAG)) {
            if (p->data == nullptr || p->data_size > 16) return 0;
            std::memset(p->data, 0, p->data_size);
            p->return_size = p->data_size;
        }
    }
    return 1;
}

int set_ctx_params(void* vctx, const OSSL_PARAM params[]) {
    auto* ctx = static_cast<FloorCtx*>(vctx);
    for (const OSSL_PARAM* p = params; p != nullptr && p->key != nullptr; ++p) {
        if (is(*p, OSSL_CIPHER_PARAM_AEAD_IVLEN)) {
            if (!OSSL_PARAM_get_size_t(p, &ctx->ivlen)) return 0;
        } else if (is(*p, OSSL_CIPHER_PARAM_AEAD_TAG)) {
            if (p->data_size < 1 || p->data_size > 16) return 0;
            ctx->taglen = p->data_size;
        }
    }
    return 1;
}

const OSSL_PARAM kGettable[] = {
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_MODE, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, nullptr),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, nullptr),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, nullptr),
    OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, nullptr),
    OSSL_PARAM_END,
};
const OSSL_PARAM kGettableCtx[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_TAGLEN, nullptr),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
    OSSL_PARAM_END,
};
const OSSL_PARAM kSettableCtx[] = {
    OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, nullptr),
    OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, 0),
    OSSL_PARAM_END,
};

const OSSL_PARAM* gettable(void*) { return kGettable; }
const OSSL_PARAM* gettable_ctx(void*, void*) { return kGettableCtx; }
const OSSL_PARAM* settable_ctx(void*, void*) { return kSettableCtx; }

// get_params and newctx take no algorithm, so each catalogue row gets its own.
template <size_t I>
struct Alg {
    static constexpr const hwc::AlgorithmRow& row = kCatalogue[I];
    static constexpr hwc::ModeTraits mode = mode_traits(row.mode);

    static void* newctx(void*) { return new FloorCtx{hwc::key_bytes(row), mode.ivlen, 16}; }
    static int get_params(OSSL_PARAM params[]) {
        for (OSSL_PARAM* p = params; p != nullptr && p->key != nullptr; ++p) {
            int ok = 1;
            if (is(*p, OSSL_CIPHER_PARAM_MODE)) ok = OSSL_PARAM_set_uint(p, mode.evp_mode);
            else if (is(*p, OSSL_CIPHER_PARAM_KEYLEN))
                ok = OSSL_PARAM_set_size_t(p, hwc::key_bytes(row));
            else if (is(*p, OSSL_CIPHER_PARAM_IVLEN)) ok = OSSL_PARAM_set_size_t(p, mode.ivlen);
            else if (is(*p, OSSL_CIPHER_PARAM_BLOCK_SIZE))
                ok = OSSL_PARAM_set_size_t(p, mode.blocksize);
            else if (is(*p, OSSL_CIPHER_PARAM_AEAD)) ok = OSSL_PARAM_set_int(p, mode.aead);
            else if (is(*p, OSSL_CIPHER_PARAM_CUSTOM_IV))
                ok = OSSL_PARAM_set_int(p, mode.custom_iv);
            else if (is(*p, OSSL_CIPHER_PARAM_CTS)) ok = OSSL_PARAM_set_int(p, mode.cts);
            if (!ok) return 0;
        }
        return 1;
    }
    static inline const OSSL_DISPATCH table[] = {
        {OSSL_FUNC_CIPHER_NEWCTX, as_fn(&newctx)},
        {OSSL_FUNC_CIPHER_ENCRYPT_INIT, as_fn(&init)},
        {OSSL_FUNC_CIPHER_DECRYPT_INIT, as_fn(&init)},
        {OSSL_FUNC_CIPHER_UPDATE, as_fn(&update)},
        {OSSL_FUNC_CIPHER_FINAL, as_fn(&final)},
        {OSSL_FUNC_CIPHER_FREECTX, as_fn(&freectx)},
        {OSSL_FUNC_CIPHER_DUPCTX, as_fn(&dupctx)},
        {OSSL_FUNC_CIPHER_GET_PARAMS, as_fn(&get_params)},
        {OSSL_FUNC_CIPHER_GET_CTX_PARAMS, as_fn(&get_ctx_params)},
        {OSSL_FUNC_CIPHER_SET_CTX_PARAMS, as_fn(&set_ctx_params)},
        {OSSL_FUNC_CIPHER_GETTABLE_PARAMS, as_fn(&gettable)},
        {OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, as_fn(&gettable_ctx)},
        {OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, as_fn(&settable_ctx)},
        // As hwcipher: no raw EVP_Cipher() path for key wrap.
        mode.raw_cipher ? OSSL_DISPATCH{OSSL_FUNC_CIPHER_CIPHER, as_fn(&update)}
                        : OSSL_DISPATCH{0, nullptr},
        {0, nullptr},
    };
};

template <size_t... I>
std::array<OSSL_ALGORITHM, kCatalogueSize + 1> algorithm_list(std::index_sequence<I...>) {
    return {OSSL_ALGORITHM{kCatalogue[I].names, "provider=evp-floor", Alg<I>::table, nullptr}...,
            OSSL_ALGORITHM{}};
}

// The algorithm list, ending in an empty entry.
const OSSL_ALGORITHM* algorithms() {
    static const auto list = algorithm_list(std::make_index_sequence<kCatalogueSize>{});
    return list.data();
}

const OSSL_ALGORITHM* query(void*, int operation_id, int* no_cache) {
    *no_cache = 0;
    return operation_id == OSSL_OP_CIPHER ? algorithms() : nullptr;
}

const OSSL_DISPATCH kProviderTable[] = {
    {OSSL_FUNC_PROVIDER_QUERY_OPERATION, as_fn(&query)},
    {0, nullptr},
};

int floor_init(const OSSL_CORE_HANDLE*, const OSSL_DISPATCH*, const OSSL_DISPATCH** out,
               void** provctx) {
    *out = kProviderTable;
    *provctx = nullptr;
    return 1;
}

} // namespace

bool load_floor_provider() {
    return OSSL_PROVIDER_add_builtin(nullptr, kFloorProvider, &floor_init) == 1 &&
           OSSL_PROVIDER_load(nullptr, kFloorProvider) != nullptr;
}

} // namespace bench
