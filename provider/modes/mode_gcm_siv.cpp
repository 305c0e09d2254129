// SPDX-License-Identifier: Apache-2.0
// GCM-SIV (RFC 8452): nonce-misuse-resistant AEAD from POLYVAL and a 32-bit
// little-endian CTR. Names as in OpenSSL 3.2+ (AES-128/192/256-GCM-SIV);
// the nonce is exactly 12 bytes, the tag exactly 16.
//
// Per nonce, the key-generating key derives the message-authentication key
// (POLYVAL) and the message-encryption key (RFC 8452 §4). AAD updates
// (out == NULL) are concatenated; the data comes in one update (more with
// "speed"=1), as in SivBaseCtx. POLYVAL runs on the GHASH core
// (polyval_ghash.h), so a hardware GHASH core speeds up GCM-SIV too.
#include <cstring>

#include "cores/byte_order.h"
#include "cores/modes.h"
#include "provider/engines/polyval_ghash.h"
#include "provider/modes/mode_contexts.h"
#include "provider/modes/siv_base.h"
#include "provider/module/errors.h"
#include "provider/module/provider.h"

namespace hwc {

namespace {

constexpr size_t kNonceLen = 12;
// RFC 8452 §6: plaintext and AAD are each at most 2^36 bytes.
constexpr uint64_t kMaxLen = uint64_t{1} << 36;

// KeyedCtx's key schedule is the key-generating key; the nonce is its IV.
class GcmSivCtx final : public SivFamily<GcmSivCtx> {
public:
    GcmSivCtx(const ProvCtx* prov, const AlgorithmRow& row)
        : SivFamily(prov, row), ghash_(prov->cores.ghash) {}
    ~GcmSivCtx() override { wipe(&enc_ks_, sizeof enc_ks_); }

private:
    bool schedule_key(const uint8_t* key, size_t keylen) override;
    bool set_iv(const uint8_t* iv, size_t ivlen) override;
    void start_message() override {
        aad_.reset();
        aad_len_ = 0;
    }
    bool add_aad(const uint8_t* in, size_t len) override;

public:
    bool accepts(size_t len, bool encrypt) const {
        return static_cast<uint64_t>(len) <= kMaxLen ||
               HWC_FAIL(prov_, kErrInvalidParam, "GCM-SIV %s is limited to 2^36 bytes",
                        encrypt ? "plaintext" : "ciphertext");
    }
    void synthesize(const uint8_t* pt, size_t len, uint8_t tag[kTagLen]) const;
    void keystream(const uint8_t tag[kTagLen], const uint8_t* in, uint8_t* out, size_t len) const;

private:
    void derive();

