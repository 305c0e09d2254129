// SPDX-License-Identifier: Apache-2.0
// CMAC (NIST SP 800-38B) over any block core: subkeys, streaming state and the
// doubling in GF(2^128) that S2V (RFC 5297) shares. Used by the CMAC MAC and SIV.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cores/core.h"

namespace hwc {

// x <- x * 2 in GF(2^128) (SP 800-38B's subkey step, RFC 5297's dbl), without
// branches on secret bits.
void cmac_dbl(uint8_t x[kBlockSize]);

// A keyed CMAC: the block core, its schedule and the subkeys K1, K2.
class CmacKey {
public:
    CmacKey() = default;
    CmacKey(const CmacKey&) = default;
    CmacKey& operator=(const CmacKey&) = default;
    ~CmacKey() { clear(); }

    // Schedules `key` on `core` and derives K1, K2; false if the core refuses
    // the length (nothing secret is left behind then).
    bool set(const BlockCore* core, const uint8_t* key, size_t keylen);
    void clear();
    bool ready() const { return core_ != nullptr; }

    const BlockCore* core() const { return core_; }
    const KeySchedule& schedule() const { return ks_; }

private:
    friend class CmacState;
    const BlockCore* core_ = nullptr;
    KeySchedule ks_{};
    uint8_t k1_[kBlockSize] = {};
    uint8_t k2_[kBlockSize] = {};
};

// One CMAC computation in progress. The last block (complete or not) is held
// back until more data arrives, because only the final block gets a subkey.
class CmacState {
public:
    CmacState() = default;
    CmacState(const CmacState&) = default;
    CmacState& operator=(const CmacState&) = default;
    ~CmacState() { reset(); }

    void reset();
    // `last`: no more data follows before final, so the last block is held
    // back unprocessed (one-shot MACs); otherwise, with a core that has its
    // own CBC-MAC kernel, an update ending on a block boundary also runs its
    // last block, keeping every aligned update to one kernel call.
    void update(const CmacKey& key, const uint8_t* in, size_t len, bool last = false);
    // Writes the 16-byte tag; the state is left as it was, so more data or
    // another final may follow (as with OpenSSL's CMAC).
    void final(const CmacKey& key, uint8_t tag[kBlockSize]) const;

private:
    uint8_t x_[kBlockSize] = {};   // CBC-MAC chaining value
    uint8_t buf_[kBlockSize] = {}; // held-back bytes
    size_t n_ = 0;                 // bytes in buf_, 0..16
    bool absorbed_ = false;        // buf_ is a full block already in x_
};

// One-shot CMAC of `len` bytes.
void cmac(const CmacKey& key, const uint8_t* in, size_t len, uint8_t tag[kBlockSize]);

} // namespace hwc
