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

#include <openssl/params.h>

#include "cores/modes.h"
#include "provider/modes/classic_ctx.h"
#include "provider/modes/mode_contexts.h"
#include "provider/module/errors.h"

namespace hwc {

namespace {

class StreamModeCtx final : public FamilyCtx<StreamModeCtx, ClassicCtx> {
public:
    using FamilyCtx::FamilyCtx;
    ~StreamModeCtx() override { wipe(keystream_, sizeof keystream_); }

    int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override;
    bool set_use_bits(const OSSL_PARAM& p) { return set_switch(p, use_bits_, "use-bits"); }

private:
    void reset_stream() override { wipe(keystream_, sizeof keystream_); }

    void stream(const uint8_t* in, uint8_t* out, size_t len);

    uint8_t keystream_[kBlockSize] = {}; // CTR only
    bool use_bits_ = false;              // CFB1: lengths count bits, not bytes

public:
    static constexpr ContextTables kParams{
        kClassicGets,
        join(kClassicSets, std::array{CipherSetter{OSSL_CIPHER_PARAM_USE_BITS, kUint,
                                                   member<&StreamModeCtx::set_use_bits>}})};
};

int StreamModeCtx::update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
                          size_t inl) {
    *outl = 0;
    if (!ready()) return 0;
    if (!need_output(inl, outsize)) return 0;
    switch (row_->mode) {
    case Mode::cfb:
    case Mode::ofb:
    case Mode::ctr: stream(in, out, inl); break;
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
        return HWC_FAIL(prov_, kErrInternal, "not a stream mode");
    }
    *outl = inl;
    return 1;
}

// CFB, OFB and CTR: the rest of the current block, whole blocks through the
// core's kernel, then the first bytes of a fresh block.
void StreamModeCtx::stream(const uint8_t* in, uint8_t* out, size_t len) {
    const Mode m = row_->mode;
    uint8_t* ks = m == Mode::ctr ? keystream_ : iv_; // where the current keystream block lives
    // One byte against the current block; CFB's register takes the ciphertext byte.
    auto step = [&](uint8_t c_in) {
        const uint8_t o = static_cast<uint8_t>(ks[num_] ^ c_in);
        if (m == Mode::cfb) ks[num_] = encrypt_ ? o : c_in;
        num_ = (num_ + 1) % kBlockSize;
        return o;
    };
    for (; num_ != 0 && len != 0; --len) *out++ = step(*in++);
    const size_t blocks = len / kBlockSize;
    if (blocks != 0) {
        if (m == Mode::ctr) ctr(*core_, ks_, iv_, in, out, blocks);
        else if (m == Mode::ofb) ofb(*core_, ks_, iv_, in, out, blocks);
        else if (encrypt_) cfb_encrypt(*core_, ks_, iv_, in, out, blocks);
        else cfb_decrypt(*core_, ks_, iv_, in, out, blocks);
        in += blocks * kBlockSize;
        out += blocks * kBlockSize;
        len -= blocks * kBlockSize;
    }
    if (len == 0) return;
    static const uint8_t zero[kBlockSize] = {};
    if (m == Mode::ctr) ctr(*core_, ks_, iv_, zero, keystream_, 1); // E(counter), counter + 1
    else ecb_encrypt(*core_, ks_, iv_, iv_, 1); // OFB: next keystream; CFB: E(register)
    for (; len != 0; --len) *out++ = step(*in++);
}

} // namespace

const ModeOps kStreamModeOps = mode_ops_for<StreamModeCtx>();

} // namespace hwc
