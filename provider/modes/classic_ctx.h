// SPDX-License-Identifier: Apache-2.0
// The base of the classic modes (ECB, CBC, CBC-CTS, CFB*, OFB, CTR): key, a
// 16-byte IV and its running copy, direction, padding flag, stream position,
// and the parameters these modes share (mirroring OpenSSL's default
// provider). mode_block.cpp, mode_cts.cpp and mode_stream.cpp derive from it.
#pragma once

#include "cores/core.h"
#include "provider/modes/cipher_ctx.h"

namespace hwc {

class ClassicCtx : public CipherCtx {
public:
    ~ClassicCtx() override;

    int init(bool encrypt, const uint8_t* key, size_t keylen, const uint8_t* iv, size_t ivlen,
             const OSSL_PARAM params[]) override;
    int get_ctx_params(OSSL_PARAM params[]) override;
    int set_ctx_params(const OSSL_PARAM params[]) override;

    // Parameter lists of the classic modes (CBC-CTS adds cts_mode).
    static const OSSL_PARAM* gettable_params();
    static const OSSL_PARAM* settable_params();
    static const OSSL_PARAM* cts_gettable_params();
    static const OSSL_PARAM* cts_settable_params();

protected:
    ClassicCtx(const ProvCtx* prov, const AlgorithmRow& row);
    ClassicCtx(const ClassicCtx&) = default;

    // Forget partial blocks and stream position; called by every init.
    virtual void reset_stream() = 0;

    // Raises the right error and returns false unless key (and IV where the
    // mode needs one) are set.
    bool ready() const;

    // The MAC extracted from the last TLS record decrypted ("tls-mac"), or
    // nullptr; only CBC's record mode (mode_block.cpp) has one.
    virtual const uint8_t* tls_mac() const { return nullptr; }

    size_t key_len() const { return key_bytes(*row_); }
    size_t iv_len() const { return mode_traits(row_->mode).ivlen; }

    const ProvCtx* prov_;
    const AlgorithmRow* row_;
    const BlockCore* core_;
    bool encrypt_ = true;
    bool key_set_ = false;
    bool iv_set_ = false;
    bool padding_ = true;
    unsigned num_ = 0;                 // position inside the current keystream block
    unsigned tls_version_ = 0;         // "tls-version": > 0 puts CBC in TLS record mode
    size_t tls_mac_size_ = 0;          // "tls-mac-size": MAC bytes in a MAC-then-encrypt record
    uint8_t oiv_[kBlockSize] = {};     // the IV as given ("iv")
    uint8_t iv_[kBlockSize] = {};      // the running chaining value ("updated-iv")
    KeySchedule ks_;
};

} // namespace hwc
