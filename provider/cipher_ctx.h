// SPDX-License-Identifier: Apache-2.0
// The cipher context every mode family shares: key, IVs, direction, the core
// that serves it, and the OSSL_PARAM handling common to all modes. Each mode
// family (mode_block.cpp, mode_cts.cpp, mode_stream.cpp) derives from it and
// adds its own streaming state and update/final rules.
#pragma once

#include <openssl/core.h>

#include <cstddef>
#include <cstdint>

#include "cores/core.h"
#include "provider/catalogue.h"

namespace hwc {

struct ProvCtx;

class CipherCtx {
public:
    virtual ~CipherCtx();

    // Creates the context class for `row`'s mode; nullptr on allocation failure.
    static CipherCtx* create(const ProvCtx* prov, const AlgorithmRow& row);

    virtual CipherCtx* clone() const = 0;

    // encrypt_init / decrypt_init: key and iv may each be nullptr (keep the
    // existing one, see openssl-provider-contract.md §2.3).
    int init(bool encrypt, const uint8_t* key, size_t keylen, const uint8_t* iv, size_t ivlen,
             const OSSL_PARAM params[]);

    virtual int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
                       size_t inl) = 0;
    virtual int final(uint8_t* out, size_t* outl, size_t outsize) = 0;
    // The raw EVP_Cipher() path; by default the same as update.
    virtual int cipher(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl) {
        return update(out, outl, outsize, in, inl);
    }

    virtual int get_ctx_params(OSSL_PARAM params[]);
    virtual int set_ctx_params(const OSSL_PARAM params[]);

    const AlgorithmRow& row() const { return *row_; }

protected:
    CipherCtx(const ProvCtx* prov, const AlgorithmRow& row);
    CipherCtx(const CipherCtx&) = default;
    CipherCtx& operator=(const CipherCtx&) = delete;

    // Forget partial blocks and stream position; called by every init.
    virtual void reset_stream() = 0;

    // Raises the right error and returns false unless key (and IV where the
    // mode needs one) are set.
    bool ready() const;

    size_t key_bytes() const { return row_->key_bits / 8; }
    size_t iv_bytes() const { return row_->mode == Mode::ecb ? 0 : kBlockSize; }

    const ProvCtx* prov_;
    const AlgorithmRow* row_;
    const BlockCore* core_;
    bool encrypt_ = true;
    bool key_set_ = false;
    bool iv_set_ = false;
    bool padding_ = true;
    unsigned num_ = 0;                 // position inside the current keystream block
    uint8_t oiv_[kBlockSize] = {};     // the IV as given ("iv")
    uint8_t iv_[kBlockSize] = {};      // the running chaining value ("updated-iv")
    KeySchedule ks_;
};

// Algorithm-level parameters (no context): mode, keylen, ivlen, blocksize, flags.
int algorithm_get_params(const AlgorithmRow& row, OSSL_PARAM params[]);
const OSSL_PARAM* algorithm_gettable_params();
const OSSL_PARAM* ctx_gettable_params(const AlgorithmRow& row);
const OSSL_PARAM* ctx_settable_params(const AlgorithmRow& row);

// Wipes secret memory in a way the compiler may not elide.
void wipe(void* p, size_t n);

} // namespace hwc
