// SPDX-License-Identifier: Apache-2.0
// Portable Twofish-128/192/256 block core ("twofish-portable"), fully keyed S-box tables.
//
// NOT CONSTANT-TIME. This core precomputes, per key, four 256-entry tables that
// fold the key-dependent S-boxes and the MDS matrix together ("full keying"),
// and indexes them with bytes of the cipher state. Which cache lines are touched
// therefore depends on key and data, and an attacker sharing the cache (or
// timing many encryptions) can in principle learn key bits.
// Why this is accepted: Twofish has no hardware support anywhere, its S-boxes
// depend on the key, so a bitsliced or table-free form costs an order of
// magnitude in speed; Twofish is offered for interoperability with existing
// data (GnuPG, libgcrypt), where the table form is what everyone uses. The
// tables (4 KiB) stay L1-resident, which narrows but does not close the
// channel. Deployments that need side-channel resistance should use AES or SM4,
// whose portable cores are constant-time.
//
// Nothing here is hand-copied: q0/q1 are built from their 4-bit t-tables and
// the MDS/RS products are computed in GF(2^8) from the specification's
// matrices and polynomials, at compile time or at key setup.
#include "cores/portable/portable.h"
#include "cores/portable/twofish_schedule.h"
#include "cores/wipe.h"

#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>

