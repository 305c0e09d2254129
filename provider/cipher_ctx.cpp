// SPDX-License-Identifier: Apache-2.0
// What all cipher contexts share: init/re-init rules, key hygiene, and the
// parameters common to every mode (mirroring OpenSSL's default provider).
#include "provider/cipher_ctx.h"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <cstring>

#include "provider/errors.h"
#include "provider/provider.h"

namespace hwc {

void wipe(void* p, size_t n) { OPENSSL_cleanse(p, n); }

CipherCtx::CipherCtx(const ProvCtx* prov, const AlgorithmRow& row)
    : prov_(prov), row_(&row), core_(prov->cores.for_family(row.family)) {
    std::memset(&ks_, 0, sizeof ks_);
}

CipherCtx::~CipherCtx() {
    wipe(&ks_, sizeof ks_);
    wipe(oiv_, sizeof oiv_);
    wipe(iv_, sizeof iv_);
}

namespace {

// Modes whose running IV returns to the original IV on a re-init without a
// new IV (what OpenSSL 3 does for CBC, CFB and OFB; CTR keeps its counter).
bool resets_iv_on_reinit(Mode m) {
    return m == Mode::cbc || m == Mode::cbc_cts || m == Mode::cfb || m == Mode::cfb1 ||
           m == Mode::cfb8 || m == Mode::ofb;
}

} // namespace

int CipherCtx::init(bool encrypt, const uint8_t* key, size_t keylen, const uint8_t* iv,
                    size_t ivlen, const OSSL_PARAM params[]) {
    encrypt_ = encrypt;
    num_ = 0;
    reset_stream();

    if (iv != nullptr && row_->mode != Mode::ecb) {
        if (ivlen != kBlockSize) {
            HWC_RAISE(prov_, kErrInvalidIvLength, "iv length %zu, expected %zu", ivlen, kBlockSize);
            return 0;
        }
        std::memcpy(oiv_, iv, kBlockSize);
        std::memcpy(iv_, iv, kBlockSize);
        iv_set_ = true;
    } else if (iv == nullptr && iv_set_ && resets_iv_on_reinit(row_->mode)) {
        std::memcpy(iv_, oiv_, kBlockSize);
    }

    if (key != nullptr) {
        if (keylen != key_bytes()) {
            HWC_RAISE(prov_, kErrInvalidKeyLength, "key length %zu, expected %zu", keylen,
                      key_bytes());
            return 0;
        }
        wipe(&ks_, sizeof ks_);
        key_set_ = false;
        if (!core_->set_key(ks_, key, keylen)) {
            HWC_RAISE(prov_, kErrInvalidKeyLength, "core %s refused the key", core_->name);
            return 0;
        }
        key_set_ = true;
    }
    return set_ctx_params(params);
}

bool CipherCtx::ready() const {
    if (!key_set_) {
        HWC_RAISE(prov_, kErrNoKeySet);
        return false;
    }
    if (iv_bytes() != 0 && !iv_set_) {
        HWC_RAISE(prov_, kErrNoIvSet);
        return false;
    }
    return true;
}

namespace {

// "iv" and "updated-iv" may be asked for as an octet string (copy) or as an
// octet pointer (legacy EVP_CIPHER_CTX_iv()); answer whichever was asked.
bool set_octets(OSSL_PARAM* p, const uint8_t* data, size_t len) {
    if (p->data_type == OSSL_PARAM_OCTET_PTR) return OSSL_PARAM_set_octet_ptr(p, data, len) == 1;
    return OSSL_PARAM_set_octet_string(p, data, len) == 1;
}

} // namespace

int CipherCtx::get_ctx_params(OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    OSSL_PARAM* p;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, key_bytes())) {
        HWC_RAISE(prov_, kErrInvalidParam, "keylen");
        return 0;
    }
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, iv_bytes())) {
        HWC_RAISE(prov_, kErrInvalidParam, "ivlen");
        return 0;
    }
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_PADDING)) != nullptr &&
        !OSSL_PARAM_set_uint(p, padding_ ? 1 : 0)) {
        HWC_RAISE(prov_, kErrInvalidParam, "padding");
        return 0;
    }
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_NUM)) != nullptr &&
        !OSSL_PARAM_set_uint(p, num_)) {
        HWC_RAISE(prov_, kErrInvalidParam, "num");
        return 0;
    }
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IV)) != nullptr &&
        !set_octets(p, oiv_, iv_bytes())) {
        HWC_RAISE(prov_, kErrInvalidParam, "iv");
        return 0;
    }
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_UPDATED_IV)) != nullptr &&
        !set_octets(p, iv_, iv_bytes())) {
        HWC_RAISE(prov_, kErrInvalidParam, "updated-iv");
        return 0;
    }
    return 1;
}

