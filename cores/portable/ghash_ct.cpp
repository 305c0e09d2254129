// SPDX-License-Identifier: Apache-2.0
// ghash-portable: constant-time GHASH from integer multiplies with "holes".
//
// Why this shape: the classic fast software GHASH uses 4- or 8-bit tables of
// multiples of H indexed by data bits (Shoup), which leaks the indices
// through the cache. Here every step is a fixed sequence of multiplies,
// shifts, masks and XORs; nothing branches on or indexes by H, the data or
// the hash state.
//
// Carry-less 64x64 -> 128 from ordinary integer multiplies: split x and y
// into four lanes holding every 4th bit (masks 0x1111..1 << i). In the
// integer product of two lanes, the partial products land only on columns of
// one residue class mod 4, so if no column sums more than 15 ones, each
// column's 4-bit count fits below the next column of the same class and its
// low bit is exactly the carry-less (XOR) sum. A 64-bit lane has 16 bits, so
// x's top nibble (bits 60..63) is kept out of the lanes (leaving 15 per
// lane) and added afterwards as four masked, shifted copies of y. Products of
// the four lane pairs of one class are XORed (not added) and masked.
//
// 128x128 uses one Karatsuba step (three 64x64 products). Field elements are
// loaded big-endian, so GCM's x^0 (the first bit of the block) is bit 127:
// the "reflected" order. A reflected product comes out one bit short of the
// 256-bit reversed product, hence one left shift before reduction by
// x^128 + x^7 + x^2 + x + 1, which in this order is right shifts by 1, 2 and
// 7 plus a second, spill-free fold of the bits shifted out.
//
// Four blocks at a time are multiplied by H^4, H^3, H^2, H and their
// unreduced products summed, so they share one reduction.
#include <cstring>

#include "cores/ghash.h"
#include "cores/portable/portable.h"

