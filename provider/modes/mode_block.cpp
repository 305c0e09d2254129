// SPDX-License-Identifier: Apache-2.0
// ECB and CBC: whole-block modes with a partial-block buffer and PKCS#7
// padding. The buffering rules are OpenSSL's, so output lengths match the
// default provider call for call: only whole blocks leave update, and a
// decrypting context with padding on holds back the last whole block until
// final, where the padding is checked and stripped.
// With "tls-version" set, CBC switches to TLS record mode (contract §5.3):
// every update is one whole record, padded and encrypted or decrypted and
// taken apart in constant time by tls_cbc.cpp.
#include <openssl/rand.h>

#include <cstring>
#include <memory>
#include <new>

#include "cores/modes.h"
#include "provider/modes/classic_ctx.h"
#include "provider/modes/mode_contexts.h"
#include "provider/modes/tls_cbc.h"
#include "provider/module/errors.h"
#include "provider/module/provider.h"

namespace hwc {

namespace {

class BlockModeCtx final : public FamilyCtx<BlockModeCtx, ClassicCtx> {
public:
    using FamilyCtx::FamilyCtx;
    ~BlockModeCtx() override { wipe_all(buf_, tls_mac_); }

    int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override;
    int final(uint8_t* out, size_t* outl, size_t outsize) override;
    int cipher(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override;

private:
    const uint8_t* tls_mac() const override { return tls_mac_set_ ? tls_mac_ : nullptr; }
    bool record_mode() const { return tls_version_ > 0 && row_->mode == Mode::cbc; }
    int tls_record(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl);
    void reset_stream() override {
        wipe(buf_, sizeof buf_);
        bufsz_ = 0;
    }

    // Runs the mode kernel over `nblocks` whole blocks.
    void process(const uint8_t* in, uint8_t* out, size_t nblocks) {
        const bool cbc = row_->mode == Mode::cbc;
        if (encrypt_) {
            if (cbc) cbc_encrypt(*core_, ks_, iv_, in, out, nblocks);
            else ecb_encrypt(*core_, ks_, in, out, nblocks);
        } else {
            if (cbc) cbc_decrypt(*core_, ks_, iv_, in, out, nblocks);
            else ecb_decrypt(*core_, ks_, in, out, nblocks);
        }
    }

    int update_disjoint(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl);

    uint8_t buf_[kBlockSize] = {};
    size_t bufsz_ = 0;
    uint8_t tls_mac_[kMaxTlsMacSize] = {}; // MAC of the last record decrypted ("tls-mac")
    bool tls_mac_set_ = false;

public:
    // "use-bits" is listed, as by the default provider, and means nothing here.
    static constexpr ContextTables kParams{
        kClassicGets,
        join(kClassicSets, std::array{CipherSetter{OSSL_CIPHER_PARAM_USE_BITS, kUint}})};
};

int BlockModeCtx::update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
                         size_t inl) {
    *outl = 0;
    if (!ready()) return 0;
    if (record_mode()) return tls_record(out, outl, outsize, in, inl);
    if (inl == 0) return 1;
    // The common call: whole blocks, nothing buffered, nothing to hold back.
    if (bufsz_ == 0 && inl % kBlockSize == 0 && (encrypt_ || !padding_)) {
        if (!need_output(inl, outsize)) return 0;
        process(in, out, inl / kBlockSize);
        *outl = inl;
        return 1;
    }
    // With bytes already buffered, output runs `bufsz_` bytes ahead of input,
    // so an in-place (or otherwise overlapping) call would overwrite input it
    // has not read yet. Work from a copy then; the aligned in-place case, the
    // one that matters for speed, needs none.
    const bool overlap = in < out + outsize && out < in + inl;
    if (bufsz_ != 0 && overlap) {
        std::unique_ptr<uint8_t[]> copy(new (std::nothrow) uint8_t[inl]);
        if (!copy) return HWC_FAIL(prov_, kErrOutOfMemory, "a copy of %zu overlapping bytes", inl);
        std::memcpy(copy.get(), in, inl);
        const int ok = update_disjoint(out, outl, outsize, copy.get(), inl);
        wipe(copy.get(), inl);
        return ok;
    }
    return update_disjoint(out, outl, outsize, in, inl);
}

int BlockModeCtx::update_disjoint(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
                                  size_t inl) {
    // How much this call will emit, decided before anything is written so a
    // short output buffer fails without side effects.
    const size_t total = bufsz_ + inl;
    size_t emit = total / kBlockSize * kBlockSize;
    const bool hold_back = !encrypt_ && padding_;
    if (hold_back && emit == total && emit != 0) emit -= kBlockSize;
    if (!need_output(emit, outsize)) return 0;

    size_t done = 0;
    if (bufsz_ != 0 && emit != 0) {
        // Complete the buffered block and emit it first.
        const size_t take = kBlockSize - bufsz_;
        std::memcpy(buf_ + bufsz_, in, take);
        in += take;
        inl -= take;
        process(buf_, out, 1);
        bufsz_ = 0;
        done = kBlockSize;
    }
    const size_t direct = emit - done;
    if (direct != 0) {
        process(in, out + done, direct / kBlockSize);
        in += direct;
        inl -= direct;
    }
    // Whatever is left (a partial block, or the held-back last block) waits.
    if (inl != 0) std::memcpy(buf_ + bufsz_, in, inl);
    bufsz_ += inl;
    *outl = emit;
    return 1;
}

// One TLS record, in place: [explicit IV block (TLS >= 1.1)] payload [MAC].
int BlockModeCtx::tls_record(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
                             size_t inl) {
    tls_mac_set_ = false;
    if (in == nullptr || in != out || !padding_)
        return HWC_FAIL(prov_, kErrInvalidParam, "TLS record mode needs in == out and padding on");
    if (encrypt_) {
        const size_t padlen = tls_cbc::padding_length(inl, kBlockSize);
        if (outsize < inl + padlen)
            return HWC_FAIL(prov_, kErrOutputBufferTooSmall, "TLS record of %zu bytes needs %zu",
                            inl, inl + padlen);
        tls_cbc::write_padding(tls_version_, out + inl, padlen);
        process(out, out, (inl + padlen) / kBlockSize);
        *outl = inl + padlen;
        return 1;
    }

    // Decrypting. Only the public shape of the record may fail the call.
    if (!tls_cbc::is_known_version(tls_version_))
        return HWC_FAIL(prov_, kErrInvalidParam, "tls-version 0x%04x has no CBC record format",
                        tls_version_);
    if (inl == 0 || inl % kBlockSize != 0 ||
        inl < tls_cbc::min_record_length(tls_version_, kBlockSize, tls_mac_size_)) {
        return HWC_FAIL(prov_, kErrWrongFinalBlockLength, "TLS record of %zu bytes is malformed",
                        inl);
    }
    if (outsize < inl) return HWC_FAIL(prov_, kErrOutputBufferTooSmall);
    // Drawn for every MAC-then-encrypt record, used only when the padding is
    // bad: the work done must not depend on the padding.
    uint8_t random_mac[kMaxTlsMacSize];
    if (tls_mac_size_ != 0 && RAND_bytes_ex(prov_->libctx, random_mac, tls_mac_size_, 0) <= 0)
        return HWC_FAIL(prov_, kErrInternal, "no random bytes for the TLS MAC");
    process(out, out, inl / kBlockSize);
    const size_t skip = tls_cbc::has_explicit_iv(tls_version_) ? kBlockSize : 0;
    size_t payload = 0;
    const bool ok = tls_cbc::remove_padding_and_mac(tls_version_, out + skip, inl - skip,
                                                    kBlockSize, tls_mac_size_, random_mac,
                                                    tls_mac_, &payload);
    wipe(random_mac, sizeof random_mac);
    if (!ok) {
        // Encrypt-then-MAC only: the record was authenticated before it was
        // decrypted, so a padding failure here reveals nothing new.
        return HWC_FAIL(prov_, kErrBadDecrypt, "bad TLS record padding");
    }
    tls_mac_set_ = tls_mac_size_ != 0;
    *outl = payload;
    return 1;
}

int BlockModeCtx::final(uint8_t* out, size_t* outl, size_t outsize) {
    *outl = 0;
    if (!ready()) return 0;
    if (record_mode()) return HWC_FAIL(prov_, kErrInvalidParam, "TLS record mode has no final");
    if (encrypt_) {
        if (padding_) {
            // PKCS#7 always adds padding: 1..16 bytes, each holding the count.
            const uint8_t n = static_cast<uint8_t>(kBlockSize - bufsz_);
            std::memset(buf_ + bufsz_, n, n);
            bufsz_ = kBlockSize;
        } else if (bufsz_ == 0) {
            return 1;
        } else {
            return HWC_FAIL(prov_, kErrWrongFinalBlockLength,
                            "%zu bytes left over and padding is off", bufsz_);
        }
        if (outsize < kBlockSize) return HWC_FAIL(prov_, kErrOutputBufferTooSmall);
        process(buf_, out, 1);
        bufsz_ = 0;
        *outl = kBlockSize;
        return 1;
    }

    // Decrypting.
    if (bufsz_ != kBlockSize) {
        if (bufsz_ == 0 && !padding_) return 1;
        return HWC_FAIL(prov_, kErrWrongFinalBlockLength, "%zu bytes left over", bufsz_);
    }
    uint8_t block[kBlockSize];
    process(buf_, block, 1);
    bufsz_ = 0;
    size_t keep = kBlockSize;
    if (padding_) {
        // Check the padding without branching on its bytes; the single
        // accept/reject decision at the end is public (the call fails or not).
        const unsigned n = block[kBlockSize - 1];
        unsigned bad = static_cast<unsigned>((n - 1u) >> 8 & 1u); // n == 0
        bad |= static_cast<unsigned>((kBlockSize - n) >> 8 & 1u); // n > 16
        for (unsigned i = 0; i < kBlockSize; ++i) {
            // in_pad = 1 when i >= 16 - n, computed without a branch.
            const unsigned in_pad = ((kBlockSize - 1u - i) - n) >> 31 & 1u;
            bad |= in_pad & (((block[i] ^ n) + 0xffu) >> 8 & 1u);
        }
        if (bad) {
            wipe(block, sizeof block);
            return HWC_FAIL(prov_, kErrBadDecrypt);
        }
        keep = kBlockSize - n;
    }
    if (outsize < keep) {
        wipe(block, sizeof block);
        return HWC_FAIL(prov_, kErrOutputBufferTooSmall);
    }
    std::memcpy(out, block, keep);
    wipe(block, sizeof block);
    *outl = keep;
    return 1;
}

// EVP_Cipher(): no buffering and no padding, whole blocks only.
int BlockModeCtx::cipher(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
                         size_t inl) {
    *outl = 0;
    if (!ready()) return 0;
    if (inl % kBlockSize != 0)
        return HWC_FAIL(prov_, kErrWrongFinalBlockLength, "raw cipher call needs whole blocks");
    if (outsize < inl) return HWC_FAIL(prov_, kErrOutputBufferTooSmall);
    process(in, out, inl / kBlockSize);
    *outl = inl;
    return 1;
}

} // namespace

const ModeOps kBlockModeOps = mode_ops_for<BlockModeCtx>();

} // namespace hwc
