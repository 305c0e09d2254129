// SPDX-License-Identifier: Apache-2.0
// OSSL_OP_CIPHER dispatch tables, generated per catalogue row.
//
// OpenSSL hands get_params no context, so every algorithm needs its own
// get_params (and newctx, and parameter lists); Row<I> stamps them out from
// the catalogue. Everything that takes a context is shared: one thunk per
// entry point forwards to the CipherCtx virtuals. Thunks are the C boundary:
// no exception crosses it.
#include "provider/dispatch/dispatch.h"
#include "provider/dispatch/thunks.h"

#include <openssl/core_dispatch.h>

#include "provider/modes/cipher_ctx.h"
#include "provider/module/catalogue.h"
#include "provider/module/errors.h"
#include "provider/module/provider.h"
#include "provider/module/trace.h"

namespace hwc {

namespace {

using namespace thunks;

// encrypt_init and decrypt_init. A successful init with a key is what
// HWCIPHER_TRACE records.
template <bool Encrypt>
int init(void* vctx, const unsigned char* key, size_t keylen, const unsigned char* iv,
         size_t ivlen, const OSSL_PARAM params[]) noexcept {
    CipherCtx* ctx = as<CipherCtx>(vctx);
    const int ok = guarded([&] { return ctx->init(Encrypt, key, keylen, iv, ivlen, params); });
    if (ok == 1 && key != nullptr) trace_key_init(*ctx, Encrypt);
    return ok;
}

int update(void* vctx, unsigned char* out, size_t* outl, size_t outsize, const unsigned char* in,
           size_t inl) noexcept {
    return guarded([&] { return as<CipherCtx>(vctx)->update(out, outl, outsize, in, inl); });
}

int cipher(void* vctx, unsigned char* out, size_t* outl, size_t outsize, const unsigned char* in,
           size_t inl) noexcept {
    return guarded([&] { return as<CipherCtx>(vctx)->cipher(out, outl, outsize, in, inl); });
}

const OSSL_PARAM* gettable_params(void*) noexcept { return algorithm_gettable_params(); }

template <size_t I>
struct Row {
    static constexpr const AlgorithmRow& row = kCatalogue[I];

    static void* newctx(void* provctx) noexcept {
        return CipherCtx::create(static_cast<const ProvCtx*>(provctx), row);
    }
    static int get_params(OSSL_PARAM params[]) noexcept {
        return algorithm_get_params(row, params);
    }
    static const OSSL_PARAM* gettable_ctx_params(void*, void*) noexcept {
        return mode_ops(row.mode).gettable_ctx_params;
    }
    static const OSSL_PARAM* settable_ctx_params(void*, void*) noexcept {
        return mode_ops(row.mode).settable_ctx_params;
    }

    // In the order of the function ids, but for the raw cipher.
    static inline const OSSL_DISPATCH table[] = {
        {OSSL_FUNC_CIPHER_NEWCTX, as_fn(&newctx)},
        {OSSL_FUNC_CIPHER_ENCRYPT_INIT, as_fn(&init<true>)},
        {OSSL_FUNC_CIPHER_DECRYPT_INIT, as_fn(&init<false>)},
        {OSSL_FUNC_CIPHER_UPDATE, as_fn(&update)},
        {OSSL_FUNC_CIPHER_FINAL, as_fn(&final<CipherCtx>)},
        {OSSL_FUNC_CIPHER_FREECTX, as_fn(&freectx<CipherCtx>)},
        {OSSL_FUNC_CIPHER_DUPCTX, as_fn(&dupctx<CipherCtx>)},
        {OSSL_FUNC_CIPHER_GET_PARAMS, as_fn(&get_params)},
        {OSSL_FUNC_CIPHER_GET_CTX_PARAMS, as_fn(&get_ctx_params<CipherCtx>)},
        {OSSL_FUNC_CIPHER_SET_CTX_PARAMS, as_fn(&set_ctx_params<CipherCtx>)},
        {OSSL_FUNC_CIPHER_GETTABLE_PARAMS, as_fn(&gettable_params)},
        {OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, as_fn(&gettable_ctx_params)},
        {OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, as_fn(&settable_ctx_params)},
        // Last, so modes without a raw EVP_Cipher() path (key wrap, as in
        // OpenSSL) end the table one entry early.
        mode_traits(row.mode).raw_cipher ? OSSL_DISPATCH{OSSL_FUNC_CIPHER_CIPHER, as_fn(&cipher)}
                                         : OSSL_DISPATCH{0, nullptr},
        {0, nullptr},
    };
};

const auto kTables = tables<Row>(std::make_index_sequence<kCatalogueSize>{});

} // namespace

const OSSL_DISPATCH* cipher_dispatch(size_t index) { return kTables[index]; }

} // namespace hwc
