// SPDX-License-Identifier: Apache-2.0
// AES key wrap: KW (RFC 3394), KWP (RFC 5649) and their inverse-cipher
// variants (NIST SP 800-38F; OpenSSL's AES-*-WRAP-INV and -WRAP-PAD-INV).
//
// Each update wraps or unwraps one whole key on its own (OpenSSL's
// behaviour: nothing is carried between updates, final emits nothing).
// `out == NULL` asks for the output size. The wrapping function W runs the
// cipher "forward"; the -INV variants use the AES inverse cipher as that
// forward function, so they wrap with AES decryption and unwrap with AES
// encryption. Both directions come from one key schedule.
// Length rules and errors follow the default provider (3.0): KW input a
// multiple of 8 and at least 16 bytes; unwrap input a multiple of 8 and at
// least 16 (24 for KW); a failed integrity check wipes the output.
// W is a chain of single-block steps, so there is no batching to do here.
#include <openssl/crypto.h>

#include <cstring>

#include "cores/byte_order.h"
#include "cores/modes.h"
#include "provider/modes/mode_contexts.h"
#include "provider/module/errors.h"
#include "provider/params/cipher_params.h"

namespace hwc {

namespace {

constexpr size_t kSemiblock = 8;
// RFC 5649 encodes the key length in 32 bits; OpenSSL caps both variants
// below 2^31 bytes.
constexpr size_t kMaxInput = size_t(1) << 31;

constexpr uint8_t kKwDefaultIv[8] = {0xA6, 0xA6, 0xA6, 0xA6, 0xA6, 0xA6, 0xA6, 0xA6};
constexpr uint8_t kKwpDefaultIv[4] = {0xA6, 0x59, 0x59, 0xA6};

// XORs the 64-bit big-endian step counter t into A.
void xor_counter(uint8_t a[kSemiblock], uint64_t t) {
    for (int i = 7; i >= 0; --i, t >>= 8) a[i] ^= static_cast<uint8_t>(t);
}

// The IV is the custom ICV: 8 bytes (KW) or 4 (KWP).
class WrapCtx final : public FamilyCtx<WrapCtx, KeyedCtx> {
public:
    WrapCtx(const ProvCtx* prov, const AlgorithmRow& row)
        : FamilyCtx(prov, row), pad_(row.mode == Mode::wrap_pad || row.mode == Mode::wrap_pad_inv),
          inverse_(row.mode == Mode::wrap_inv || row.mode == Mode::wrap_pad_inv) {}

    // The default provider's generic answers: padding says whether this is
    // KWP, num is 0, both IVs are the custom ICV (zeros when none was given).
    unsigned padding() const override { return pad_ ? 1 : 0; }

    int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override;

private:
    const uint8_t* icv() const { return iv_set_ ? iv_ : pad_ ? kKwpDefaultIv : kKwDefaultIv; }

    // The block function W uses (forward), or its inverse.
    void block(uint8_t b[kBlockSize], bool forward) const {
        if (forward != inverse_) core_->encrypt_blocks(ks_, b, b, 1);
        else core_->decrypt_blocks(ks_, b, b, 1);
    }

    void wrap_rounds(const uint8_t a[kSemiblock], uint8_t* out, size_t n) const;
    void unwrap_rounds(const uint8_t* in, uint8_t a[kSemiblock], uint8_t* r, size_t n) const;
    int wrap(uint8_t* out, size_t* outl, const uint8_t* in, size_t inl) const;
    int unwrap(uint8_t* out, size_t* outl, const uint8_t* in, size_t inl) const;

