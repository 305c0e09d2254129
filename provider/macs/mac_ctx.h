// SPDX-License-Identifier: Apache-2.0
// The MAC context interface (OSSL_OP_MAC) and the per-MAC table that the
// generated dispatch (provider/dispatch/mac_dispatch.cpp) is built from.
#pragma once

#include <openssl/core.h>

#include <cstddef>
#include <cstdint>

#include "provider/params/param_table.h"

namespace hwc {

struct ProvCtx;

class MacCtx {
public:
    virtual ~MacCtx() = default;
    virtual MacCtx* clone() const = 0;
    // Params are applied before the key; key == nullptr restarts with the
    // previous key (openssl-provider-contract.md §6).
    virtual int init(const uint8_t* key, size_t keylen, const OSSL_PARAM params[]) = 0;
    virtual int update(const uint8_t* in, size_t inl) = 0;
    virtual int final(uint8_t* out, size_t* outl, size_t outsize) = 0;
    virtual int get_ctx_params(OSSL_PARAM params[]) = 0;
    virtual int set_ctx_params(const OSSL_PARAM params[]) = 0;
    // The provider that created it (errors go to its handle).
    virtual const ProvCtx* prov() const = 0;

protected:
    MacCtx() = default;
    MacCtx(const MacCtx&) = default;
    MacCtx& operator=(const MacCtx&) = delete;
};

struct MacOps {
    const char* names;                                  // "CMAC", "GMAC:1.0.9797.3.4"
    MacCtx* (*create)(const ProvCtx* prov);
    ParamSpan<const MacOps, OSSL_PARAM> params;         // algorithm-level (no context)
    const OSSL_PARAM* gettable_ctx_params;
    const OSSL_PARAM* settable_ctx_params;
};

extern const MacOps kCmacOps; // provider/macs/mac_cmac.cpp
extern const MacOps kGmacOps; // provider/macs/mac_gmac.cpp

} // namespace hwc
