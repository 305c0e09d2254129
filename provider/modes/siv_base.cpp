// SPDX-License-Identifier: Apache-2.0
// The EVP-facing state machine shared by SIV and GCM-SIV (see siv_base.h).
#include "provider/modes/siv_base.h"

#include <openssl/params.h>

#include <cstring>

#include "provider/module/errors.h"

namespace hwc {

// A new message starts. An expected tag set before this init (e.g. before
// the key) still applies; one already checked against a message does not.
void SivBaseCtx::restart() {
    if (data_done_) {
        tag_set_ = false;
        wipe(tag_, sizeof tag_);
    }
    data_done_ = tag_ready_ = failed_ = false;
    start_message();
}

bool SivBaseCtx::data_step(const uint8_t* in, uint8_t* out, size_t len) {
    if (encrypt_) {
        if (!seal(in, out, len)) return false;
        tag_ready_ = true;
        failed_ = false;
    } else {
        if (!tag_set_) return HWC_FAIL(prov_, kErrTagNotSet);
        if (!open(in, out, len)) {
            if (len != 0) wipe(out, len); // never release unauthenticated plaintext
            failed_ = true;
            data_done_ = true;
            return HWC_FAIL(prov_, kErrTagMismatch);
        }
        failed_ = false;
    }
    data_done_ = true;
    return true;
}

int SivBaseCtx::update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
                       size_t inl) {
    *outl = 0;
    if (!ready()) return 0;
    if (out == nullptr) {
        // Associated data: one S2V component (SIV) or more AAD bytes (GCM-SIV).
        if (data_done_) return HWC_FAIL(prov_, kErrAadAfterData);
        if (inl != 0 && in == nullptr) return HWC_FAIL(prov_, kErrInvalidParam, "no AAD buffer");
        if (!add_aad(in, inl)) return 0;
        *outl = inl;
        return 1;
    }
    if (data_done_ && !speed_) return HWC_FAIL(prov_, kErrOneShotData);
    if (!need_output(inl, outsize)) return 0;
    if (inl != 0 && in == nullptr) return HWC_FAIL(prov_, kErrInvalidParam, "no input buffer");
    // An empty update is a real (empty) message, unlike OpenSSL 3.0's SIV,
    // which ignores it and then fails final.
    if (!data_step(in, out, inl)) return 0;
    *outl = inl;
    return 1;
}

int SivBaseCtx::final(uint8_t*, size_t* outl, size_t) {
    *outl = 0;
    if (!ready()) return 0;
    // No data update at all: the message is empty (tag over the AAD alone).
    if (!data_done_ && !data_step(nullptr, nullptr, 0)) return 0;
    if (failed_) return HWC_FAIL(prov_, kErrTagMismatch);
    return 1;
}

bool SivBaseCtx::get_tag(OSSL_PARAM& p) {
    if (!encrypt_)
        return HWC_FAIL(prov_, kErrInvalidParam, "the tag is an output of encryption only");
    if (!tag_ready_)
        return HWC_FAIL(prov_, kErrNotInitialized, "no tag yet: encrypt the message first");
    if (p.data_type != OSSL_PARAM_OCTET_STRING || p.data_size != kTagLen ||
        !OSSL_PARAM_set_octet_string(&p, tag_, kTagLen))
        return HWC_FAIL(prov_, kErrInvalidTagLength, "the tag is exactly %zu bytes", kTagLen);
    return true;
}

// Decrypting: the expected tag. Encrypting: only the length, with no data
// (EVP_CTRL_AEAD_SET_TAG(16, NULL), which OpenSSL's evp_test makes before
// every AEAD encryption and the default provider accepts); a tag value is
// refused there, as a caller mistake.
bool SivBaseCtx::set_tag(const OSSL_PARAM& p) {
    if (p.data_type != OSSL_PARAM_OCTET_STRING || p.data_size != kTagLen)
        return HWC_FAIL(prov_, kErrInvalidTagLength, "the tag is exactly %zu bytes", kTagLen);
    if (encrypt_) return p.data == nullptr || HWC_FAIL(prov_, kErrTagNotNeeded);
    if (p.data == nullptr)
        return HWC_FAIL(prov_, kErrInvalidParam, "decryption needs the expected tag");
    std::memcpy(tag_, p.data, kTagLen);
    tag_set_ = true;
    return true;
}

bool SivBaseCtx::set_ivlen(const OSSL_PARAM& p) {
    size_t ivlen;
    return (OSSL_PARAM_get_size_t(&p, &ivlen) && ivlen == iv_length()) ||
           HWC_FAIL(prov_, kErrInvalidIvLength, "the nonce length is fixed at %zu", iv_length());
}

} // namespace hwc
