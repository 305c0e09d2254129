// SPDX-License-Identifier: Apache-2.0
// SIV (RFC 5297): deterministic / nonce-misuse-resistant AEAD from CMAC (S2V)
// and CTR. The key is two keys of the cipher's size: K1 keys S2V, K2 keys CTR.
//
// Each AAD update (out == NULL) is one S2V component; a protocol nonce is
// passed as the last one (RFC 5297 §3). The data comes in one update (more
// with "speed"=1, each then a separate message over the same AAD); the tag
// is the synthetic IV V. The EVP state machine is SivBaseCtx's.
#include <cstring>

#include "cores/modes.h"
#include "provider/engines/cmac_engine.h"
#include "provider/modes/mode_contexts.h"
#include "provider/modes/siv_base.h"
#include "provider/module/errors.h"

namespace hwc {

namespace {

// RFC 5297 §7: S2V must not take more than 127 components; the plaintext is
// always the last one.
constexpr unsigned kMaxAadComponents = 126;

// K1 keys S2V (mac_), K2 the CTR mode (KeyedCtx's key schedule).
class SivCtx final : public SivFamily<SivCtx> {
public:
    using SivFamily::SivFamily;
    ~SivCtx() override { wipe_all(d0_, d_); }

private:
    bool schedule_key(const uint8_t* key, size_t keylen) override;
    void start_message() override {
        std::memcpy(d_, d0_, sizeof d_);
        components_ = 0;
    }
    bool add_aad(const uint8_t* in, size_t len) override;

public:
    void synthesize(const uint8_t* p, size_t len, uint8_t v[kTagLen]) const;
    void keystream(const uint8_t v[kTagLen], const uint8_t* in, uint8_t* out, size_t len) const;

private:

    CmacKey mac_;                 // K1
    uint8_t d0_[kBlockSize] = {}; // CMAC_K1(0^128): S2V's starting value
    uint8_t d_[kBlockSize] = {};  // S2V accumulator after the AAD so far
    unsigned components_ = 0;

public:
    // SIV has no nonce: "ivlen" (0) is answered but not listed.
    static constexpr ContextTables kParams{unlisted(kSivGets, {OSSL_CIPHER_PARAM_IVLEN}), kSivSets};
};

bool SivCtx::schedule_key(const uint8_t* key, size_t keylen) {
    const size_t half = keylen / 2;
    if (!mac_.set(core_, key, half) || !core_->set_key(ks_, key + half, half)) {
        mac_.clear();
        return refused();
    }
    static const uint8_t zero[kBlockSize] = {};
    cmac(mac_, zero, sizeof zero, d0_);
    start_message();
    return true;
}

bool SivCtx::add_aad(const uint8_t* in, size_t len) {
    if (components_ >= kMaxAadComponents)
        return HWC_FAIL(prov_, kErrInvalidParam, "SIV takes at most %u associated data items",
                        kMaxAadComponents);
    uint8_t m[kBlockSize];
    cmac(mac_, in, len, m);
    cmac_dbl(d_);
    for (size_t i = 0; i < kBlockSize; ++i) d_[i] = static_cast<uint8_t>(d_[i] ^ m[i]);
    wipe(m, sizeof m);
    ++components_;
    return true;
}

// The last S2V step over the plaintext, from a copy of the AAD state.
void SivCtx::synthesize(const uint8_t* p, size_t len, uint8_t v[kTagLen]) const {
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

void SivCtx::keystream(const uint8_t v[kTagLen], const uint8_t* in, uint8_t* out,
                       size_t len) const {
    // Q = V with bits 63 and 31 (from the right) of each 64-bit half cleared,
    // so 64- and 32-bit counter implementations agree (RFC 5297 §2.5).
    uint8_t q[kBlockSize];
    std::memcpy(q, v, kBlockSize);
    q[8] &= 0x7f;
    q[12] &= 0x7f;
    const size_t blocks = len / kBlockSize;
    ctr(*core_, ks_, q, in, out, blocks);
    const size_t tail = len - blocks * kBlockSize;
    if (tail != 0) {
        static const uint8_t zero[kBlockSize] = {};
        uint8_t ks[kBlockSize];
        ctr(*core_, ks_, q, zero, ks, 1);
        in += blocks * kBlockSize;
        out += blocks * kBlockSize;
        for (size_t i = 0; i < tail; ++i) out[i] = static_cast<uint8_t>(in[i] ^ ks[i]);
        wipe(ks, sizeof ks);
    }
    wipe(q, sizeof q);
}

} // namespace

const ModeOps kSivModeOps = mode_ops_for<SivCtx>();

} // namespace hwc
