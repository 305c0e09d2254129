// SPDX-License-Identifier: Apache-2.0
// The cipher context interface the dispatch thunks drive, one implementation
// per mode family (all built on keyed_ctx.h: classic_ctx.h for
// ECB/CBC/CTS/CFB/OFB/CTR, aead_ctx.h for the AEADs, XTS and key wrap
// alongside), and the per-mode table that creates them.
#pragma once

#include <openssl/core.h>

#include <cstddef>
#include <cstdint>

#include "cores/wipe.h"
#include "provider/module/catalogue.h"

namespace hwc {

struct ProvCtx;

class CipherCtx {
public:
    virtual ~CipherCtx() = default;

    // Creates the context class for `row`'s mode; nullptr on failure.
    static CipherCtx* create(const ProvCtx* prov, const AlgorithmRow& row);

    virtual CipherCtx* clone() const = 0;

    // encrypt_init / decrypt_init: key and iv may each be nullptr (keep the
    // existing one, see openssl-provider-contract.md §2.3).
    virtual int init(bool encrypt, const uint8_t* key, size_t keylen, const uint8_t* iv,
                     size_t ivlen, const OSSL_PARAM params[]) = 0;
    virtual int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
                       size_t inl) = 0;
    virtual int final(uint8_t* out, size_t* outl, size_t outsize) = 0;
    // The raw EVP_Cipher() path; by default the same as update.
    virtual int cipher(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl) {
        return update(out, outl, outsize, in, inl);
    }
    virtual int get_ctx_params(OSSL_PARAM params[]) = 0;
    virtual int set_ctx_params(const OSSL_PARAM params[]) = 0;

    // The provider and the algorithm this context serves (errors, HWCIPHER_TRACE).
    const ProvCtx* prov() const { return prov_; }
    const AlgorithmRow& row() const { return *row_; }

protected:
    CipherCtx(const ProvCtx* prov, const AlgorithmRow& row) : prov_(prov), row_(&row) {}
    CipherCtx(const CipherCtx&) = default;
    CipherCtx& operator=(const CipherCtx&) = delete;

    const ProvCtx* prov_;
    const AlgorithmRow* row_;
};

// What a mode family contributes: a factory and its parameter lists.
struct ModeOps {
    CipherCtx* (*create)(const ProvCtx* prov, const AlgorithmRow& row);
    const OSSL_PARAM* gettable_ctx_params;
    const OSSL_PARAM* settable_ctx_params;
};

const ModeOps& mode_ops(Mode m);

// Algorithm-level parameters (no context): mode, keylen, ivlen, blocksize, flags.
int algorithm_get_params(const AlgorithmRow& row, OSSL_PARAM params[]);
const OSSL_PARAM* algorithm_gettable_params();

// Wipes secret memory in a way the compiler may not elide (cores/wipe.h).
// Inline rather than OPENSSL_cleanse: the AEAD contexts wipe a dozen small
// blocks per message (nonce-derived state, keystream, tags), and a
// fixed-size wipe inlines to a few vector stores instead of a call into
// libcrypto's byte-granular loop.
inline void wipe(void* p, size_t n) { secure_wipe(p, n); }

// Wipes each of `objects` (arrays or structs) whole.
template <class... T>
void wipe_all(T&... objects) {
    (wipe(&objects, sizeof objects), ...);
}

} // namespace hwc
