// SPDX-License-Identifier: Apache-2.0
// ghash-pmull: GHASH (NIST SP 800-38D 6.4) on PMULL/PMULL2, 8 blocks per
// reduction with precomputed H^1..H^8. Representation, key layout and the
// multiply/reduce helpers are in ghash_pmull.h (shared with the stitched
// AES-GCM kernel in aes_ce_gcm.cpp).
//
// Cost under qemu-aarch64: the 8-block loop is 82 instructions (26 PMULL,
// 31 EOR, 8 RBIT, 10 TRN/EXT, 2 LD1 of four registers, 5 loop/address);
// 0.66 instructions per byte for the whole update in 128-block calls.
//
// Compiled with -march=armv8-a+crypto (root CMakeLists.txt) and reached only
// through the `ghash_pmull` descriptor (needs kArmPmull).
#include "cores/aarch64/ghash_pmull.h"

#include <cstring>

#include "cores/aarch64/aarch64.h"
#include "cores/cpu.h"

namespace hwc::aarch64 {

namespace pmull {

u64x2 hash_blocks(const PmullKey& key, u64x2 y, const uint8_t* in, size_t nblocks) {
    const u64x2 r = reduction_constant();
    for (; nblocks >= 8; nblocks -= 8, in += 128) {
        const uint8x16x4_t b0 = vld1q_u8_x4(in);
        const uint8x16x4_t b1 = vld1q_u8_x4(in + 64);
        const u64x2 x[8] = {to_elem(b0.val[0]), to_elem(b0.val[1]), to_elem(b0.val[2]),
                            to_elem(b0.val[3]), to_elem(b1.val[0]), to_elem(b1.val[1]),
                            to_elem(b1.val[2]), to_elem(b1.val[3])};
        y = hash8(key, y, x, r);
    }
    if (nblocks == 0) return y;

    // 1..7 blocks left: block i takes H^(n-i), one reduction. An odd count
    // starts with a single block (its power H^n is odd: lane 1 of k[(n-1)/2]),
    // the rest go in pairs that line up with the k[] vectors.
    Acc acc = acc_zero();
    u64x2 a = veorq_u64(y, load_elem(in));
    if (nblocks & 1) {
        mul_acc<1>(acc, a, load_key(key.h[nblocks - 1]), load_key(key.k[(nblocks - 1) / 2]));
        --nblocks;
        in += 16;
        if (nblocks != 0) a = load_elem(in);
    }
    while (nblocks != 0) {
        const u64x2 b = load_elem(in + 16);
        mul_acc_pair(acc, a, b, load_key(key.h[nblocks - 1]), load_key(key.h[nblocks - 2]),
                     load_key(key.k[nblocks / 2 - 1]));
        nblocks -= 2;
        in += 32;
        if (nblocks != 0) a = load_elem(in);
    }
    return reduce(acc, r);
}

} // namespace pmull

namespace {

using namespace pmull;

// h0 ^ h1 in both lanes: the Karatsuba middle operand of a power.
u64x2 halves_xor(u64x2 p) { return veorq_u64(p, vextq_u64(p, p, 1)); }

// a * b mod P (both in the RBIT domain), for key setup.
u64x2 gmul(u64x2 a, u64x2 b) {
    Acc acc = acc_zero();
    mul_acc<0>(acc, a, b, halves_xor(b));
    return reduce(acc, reduction_constant());
}

// Everything is built in place in `key` (which the owner wipes), so no copy
// of H is left on the stack.
void ghash_set_key(GhashKey& key, const uint8_t h[16]) {
    std::memset(key.bytes, 0, sizeof key.bytes);
    PmullKey& kd = pmull_key(key);
    const u64x2 h1 = load_elem(h);
    u64x2 p = h1;
    for (int i = 0; i < 8; ++i) {
        if (i != 0) p = gmul(p, h1);
        vst1q_u8(kd.h[i], vreinterpretq_u8_u64(p));
    }
    for (int j = 0; j < 4; ++j) {
        const u64x2 odd = halves_xor(load_key(kd.h[2 * j]));      // H^(2j+1)
        const u64x2 even = halves_xor(load_key(kd.h[2 * j + 1])); // H^(2j+2)
        vst1q_u8(kd.k[j], vreinterpretq_u8_u64(vtrn1q_u64(even, odd)));
    }
}

void ghash_update(const GhashKey& key, uint8_t y[16], const uint8_t* in, size_t nblocks) {
    if (nblocks == 0) return;
    store_elem(y, hash_blocks(pmull_key(key), load_elem(y), in, nblocks));
}

} // namespace

extern const GhashCore ghash_pmull = {
    "ghash-pmull",
    true,
    kArmPmull,
    ghash_set_key,
    ghash_update,
};

} // namespace hwc::aarch64
