// SPDX-License-Identifier: Apache-2.0
// POLYVAL through a GHASH core (RFC 8452 Appendix A).
#include "provider/engines/polyval_ghash.h"

#include <cstring>

#include "provider/modes/cipher_ctx.h"

namespace hwc {

namespace {

void byte_reverse(const uint8_t in[16], uint8_t out[16]) {
    for (size_t i = 0; i < 16; ++i) out[i] = in[15 - i];
}

// Multiplication by x in GHASH's bit order: the first bit of the block is x^0,
// so the element shifts right by one bit, and a carry out of x^127 folds back
// as R = 0xe1 || 0^120. Branch-free on the (secret) key bits.
void mulx_ghash(uint8_t v[16]) {
    const uint8_t carry = static_cast<uint8_t>(0 - (v[15] & 1));
    for (size_t i = 15; i > 0; --i) v[i] = static_cast<uint8_t>((v[i] >> 1) | (v[i - 1] << 7));
    v[0] = static_cast<uint8_t>((v[0] >> 1) ^ (carry & 0xe1));
}

} // namespace

void Polyval::set_key(const GhashCore& core, const uint8_t h[16]) {
    clear();
    core_ = &core;
    uint8_t hg[16];
    byte_reverse(h, hg);
    mulx_ghash(hg);
    core.set_key(key_, hg);
    wipe(hg, sizeof hg);
}

void Polyval::reset() {
    wipe_all(y_, buf_);
    n_ = 0;
}

void Polyval::clear() {
    reset();
    wipe(&key_, sizeof key_);
    core_ = nullptr;
}

void Polyval::blocks(const uint8_t* in, size_t nblocks) {
    // The GHASH core wants each block byte-reversed: do it in a stack chunk,
    // so the core still sees many blocks per call (its aggregated path).
    constexpr size_t kChunk = 32;
    uint8_t rev[kChunk * 16];
    size_t used = 0;
    while (nblocks != 0) {
        const size_t n = nblocks < kChunk ? nblocks : kChunk;
        for (size_t b = 0; b < n; ++b) byte_reverse(in + 16 * b, rev + 16 * b);
        core_->update(key_, y_, rev, n);
        used = used > n ? used : n;
        in += 16 * n;
        nblocks -= n;
    }
    wipe(rev, used * 16); // plaintext
}

void Polyval::absorb(const uint8_t* in, size_t len) {
    if (len == 0) return;
    if (n_ != 0) {
        const size_t take = len < 16 - n_ ? len : 16 - n_;
        std::memcpy(buf_ + n_, in, take);
        n_ += take;
        in += take;
        len -= take;
        if (n_ < 16) return;
        blocks(buf_, 1);
        n_ = 0;
    }
    const size_t whole = len / 16;
    blocks(in, whole);
    in += whole * 16;
    len -= whole * 16;
    std::memcpy(buf_, in, len);
    n_ = len;
}

void Polyval::pad() {
    if (n_ == 0) return;
    std::memset(buf_ + n_, 0, 16 - n_);
    blocks(buf_, 1);
    wipe(buf_, sizeof buf_);
    n_ = 0;
}

void Polyval::result(uint8_t s[16]) const { byte_reverse(y_, s); }

} // namespace hwc
