// SPDX-License-Identifier: Apache-2.0
// The mode table, algorithm-level parameters and small helpers every mode
// family shares.
#include "provider/modes/cipher_ctx.h"

#include <openssl/core_names.h>
#include <openssl/params.h>

#include "provider/modes/mode_contexts.h"
#include "provider/module/errors.h"
#include "provider/module/provider.h"
#include "provider/params/param_table.h"

namespace hwc {

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
    CipherCtx* ctx = mode_ops(row.mode).create(prov, row);
    if (ctx == nullptr) HWC_RAISE(prov, kErrOutOfMemory, "a %s context", row.names);
    else prov->contexts_created.fetch_add(1, std::memory_order_relaxed);
    return ctx;
}

namespace {

using AlgorithmGetter = Getter<const AlgorithmRow>;

bool keylen(const AlgorithmRow& row, OSSL_PARAM& p) {
    return OSSL_PARAM_set_size_t(&p, key_bytes(row)) == 1;
}

template <uint8_t ModeTraits::*Size>
bool size(const AlgorithmRow& row, OSSL_PARAM& p) {
    return OSSL_PARAM_set_size_t(&p, mode_traits(row.mode).*Size) == 1;
}

template <bool ModeTraits::*Flag>
bool flag(const AlgorithmRow& row, OSSL_PARAM& p) {
    return OSSL_PARAM_set_int(&p, mode_traits(row.mode).*Flag) == 1;
}

bool never(const AlgorithmRow&, OSSL_PARAM& p) { return OSSL_PARAM_set_int(&p, 0) == 1; }

// What OpenSSL asks of an algorithm before any context exists (EVP derives
// the cipher's flags from these).
constexpr ParamTable kAlgorithmParams{std::array{
    AlgorithmGetter{OSSL_CIPHER_PARAM_MODE, kUint,
                    [](const AlgorithmRow& r, OSSL_PARAM& p) {
                        return OSSL_PARAM_set_uint(&p, mode_traits(r.mode).evp_mode) == 1;
                    }},
    AlgorithmGetter{OSSL_CIPHER_PARAM_KEYLEN, kSizeT, keylen},
    AlgorithmGetter{OSSL_CIPHER_PARAM_IVLEN, kSizeT, size<&ModeTraits::ivlen>},
    AlgorithmGetter{OSSL_CIPHER_PARAM_BLOCK_SIZE, kSizeT, size<&ModeTraits::blocksize>},
    AlgorithmGetter{OSSL_CIPHER_PARAM_AEAD, kInt, flag<&ModeTraits::aead>},
    AlgorithmGetter{OSSL_CIPHER_PARAM_CUSTOM_IV, kInt, flag<&ModeTraits::custom_iv>},
    AlgorithmGetter{OSSL_CIPHER_PARAM_CTS, kInt, flag<&ModeTraits::cts>},
    AlgorithmGetter{OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, kInt, never},
    AlgorithmGetter{OSSL_CIPHER_PARAM_HAS_RAND_KEY, kInt, never},
    AlgorithmGetter{kParamEncryptThenMac, kInt, never},
}};

} // namespace

int algorithm_get_params(const AlgorithmRow& row, OSSL_PARAM params[]) {
    return kAlgorithmParams.span().apply(row, params) ? 1 : 0;
}

const OSSL_PARAM* algorithm_gettable_params() { return kAlgorithmParams.span().list; }

} // namespace hwc
