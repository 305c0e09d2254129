// SPDX-License-Identifier: Apache-2.0
// POLYVAL (RFC 8452 §3) computed with a GHASH core, so every GHASH core
// (portable, PCLMULQDQ, PMULL, KIMD) also serves GCM-SIV. RFC 8452
// Appendix A: POLYVAL(H, X1..Xn) =
//   ByteReverse(GHASH(mulX_GHASH(ByteReverse(H)), ByteReverse(X1), ..., ByteReverse(Xn))).
#pragma once

#include <cstddef>
#include <cstdint>

#include "cores/ghash.h"

namespace hwc {

class Polyval {
public:
    Polyval() = default;
    Polyval(const Polyval&) = default;
    Polyval& operator=(const Polyval&) = default;
    ~Polyval() { clear(); }

    // `h` is the POLYVAL key (message-authentication key) in RFC 8452 order.
    void set_key(const GhashCore& core, const uint8_t h[16]);
    // S = 0, key kept.
    void reset();
    void clear(); // key and state

    // Bytes of one input string, any split; pad() ends the string, zero-
    // filling its last block (AAD, then plaintext, then the length block).
    void absorb(const uint8_t* in, size_t len);
    void pad();
    // S in RFC 8452 order. Call after pad().
    void result(uint8_t s[16]) const;

private:
    void blocks(const uint8_t* in, size_t nblocks); // whole blocks, RFC 8452 order

    const GhashCore* core_ = nullptr;
    GhashKey key_{};
    uint8_t y_[16] = {};   // GHASH-order accumulator: ByteReverse(S)
    uint8_t buf_[16] = {}; // partial block of the current string
    size_t n_ = 0;
};

} // namespace hwc