namespace hwc::portable {
namespace {

// ---- fixed permutations q0 and q1 -------------------------------------------

// The 4-bit permutations t0..t3 that define q0 (index 0) and q1 (index 1).
constexpr uint8_t kT[2][4][16] = {
    {{0x8, 0x1, 0x7, 0xD, 0x6, 0xF, 0x3, 0x2, 0x0, 0xB, 0x5, 0x9, 0xE, 0xC, 0xA, 0x4},
     {0xE, 0xC, 0xB, 0x8, 0x1, 0x2, 0x3, 0x5, 0xF, 0x4, 0xA, 0x6, 0x7, 0x0, 0x9, 0xD},
     {0xB, 0xA, 0x5, 0xE, 0x6, 0xD, 0x9, 0x0, 0xC, 0x8, 0xF, 0x3, 0x2, 0x4, 0x7, 0x1},
     {0xD, 0x7, 0xF, 0x4, 0x1, 0x2, 0x6, 0xE, 0x9, 0xB, 0x3, 0x0, 0x8, 0x5, 0xC, 0xA}},
    {{0x2, 0x8, 0xB, 0xD, 0xF, 0x7, 0x6, 0xE, 0x3, 0x1, 0x9, 0x4, 0x0, 0xA, 0xC, 0x5},
     {0x1, 0xE, 0x2, 0xB, 0x4, 0xC, 0x3, 0x7, 0x6, 0xD, 0xA, 0x5, 0xF, 0x9, 0x0, 0x8},
     {0x4, 0xC, 0x7, 0x5, 0x1, 0x6, 0x9, 0xA, 0x0, 0xE, 0xD, 0x8, 0x2, 0xB, 0x3, 0xF},
     {0xB, 0x9, 0x5, 0x1, 0xC, 0x3, 0xD, 0xE, 0x6, 0x4, 0x7, 0xF, 0x2, 0x0, 0x8, 0xA}},
};

constexpr unsigned ror4(unsigned x) { return ((x >> 1) | (x << 3)) & 0xF; }

// The spec's two-layer nibble network: mix the halves, substitute, twice.
constexpr uint8_t q_permute(const uint8_t (&t)[4][16], unsigned x) {
    unsigned a = x >> 4, b = x & 0xF;
    unsigned a1 = a ^ b, b1 = (a ^ ror4(b) ^ (a << 3)) & 0xF;
    unsigned a2 = t[0][a1], b2 = t[1][b1];
    unsigned a3 = a2 ^ b2, b3 = (a2 ^ ror4(b2) ^ (a2 << 3)) & 0xF;
    return static_cast<uint8_t>((t[3][b3] << 4) | t[2][a3]);
}

struct QTables {
    uint8_t q[2][256];
};

constexpr QTables make_q() {
    QTables r{};
    for (int which = 0; which < 2; ++which)
        for (unsigned x = 0; x < 256; ++x) r.q[which][x] = q_permute(kT[which], x);
    return r;
}

constexpr QTables kQ = make_q();

// ---- GF(2^8) matrices --------------------------------------------------------

constexpr uint8_t gf_mul(unsigned a, unsigned b, unsigned poly) {
    unsigned r = 0;
    for (; b; b >>= 1) {
        if (b & 1) r ^= a;
        a <<= 1;
        if (a & 0x100) a ^= poly;
    }
    return static_cast<uint8_t>(r);
}

constexpr unsigned kMdsPoly = 0x169; // x^8 + x^6 + x^5 + x^3 + 1
constexpr unsigned kRsPoly = 0x14D;  // x^8 + x^6 + x^3 + x^2 + 1

constexpr uint8_t kMds[4][4] = {
    {0x01, 0xEF, 0x5B, 0x5B},
    {0x5B, 0xEF, 0xEF, 0x01},
    {0xEF, 0x5B, 0x01, 0xEF},
    {0xEF, 0x01, 0xEF, 0x5B},
};

constexpr uint8_t kRs[4][8] = {
    {0x01, 0xA4, 0x55, 0x87, 0x5A, 0x58, 0xDB, 0x9E},
    {0xA4, 0x56, 0x82, 0xF3, 0x1E, 0xC6, 0x68, 0xE5},
    {0x02, 0xA1, 0xFC, 0xC1, 0x47, 0xAE, 0x3D, 0x19},
    {0xA4, 0x55, 0x87, 0x5A, 0x58, 0xDB, 0x9E, 0x03},
};

// kMdsCol.c[j][y] = (MDS column j) * y, packed little-endian: the contribution
// of input byte j to the MDS product. Lets key setup build tables with lookups.
struct MdsTables {
    uint32_t c[4][256];
};

constexpr MdsTables make_mds() {
    MdsTables r{};
    for (int j = 0; j < 4; ++j)
        for (unsigned y = 0; y < 256; ++y) {
            uint32_t w = 0;
            for (int i = 0; i < 4; ++i) w |= uint32_t{gf_mul(y, kMds[i][j], kMdsPoly)} << (8 * i);
            r.c[j][y] = w;
        }
    return r;
}

constexpr MdsTables kMdsCol = make_mds();

// Which q each byte lane goes through in h, innermost first: the k=4 stage,
// the k>=3 stage, then the three stages every key length has.
constexpr uint8_t kChain[4][5] = {
    {1, 1, 0, 0, 1},
    {0, 1, 1, 0, 0},
    {0, 0, 0, 1, 1},
    {1, 0, 1, 1, 0},
};

// Byte lane j of h before the MDS step; l[i][j] is byte j of list word L_i.
inline uint8_t h_lane(int j, uint8_t x, const uint8_t (&l)[4][4], int k) {
    uint8_t y = x;
    if (k == 4) y = kQ.q[kChain[j][0]][y] ^ l[3][j];
    if (k >= 3) y = kQ.q[kChain[j][1]][y] ^ l[2][j];
    y = kQ.q[kChain[j][2]][y] ^ l[1][j];
    y = kQ.q[kChain[j][3]][y] ^ l[0][j];
    return kQ.q[kChain[j][4]][y];
}

// h(X, L) for X whose four bytes are all `x` (the only inputs the subkey
// derivation uses: 2i * 0x01010101 and (2i+1) * 0x01010101).
inline uint32_t h_splat(uint8_t x, const uint8_t (&l)[4][4], int k) {
    uint32_t r = 0;
    for (int j = 0; j < 4; ++j) r ^= kMdsCol.c[j][h_lane(j, x, l, k)];
    return r;
}

// ---- key schedule ------------------------------------------------------------

// Layout in cores/portable/twofish_schedule.h (shared with the aarch64 core).
using Schedule = TwofishSchedule;

inline const Schedule& sched(const KeySchedule& ks) {
    return *std::launder(reinterpret_cast<const Schedule*>(ks.bytes));
}

} // namespace

bool twofish_set_key(KeySchedule& ks, const uint8_t* key, size_t keylen) {
    if (keylen != 16 && keylen != 24 && keylen != 32) return false;
    const int k = static_cast<int>(keylen / 8);

    // me/mo: bytes of the even/odd key words (M0, M2, .. / M1, M3, ..);
    // sb: the S vector, reversed as g uses it (L_i = S_{k-1-i}).
    uint8_t me[4][4] = {}, mo[4][4] = {}, sb[4][4] = {};
    for (int i = 0; i < k; ++i) {
        for (int j = 0; j < 4; ++j) {
            me[i][j] = key[8 * i + j];
            mo[i][j] = key[8 * i + 4 + j];
        }
        for (int r = 0; r < 4; ++r) {
            uint8_t acc = 0;
            for (int c = 0; c < 8; ++c) acc ^= gf_mul(key[8 * i + c], kRs[r][c], kRsPoly);
            sb[k - 1 - i][r] = acc;
        }
    }

    Schedule* s = ::new (static_cast<void*>(ks.bytes)) Schedule;
    for (int i = 0; i < 20; ++i) {
        const uint32_t a = h_splat(static_cast<uint8_t>(2 * i), me, k);
        const uint32_t b = std::rotl(h_splat(static_cast<uint8_t>(2 * i + 1), mo, k), 8);
        s->k[2 * i] = a + b;
        s->k[2 * i + 1] = std::rotl(a + 2 * b, 9);
    }
    for (int j = 0; j < 4; ++j)
        for (unsigned x = 0; x < 256; ++x)
            s->s[j][x] = kMdsCol.c[j][h_lane(j, static_cast<uint8_t>(x), sb, k)];

    secure_wipe(me, sizeof me);
    secure_wipe(mo, sizeof mo);
    secure_wipe(sb, sizeof sb);
    return true;
}

namespace {

// ---- block functions ---------------------------------------------------------

// Byte-wise little-endian access: correct on big-endian hosts and for
// unaligned buffers; compilers fuse it into one (byte-reversed) load/store.
inline uint32_t load_le(const uint8_t* p) {
    return uint32_t{p[0]} | uint32_t{p[1]} << 8 | uint32_t{p[2]} << 16 | uint32_t{p[3]} << 24;
}

inline void store_le(uint8_t* p, uint32_t v) {
    p[0] = static_cast<uint8_t>(v);
    p[1] = static_cast<uint8_t>(v >> 8);
    p[2] = static_cast<uint8_t>(v >> 16);
    p[3] = static_cast<uint8_t>(v >> 24);
}

inline uint32_t g0(const Schedule& s, uint32_t x) {
    return s.s[0][x & 0xFF] ^ s.s[1][(x >> 8) & 0xFF] ^ s.s[2][(x >> 16) & 0xFF] ^ s.s[3][x >> 24];
}

// g(rotl(x, 8)) without the rotate: byte lanes shifted by one.
inline uint32_t g1(const Schedule& s, uint32_t x) {
    return s.s[0][x >> 24] ^ s.s[1][x & 0xFF] ^ s.s[2][(x >> 8) & 0xFF] ^ s.s[3][(x >> 16) & 0xFF];
}

// Rounds are unrolled in pairs so the Feistel swap becomes a renaming:
// even rounds feed (a, b) into (c, d), odd rounds (c, d) into (a, b).
void encrypt_blocks(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t nblocks) {
    const Schedule& s = sched(ks);
    const uint32_t* k = s.k;
    for (; nblocks; --nblocks, in += kBlockSize, out += kBlockSize) {
        uint32_t a = load_le(in) ^ k[0], b = load_le(in + 4) ^ k[1];
        uint32_t c = load_le(in + 8) ^ k[2], d = load_le(in + 12) ^ k[3];
        for (int r = 0; r < 16; r += 2) {
            uint32_t t0 = g0(s, a), t1 = g1(s, b);
            c = std::rotr(c ^ (t0 + t1 + k[8 + 2 * r]), 1);
            d = std::rotl(d, 1) ^ (t0 + 2 * t1 + k[9 + 2 * r]);
            t0 = g0(s, c);
            t1 = g1(s, d);
            a = std::rotr(a ^ (t0 + t1 + k[10 + 2 * r]), 1);
            b = std::rotl(b, 1) ^ (t0 + 2 * t1 + k[11 + 2 * r]);
        }
        // Output whitening undoes the last swap: C = (R2, R3, R0, R1) ^ K4..K7.
        store_le(out, c ^ k[4]);
        store_le(out + 4, d ^ k[5]);
        store_le(out + 8, a ^ k[6]);
        store_le(out + 12, b ^ k[7]);
    }
}

void decrypt_blocks(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t nblocks) {
    const Schedule& s = sched(ks);
    const uint32_t* k = s.k;
    for (; nblocks; --nblocks, in += kBlockSize, out += kBlockSize) {
        uint32_t c = load_le(in) ^ k[4], d = load_le(in + 4) ^ k[5];
        uint32_t a = load_le(in + 8) ^ k[6], b = load_le(in + 12) ^ k[7];
        for (int r = 14; r >= 0; r -= 2) {
            uint32_t t0 = g0(s, c), t1 = g1(s, d);
            a = std::rotl(a, 1) ^ (t0 + t1 + k[10 + 2 * r]);
            b = std::rotr(b ^ (t0 + 2 * t1 + k[11 + 2 * r]), 1);
            t0 = g0(s, a);
            t1 = g1(s, b);
            c = std::rotl(c, 1) ^ (t0 + t1 + k[8 + 2 * r]);
            d = std::rotr(d ^ (t0 + 2 * t1 + k[9 + 2 * r]), 1);
        }
        store_le(out, a ^ k[0]);
        store_le(out + 4, b ^ k[1]);
        store_le(out + 8, c ^ k[2]);
        store_le(out + 12, d ^ k[3]);
    }
}

} // namespace

extern const BlockCore twofish = {
    .name = "twofish-portable",
    .family = Family::twofish,
    .hardware = false,
    .needs = 0,
    .set_key = twofish_set_key,
    .encrypt_blocks = encrypt_blocks,
    .decrypt_blocks = decrypt_blocks,
};

} // namespace hwc::portable