    bool pad_;
    bool inverse_;

public:
    // Like the default provider, only the key length is acted on (a restatement
    // is accepted, unlisted); the other listed keys are the default provider's
    // generic ones, accepted with no effect on key wrap (KW vs KWP is the
    // algorithm, not "padding").
    static constexpr ContextTables kParams{
        join(kCipherGets, kBlockGets),
        join(unlisted(kCipherSets, {OSSL_CIPHER_PARAM_KEYLEN}),
             std::array{CipherSetter{OSSL_CIPHER_PARAM_PADDING, kUint},
                        CipherSetter{OSSL_CIPHER_PARAM_NUM, kUint},
                        CipherSetter{OSSL_CIPHER_PARAM_USE_BITS, kUint},
                        CipherSetter{OSSL_CIPHER_PARAM_TLS_VERSION, kUint},
                        CipherSetter{OSSL_CIPHER_PARAM_TLS_MAC_SIZE, kSizeT}})};
};

// W (SP 800-38F, 6.1) on out = [A slot][R_1 .. R_n], R already in place:
// 6n steps, each enciphering A || R_i and splitting the result into the
// next A (xor the step number) and the new R_i.
void WrapCtx::wrap_rounds(const uint8_t a[kSemiblock], uint8_t* out, size_t n) const {
    uint8_t b[kBlockSize];
    std::memcpy(b, a, kSemiblock);
    uint8_t* r = out + kSemiblock;
    for (uint64_t j = 0; j < 6; ++j) {
        for (size_t i = 0; i < n; ++i) {
            std::memcpy(b + kSemiblock, r + i * kSemiblock, kSemiblock);
            block(b, true);
            xor_counter(b, n * j + i + 1);
            std::memcpy(r + i * kSemiblock, b + kSemiblock, kSemiblock);
        }
    }
    std::memcpy(out, b, kSemiblock);
    wipe(b, sizeof b);
}

// W^-1 on in = [A][R_1 .. R_n] (in == r allowed): on return `a` is the
// recovered A and r the key data.
void WrapCtx::unwrap_rounds(const uint8_t* in, uint8_t a[kSemiblock], uint8_t* r,
                            size_t n) const {
    uint8_t b[kBlockSize];
    std::memcpy(b, in, kSemiblock); // before the move overwrites it
    std::memmove(r, in + kSemiblock, n * kSemiblock);
    for (uint64_t j = 6; j-- > 0;) {
        for (size_t i = n; i-- > 0;) {
            xor_counter(b, n * j + i + 1);
            std::memcpy(b + kSemiblock, r + i * kSemiblock, kSemiblock);
            block(b, false);
            std::memcpy(r + i * kSemiblock, b + kSemiblock, kSemiblock);
        }
    }
    std::memcpy(a, b, kSemiblock);
    wipe(b, sizeof b);
}

// KW: A = ICV. KWP: A = ICV2 || 32-bit length, key data zero-padded to
// semiblocks.
int WrapCtx::wrap(uint8_t* out, size_t* outl, const uint8_t* in, size_t inl) const {
    if (!pad_ && inl < 2 * kSemiblock)
        return HWC_FAIL(prov_, kErrInvalidInputLength, "KW wraps at least 16 bytes, got %zu", inl);
    uint8_t a[kSemiblock];
    std::memcpy(a, icv(), pad_ ? 4 : kSemiblock);
    if (pad_) store_be32(a + 4, static_cast<uint32_t>(inl));
    const size_t padded = (inl + kSemiblock - 1) / kSemiblock * kSemiblock; // KW: inl
    std::memmove(out + kSemiblock, in, inl); // in == out allowed
    std::memset(out + kSemiblock + inl, 0, padded - inl);
    if (padded == kSemiblock) {
        // One semiblock of key data: a single block encryption of A || P.
        std::memcpy(out, a, kSemiblock);
        block(out, true);
    } else {
        wrap_rounds(a, out, padded / kSemiblock);
    }
    *outl = padded + kSemiblock;
    return 1;
}

int WrapCtx::unwrap(uint8_t* out, size_t* outl, const uint8_t* in, size_t inl) const {
    const size_t body = inl - kSemiblock; // inl >= 16, a multiple of 8 (checked)
    if (!pad_ && inl < 3 * kSemiblock)
        return HWC_FAIL(prov_, kErrInvalidInputLength, "KW unwraps at least 24 bytes, got %zu",
                        inl);
    uint8_t a[kSemiblock];
    if (inl == kBlockSize) { // KWP, one semiblock of key data
        uint8_t b[kBlockSize];
        std::memcpy(b, in, kBlockSize);
        block(b, false);
        std::memcpy(a, b, kSemiblock);
        std::memcpy(out, b + kSemiblock, kSemiblock);
        wipe(b, sizeof b);
    } else {
        unwrap_rounds(in, a, out, body / kSemiblock);
    }
    // KW: A is the ICV. KWP (RFC 5649): ICV2, 8*(n-1) < MLI <= 8*n, zero
    // padding. All are folded into one flag, so the failure does not say
    // which one failed.
    unsigned bad = CRYPTO_memcmp(a, icv(), pad_ ? 4 : kSemiblock) != 0;
    const size_t len = pad_ ? load_be32(a + 4) : body;
    if (pad_) {
        bad |= len <= body - kSemiblock;
        bad |= len > body;
        uint8_t pad_bits = 0;
        for (size_t k = body - kSemiblock; k < body; ++k) {
            const uint8_t in_padding = static_cast<uint8_t>(0 - static_cast<uint8_t>(k >= len));
            pad_bits |= out[k] & in_padding;
        }
        bad |= pad_bits != 0;
    }
    wipe(a, sizeof a);
    if (bad) {
        wipe(out, body);
        return HWC_FAIL(prov_, kErrUnwrapFailed);
    }
    *outl = len;
    return 1;
}

int WrapCtx::update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl) {
    *outl = 0;
    if (inl == 0) return 1; // as the default provider: nothing in, nothing out
    // Only `outsize >= inl` is checked, as the default provider does: EVP
    // passes inl + 8, which is smaller than a KWP output of up to inl + 15,
    // and callers size the buffer from the out == NULL query instead.
    if (!need_output(inl, outsize) || !need_key()) return 0;
    if (in == nullptr || inl >= kMaxInput)
        return HWC_FAIL(prov_, kErrInvalidInputLength, "%zu bytes", inl);
    if (!encrypt_ && (inl < 2 * kSemiblock || inl % kSemiblock != 0))
        return HWC_FAIL(prov_, kErrInvalidInputLength,
                        "wrapped input must be a multiple of 8 bytes and at least 16, got %zu",
                        inl);
    if (!pad_ && inl % kSemiblock != 0)
        return HWC_FAIL(prov_, kErrInvalidInputLength, "KW input must be a multiple of 8, got %zu",
                        inl);
    if (out == nullptr) {
        // Size query: exact for wrapping, an upper bound for KWP unwrapping.
        if (encrypt_)
            *outl = (pad_ ? (inl + kSemiblock - 1) / kSemiblock * kSemiblock : inl) + kSemiblock;
        else
            *outl = inl - kSemiblock;
        return 1;
    }
    return encrypt_ ? wrap(out, outl, in, inl) : unwrap(out, outl, in, inl);
}

} // namespace

const ModeOps kWrapModeOps = mode_ops_for<WrapCtx>();

} // namespace hwc
