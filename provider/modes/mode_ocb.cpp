// SPDX-License-Identifier: Apache-2.0
// OCB (RFC 7253) for AES, SM4 and Twofish: streaming AAD and data with the
// default provider's block-granular output (only whole blocks leave update;
// final emits the partial tail and computes or checks the tag).
//
// Key setup computes L_* = E(0), L_$ = double(L_*) and the first levels of
// L_i = double^(i+1)(L_$); further levels are added when a block index first
// needs them (64 KiB covers a message up to 64 KiB), so re-keying per short
// message -- what `openssl speed` and TLS do -- does not pay for 64 doublings.
// The per-block offset step is one table XOR chosen by ntz(block index); the
// index is public, so the lookup leaks nothing. Whole data blocks go to the core's OCB kernel
// (cores/modes.h: its own, or the generic batched one on its ECB kernel); AAD
// blocks are batched onto the ECB kernel here.
//
// The nonce is applied lazily at the first update or final (as the default
// provider does), because the tag length is part of it and may be set after
// the IV. Deliberate differences from the default provider: a tag length of
// 0 is refused when set (the default accepts it and fails later), reading
// the tag before final fails instead of returning stale bytes, changing the
// tag length once a message has started is refused, and EVP_Cipher() follows
// update/final (the default provider's raw path crashes on AAD).
#include <openssl/crypto.h>
#include <openssl/params.h>

#include <bit>
#include <cstring>

#include "cores/modes.h"
#include "provider/modes/aead_ctx.h"
#include "provider/modes/mode_contexts.h"
#include "provider/module/errors.h"
#include "provider/params/cipher_params.h"

namespace hwc {

namespace {

constexpr size_t kLevels = 64;        // ntz of any non-zero 64-bit block index
constexpr size_t kLevelsAtKeySetup = 12; // block indices below 2^12
constexpr size_t kBatch = 32;  // AAD blocks per core call (512 B of stack: offsets, then data)

// Through a local block: `out` may be `a` or `b`, and without the copy that
// possible overlap kept the compiler to 16 byte-wise steps; this way it is one
// 16-byte XOR and one 16-byte store, which a following whole-block load can
// take straight from the store buffer.
inline void xor16(uint8_t* out, const uint8_t* a, const uint8_t* b) {
    uint8_t t[kBlockSize];
    for (size_t i = 0; i < kBlockSize; ++i) t[i] = static_cast<uint8_t>(a[i] ^ b[i]);
    std::memcpy(out, t, kBlockSize);
}

// Multiplication by x in GF(2^128), big-endian bit order, without branches.
void dbl(uint8_t out[kBlockSize], const uint8_t in[kBlockSize]) {
    const uint8_t carry = static_cast<uint8_t>(0 - (in[0] >> 7));
    for (size_t i = 0; i < kBlockSize - 1; ++i)
        out[i] = static_cast<uint8_t>(in[i] << 1 | in[i + 1] >> 7);
    out[kBlockSize - 1] = static_cast<uint8_t>(in[kBlockSize - 1] << 1 ^ (carry & 0x87));
}

class OcbCtx final : public FamilyCtx<OcbCtx, AeadCtx> {
public:
    OcbCtx(const ProvCtx* prov, const AlgorithmRow& row) : FamilyCtx(prov, row, 16) {
        params_first_ = true;
    }
    ~OcbCtx() override {
        wipe_all(lstar_, ldollar_, l_, stretch_);
        wipe_message();
    }

    int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override;
    int final(uint8_t* out, size_t* outl, size_t outsize) override;

    bool get_tag(OSSL_PARAM& p);
    bool set_tag(const OSSL_PARAM& p);
    bool set_ivlen(const OSSL_PARAM& p);

private:
    // none: no nonce; pending: nonce given, not yet applied; active: message
    // under way; finished: tag done, a new nonce is needed.
    enum class IvState : uint8_t { none, pending, active, finished };

