// SPDX-License-Identifier: Apache-2.0
// What the generated dispatch tables share: the C boundary no exception
// crosses, the cast every entry point needs, and the thunks that forward a
// context-taking entry point to the context's virtual (cipher or MAC alike).
#pragma once

#include <openssl/core.h>

#include <cstddef>

namespace hwc::thunks {

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

template <class Ctx> void freectx(void* vctx) noexcept { delete as<Ctx>(vctx); }

template <class Ctx> void* dupctx(void* vctx) noexcept {
    try {
        return as<Ctx>(vctx)->clone();
    } catch (...) {
        return nullptr;
    }
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
