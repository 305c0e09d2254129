// SPDX-License-Identifier: Apache-2.0
// SIV (RFC 5297): deterministic / nonce-misuse-resistant AEAD from CMAC (S2V)
// and CTR. The key is two keys of the cipher's size: K1 keys S2V, K2 keys CTR.
//
// Each AAD update (out == NULL) is one S2V component; a protocol nonce is
// passed as the last one (RFC 5297 §3). The data comes in one update (more
// with "speed"=1, each then a separate message over the same AAD); the tag
// is the synthetic IV V. The EVP state machine is SivBaseCtx's.
#include <cstring>
#include <new>

#include "cores/modes.h"
#include "provider/engines/cmac_engine.h"
#include "provider/module/errors.h"
#include "provider/modes/mode_contexts.h"
#include "provider/modes/siv_base.h"

namespace hwc {

namespace {

// RFC 5297 §7: S2V must not take more than 127 components; the plaintext is
// always the last one.
constexpr unsigned kMaxAadComponents = 126;

class SivCtx final : public SivBaseCtx {
public:
    SivCtx(const ProvCtx* prov, const AlgorithmRow& row) : SivBaseCtx(prov, row) {}
    ~SivCtx() override {
        wipe(&ctr_ks_, sizeof ctr_ks_);
        wipe(d0_, sizeof d0_);
        wipe(d_, sizeof d_);
    }

    CipherCtx* clone() const override { return new (std::nothrow) SivCtx(*this); }

private:
    SivCtx(const SivCtx&) = default;

    size_t nonce_len() const override { return 0; }
    bool set_key(const uint8_t* key, size_t keylen) override;
    void set_nonce(const uint8_t*) override {}
    void start_message() override {
        std::memcpy(d_, d0_, sizeof d_);
        components_ = 0;
    }
    bool add_aad(const uint8_t* in, size_t len) override;
    bool seal(const uint8_t* in, uint8_t* out, size_t len, uint8_t tag[kTagLen]) override;
    bool open(const uint8_t* in, uint8_t* out, size_t len, const uint8_t tag[kTagLen]) override;

    void s2v_final(const uint8_t* p, size_t len, uint8_t v[kBlockSize]) const;
    void ctr_crypt(const uint8_t v[kBlockSize], const uint8_t* in, uint8_t* out, size_t len) const;

    CmacKey mac_;                 // K1
    KeySchedule ctr_ks_{};        // K2
    uint8_t d0_[kBlockSize] = {}; // CMAC_K1(0^128): S2V's starting value
    uint8_t d_[kBlockSize] = {};  // S2V accumulator after the AAD so far
    unsigned components_ = 0;
};

bool SivCtx::set_key(const uint8_t* key, size_t keylen) {
    const size_t half = keylen / 2;
    wipe(&ctr_ks_, sizeof ctr_ks_);
    if (!mac_.set(core_, key, half) || !core_->set_key(ctr_ks_, key + half, half)) {
        mac_.clear();
        wipe(&ctr_ks_, sizeof ctr_ks_);
        return false;
    }
    static const uint8_t zero[kBlockSize] = {};
    cmac(mac_, zero, sizeof zero, d0_);
    start_message();
    return true;
}

bool SivCtx::add_aad(const uint8_t* in, size_t len) {
    if (components_ >= kMaxAadComponents) {
        HWC_RAISE(prov_, kErrInvalidParam, "SIV takes at most %u associated data items",
                  kMaxAadComponents);
        return false;
    }
    uint8_t m[kBlockSize];
    cmac(mac_, in, len, m);
    cmac_dbl(d_);
    for (size_t i = 0; i < kBlockSize; ++i) d_[i] = static_cast<uint8_t>(d_[i] ^ m[i]);
    wipe(m, sizeof m);
    ++components_;
    return true;
}

// The last S2V step over the plaintext, from a copy of the AAD state.
void SivCtx::s2v_final(const uint8_t* p, size_t len, uint8_t v[kBlockSize]) const {
    uint8_t t[kBlockSize];
    CmacState st;
    if (len >= kBlockSize) {
        // T = P xorend D: D is folded into the last 16 bytes only.
        const size_t head = len - kBlockSize;
        st.update(mac_, p, head);
        for (size_t i = 0; i < kBlockSize; ++i) t[i] = static_cast<uint8_t>(p[head + i] ^ d_[i]);
    } else {
        // T = dbl(D) xor pad(P), pad = P || 10*.
        std::memcpy(t, d_, kBlockSize);
        cmac_dbl(t);
        for (size_t i = 0; i < len; ++i) t[i] = static_cast<uint8_t>(t[i] ^ p[i]);
        t[len] = static_cast<uint8_t>(t[len] ^ 0x80);
    }
    st.update(mac_, t, kBlockSize);
    st.final(mac_, v);
    wipe(t, sizeof t);
}

void SivCtx::ctr_crypt(const uint8_t v[kBlockSize], const uint8_t* in, uint8_t* out,
                       size_t len) const {
    // Q = V with bits 63 and 31 (from the right) of each 64-bit half cleared,
    // so 64- and 32-bit counter implementations agree (RFC 5297 §2.5).
    uint8_t q[kBlockSize];
    std::memcpy(q, v, kBlockSize);
    q[8] &= 0x7f;
    q[12] &= 0x7f;
    const size_t blocks = len / kBlockSize;
    ctr(*core_, ctr_ks_, q, in, out, blocks);
    const size_t tail = len - blocks * kBlockSize;
    if (tail != 0) {
        static const uint8_t zero[kBlockSize] = {};
        uint8_t ks[kBlockSize];
        ctr(*core_, ctr_ks_, q, zero, ks, 1);
        in += blocks * kBlockSize;
        out += blocks * kBlockSize;
        for (size_t i = 0; i < tail; ++i) out[i] = static_cast<uint8_t>(in[i] ^ ks[i]);
        wipe(ks, sizeof ks);
    }
    wipe(q, sizeof q);
}

bool SivCtx::seal(const uint8_t* in, uint8_t* out, size_t len, uint8_t tag[kTagLen]) {
    s2v_final(in, len, tag); // before CTR: in and out may be the same buffer
    ctr_crypt(tag, in, out, len);
    return true;
}

bool SivCtx::open(const uint8_t* in, uint8_t* out, size_t len, const uint8_t tag[kTagLen]) {
    ctr_crypt(tag, in, out, len);
    uint8_t v[kBlockSize];
    s2v_final(out, len, v);
    const bool ok = tags_equal(v, tag);
    wipe(v, sizeof v);
    return ok;
}

} // namespace

const ModeOps kSivModeOps = {
    [](const ProvCtx* prov, const AlgorithmRow& row) -> CipherCtx* {
        return new (std::nothrow) SivCtx(prov, row);
    },
    &SivBaseCtx::siv_gettable_params,
    &SivBaseCtx::settable_params,
};

} // namespace hwc
