// SPDX-License-Identifier: Apache-2.0
// CMAC (NIST SP 800-38B) over any block core.
#include "provider/cmac_engine.h"

#include <cstring>

#include "cores/modes.h"
#include "provider/cipher_ctx.h"

namespace hwc {

void cmac_dbl(uint8_t x[kBlockSize]) {
    // Shift the 128-bit big-endian value left by one; if a bit fell out, reduce
    // by x^128 = x^7 + x^2 + x + 1 (0x87). The mask keeps it branch-free.
    const uint8_t carry = static_cast<uint8_t>(0 - (x[0] >> 7));
    for (size_t i = 0; i + 1 < kBlockSize; ++i)
        x[i] = static_cast<uint8_t>((x[i] << 1) | (x[i + 1] >> 7));
    x[kBlockSize - 1] = static_cast<uint8_t>((x[kBlockSize - 1] << 1) ^ (carry & 0x87));
}

bool CmacKey::set(const BlockCore* core, const uint8_t* key, size_t keylen) {
    clear();
    if (core == nullptr || !core->set_key(ks_, key, keylen)) {
        clear();
        return false;
    }
    core_ = core;
    uint8_t l[kBlockSize] = {};
    ecb_encrypt(*core_, ks_, l, l, 1); // L = E_K(0^128)
    std::memcpy(k1_, l, kBlockSize);
    cmac_dbl(k1_);
    std::memcpy(k2_, k1_, kBlockSize);
    cmac_dbl(k2_);
    wipe(l, sizeof l);
    return true;
}

void CmacKey::clear() {
    core_ = nullptr;
    wipe(&ks_, sizeof ks_);
    wipe(k1_, sizeof k1_);
    wipe(k2_, sizeof k2_);
}

void CmacState::reset() {
    wipe(x_, sizeof x_);
    wipe(buf_, sizeof buf_);
    n_ = 0;
}

void CmacState::update(const CmacKey& key, const uint8_t* in, size_t len) {
    if (len == 0) return;
    if (n_ != 0) {
        const size_t take = len < kBlockSize - n_ ? len : kBlockSize - n_;
        std::memcpy(buf_ + n_, in, take);
        n_ += take;
        in += take;
        len -= take;
        if (len == 0) return; // the held block may still be the last one
        cbc_mac(*key.core_, key.ks_, x_, buf_, 1);
        n_ = 0;
    }
    // All whole blocks but the last byte's block go through the kernel in one
    // call; 1..16 bytes are held back.
    const size_t blocks = (len - 1) / kBlockSize;
    cbc_mac(*key.core_, key.ks_, x_, in, blocks);
    in += blocks * kBlockSize;
    len -= blocks * kBlockSize;
    std::memcpy(buf_, in, len);
    n_ = len;
}

void CmacState::final(const CmacKey& key, uint8_t tag[kBlockSize]) const {
    uint8_t x[kBlockSize];
    std::memcpy(x, x_, kBlockSize);
    // Hardware with a last-block function (s390x PCC) pads and applies the
    // subkey itself.
    if (cmac_last(*key.core_, key.ks_, x, buf_, n_)) {
        std::memcpy(tag, x, kBlockSize);
        wipe(x, sizeof x);
        return;
    }
    uint8_t last[kBlockSize];
    if (n_ == kBlockSize) {
        for (size_t i = 0; i < kBlockSize; ++i) last[i] = static_cast<uint8_t>(buf_[i] ^ key.k1_[i]);
    } else {
        // Partial (or empty) final block: pad with 10*, use K2.
        std::memset(last, 0, sizeof last);
        std::memcpy(last, buf_, n_);
        last[n_] = 0x80;
        for (size_t i = 0; i < kBlockSize; ++i) last[i] = static_cast<uint8_t>(last[i] ^ key.k2_[i]);
    }
    cbc_mac(*key.core_, key.ks_, x, last, 1);
    std::memcpy(tag, x, kBlockSize);
    wipe(x, sizeof x);
    wipe(last, sizeof last);
}

void cmac(const CmacKey& key, const uint8_t* in, size_t len, uint8_t tag[kBlockSize]) {
    CmacState st;
    st.update(key, in, len);
    st.final(key, tag);
}

} // namespace hwc