int CipherCtx::set_ctx_params(const OSSL_PARAM params[]) {
    if (params == nullptr) return 1;
    const OSSL_PARAM* p;
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_PADDING)) != nullptr) {
        unsigned int pad;
        if (!OSSL_PARAM_get_uint(p, &pad)) {
            HWC_RAISE(prov_, kErrInvalidParam, "padding");
            return 0;
        }
        padding_ = pad != 0;
    }
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_NUM)) != nullptr) {
        unsigned int num;
        if (!OSSL_PARAM_get_uint(p, &num) || num >= kBlockSize) {
            HWC_RAISE(prov_, kErrInvalidNum, "num must be below %zu", kBlockSize);
            return 0;
        }
        num_ = num;
    }
    // The key length is fixed per algorithm: accept a restatement of it (some
    // applications set it before init) and refuse anything else rather than
    // silently ignoring it.
    if ((p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_KEYLEN)) != nullptr) {
        size_t keylen;
        if (!OSSL_PARAM_get_size_t(p, &keylen) || keylen != key_bytes()) {
            HWC_RAISE(prov_, kErrInvalidKeyLength, "key length is fixed at %zu", key_bytes());
            return 0;
        }
    }
    return 1;
}

// --- algorithm-level parameters ------------------------------------------------

namespace {

unsigned evp_mode(Mode m) {
    switch (m) {
    case Mode::ecb: return EVP_CIPH_ECB_MODE;
    case Mode::cbc:
    case Mode::cbc_cts: return EVP_CIPH_CBC_MODE;
    case Mode::cfb:
    case Mode::cfb1:
    case Mode::cfb8: return EVP_CIPH_CFB_MODE;
    case Mode::ofb: return EVP_CIPH_OFB_MODE;
    case Mode::ctr: return EVP_CIPH_CTR_MODE;
    }
    return 0;
}

// ECB and CBC (with or without stealing) work on whole blocks; the others are
// stream-like and report a block size of 1, as OpenSSL does.
size_t evp_blocksize(Mode m) {
    return (m == Mode::ecb || m == Mode::cbc || m == Mode::cbc_cts) ? kBlockSize : 1;
}

} // namespace

int algorithm_get_params(const AlgorithmRow& row, OSSL_PARAM params[]) {
    OSSL_PARAM* p;
    const size_t ivlen = row.mode == Mode::ecb ? 0 : kBlockSize;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_MODE)) != nullptr &&
        !OSSL_PARAM_set_uint(p, evp_mode(row.mode)))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, row.key_bits / 8))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, ivlen))
        return 0;
    if ((p = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, evp_blocksize(row.mode)))
        return 0;
    const struct { const char* key; int value; } flags[] = {
        {OSSL_CIPHER_PARAM_AEAD, 0},
        {OSSL_CIPHER_PARAM_CUSTOM_IV, 0},
        {OSSL_CIPHER_PARAM_CTS, row.mode == Mode::cbc_cts ? 1 : 0},
        {OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, 0},
        {OSSL_CIPHER_PARAM_HAS_RAND_KEY, 0},
    };
    for (const auto& f : flags) {
        if ((p = OSSL_PARAM_locate(params, f.key)) != nullptr && !OSSL_PARAM_set_int(p, f.value))
            return 0;
    }
    return 1;
}

const OSSL_PARAM* algorithm_gettable_params() {
    static const OSSL_PARAM list[] = {
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, nullptr),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, nullptr),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, nullptr),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, nullptr),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, nullptr),
        OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, nullptr),
        OSSL_PARAM_END,
    };
    return list;
}

const OSSL_PARAM* ctx_gettable_params(const AlgorithmRow& row) {
    static const OSSL_PARAM common[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, nullptr, 0),
        OSSL_PARAM_END,
    };
    static const OSSL_PARAM cts[] = {
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, nullptr),
        OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, nullptr),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, nullptr, 0),
        OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, nullptr, 0),
        OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_CTS_MODE, nullptr, 0),
        OSSL_PARAM_END,
    };
    return row.mode == Mode::cbc_cts ? cts : common;
}

const OSSL_PARAM* ctx_settable_params(const AlgorithmRow& row) {
    static const OSSL_PARAM common[] = {
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_USE_BITS, nullptr),
        OSSL_PARAM_END,
    };
    static const OSSL_PARAM cts[] = {
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, nullptr),
        OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, nullptr),
        OSSL_PARAM_utf8_string(OSSL_CIPHER_PARAM_CTS_MODE, nullptr, 0),
        OSSL_PARAM_END,
    };
    return row.mode == Mode::cbc_cts ? cts : common;
}

} // namespace hwc

#include "provider/mode_contexts.h"

namespace hwc {

CipherCtx* CipherCtx::create(const ProvCtx* prov, const AlgorithmRow& row) {
    switch (row.mode) {
    case Mode::ecb:
    case Mode::cbc: return new_block_mode_ctx(prov, row);
    case Mode::cbc_cts: return new_cts_mode_ctx(prov, row);
    case Mode::cfb:
    case Mode::cfb1:
    case Mode::cfb8:
    case Mode::ofb:
    case Mode::ctr: return new_stream_mode_ctx(prov, row);
    }
    return nullptr;
}

} // namespace hwc
