// SPDX-License-Identifier: Apache-2.0
// The CBC-MAC kernel behind CMAC and S2V: only the chaining value survives.
#include <cstring>

#include "cores/modes.h"

namespace hwc::generic {

void cbc_mac(const BlockCore& c, const KeySchedule& ks, uint8_t iv[kBlockSize],
             const uint8_t* in, size_t nblocks) {
    if (nblocks == 0) return;
    if (c.cbc_encrypt != nullptr && nblocks > 1) {
        // A core's own CBC kernel is its fastest serial chain (one pass over
        // the round keys kept in registers); let it write into a small scratch
        // area we throw away, a chunk at a time, so no allocation is needed.
        constexpr size_t kChunk = 32;
        uint8_t scratch[kChunk * kBlockSize];
        const size_t used = (nblocks < kChunk ? nblocks : kChunk) * kBlockSize;
        while (nblocks != 0) {
            const size_t n = nblocks < kChunk ? nblocks : kChunk;
            c.cbc_encrypt(ks, iv, in, scratch, n);
            in += n * kBlockSize;
            nblocks -= n;
        }
        // The intermediate chaining values are MAC state under a secret key.
        volatile uint8_t* v = scratch;
        for (size_t i = 0; i < used; ++i) v[i] = 0;
        return;
    }
    for (size_t b = 0; b < nblocks; ++b, in += kBlockSize) {
        for (size_t i = 0; i < kBlockSize; ++i) iv[i] = static_cast<uint8_t>(iv[i] ^ in[i]);
        c.encrypt_blocks(ks, iv, iv, 1);
    }
}

} // namespace hwc::generic
