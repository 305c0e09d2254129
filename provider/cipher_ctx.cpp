// SPDX-License-Identifier: Apache-2.0
// The mode table, algorithm-level parameters and small helpers every mode
// family shares.
#include "provider/cipher_ctx.h"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include "provider/mode_contexts.h"
#include "provider/params.h"
#include "provider/provider.h"

namespace hwc {

bool set_octets(OSSL_PARAM* p, const uint8_t* data, size_t len) {
    if (p->data_type == OSSL_PARAM_OCTET_PTR) return OSSL_PARAM_set_octet_ptr(p, data, len) == 1;
    return OSSL_PARAM_set_octet_string(p, data, len) == 1;
}

const ModeOps& mode_ops(Mode m) {
    switch (m) {
    case Mode::ecb:
    case Mode::cbc: return kBlockModeOps;
    case Mode::cbc_cts: return kCtsModeOps;
    case Mode::cfb:
    case Mode::cfb1:
    case Mode::cfb8:
    case Mode::ofb:
    case Mode::ctr: return kStreamModeOps;
    case Mode::gcm: return kGcmModeOps;
    case Mode::ccm: return kCcmModeOps;
    case Mode::ocb: return kOcbModeOps;
    case Mode::siv: return kSivModeOps;
    case Mode::gcm_siv: return kGcmSivModeOps;
    case Mode::xts: return kXtsModeOps;
    case Mode::wrap:
    case Mode::wrap_pad:
    case Mode::wrap_inv:
    case Mode::wrap_pad_inv: return kWrapModeOps;
    }
    return kBlockModeOps; // unreachable: every Mode is listed above
}

CipherCtx* CipherCtx::create(const ProvCtx* prov, const AlgorithmRow& row) {
    const ModeOps& ops = mode_ops(row.mode);
    CipherCtx* ctx = ops.create != nullptr ? ops.create(prov, row) : nullptr;
    if (ctx != nullptr) {
        prov->contexts_created.fetch_add(1, std::memory_order_relaxed);
        ctx->created_prov_ = prov; // for HWCIPHER_TRACE
        ctx->created_row_ = &row;
    }
    return ctx;
}

int algorithm_get_params(const AlgorithmRow& row, OSSL_PARAM params[]) {
    const ModeTraits t = mode_traits(row.mode);
    OSSL_PARAM* p;
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_MODE)) != nullptr &&
        !OSSL_PARAM_set_uint(p, t.evp_mode))
        return 0;
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_KEYLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, key_bytes(row)))
        return 0;
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_IVLEN)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, t.ivlen))
        return 0;
    if ((p = param_locate(params, OSSL_CIPHER_PARAM_BLOCK_SIZE)) != nullptr &&
        !OSSL_PARAM_set_size_t(p, t.blocksize))
        return 0;
    const struct { const char* key; bool value; } flags[] = {
        {OSSL_CIPHER_PARAM_AEAD, t.aead},
        {OSSL_CIPHER_PARAM_CUSTOM_IV, t.custom_iv},
        {OSSL_CIPHER_PARAM_CTS, t.cts},
        {OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, false},
        {OSSL_CIPHER_PARAM_HAS_RAND_KEY, false},
        {kParamEncryptThenMac, false},
    };
    for (const auto& f : flags) {
        if ((p = param_locate(params, f.key)) != nullptr && !OSSL_PARAM_set_int(p, f.value))
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
        OSSL_PARAM_int(kParamEncryptThenMac, nullptr),
        OSSL_PARAM_END,
    };
    return list;
}

} // namespace hwc
