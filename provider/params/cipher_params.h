// SPDX-License-Identifier: Apache-2.0
// The parameter rows cipher contexts share, written once: what every cipher
// answers (key and IV length), what the non-AEAD families answer (padding,
// num, IV and running IV, TLS MAC), and the key-length check; the AEAD
// groups (tag length, nonce, TLS AAD padding) are in modes/aead_ctx.h. Each
// reads the context through KeyedCtx's (and AeadCtx's) accessors; a family
// joins the groups it needs with its own rows into its tables (its kParams,
// see FamilyCtx). A new parameter every cipher answers is one row in
// kCipherGets.
#pragma once

#include <openssl/core_names.h>

#include <array>

#include "provider/modes/keyed_ctx.h"

namespace hwc {

namespace cipher_rows {
bool get_iv(KeyedCtx& c, OSSL_PARAM& p);
bool get_updated_iv(KeyedCtx& c, OSSL_PARAM& p);
bool get_tls_mac(KeyedCtx& c, OSSL_PARAM& p);
bool get_nonce(KeyedCtx& c, OSSL_PARAM& p);
bool get_updated_nonce(KeyedCtx& c, OSSL_PARAM& p);
bool check_keylen(KeyedCtx& c, const OSSL_PARAM& p);

// A getter row's handler answering what Get, a member function of KeyedCtx
// or of a family base (AeadCtx::tag_length), returns; "invalid parameter
// value" when the caller's parameter cannot take it.
bool answer_value(KeyedCtx& c, OSSL_PARAM& p, size_t value);
bool answer_value(KeyedCtx& c, OSSL_PARAM& p, unsigned value);
template <class C, class T> C* owner(T (C::*)() const);
template <auto Get>
bool answer(KeyedCtx& c, OSSL_PARAM& p) {
    return answer_value(c, p, (static_cast<decltype(*owner(Get))>(c).*Get)());
}
} // namespace cipher_rows

// Every cipher context answers these.
inline constexpr std::array kCipherGets{
    CipherGetter{OSSL_CIPHER_PARAM_KEYLEN, kSizeT, cipher_rows::answer<&KeyedCtx::key_len>},
    CipherGetter{OSSL_CIPHER_PARAM_IVLEN, kSizeT, cipher_rows::answer<&KeyedCtx::iv_length>},
};

// Every cipher context accepts these: the key length is fixed per
// algorithm, so a restatement is accepted (some applications set it before
// init) and anything else refused rather than silently ignored.
inline constexpr std::array kCipherSets{
    CipherSetter{OSSL_CIPHER_PARAM_KEYLEN, kSizeT, &cipher_rows::check_keylen},
};

// The non-AEAD families (classic modes, XTS, key wrap), as the default
// provider's generic cipher code answers them; failures are "invalid
// parameter value".
inline constexpr std::array kBlockGets{
    CipherGetter{OSSL_CIPHER_PARAM_PADDING, kUint, cipher_rows::answer<&KeyedCtx::padding>},
    CipherGetter{OSSL_CIPHER_PARAM_NUM, kUint, cipher_rows::answer<&KeyedCtx::num>},
    CipherGetter{OSSL_CIPHER_PARAM_IV, kOctets, &cipher_rows::get_iv},
    CipherGetter{OSSL_CIPHER_PARAM_UPDATED_IV, kOctets, &cipher_rows::get_updated_iv},
    CipherGetter{OSSL_CIPHER_PARAM_TLS_MAC, kOctetPtr, &cipher_rows::get_tls_mac},
};

} // namespace hwc
