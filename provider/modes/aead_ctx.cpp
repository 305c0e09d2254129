// SPDX-License-Identifier: Apache-2.0
// The TLS 1.2 record AAD CCM and GCM share (aead_ctx.h).
#include "provider/modes/aead_ctx.h"

#include <cstring>

#include "provider/module/errors.h"

namespace hwc {

bool TlsAeadCtx::take_tls_aad(const OSSL_PARAM& p, size_t tag_len, int too_short) {
    if (p.data_type != OSSL_PARAM_OCTET_STRING || p.data == nullptr || p.data_size != kTlsAadLen)
        return HWC_FAIL(prov_, kErrInvalidParam, "tlsaad must be %zu bytes", kTlsAadLen);
    uint8_t aad[kTlsAadLen];
    std::memcpy(aad, p.data, kTlsAadLen);
    size_t len = size_t{aad[kTlsAadLen - 2]} << 8 | aad[kTlsAadLen - 1];
    const size_t strip = kTlsExplicitIvLen + (encrypt_ ? 0 : tag_len);
    if (len < strip) return HWC_FAIL(prov_, too_short, "tls record length %zu too short", len);
    len -= strip;
    aad[kTlsAadLen - 2] = static_cast<uint8_t>(len >> 8);
    aad[kTlsAadLen - 1] = static_cast<uint8_t>(len);
    std::memcpy(tls_aad_, aad, kTlsAadLen);
    tls_aad_set_ = true;
    tls_aad_pad_ = tag_len;
    return true;
}

} // namespace hwc
