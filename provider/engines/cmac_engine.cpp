// SPDX-License-Identifier: Apache-2.0
// CMAC (NIST SP 800-38B) over any block core.
#include "provider/engines/cmac_engine.h"

#include <cstring>

#include "cores/modes.h"
#include "provider/modes/cipher_ctx.h"

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
    wipe_all(ks_, k1_, k2_);
}

void CmacState::reset() {
    wipe_all(x_, buf_);
    n_ = 0;
    absorbed_ = false;
}

// Whether a core's CBC-MAC calls are worth merging: a native kernel (one
// instruction call on s390x KMAC) costs per call, the generic per-block loop
// does not. With such a core an update that ends on a block boundary runs
// its last block too and keeps a copy of it (absorbed_), so the next update
// is one call over its own data; final recovers the chaining value before
// that block as D_K(x) xor M_last. Without it the last block is held back
// unprocessed, as SP 800-38B's final step needs it.
bool absorbs(const BlockCore& c) { return c.cbc_mac != nullptr; }

void CmacState::update(const CmacKey& key, const uint8_t* in, size_t len, bool last) {
    if (len == 0) return;
    const BlockCore& c = *key.core_;
    const bool absorb = !last && absorbs(c);
    if (absorbed_) {
        // The held block is in x_ already and is no longer the last one.
        absorbed_ = false;
        n_ = 0;
    }
    if (n_ != 0) {
        const size_t take = len < kBlockSize - n_ ? len : kBlockSize - n_;
        std::memcpy(buf_ + n_, in, take);
        n_ += take;
        in += take;
        len -= take;
        if (len == 0) {
            // The held block may still be the last one.
            if (n_ == kBlockSize && absorb) {
                cbc_mac(c, key.ks_, x_, buf_, 1);
                absorbed_ = true;
            }
            return;
        }
        // A block straddling two updates: its own call (the data after it
        // is not contiguous with it).
        cbc_mac(c, key.ks_, x_, buf_, 1);
        n_ = 0;
    }
    if (absorb && len % kBlockSize == 0) {
        // Every block in one call, the last one kept for final.
        cbc_mac(c, key.ks_, x_, in, len / kBlockSize);
        std::memcpy(buf_, in + len - kBlockSize, kBlockSize);
        n_ = kBlockSize;
        absorbed_ = true;
        return;
    }
    // All whole blocks but the last byte's block go through the kernel in one
    // call; 1..16 bytes are held back.
    const size_t blocks = (len - 1) / kBlockSize;
    cbc_mac(c, key.ks_, x_, in, blocks);
    in += blocks * kBlockSize;
    len -= blocks * kBlockSize;
    std::memcpy(buf_, in, len);
    n_ = len;
}

void CmacState::final(const CmacKey& key, uint8_t tag[kBlockSize]) const {
    uint8_t x[kBlockSize];
    std::memcpy(x, x_, kBlockSize);
    if (absorbed_) {
        // x = E_K(x' xor M_last): recover x', the chaining value before the
        // last block.
        ecb_decrypt(*key.core_, key.ks_, x, x, 1);
        for (size_t i = 0; i < kBlockSize; ++i) x[i] = static_cast<uint8_t>(x[i] ^ buf_[i]);
    }
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
    wipe_all(x, last);
}

void cmac(const CmacKey& key, const uint8_t* in, size_t len, uint8_t tag[kBlockSize]) {
    CmacState st;
    st.update(key, in, len, true);
    st.final(key, tag);
}

} // namespace hwc
