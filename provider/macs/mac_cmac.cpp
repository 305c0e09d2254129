// SPDX-License-Identifier: Apache-2.0
// CMAC (NIST SP 800-38B) as an OSSL_OP_MAC over any hwcipher CBC cipher.
//
// Parameters mirror OpenSSL's default CMAC ("cipher", "properties", "key";
// "size" and "block-size"), but the cipher is run on hwcipher's own core
// (cipher_mac.h): "properties" is accepted and ignored, and a cipher that is
// not one of our CBC ciphers is refused (OpenSSL 3.0 accepts ECB or GCM names
// and computes something that is not CMAC).
#include <openssl/params.h>

#include "provider/engines/cmac_engine.h"
#include "provider/macs/cipher_mac.h"
#include "provider/module/errors.h"

namespace hwc {

namespace {

class CmacCtx final : public CipherMacCtx {
public:
    explicit CmacCtx(const ProvCtx* prov) : CipherMacCtx(prov, "CMAC", Mode::cbc, "CBC") {}
    ~CmacCtx() override = default; // CmacKey and CmacState wipe themselves

    MacCtx* clone() const override { return new (std::nothrow) CmacCtx(*this); }
    int update(const uint8_t* in, size_t inl) override;
    int final(uint8_t* out, size_t* outl, size_t outsize) override;

private:
    const MacParams& param_tables() const override { return kParams.params; }
    bool schedule(const BlockCore& core, const uint8_t* key, size_t keylen) override {
        return key_.set(&core, key, keylen);
    }
    void forget_key() override {
        key_.clear();
        state_.reset();
    }
    bool has_key() const override { return key_.ready(); }
    void restart() override { state_.reset(); }

    CmacKey key_;
    CmacState state_;

public:
    static constexpr ContextTables kParams{
        std::array{MacGetter{OSSL_MAC_PARAM_SIZE, kSizeT, member<&CmacCtx::get_size>},
                   MacGetter{OSSL_MAC_PARAM_BLOCK_SIZE, kSizeT, member<&CmacCtx::get_size>}},
        kCipherMacSets};
};

int CmacCtx::update(const uint8_t* in, size_t inl) {
    if (!need_key()) return 0;
    state_.update(key_, in, inl);
    return 1;
}

int CmacCtx::final(uint8_t* out, size_t* outl, size_t outsize) {
    if (!need_key()) return 0;
    if (outsize < kBlockSize)
        return HWC_FAIL(prov_, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", kBlockSize,
                        outsize);
    state_.final(key_, out);
    *outl = kBlockSize;
    return 1;
}

} // namespace

const MacOps kCmacOps = mac_ops_for<CmacCtx>("CMAC");

} // namespace hwc