namespace hwc::portable {
namespace {

using u128 = unsigned __int128;

struct Element {
    uint64_t hi; // bytes 0..7 of the block, big-endian (x^0 at bit 63)
    uint64_t lo; // bytes 8..15
};

// What set_key leaves in GhashKey: H^1..H^4, each as hi, lo and hi ^ lo (the
// Karatsuba middle operand).
struct KeyData {
    uint64_t pw[4][3];
};
static_assert(sizeof(KeyData) <= sizeof(GhashKey::bytes));

uint64_t load_be64(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v = (v << 8) | p[i];
    return v;
}

void store_be64(uint8_t* p, uint64_t v) {
    for (int i = 7; i >= 0; --i) {
        p[i] = static_cast<uint8_t>(v);
        v >>= 8;
    }
}

Element load(const uint8_t* p) { return {load_be64(p), load_be64(p + 8)}; }

void store(uint8_t* p, Element e) {
    store_be64(p, e.hi);
    store_be64(p + 8, e.lo);
}

inline u128 mul(uint64_t a, uint64_t b) { return static_cast<u128>(a) * b; }

inline u128 wide(uint64_t m) { return (static_cast<u128>(m) << 64) | m; }

// Carry-less product of two 64-bit polynomials (plain bit order: bit i is
// the coefficient of z^i), 127 bits wide.
inline u128 clmul64(uint64_t x, uint64_t y) {
    constexpr uint64_t m0 = 0x1111111111111111ULL, m1 = m0 << 1, m2 = m0 << 2, m3 = m0 << 3;
    const uint64_t xl = x & 0x0FFFFFFFFFFFFFFFULL;
    const uint64_t x0 = xl & m0, x1 = xl & m1, x2 = xl & m2, x3 = xl & m3;
    const uint64_t y0 = y & m0, y1 = y & m1, y2 = y & m2, y3 = y & m3;

    const u128 z0 = mul(x0, y0) ^ mul(x1, y3) ^ mul(x2, y2) ^ mul(x3, y1);
    const u128 z1 = mul(x0, y1) ^ mul(x1, y0) ^ mul(x2, y3) ^ mul(x3, y2);
    const u128 z2 = mul(x0, y2) ^ mul(x1, y1) ^ mul(x2, y0) ^ mul(x3, y3);
    const u128 z3 = mul(x0, y3) ^ mul(x1, y2) ^ mul(x2, y1) ^ mul(x3, y0);
    u128 r = (z0 & wide(m0)) | (z1 & wide(m1)) | (z2 & wide(m2)) | (z3 & wide(m3));

    // x's top nibble: for each bit, y shifted into place under an all-ones
    // or all-zeros mask (arithmetic, not a branch).
    for (unsigned t = 60; t < 64; ++t) {
        const uint64_t mask = uint64_t{0} - ((x >> t) & 1);
        r ^= static_cast<u128>(y & mask) << t;
    }
    return r;
}

// An unreduced 256-bit product kept as Karatsuba's three parts, so several
// products can be summed before combining.
struct Wide {
    u128 lo = 0, mid = 0, hi = 0;
};

inline void mul_acc(Wide& acc, Element a, const uint64_t h[3]) {
    const u128 lo = clmul64(a.lo, h[1]);
    const u128 hi = clmul64(a.hi, h[0]);
    const u128 mid = clmul64(a.hi ^ a.lo, h[2]);
    acc.lo ^= lo;
    acc.hi ^= hi;
    acc.mid ^= mid ^ lo ^ hi;
}

// Combines the parts, re-aligns the reflected product and reduces it.
inline Element reduce(const Wide& w) {
    // 256-bit product: hi:128 || lo:128 with mid added at bit 64.
    u128 top = w.hi ^ (w.mid >> 64);
    u128 bot = w.lo ^ (w.mid << 64);
    // Reflected product of two 128-bit elements is 255 bits: shift left one.
    top = (top << 1) | (bot >> 127);
    bot <<= 1;
    // `top` holds degrees 0..127, `bot` degrees 128..255 (degree 128+t at
    // bit 127-t). Fold bot * (1 + x + x^2 + x^7) into top; the bits that the
    // right shifts push below bit 0 are degrees >= 128 again: fold them once
    // more (they sit in the top 7 bits, so the second fold cannot spill).
    const u128 spill = (bot << 127) ^ (bot << 126) ^ (bot << 121);
    const u128 r = bot ^ (bot >> 1) ^ (bot >> 2) ^ (bot >> 7) ^ spill ^ (spill >> 1) ^
                   (spill >> 2) ^ (spill >> 7);
    top ^= r;
    return {static_cast<uint64_t>(top >> 64), static_cast<uint64_t>(top)};
}

inline Element gmul(Element a, const uint64_t h[3]) {
    Wide w;
    mul_acc(w, a, h);
    return reduce(w);
}

void set_powers(KeyData& kd, Element h) {
    Element p = h;
    for (int i = 0; i < 4; ++i) {
        kd.pw[i][0] = p.hi;
        kd.pw[i][1] = p.lo;
        kd.pw[i][2] = p.hi ^ p.lo;
        if (i < 3) p = gmul(p, kd.pw[0]);
    }
}

void ghash_set_key(GhashKey& key, const uint8_t h[16]) {
    KeyData kd;
    set_powers(kd, load(h));
    std::memset(key.bytes, 0, sizeof key.bytes);
    std::memcpy(key.bytes, &kd, sizeof kd);
    // The local copy is a secret: clear it (volatile so it is not elided).
    volatile uint8_t* v = reinterpret_cast<volatile uint8_t*>(&kd);
    for (size_t i = 0; i < sizeof kd; ++i) v[i] = 0;
}

void ghash_update(const GhashKey& key, uint8_t y[16], const uint8_t* in, size_t nblocks) {
    if (nblocks == 0) return;
    KeyData kd;
    std::memcpy(&kd, key.bytes, sizeof kd);
    Element acc = load(y);

    for (; nblocks >= 4; nblocks -= 4, in += 64) {
        Element a = load(in);
        a.hi ^= acc.hi;
        a.lo ^= acc.lo;
        Wide w;
        mul_acc(w, a, kd.pw[3]);
        mul_acc(w, load(in + 16), kd.pw[2]);
        mul_acc(w, load(in + 32), kd.pw[1]);
        mul_acc(w, load(in + 48), kd.pw[0]);
        acc = reduce(w);
    }
    for (; nblocks != 0; --nblocks, in += 16) {
        Element a = load(in);
        a.hi ^= acc.hi;
        a.lo ^= acc.lo;
        acc = gmul(a, kd.pw[0]);
    }
    store(y, acc);
    volatile uint8_t* v = reinterpret_cast<volatile uint8_t*>(&kd);
    for (size_t i = 0; i < sizeof kd; ++i) v[i] = 0;
}

} // namespace

const GhashCore ghash = {
    "ghash-portable",
    false,
    0,
    ghash_set_key,
    ghash_update,
};

} // namespace hwc::portable
