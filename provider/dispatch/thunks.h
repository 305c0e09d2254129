// SPDX-License-Identifier: Apache-2.0
// What the generated dispatch tables share: the C boundary no exception
// crosses, the cast every entry point needs, and the thunks that forward a
// context-taking entry point to the context's virtual (cipher or MAC alike).
#pragma once

#include <openssl/core.h>

#include <array>
#include <cstddef>
#include <utility>

namespace hwc {
struct ProvCtx;
}

namespace hwc::thunks {

// Raises "out of memory" for `prov` (provider/module/errors.h).
void out_of_memory(const ProvCtx* prov, const char* what) noexcept;

// Runs f; an exception (allocation failure inside a context) is a failure.
template <typename F>
int guarded(F&& f) noexcept {
    try {
        return f();
    } catch (...) {
        return 0;
    }
}

// OpenSSL stores every entry point as void (*)(void); the cast back happens
// inside libcrypto according to function_id.
template <typename Fn>
void (*as_fn(Fn* f))(void) {
    return reinterpret_cast<void (*)(void)>(f);
}

template <class Ctx> Ctx* as(void* vctx) { return static_cast<Ctx*>(vctx); }

// The tables T<I>::table of a generated family (Row<I>, Mac<I>).
template <template <size_t> class T, size_t... I>
std::array<const OSSL_DISPATCH*, sizeof...(I)> tables(std::index_sequence<I...>) {
    return {T<I>::table...};
}

template <class Ctx> void freectx(void* vctx) noexcept { delete as<Ctx>(vctx); }

// A failed copy (clone() returns nullptr when an allocation fails) leaves
// an error on the queue: EVP_*_CTX_dup reports nothing of its own.
template <class Ctx> void* dupctx(void* vctx) noexcept {
    const Ctx* from = as<Ctx>(vctx);
    try {
        if (Ctx* copy = from->clone()) return copy;
    } catch (...) {
    }
    out_of_memory(from->prov(), "copying a context");
    return nullptr;
}

template <class Ctx>
int final(void* vctx, unsigned char* out, size_t* outl, size_t outsize) noexcept {
    return guarded([&] { return as<Ctx>(vctx)->final(out, outl, outsize); });
}

template <class Ctx> int get_ctx_params(void* vctx, OSSL_PARAM params[]) noexcept {
    return guarded([&] { return as<Ctx>(vctx)->get_ctx_params(params); });
}

template <class Ctx> int set_ctx_params(void* vctx, const OSSL_PARAM params[]) noexcept {
    return guarded([&] { return as<Ctx>(vctx)->set_ctx_params(params); });
}

} // namespace hwc::thunks
