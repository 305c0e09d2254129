// SPDX-License-Identifier: Apache-2.0
// The shared shape of the nonce-misuse-resistant AEADs, SIV (RFC 5297) and
// GCM-SIV (RFC 8452): the tag is computed over the whole message before any
// output exists, so the data arrives in one update (openssl-provider-
// contract.md §2.4). This base owns the EVP-facing state machine: direction,
// AAD-before-data, one data update (unless "speed"), the 16-byte tag (result
// on encrypt, expected value set before decrypt), failure wiping and the
// parameters; mode_siv.cpp and mode_gcm_siv.cpp supply the cryptography.
// The nonce (GCM-SIV's 12 bytes; SIV has none) is KeyedCtx's IV.
#pragma once

#include "provider/modes/aead_ctx.h"
#include "provider/params/cipher_params.h"

namespace hwc {

class SivBaseCtx : public AeadCtx {
public:
    static constexpr size_t kTagLen = 16;

    SivBaseCtx(const ProvCtx* prov, const AlgorithmRow& row) : AeadCtx(prov, row, kTagLen) {}

    int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override;
    int final(uint8_t* out, size_t* outl, size_t outsize) override;

    // Rows (kSivGets, kSivSets).
    bool get_tag(OSSL_PARAM& p);
    bool set_tag(const OSSL_PARAM& p);
    bool set_ivlen(const OSSL_PARAM& p);
    bool set_speed(const OSSL_PARAM& p) { return set_switch(p, speed_, "speed"); }

protected:
    SivBaseCtx(const SivBaseCtx&) = default;

    void restart() override;
    // SIV has no nonce (ivlen 0): EVP may still hand over an IV; it is ignored.
    bool set_iv(const uint8_t* iv, size_t ivlen) override {
        return iv_length() == 0 || KeyedCtx::set_iv(iv, ivlen);
    }

    // ---- what a mode supplies (and schedule_key) --------------------------
    virtual void start_message() = 0;                        // forget AAD
    // One AAD update; false (with an error raised) if the mode refuses it.
    virtual bool add_aad(const uint8_t* in, size_t len) = 0;
    // The data step: encrypt, the tag into tag_ (seal), or decrypt and
    // compare with tag_ in constant time (open; on false the caller wipes
    // `out`); false with an error raised where the mode refuses the input.
    // SivFamily writes both from the mode's synthesize/keystream/accepts.
    virtual bool seal(const uint8_t* in, uint8_t* out, size_t len) = 0;
    virtual bool open(const uint8_t* in, uint8_t* out, size_t len) const = 0;
    bool accepts(size_t, bool) const { return true; } // no length limit

private:
    bool ready() const { return need_key() && need_iv(); }
    bool data_step(const uint8_t* in, uint8_t* out, size_t len);

    bool speed_ = false;
    bool data_done_ = false; // the message's data update has happened
    bool failed_ = false;    // decrypt: the last data step did not authenticate
};

// The base of a SIV-like mode M, which supplies
//   void synthesize(plain, len, tag) const: the synthetic tag over the AAD
//       so far and the plaintext;
//   void keystream(tag, in, out, len) const: the cipher the tag starts;
//   bool accepts(len, encrypt) const: its length limits, if any.
// Neither may consume the AAD state: with "speed" every data update is a
// separate message under the same AAD.
template <class M>
class SivFamily : public FamilyCtx<M, SivBaseCtx> {
public:
    using FamilyCtx<M, SivBaseCtx>::FamilyCtx;

private:
    bool seal(const uint8_t* in, uint8_t* out, size_t len) final {
        const M& m = static_cast<const M&>(*this);
        if (!m.accepts(len, true)) return false;
        m.synthesize(in, len, this->tag_); // before the keystream: in and out may be one buffer
        m.keystream(this->tag_, in, out, len);
        return true;
    }
    bool open(const uint8_t* in, uint8_t* out, size_t len) const final {
        const M& m = static_cast<const M&>(*this);
        if (!m.accepts(len, false)) return false;
        m.keystream(this->tag_, in, out, len);
        uint8_t t[SivBaseCtx::kTagLen];
        m.synthesize(out, len, t);
        const bool ok = tags_equal(t, this->tag_, SivBaseCtx::kTagLen);
        wipe(t, sizeof t);
        return ok;
    }
};

// SIV's and GCM-SIV's rows, mirroring the default provider's AES-SIV and
// (3.2+) AES-GCM-SIV. The nonce length is fixed (0 for SIV, 12 for
// GCM-SIV); it is not in the settable list, but EVP_CTRL_AEAD_SET_IVLEN
// arrives as "ivlen" all the same: a value we cannot honour is refused
// instead of ignored. SIV does not list "ivlen" as gettable either.
inline constexpr std::array kSivGets = join(
    kCipherGets,
    std::array{kTagLenGet,
               CipherGetter{OSSL_CIPHER_PARAM_AEAD_TAG, kOctets, member<&SivBaseCtx::get_tag>}});
inline constexpr std::array kSivSets = join(
    kCipherSets,
    std::array{
        CipherSetter{OSSL_CIPHER_PARAM_IVLEN, kSizeT, member<&SivBaseCtx::set_ivlen>, false},
        CipherSetter{OSSL_CIPHER_PARAM_SPEED, kUint, member<&SivBaseCtx::set_speed>},
        CipherSetter{OSSL_CIPHER_PARAM_AEAD_TAG, kOctets, member<&SivBaseCtx::set_tag>},
    });


} // namespace hwc
