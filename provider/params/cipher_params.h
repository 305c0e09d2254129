// SPDX-License-Identifier: Apache-2.0
// The parameter rows cipher contexts share, written once: what every cipher
// answers (key and IV length), what the non-AEAD families answer (padding,
// num, IV and running IV, TLS MAC), what the AEAD families answer (tag length,
// nonce, TLS AAD padding), and the key-length check. Each reads the context
// through KeyedCtx's (and AeadCtx's) accessors; a family joins the groups it
// needs with its own rows into its tables (its kParams, see FamilyCtx). A new
// parameter every cipher answers is one row in kCipherGets.
#pragma once

#include <openssl/core_names.h>

#include <array>

#include "provider/modes/keyed_ctx.h"

namespace hwc {

namespace cipher_rows {
bool get_keylen(KeyedCtx& c, OSSL_PARAM& p);
bool get_ivlen(KeyedCtx& c, OSSL_PARAM& p);
bool get_padding(KeyedCtx& c, OSSL_PARAM& p);
bool get_num(KeyedCtx& c, OSSL_PARAM& p);
bool get_iv(KeyedCtx& c, OSSL_PARAM& p);
bool get_updated_iv(KeyedCtx& c, OSSL_PARAM& p);
bool get_tls_mac(KeyedCtx& c, OSSL_PARAM& p);
bool get_taglen(KeyedCtx& c, OSSL_PARAM& p);
bool get_nonce(KeyedCtx& c, OSSL_PARAM& p);
bool get_updated_nonce(KeyedCtx& c, OSSL_PARAM& p);
bool get_tls_aad_pad(KeyedCtx& c, OSSL_PARAM& p);
bool check_keylen(KeyedCtx& c, const OSSL_PARAM& p);
} // namespace cipher_rows

// Every cipher context answers these.
inline constexpr std::array kCipherGets{
    CipherGetter{OSSL_CIPHER_PARAM_KEYLEN, kSizeT, &cipher_rows::get_keylen},
    CipherGetter{OSSL_CIPHER_PARAM_IVLEN, kSizeT, &cipher_rows::get_ivlen},
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
    CipherGetter{OSSL_CIPHER_PARAM_PADDING, kUint, &cipher_rows::get_padding},
    CipherGetter{OSSL_CIPHER_PARAM_NUM, kUint, &cipher_rows::get_num},
    CipherGetter{OSSL_CIPHER_PARAM_IV, kOctets, &cipher_rows::get_iv},
    CipherGetter{OSSL_CIPHER_PARAM_UPDATED_IV, kOctets, &cipher_rows::get_updated_iv},
    CipherGetter{OSSL_CIPHER_PARAM_TLS_MAC, kOctetPtr, &cipher_rows::get_tls_mac},
};

// The AEAD tag length (AeadCtx::tag_length()).
inline constexpr CipherGetter kTagLenGet{OSSL_CIPHER_PARAM_AEAD_TAGLEN, kSizeT,
                                         &cipher_rows::get_taglen};

// The nonce-based AEADs (CCM, OCB, GCM): the nonce is both "iv" and
// "updated-iv"; "no iv set" before there is one, "invalid iv length" when
// the caller's buffer does not fit it.
inline constexpr std::array kAeadGets{
    kTagLenGet,
    CipherGetter{OSSL_CIPHER_PARAM_IV, kOctets, &cipher_rows::get_nonce},
    CipherGetter{OSSL_CIPHER_PARAM_UPDATED_IV, kOctets, &cipher_rows::get_updated_nonce},
};

} // namespace hwc
