// SPDX-License-Identifier: Apache-2.0
// GMAC (NIST SP 800-38D: GCM with the message as AAD and no data) as an
// OSSL_OP_MAC over any hwcipher GCM cipher.
//
// Parameters mirror OpenSSL's default GMAC ("cipher", "properties", "key",
// "iv"; "size" = 16), but the cipher runs on hwcipher's own cores
// (cipher_mac.h), so "properties" is accepted and ignored and names that are
// not one of our GCM ciphers are refused. Unlike OpenSSL 3.0, which invents a
// random IV when none is given (and so returns a tag nobody can verify), a
// missing IV is an error, and each IV serves one tag: after final a new IV
// must be set.
#include <openssl/params.h>

#include <cstring>

#include "provider/engines/gcm_engine.h"
#include "provider/macs/cipher_mac.h"
#include "provider/modes/cipher_ctx.h"
#include "provider/module/errors.h"
#include "provider/module/provider.h"

namespace hwc {

namespace {

constexpr size_t kGmacSize = 16;
constexpr size_t kMaxIvLen = GcmEngine::kMaxIvLen;

class GmacCtx final : public CipherMacCtx {
public:
    explicit GmacCtx(const ProvCtx* prov) : CipherMacCtx(prov, "GMAC", Mode::gcm, "GCM") {}
    ~GmacCtx() override { wipe_all(ks_, iv_); }

    MacCtx* clone() const override { return new (std::nothrow) GmacCtx(*this); }
    int update(const uint8_t* in, size_t inl) override;
    int final(uint8_t* out, size_t* outl, size_t outsize) override;

    bool set_iv(const OSSL_PARAM& p);

private:
    const MacParams& param_tables() const override { return kParams.params; }
    bool schedule(const BlockCore& core, const uint8_t* key, size_t keylen) override {
        started_ = false;
        return eng_.set_key(core, *prov_->cores.ghash, ks_, key, keylen);
    }
    void forget_key() override {
        eng_.clear();
        wipe(&ks_, sizeof ks_);
        started_ = false;
    }
    bool has_key() const override { return eng_.has_key(); }
    // A restart keeps the IV: it must still be unused (or newly set).
    void restart() override { started_ = false; }
    bool begin();

    KeySchedule ks_{};
    GcmEngine eng_;
    uint8_t iv_[kMaxIvLen] = {};
    size_t ivlen_ = 0;
    bool iv_set_ = false;  // an IV not yet used by a final
    bool started_ = false; // the engine runs a message under iv_

public:
    // The default GMAC lists no context parameters to get (get_ctx_params still
    // answers "size"); the IV comes after cipher and key, whatever the order.
    static constexpr ContextTables kParams{
        std::array{MacGetter{OSSL_MAC_PARAM_SIZE, kSizeT, member<&GmacCtx::get_size>, false}},
        join(kCipherMacSets,
             std::array{MacSetter{OSSL_MAC_PARAM_IV, kOctets, member<&GmacCtx::set_iv>}})};
};

bool GmacCtx::set_iv(const OSSL_PARAM& p) {
    const void* iv = nullptr;
    size_t ivlen = 0;
    if (!OSSL_PARAM_get_octet_string_ptr(&p, &iv, &ivlen) || iv == nullptr)
        return HWC_FAIL(prov_, kErrInvalidParam, "iv must be an octet string");
    if (ivlen == 0 || ivlen > kMaxIvLen)
        return HWC_FAIL(prov_, kErrInvalidIvLength, "GMAC iv length %zu, allowed 1..%zu", ivlen,
                        kMaxIvLen);
    std::memcpy(iv_, iv, ivlen);
    ivlen_ = ivlen;
    iv_set_ = true;
    started_ = false;
    return true;
}

// Starts the message on first use, once cipher, key and IV are all there.
bool GmacCtx::begin() {
    if (started_) return true;
    if (!need_key()) return false;
    if (!iv_set_)
        return HWC_FAIL(prov_, kErrNoIvSet, "GMAC needs an iv for every tag (param \"iv\")");
    eng_.start(iv_, ivlen_);
    started_ = true;
    return true;
}

int GmacCtx::update(const uint8_t* in, size_t inl) {
    if (inl == 0) return 1;
    if (!begin()) return 0;
    if (!eng_.aad(in, inl)) return HWC_FAIL(prov_, kErrInvalidInputLength, "GMAC message too long");
    return 1;
}

int GmacCtx::final(uint8_t* out, size_t* outl, size_t outsize) {
    if (!begin()) return 0;
    if (outsize < kGmacSize)
        return HWC_FAIL(prov_, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", kGmacSize,
                        outsize);
    eng_.finish(ks_, out);
    *outl = kGmacSize;
    started_ = false;
    iv_set_ = false; // one tag per IV
    return 1;
}

// The algorithm-level "size" (no context).
constexpr ParamTable kGmacAlgorithmParams{std::array{
    Getter<const MacOps>{OSSL_MAC_PARAM_SIZE, kSizeT,
                         [](const MacOps&, OSSL_PARAM& p) {
                             return OSSL_PARAM_set_size_t(&p, kGmacSize) == 1;
                         }},
}};

} // namespace

const MacOps kGmacOps = mac_ops_for<GmacCtx>("GMAC:1.0.9797.3.4", kGmacAlgorithmParams.span());

} // namespace hwc
