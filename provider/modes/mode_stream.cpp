// SPDX-License-Identifier: Apache-2.0
// The stream-like modes: CFB (128-bit), CFB8, CFB1, OFB and CTR. Any length
// goes in, the same length comes out. The position inside the current
// keystream block is `num`, and the chaining state is kept exactly as OpenSSL
// keeps it, so "num" and "updated-iv" read the same as from the default
// provider after any split of the input:
//   CFB: iv_ is the feedback register, holding E(previous) xor-ed byte by byte
//        into the ciphertext being built;
//   OFB: iv_ is the last keystream block;
//   CTR: iv_ is the next counter, keystream_ the current keystream block.
// Whole blocks in the middle go to the core's mode kernels in one call.
#include <cstring>
#include <new>

#include <openssl/core_names.h>
#include <openssl/params.h>

#include "cores/modes.h"
#include "provider/modes/classic_ctx.h"
#include "provider/module/errors.h"
#include "provider/modes/mode_contexts.h"
#include "provider/params/param_table.h"

namespace hwc {

namespace {

class StreamModeCtx final : public ClassicCtx {
public:
    StreamModeCtx(const ProvCtx* prov, const AlgorithmRow& row) : ClassicCtx(prov, row) {}
    ~StreamModeCtx() override { wipe(keystream_, sizeof keystream_); }

    CipherCtx* clone() const override { return new (std::nothrow) StreamModeCtx(*this); }

    int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override;
    int final(uint8_t*, size_t* outl, size_t) override {
        *outl = 0;
        return ready() ? 1 : 0;
    }
    int set_ctx_params(const OSSL_PARAM params[]) override;

private:
    StreamModeCtx(const StreamModeCtx&) = default;
    void reset_stream() override { wipe(keystream_, sizeof keystream_); }

    void cfb(const uint8_t* in, uint8_t* out, size_t len);
    void ofb_or_ctr(const uint8_t* in, uint8_t* out, size_t len);

    uint8_t keystream_[kBlockSize] = {}; // CTR only
    bool use_bits_ = false;              // CFB1: lengths count bits, not bytes
};

int StreamModeCtx::update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
                          size_t inl) {
    *outl = 0;
    if (!ready()) return 0;
    if (outsize < inl) {
        HWC_RAISE(prov_, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", inl, outsize);
        return 0;
    }
    switch (row_->mode) {
    case Mode::cfb: cfb(in, out, inl); break;
    case Mode::ofb:
    case Mode::ctr: ofb_or_ctr(in, out, inl); break;
    case Mode::cfb8: cfb8(*core_, ks_, iv_, in, out, inl, encrypt_); break;
    case Mode::cfb1: {
        // Without "use-bits" the length is in bytes; the bit kernel takes
        // bits, so feed it in chunks that cannot overflow the bit count.
        if (use_bits_) {
            generic::cfb1(*core_, ks_, iv_, in, out, inl, encrypt_);
            break;
        }
        constexpr size_t kChunk = size_t(1) << (sizeof(size_t) * 8 - 4);
        size_t left = inl;
        while (left != 0) {
            const size_t n = left < kChunk ? left : kChunk;
            generic::cfb1(*core_, ks_, iv_, in, out, n * 8, encrypt_);
            in += n;
            out += n;
            left -= n;
        }
        break;
    }
    default:
        HWC_RAISE(prov_, kErrInternal, "not a stream mode");
        return 0;
    }
    *outl = inl;
    return 1;
}

void StreamModeCtx::cfb(const uint8_t* in, uint8_t* out, size_t len) {
    auto step = [this](uint8_t c_in) {
        // One byte against the register: it becomes the ciphertext byte.
        const uint8_t o = static_cast<uint8_t>(iv_[num_] ^ c_in);
        iv_[num_] = encrypt_ ? o : c_in;
        num_ = (num_ + 1) % kBlockSize;
        return o;
    };
    // Finish the block we are inside of.
    while (num_ != 0 && len != 0) {
        *out++ = step(*in++);
        --len;
    }
    const size_t blocks = len / kBlockSize;
    if (blocks != 0) {
        if (encrypt_) cfb_encrypt(*core_, ks_, iv_, in, out, blocks);
        else cfb_decrypt(*core_, ks_, iv_, in, out, blocks);
        in += blocks * kBlockSize;
        out += blocks * kBlockSize;
        len -= blocks * kBlockSize;
    }
    if (len != 0) {
        ecb_encrypt(*core_, ks_, iv_, iv_, 1); // register = E(previous ciphertext)
        while (len != 0) {
            *out++ = step(*in++);
            --len;
        }
    }
}

void StreamModeCtx::ofb_or_ctr(const uint8_t* in, uint8_t* out, size_t len) {
    const bool is_ctr = row_->mode == Mode::ctr;
    uint8_t* ks = is_ctr ? keystream_ : iv_; // where the current keystream block lives
    while (num_ != 0 && len != 0) {
        *out++ = static_cast<uint8_t>(*in++ ^ ks[num_]);
        num_ = (num_ + 1) % kBlockSize;
        --len;
    }
    const size_t blocks = len / kBlockSize;
    if (blocks != 0) {
        if (is_ctr) ctr(*core_, ks_, iv_, in, out, blocks);
        else ofb(*core_, ks_, iv_, in, out, blocks);
        in += blocks * kBlockSize;
        out += blocks * kBlockSize;
        len -= blocks * kBlockSize;
    }
    if (len != 0) {
        // Start a fresh keystream block and use its first `len` bytes.
        if (is_ctr) {
            static const uint8_t zero[kBlockSize] = {};
            ctr(*core_, ks_, iv_, zero, keystream_, 1); // keystream = E(counter), counter + 1
        } else {
            ecb_encrypt(*core_, ks_, iv_, iv_, 1);
        }
        for (size_t i = 0; i < len; ++i) out[i] = static_cast<uint8_t>(in[i] ^ ks[i]);
        num_ = static_cast<unsigned>(len);
    }
}

int StreamModeCtx::set_ctx_params(const OSSL_PARAM params[]) {
    if (!ClassicCtx::set_ctx_params(params)) return 0;
    const OSSL_PARAM* p = param_locate(params, OSSL_CIPHER_PARAM_USE_BITS);
    if (p != nullptr) {
        unsigned int bits;
        if (!OSSL_PARAM_get_uint(p, &bits)) {
            HWC_RAISE(prov_, kErrInvalidParam, "use-bits");
            return 0;
        }
        use_bits_ = bits != 0;
    }
    return 1;
}

} // namespace

const ModeOps kStreamModeOps = {
    [](const ProvCtx* prov, const AlgorithmRow& row) -> CipherCtx* {
        return new (std::nothrow) StreamModeCtx(prov, row);
    },
    &ClassicCtx::gettable_params,
    &ClassicCtx::settable_params,
};

} // namespace hwc