    void restart() override {
        tag_ready_ = false;
        wipe_message();
        // A message under way restarts; a finished one still needs a new nonce.
        if (iv_state_ == IvState::active) iv_state_ = IvState::pending;
    }
    bool set_iv(const uint8_t* iv, size_t ivlen) override;
    bool schedule_key(const uint8_t* key, size_t keylen) override;
    bool ready();
    void start_message();
    void wipe_message() {
        wipe_all(data_, aad_offset_, aad_sum_, data_buf_, aad_buf_);
        data_len_ = aad_len_ = 0;
        aad_blocks_ = 0;
    }
    const uint8_t* l_for(uint64_t index) const { return l_[std::countr_zero(index)]; }
    // Makes L_0..L_k valid for every block index up to `last` (ntz(i) <= log2(i)).
    void extend_levels(uint64_t last) {
        const size_t need = static_cast<size_t>(std::bit_width(last));
        for (; l_levels_ < need; ++l_levels_) dbl(l_[l_levels_], l_[l_levels_ - 1]);
    }
    void crypt_blocks(const uint8_t* in, uint8_t* out, size_t n);
    void hash_blocks(const uint8_t* in, size_t n);

    IvState iv_state_ = IvState::none;
    uint8_t lstar_[kBlockSize] = {};
    uint8_t ldollar_[kBlockSize] = {};
    uint8_t l_[kLevels][kBlockSize] = {};
    size_t l_levels_ = 0; // L_0..L_{l_levels_-1} are valid
    // Stretch of the last nonce (start_message), valid for this key only.
    uint8_t stretch_[24] = {};
    uint8_t stretch_nonce_[kBlockSize] = {}; // the formatted nonce it belongs to
    bool stretch_valid_ = false;
    // Message state: data offset, checksum and block count (as the core's OCB
    // kernel carries them across calls; its L pointer is set at each call, so
    // that a copy of the context never points into the original), AAD offset
    // and sum, and the partial blocks held back until more input or final.
    OcbState data_{};
    uint8_t aad_offset_[kBlockSize] = {};
    uint8_t aad_sum_[kBlockSize] = {};
    uint8_t data_buf_[kBlockSize] = {};
    uint8_t aad_buf_[kBlockSize] = {};
    size_t data_len_ = 0;
    size_t aad_len_ = 0;
    uint64_t aad_blocks_ = 0;

public:
    // The default provider's AES-OCB lists (OpenSSL 3.0).
    static constexpr ContextTables kParams{
        join(kCipherGets, kAeadGets, kTagGets<OcbCtx>),
        join(kCipherSets, kTagSets<OcbCtx>)};
};

bool OcbCtx::set_iv(const uint8_t* iv, size_t ivlen) {
    if (ivlen < 1 || ivlen > 15)
        return HWC_FAIL(prov_, kErrInvalidIvLength, "ocb nonces are 1..15 bytes, not %zu", ivlen);
    ivlen_ = ivlen;
    std::memcpy(iv_, iv, ivlen);
    iv_state_ = IvState::pending;
    return true;
}

bool OcbCtx::schedule_key(const uint8_t* key, size_t keylen) {
    wipe(stretch_, sizeof stretch_);
    stretch_valid_ = false;
    if (!KeyedCtx::schedule_key(key, keylen)) return false;
    std::memset(lstar_, 0, sizeof lstar_);
    ecb_encrypt(*core_, ks_, lstar_, lstar_, 1);
    dbl(ldollar_, lstar_);
    // Levels the old key extended beyond what the new one computes now.
    if (l_levels_ > kLevelsAtKeySetup)
        wipe(l_[kLevelsAtKeySetup], (l_levels_ - kLevelsAtKeySetup) * kBlockSize);
    dbl(l_[0], ldollar_);
    l_levels_ = 1;
    extend_levels((uint64_t{1} << kLevelsAtKeySetup) - 1);
    return true;
}

bool OcbCtx::ready() {
    if (!need_key()) return false;
    switch (iv_state_) {
    case IvState::none: return HWC_FAIL(prov_, kErrNoIvSet);
    case IvState::finished:
        return HWC_FAIL(prov_, kErrNoIvSet, "nonce already used: set a new one");
    case IvState::pending: start_message(); return true;
    case IvState::active: return true;
    }
    return false;
}

// RFC 7253 §4.2: Offset_0 from the formatted nonce, via Ktop and Stretch.
void OcbCtx::start_message() {
    wipe_message();
    uint8_t nonce[kBlockSize] = {};
    nonce[0] = static_cast<uint8_t>((taglen_ * 8 % 128) << 1);
    nonce[15 - ivlen_] |= 1;
    std::memcpy(nonce + kBlockSize - ivlen_, iv_, ivlen_);
    const unsigned bottom = nonce[15] & 0x3F;
    nonce[15] &= 0xC0;
    // Stretch = Ktop || (Ktop[1..64] ^ Ktop[9..72]) depends on the nonce
    // without its last 6 bits: consecutive nonces (a counter) share it, so
    // it is kept for the next message (RFC 7253 §4.2 notes this) and the
    // cipher call is saved. The formatted nonce is public; Stretch is not,
    // and is wiped with the key.
    if (!stretch_valid_ || std::memcmp(stretch_nonce_, nonce, kBlockSize) != 0) {
        ecb_encrypt(*core_, ks_, nonce, stretch_, 1); // Ktop
        for (size_t i = 0; i < 8; ++i)
            stretch_[16 + i] = static_cast<uint8_t>(stretch_[i] ^ stretch_[i + 1]);
        std::memcpy(stretch_nonce_, nonce, kBlockSize);
        stretch_valid_ = true;
    }
    const size_t byte = bottom / 8;
    const unsigned bit = bottom % 8;
    for (size_t i = 0; i < kBlockSize; ++i) {
        data_.offset[i] = bit == 0 ? stretch_[i + byte]
                                   : static_cast<uint8_t>(stretch_[i + byte] << bit |
                                                          stretch_[i + byte + 1] >> (8 - bit));
    }
    wipe(nonce, sizeof nonce);
    iv_state_ = IvState::active;
}

// Whole data blocks through the core's OCB kernel (cores/modes.h).
void OcbCtx::crypt_blocks(const uint8_t* in, uint8_t* out, size_t n) {
    extend_levels(data_.blocks + n);
    data_.l = l_;
    if (encrypt_) ocb_encrypt(*core_, ks_, data_, in, out, n);
    else ocb_decrypt(*core_, ks_, data_, in, out, n);
}

// Whole AAD blocks: Sum ^= E(A_i ^ Offset_i).
void OcbCtx::hash_blocks(const uint8_t* in, size_t n) {
    uint8_t buf[kBatch * kBlockSize];
    extend_levels(aad_blocks_ + n);
    const size_t used = (n < kBatch ? n : kBatch) * kBlockSize; // what the wipe must cover
    while (n != 0) {
        const size_t m = n < kBatch ? n : kBatch;
        // The offsets first, each from the one before it through buf (a
        // running offset in a member or local gets split into 16 byte
        // registers by the compiler), then the AAD blocks XORed in.
        const uint8_t* prev = aad_offset_;
        for (size_t j = 0; j < m; ++j) {
            xor16(buf + j * kBlockSize, prev, l_for(++aad_blocks_));
            prev = buf + j * kBlockSize;
        }
        std::memcpy(aad_offset_, prev, kBlockSize);
        for (size_t j = 0; j < m; ++j)
            xor16(buf + j * kBlockSize, buf + j * kBlockSize, in + j * kBlockSize);
        core_->encrypt_blocks(ks_, buf, buf, m);
        for (size_t j = 0; j < m; ++j) xor16(aad_sum_, aad_sum_, buf + j * kBlockSize);
        in += m * kBlockSize;
        n -= m;
    }
    wipe(buf, used);
}

int OcbCtx::update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl) {
    *outl = 0;
    if (!ready()) return 0;
    if (inl == 0) return 1;
    const bool aad = out == nullptr;
    uint8_t* buf = aad ? aad_buf_ : data_buf_;
    size_t& held = aad ? aad_len_ : data_len_;
    const size_t produced = (held + inl) / kBlockSize * kBlockSize;
    if (!aad && outsize < produced)
        return HWC_FAIL(prov_, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", produced,
                        outsize);
    if (held != 0) { // complete the held-back block first
        const size_t take = inl < kBlockSize - held ? inl : kBlockSize - held;
        std::memcpy(buf + held, in, take);
        held += take;
        in += take;
        inl -= take;
        if (held < kBlockSize) return 1;
        if (aad) {
            hash_blocks(buf, 1);
        } else {
            crypt_blocks(buf, out, 1);
            out += kBlockSize;
        }
        held = 0;
    }
    const size_t whole = inl / kBlockSize;
    if (aad) hash_blocks(in, whole);
    else crypt_blocks(in, out, whole);
    held = inl % kBlockSize;
    std::memcpy(buf, in + whole * kBlockSize, held);
    *outl = produced;
    return 1;
}

// RFC 7253 §4.2/§4.3: the partial blocks, then
// Tag = E(Checksum ^ Offset ^ L_$) ^ HASH(K, A).
int OcbCtx::final(uint8_t* out, size_t* outl, size_t outsize) {
    *outl = 0;
    if (!ready()) return 0;
    if (!encrypt_ && !tag_set_) return HWC_FAIL(prov_, kErrTagNotSet);
    const size_t tail = data_len_;
    if (tail != 0 && (out == nullptr || outsize < tail))
        return HWC_FAIL(prov_, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", tail, outsize);
    if (tail != 0) {
        uint8_t pad[kBlockSize];
        xor16(data_.offset, data_.offset, lstar_);
        ecb_encrypt(*core_, ks_, data_.offset, pad, 1);
        const uint8_t* plain = encrypt_ ? data_buf_ : out;
        for (size_t i = 0; i < tail; ++i) out[i] = static_cast<uint8_t>(data_buf_[i] ^ pad[i]);
        for (size_t i = 0; i < tail; ++i) data_.checksum[i] ^= plain[i];
        data_.checksum[tail] ^= 0x80;
        wipe(pad, sizeof pad);
    }
    if (aad_len_ != 0) {
        uint8_t blk[kBlockSize] = {};
        std::memcpy(blk, aad_buf_, aad_len_);
        blk[aad_len_] = 0x80;
        xor16(aad_offset_, aad_offset_, lstar_);
        xor16(blk, blk, aad_offset_);
        ecb_encrypt(*core_, ks_, blk, blk, 1);
        xor16(aad_sum_, aad_sum_, blk);
    }
    uint8_t full[kBlockSize];
    xor16(full, data_.checksum, data_.offset);
    xor16(full, full, ldollar_);
    ecb_encrypt(*core_, ks_, full, full, 1);
    xor16(full, full, aad_sum_);
    iv_state_ = IvState::finished; // never reuse the nonce
    bool ok = true;
    if (encrypt_) {
        std::memcpy(tag_, full, kBlockSize);
        tag_ready_ = true;
    } else {
        ok = CRYPTO_memcmp(full, tag_, taglen_) == 0;
        tag_set_ = false;
        wipe(tag_, sizeof tag_);
        // Blocks released by update cannot be recalled; the tail can.
        if (!ok && tail != 0) wipe(out, tail);
    }
    wipe(full, sizeof full);
    wipe_message();
    if (!ok) return HWC_FAIL(prov_, kErrTagMismatch);
    *outl = tail;
    return 1;
}

bool OcbCtx::get_tag(OSSL_PARAM& p) {
    if (p.data_type != OSSL_PARAM_OCTET_STRING || p.data == nullptr || p.data_size != taglen_)
        return HWC_FAIL(prov_, kErrInvalidTagLength, "request exactly the %zu-byte tag", taglen_);
    if (!encrypt_ || !tag_ready_)
        return HWC_FAIL(prov_, kErrTagNotSet, "no tag computed (finish encrypting first)");
    std::memcpy(p.data, tag_, taglen_);
    p.return_size = taglen_;
    return true;
}

// A tag (decrypting, of the tag length) or, with no data, the tag length.
bool OcbCtx::set_tag(const OSSL_PARAM& p) {
    const size_t n = p.data_size;
    if (p.data_type != OSSL_PARAM_OCTET_STRING)
        return HWC_FAIL(prov_, kErrInvalidParam, "tag must be an octet string");
    if (p.data == nullptr) {
        if (n < 1 || n > kBlockSize)
            return HWC_FAIL(prov_, kErrInvalidTagLength, "ocb tags are 1..16 bytes, not %zu", n);
        // The tag length is formatted into the nonce: fixed once a message runs.
        if (iv_state_ == IvState::active && n != taglen_)
            return HWC_FAIL(prov_, kErrInvalidTagLength, "set the tag length before the data");
        taglen_ = n;
        return true;
    }
    if (encrypt_) return HWC_FAIL(prov_, kErrTagNotNeeded);
    if (n != taglen_)
        return HWC_FAIL(prov_, kErrInvalidTagLength, "expected a %zu-byte tag, got %zu", taglen_,
                        n);
    std::memcpy(tag_, p.data, taglen_);
    tag_set_ = true;
    return true;
}

bool OcbCtx::set_ivlen(const OSSL_PARAM& p) {
    size_t sz;
    if (!OSSL_PARAM_get_size_t(&p, &sz) || sz < 1 || sz > 15)
        return HWC_FAIL(prov_, kErrInvalidIvLength, "ocb nonces are 1..15 bytes");
    if (sz != ivlen_) { // a nonce of the old length no longer applies
        ivlen_ = sz;
        iv_state_ = IvState::none;
        wipe_message();
    }
    return true;
}

} // namespace

const ModeOps kOcbModeOps = mode_ops_for<OcbCtx>();

} // namespace hwc
