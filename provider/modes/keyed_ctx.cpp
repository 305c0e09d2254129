// SPDX-License-Identifier: Apache-2.0
// The init sequence and key hygiene every cipher context shares.
#include "provider/modes/keyed_ctx.h"

#include <cstring>

#include "provider/module/errors.h"
#include "provider/module/provider.h"

namespace hwc {

KeyedCtx::KeyedCtx(const ProvCtx* prov, const AlgorithmRow& row)
    : CipherCtx(prov, row), core_(prov->cores.for_family(row.family)),
      ivlen_(mode_traits(row.mode).ivlen) {}

KeyedCtx::~KeyedCtx() { wipe_all(ks_, iv_); }

int KeyedCtx::init(bool encrypt, const uint8_t* key, size_t keylen, const uint8_t* iv,
                   size_t ivlen, const OSSL_PARAM params[]) {
    encrypt_ = encrypt;
    restart();
    const bool early = params_first_ && params != nullptr;
    if (early && !set_ctx_params(params)) return 0;
    if (iv != nullptr && !set_iv(iv, ivlen)) return 0;
    if (key != nullptr ? !set_key(key, keylen) : !keep_key()) return 0;
    return early || params == nullptr ? 1 : set_ctx_params(params);
}

bool KeyedCtx::set_iv(const uint8_t* iv, size_t ivlen) {
    if (ivlen != iv_length())
        return HWC_FAIL(prov_, kErrInvalidIvLength, "iv length %zu, expected %zu", ivlen,
                        iv_length());
    // Fixed-size copies for the usual lengths (a per-message init's work).
    if (ivlen == kBlockSize) std::memcpy(iv_, iv, kBlockSize);
    else if (ivlen == 12) std::memcpy(iv_, iv, 12);
    else std::memcpy(iv_, iv, ivlen);
    iv_set_ = true;
    return true;
}

bool KeyedCtx::set_key(const uint8_t* key, size_t keylen) {
    if (keylen != key_len())
        return HWC_FAIL(prov_, kErrInvalidKeyLength, "key length %zu, expected %zu", keylen,
                        key_len());
    if (key_set_ && same_key(key, keylen)) return true;
    wipe(&ks_, sizeof ks_);
    key_set_ = false;
    if (!schedule_key(key, keylen)) {
        wipe(&ks_, sizeof ks_); // whatever the refusing core left there
        return false;
    }
    key_set_ = true;
    return true;
}

bool KeyedCtx::schedule_key(const uint8_t* key, size_t keylen) {
    return core_->set_key(ks_, key, keylen) || refused();
}

bool KeyedCtx::refused() const {
    return HWC_FAIL(prov_, kErrInvalidKeyLength, "core %s refused the key", core_->name);
}

bool KeyedCtx::no_key() const { return HWC_FAIL(prov_, kErrNoKeySet); }
bool KeyedCtx::no_iv() const { return HWC_FAIL(prov_, kErrNoIvSet); }
bool KeyedCtx::bad_switch(const char* name) const {
    return HWC_FAIL(prov_, kErrInvalidParam, "%s", name);
}
bool KeyedCtx::short_output(size_t need, size_t have) const {
    return HWC_FAIL(prov_, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", need, have);
}

} // namespace hwc
