// SPDX-License-Identifier: Apache-2.0
// The classic modes' shared state: re-init rules and the parameters only
// they accept (mirroring OpenSSL's default provider).
#include "provider/modes/classic_ctx.h"

#include <openssl/params.h>

#include <cstring>

#include "provider/modes/tls_cbc.h"
#include "provider/module/errors.h"
#include "provider/module/provider.h"

namespace hwc {

void ClassicCtx::restart() {
    num_ = 0;
    reset_stream();
    // A re-init without a new IV returns the running IV to the original one,
    // as OpenSSL 3 does for CBC, CFB and OFB; CTR keeps its counter (and ECB
    // never has an IV set).
    if (iv_set_ && row_->mode != Mode::ctr) std::memcpy(iv_, oiv_, kBlockSize);
}

// No IV given: iv_ and oiv_ are zero from construction, and iv_ runs on from
// message to message until an IV is given, exactly as in the default
// provider, whose contexts start with a zero IV and whose re-init restores
// the original IV only once one was set. "strict-iv" refuses instead.
bool ClassicCtx::no_iv_given() const {
    return !prov_->strict_iv ||
           HWC_FAIL(prov_, kErrNoIvSet, "strict-iv is on: give the IV (no zero IV by default)");
}

bool ClassicCtx::set_iv(const uint8_t* iv, size_t ivlen) {
    if (row_->mode == Mode::ecb) return true; // ECB takes no IV; EVP may pass one anyway
    if (!KeyedCtx::set_iv(iv, ivlen)) return false;
    std::memcpy(oiv_, iv_, kBlockSize);
    return true;
}

bool ClassicCtx::set_num(const OSSL_PARAM& p) {
    unsigned int num;
    if (!OSSL_PARAM_get_uint(&p, &num) || num >= kBlockSize)
        return HWC_FAIL(prov_, kErrInvalidNum, "num must be below %zu", kBlockSize);
    num_ = num;
    return true;
}

// libssl passes the version as an int, which OSSL_PARAM_get_uint converts.
bool ClassicCtx::set_tls_version(const OSSL_PARAM& p) {
    return OSSL_PARAM_get_uint(&p, &tls_version_) ||
           HWC_FAIL(prov_, kErrInvalidParam, "tls-version");
}

bool ClassicCtx::set_tls_mac_size(const OSSL_PARAM& p) {
    size_t size;
    // No TLS MAC is longer than the largest digest (64 bytes).
    if (!OSSL_PARAM_get_size_t(&p, &size) || size > kMaxTlsMacSize)
        return HWC_FAIL(prov_, kErrInvalidParam, "tls-mac-size must be at most %zu",
                        kMaxTlsMacSize);
    tls_mac_size_ = size;
    return true;
}

} // namespace hwc
