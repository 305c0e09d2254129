// SPDX-License-Identifier: Apache-2.0
// OCB (RFC 7253) whole data blocks on any core: offsets are computed a batch
// at a time so one encrypt_blocks/decrypt_blocks call covers the batch.
#include <bit>
#include <cstring>

#include "cores/modes.h"
#include "cores/wipe.h"

namespace hwc::generic {
namespace {

constexpr size_t kBatch = 32; // blocks per core call (1 KiB of stack for offsets + data)

void xor16(uint8_t* d, const uint8_t* a, const uint8_t* b) {
    for (size_t i = 0; i < kBlockSize; ++i) d[i] = static_cast<uint8_t>(a[i] ^ b[i]);
}

// `in == out` is allowed: every input block is read before its output is written.
void ocb_blocks(const BlockCore& c, const KeySchedule& ks, OcbState& st, const uint8_t* in,
                uint8_t* out, size_t n, bool encrypt) {
    uint8_t offs[kBatch][kBlockSize];
    uint8_t buf[kBatch * kBlockSize];
    while (n != 0) {
        const size_t m = n < kBatch ? n : kBatch;
        for (size_t j = 0; j < m; ++j) {
            xor16(st.offset, st.offset, st.l[std::countr_zero(++st.blocks)]);
            std::memcpy(offs[j], st.offset, kBlockSize);
            if (encrypt) xor16(st.checksum, st.checksum, in + j * kBlockSize);
            xor16(buf + j * kBlockSize, in + j * kBlockSize, st.offset);
        }
        if (encrypt) c.encrypt_blocks(ks, buf, buf, m);
        else c.decrypt_blocks(ks, buf, buf, m);
        for (size_t j = 0; j < m; ++j) {
            xor16(out + j * kBlockSize, buf + j * kBlockSize, offs[j]);
            if (!encrypt) xor16(st.checksum, st.checksum, out + j * kBlockSize);
        }
        in += m * kBlockSize;
        out += m * kBlockSize;
        n -= m;
    }
    secure_wipe(buf, sizeof buf);
    secure_wipe(offs, sizeof offs);
}

} // namespace

void ocb_encrypt(const BlockCore& c, const KeySchedule& ks, OcbState& st, const uint8_t* in,
                 uint8_t* out, size_t nblocks) {
    ocb_blocks(c, ks, st, in, out, nblocks, true);
}

void ocb_decrypt(const BlockCore& c, const KeySchedule& ks, OcbState& st, const uint8_t* in,
                 uint8_t* out, size_t nblocks) {
    ocb_blocks(c, ks, st, in, out, nblocks, false);
}

} // namespace hwc::generic
