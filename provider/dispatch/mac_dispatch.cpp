// SPDX-License-Identifier: Apache-2.0
// OSSL_OP_MAC dispatch tables generated per MAC, like cipher_dispatch.cpp:
// shared thunks for everything that takes a context, one instantiation per
// MAC for the context-free entry points. No exception crosses the C boundary.
#include "provider/dispatch/dispatch.h"
#include "provider/dispatch/thunks.h"

#include <openssl/core_dispatch.h>

#include "provider/module/provider.h"

namespace hwc {

namespace {

using namespace thunks;

int init(void* vctx, const unsigned char* key, size_t keylen, const OSSL_PARAM params[]) noexcept {
    return guarded([&] { return as<MacCtx>(vctx)->init(key, keylen, params); });
}

int update(void* vctx, const unsigned char* in, size_t inl) noexcept {
    return guarded([&] { return as<MacCtx>(vctx)->update(in, inl); });
}

template <size_t I>
struct Mac {
    static void* newctx(void* provctx) noexcept {
        try {
            if (MacCtx* ctx = kMacs[I]->create(static_cast<const ProvCtx*>(provctx))) return ctx;
        } catch (...) {
        }
        out_of_memory(static_cast<const ProvCtx*>(provctx), "a MAC context");
        return nullptr;
    }
    static int get_params(OSSL_PARAM params[]) noexcept {
        const MacOps& ops = *kMacs[I];
        return ops.params.apply(ops, params) ? 1 : 0;
    }
    static const OSSL_PARAM* gettable_params(void*) noexcept { return kMacs[I]->params.list; }
    static const OSSL_PARAM* gettable_ctx_params(void*, void*) noexcept {
        return kMacs[I]->gettable_ctx_params;
    }
    static const OSSL_PARAM* settable_ctx_params(void*, void*) noexcept {
        return kMacs[I]->settable_ctx_params;
    }

    static inline const OSSL_DISPATCH table[] = {
        {OSSL_FUNC_MAC_NEWCTX, as_fn(&newctx)},
        {OSSL_FUNC_MAC_DUPCTX, as_fn(&dupctx<MacCtx>)},
        {OSSL_FUNC_MAC_FREECTX, as_fn(&freectx<MacCtx>)},
        {OSSL_FUNC_MAC_INIT, as_fn(&init)},
        {OSSL_FUNC_MAC_UPDATE, as_fn(&update)},
        {OSSL_FUNC_MAC_FINAL, as_fn(&final<MacCtx>)},
        {OSSL_FUNC_MAC_GET_PARAMS, as_fn(&get_params)},
        {OSSL_FUNC_MAC_GET_CTX_PARAMS, as_fn(&get_ctx_params<MacCtx>)},
        {OSSL_FUNC_MAC_SET_CTX_PARAMS, as_fn(&set_ctx_params<MacCtx>)},
        {OSSL_FUNC_MAC_GETTABLE_PARAMS, as_fn(&gettable_params)},
        {OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS, as_fn(&gettable_ctx_params)},
        {OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS, as_fn(&settable_ctx_params)},
        {0, nullptr},
    };
};

const auto kTables = tables<Mac>(std::make_index_sequence<kMacCount>{});

} // namespace

const OSSL_DISPATCH* mac_dispatch(size_t index) { return kTables[index]; }

} // namespace hwc
