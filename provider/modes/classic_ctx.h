// SPDX-License-Identifier: Apache-2.0
// The base of the classic modes (ECB, CBC, CBC-CTS, CFB*, OFB, CTR): the IV
// as given next to its running copy, padding, stream position, the TLS
// record fields, and the parameter rows these modes share (mirroring
// OpenSSL's default provider). mode_block.cpp, mode_cts.cpp and
// mode_stream.cpp derive from it.
#pragma once

#include "provider/params/cipher_params.h"

namespace hwc {

class ClassicCtx : public KeyedCtx {
public:
    using KeyedCtx::KeyedCtx;
    ~ClassicCtx() override { wipe(oiv_, sizeof oiv_); }

    const uint8_t* iv_param(bool updated) const override { return updated ? iv_ : oiv_; }
    unsigned padding() const override { return padding_ ? 1 : 0; }
    unsigned num() const override { return num_; }
    size_t tls_mac_size() const override { return tls_mac_size_; }
    // Nothing is held back but by ECB and CBC (mode_block.cpp).
    int final(uint8_t*, size_t* outl, size_t) override {
        *outl = 0;
        return ready() ? 1 : 0;
    }

    // Rows (kClassicSets).
    bool set_padding(const OSSL_PARAM& p) { return set_switch(p, padding_, "padding"); }
    bool set_num(const OSSL_PARAM& p);
    bool set_tls_version(const OSSL_PARAM& p);
    bool set_tls_mac_size(const OSSL_PARAM& p);

protected:
    ClassicCtx(const ClassicCtx&) = default;

    // Forget partial blocks and stream position; called by every init.
    virtual void reset_stream() = 0;
    void restart() override;
    bool set_iv(const uint8_t* iv, size_t ivlen) override;
    // Raises the right error and returns false unless the key is set. With
    // no IV ever given, the IV is zero (as with the default provider), or,
    // under "strict-iv", the call is refused with "no iv set".
    bool ready() const { return need_key() && (iv_set_ || iv_length() == 0 || no_iv_given()); }

    bool padding_ = true;
    unsigned num_ = 0;             // position inside the current keystream block
    unsigned tls_version_ = 0;     // "tls-version": > 0 puts CBC in TLS record mode
    size_t tls_mac_size_ = 0;      // "tls-mac-size": MAC bytes in a MAC-then-encrypt record
    uint8_t oiv_[kBlockSize] = {}; // the IV as given ("iv"); iv_ runs ("updated-iv")

private:
    [[gnu::cold]] bool no_iv_given() const;
};

// The classic modes' rows. The key length check is not listed, and the TLS
// record parameters are accepted by every classic mode, as the default
// provider's are (libssl sets them on every record cipher and fails the
// handshake otherwise); only CBC acts on them.
inline constexpr std::array kClassicGets = join(kCipherGets, kBlockGets);
inline constexpr std::array kClassicSets = join(
    unlisted(kCipherSets, {OSSL_CIPHER_PARAM_KEYLEN}),
    std::array{
        CipherSetter{OSSL_CIPHER_PARAM_PADDING, kUint, member<&ClassicCtx::set_padding>},
        CipherSetter{OSSL_CIPHER_PARAM_NUM, kUint, member<&ClassicCtx::set_num>},
        CipherSetter{OSSL_CIPHER_PARAM_TLS_VERSION, kUint, member<&ClassicCtx::set_tls_version>},
        CipherSetter{OSSL_CIPHER_PARAM_TLS_MAC_SIZE, kSizeT,
                     member<&ClassicCtx::set_tls_mac_size>},
    });

} // namespace hwc