    const GhashCore* ghash_;
    KeySchedule enc_ks_{}; // message-encryption key (per nonce)
    Polyval aad_;          // keyed with the message-authentication key; holds the AAD
    uint64_t aad_len_ = 0;

public:
    static constexpr ContextTables kParams{kSivGets, kSivSets};
};

bool GcmSivCtx::schedule_key(const uint8_t* key, size_t keylen) {
    if (ghash_ == nullptr || !core_->set_key(ks_, key, keylen)) return refused();
    if (iv_set_) derive(); // a new key under the nonce already given
    return true;
}

bool GcmSivCtx::set_iv(const uint8_t* iv, size_t ivlen) {
    if (!SivBaseCtx::set_iv(iv, ivlen)) return false;
    if (key_set_) derive();
    return true;
}

// RFC 8452 §4: block i = LE32(i) || nonce, encrypted under the key-generating
// key; the first 8 bytes of blocks 0,1 make the authentication key and those
// of blocks 2.. the encryption key (16, 24 or 32 bytes: the cipher's size).
void GcmSivCtx::derive() {
    const size_t enc_len = row_->key_bits / 8;
    const size_t nblocks = 2 + enc_len / 8;
    uint8_t in[6 * 16] = {};
    uint8_t out[6 * 16];
    for (size_t i = 0; i < nblocks; ++i) {
        in[16 * i] = static_cast<uint8_t>(i);
        std::memcpy(in + 16 * i + 4, iv_, kNonceLen);
    }
    ecb_encrypt(*core_, ks_, in, out, nblocks);
    uint8_t auth[16], enc[32];
    for (size_t i = 0; i < 2; ++i) std::memcpy(auth + 8 * i, out + 16 * i, 8);
    for (size_t i = 2; i < nblocks; ++i) std::memcpy(enc + 8 * (i - 2), out + 16 * i, 8);
    aad_.set_key(*ghash_, auth);
    aad_len_ = 0;
    wipe(&enc_ks_, sizeof enc_ks_);
    core_->set_key(enc_ks_, enc, enc_len); // a length the core already accepted
    wipe_all(out, auth, enc);
}

bool GcmSivCtx::add_aad(const uint8_t* in, size_t len) {
    if (len > kMaxLen - aad_len_)
        return HWC_FAIL(prov_, kErrInvalidParam, "GCM-SIV AAD is limited to 2^36 bytes");
    aad_.absorb(in, len);
    aad_len_ += len;
    return true;
}

// tag = E_enc((POLYVAL(A || P || lengths) xor nonce) with bit 127 cleared),
// from a copy of the AAD state.
void GcmSivCtx::synthesize(const uint8_t* pt, size_t len, uint8_t tag[kTagLen]) const {
    Polyval pv = aad_;
    pv.pad();
    pv.absorb(pt, len);
    pv.pad();
    uint8_t lengths[16];
    store_le64(lengths, aad_len_ * 8);
    store_le64(lengths + 8, static_cast<uint64_t>(len) * 8);
    pv.absorb(lengths, sizeof lengths);
    uint8_t s[16];
    pv.result(s);
    for (size_t i = 0; i < kNonceLen; ++i) s[i] = static_cast<uint8_t>(s[i] ^ iv_[i]);
    s[15] &= 0x7f;
    ecb_encrypt(*core_, enc_ks_, s, tag, 1);
    wipe(s, sizeof s);
}

// CTR with the tag (top bit set) as initial block and a 32-bit little-endian
// counter in its first four bytes, wrapping mod 2^32. Counter blocks are
// built in a batch and encrypted in one core call (cores parallelise ECB).
void GcmSivCtx::keystream(const uint8_t tag[kTagLen], const uint8_t* in, uint8_t* out,
                          size_t len) const {
    constexpr size_t kBatch = 32;
    uint8_t ks[kBatch * 16];
    uint8_t cb[16];
    std::memcpy(cb, tag, 16);
    cb[15] |= 0x80;
    uint32_t ctr = static_cast<uint32_t>(cb[0]) | static_cast<uint32_t>(cb[1]) << 8 |
                   static_cast<uint32_t>(cb[2]) << 16 | static_cast<uint32_t>(cb[3]) << 24;
    size_t used = 0;
    while (len != 0) {
        const size_t nb = (len + 15) / 16 < kBatch ? (len + 15) / 16 : kBatch;
        for (size_t b = 0; b < nb; ++b, ++ctr) {
            uint8_t* blk = ks + 16 * b;
            std::memcpy(blk, cb, 16);
            blk[0] = static_cast<uint8_t>(ctr);
            blk[1] = static_cast<uint8_t>(ctr >> 8);
            blk[2] = static_cast<uint8_t>(ctr >> 16);
            blk[3] = static_cast<uint8_t>(ctr >> 24);
        }
        ecb_encrypt(*core_, enc_ks_, ks, ks, nb);
        const size_t n = len < nb * 16 ? len : nb * 16;
        for (size_t i = 0; i < n; ++i) out[i] = static_cast<uint8_t>(in[i] ^ ks[i]);
        used = used > nb ? used : nb;
        in += n;
        out += n;
        len -= n;
    }
    wipe(ks, used * 16);
    wipe(cb, sizeof cb);
}

} // namespace

const ModeOps kGcmSivModeOps = mode_ops_for<GcmSivCtx>();

} // namespace hwc
