// SPDX-License-Identifier: Apache-2.0
// Constant-time portable AES-128/192/256 (FIPS-197), bitsliced 4 blocks at a time.
//
// Technique: the 64 state bytes of four blocks are held in eight 64-bit bit
// planes (plane i = bit i of every byte). Plane bit position 16*r + 4*c + b
// holds row r, column c of block b (FIPS-197 state indexing, byte 4c+r of the
// block). With this layout:
//   - SubBytes is one boolean circuit on the eight planes (sbox_sliced.h:
//     FIPS-197 5.1.1 affine map composed with GF(2^8) inversion modulo
//     x^8+x^4+x^3+x+1, computed through a tower field);
//   - ShiftRows rotates each 16-bit row group by 4*r bits;
//   - MixColumns needs "the byte one row down" = rotate the plane by 16 bits,
//     and multiplication by {02} is a shuffle of planes (xtime);
//   - InvMixColumns = MixColumns o (05 + 04*x^2), since in GF(2^8)[x]/(x^4+1)
//     {0b,0d,09,0e} = {03,01,01,02} * {00,04,00,05} (checked by the tests).
// The key schedule uses the same S-box circuit, so nothing secret indexes
// memory anywhere. Round keys are stored already spread over the planes.

#include "cores/portable/portable.h"
#include "cores/portable/sbox_sliced.h"

#include <cstring>

namespace hwc::portable {
namespace {

constexpr unsigned kAesPoly = 0x11b;  // x^8 + x^4 + x^3 + x + 1
constexpr Mat8 kIso = tower_iso(kAesPoly);
constexpr Mat8 kIsoInv = mat_inv(kIso);
// FIPS-197 eq. (5.1): b'_i = b_i ^ b_{i+4} ^ b_{i+5} ^ b_{i+6} ^ b_{i+7} ^ c_i.
constexpr Mat8 kAffine = mat_circulant(0xf1);
constexpr uint8_t kAffineC = 0x63;
constexpr Mat8 kAffineInv = mat_inv(kAffine);

// S(x) = A * inv(x) + c, inv taken through the tower: inv = Iso^-1 o tinv o Iso.
constexpr SboxSpec kEnc{kIso, 0, mat_mul(kAffine, kIsoInv), kAffineC};
// S^-1(x) = inv(A^-1 * (x + c)).
constexpr SboxSpec kDec{mat_mul(kIso, kAffineInv), mat_apply(mat_mul(kIso, kAffineInv), kAffineC),
                        kIsoInv, 0};

static_assert(mat_mul(kIso, kIsoInv) == Mat8{1, 2, 4, 8, 16, 32, 64, 128});
// Known entries (FIPS-197 Figure 7 and the worked example S(53) = ed).
static_assert(sbox_eval(kEnc, 0x00) == 0x63 && sbox_eval(kEnc, 0x53) == 0xed);
static_assert(sbox_eval(kEnc, 0x01) == 0x7c && sbox_eval(kEnc, 0xff) == 0x16);
static_assert(sbox_eval(kDec, 0x63) == 0x00 && sbox_eval(kDec, 0xed) == 0x53);

constexpr size_t kMaxRounds = 14;
struct Layout {
    static constexpr size_t rk = 0;                                   // (rounds+1) x 8 planes
    static constexpr size_t rounds = (kMaxRounds + 1) * 8 * sizeof(u64);
    static constexpr size_t end = rounds + 1;
};
static_assert(Layout::end <= kMaxScheduleBytes);

// --- round operations on the 8 planes -------------------------------------

inline void add_round_key(u64 q[8], const KeySchedule& ks, unsigned r) {
    for (unsigned i = 0; i < 8; ++i) {
        u64 k;
        std::memcpy(&k, ks.bytes + Layout::rk + (r * 8 + i) * sizeof(u64), sizeof k);
        q[i] ^= k;
    }
}

// Row r (bits 16r..16r+15) rotated so column c receives column c+r.
inline u64 shift_rows1(u64 x) {
    return (x & 0x000000000000ffffull)
         | ((x >> 4) & 0x000000000fff0000ull) | ((x << 12) & 0x00000000f0000000ull)
         | ((x >> 8) & 0x000000ff00000000ull) | ((x << 8) & 0x0000ff0000000000ull)
         | ((x >> 12) & 0x000f000000000000ull) | ((x << 4) & 0xfff0000000000000ull);
}
// Column c receives column c-r.
inline u64 inv_shift_rows1(u64 x) {
    return (x & 0x000000000000ffffull)
         | ((x << 4) & 0x00000000fff00000ull) | ((x >> 12) & 0x00000000000f0000ull)
         | ((x >> 8) & 0x000000ff00000000ull) | ((x << 8) & 0x0000ff0000000000ull)
         | ((x << 12) & 0xf000000000000000ull) | ((x >> 4) & 0x0fff000000000000ull);
}

// Multiply every byte by {02}: x^8 = x^4 + x^3 + x + 1.
inline void xtime(const u64 e[8], u64 o[8]) {
    o[0] = e[7];
    o[1] = e[0] ^ e[7];
    o[2] = e[1];
    o[3] = e[2] ^ e[7];
    o[4] = e[3] ^ e[7];
    o[5] = e[4];
    o[6] = e[5];
    o[7] = e[6];
}

// s'_r = 02*s_r + 03*s_{r+1} + s_{r+2} + s_{r+3} = 02*(s_r + s_{r+1}) + s_{r+1} + s_{r+2} + s_{r+3};
// rotr by 16 brings row r+1 to row r.
inline void mix_columns(u64 q[8]) {
    u64 e[8], b[8], x[8];
    for (int i = 0; i < 8; ++i) {
        b[i] = rotr64(q[i], 16);
        e[i] = q[i] ^ b[i];
    }
    xtime(e, x);
    for (int i = 0; i < 8; ++i) q[i] = x[i] ^ b[i] ^ rotr64(e[i], 32);
}

inline void inv_mix_columns(u64 q[8]) {
    // q := q + 04*(q + rows rotated by two), then MixColumns.
    u64 e[8], x[8], y[8];
    for (int i = 0; i < 8; ++i) e[i] = q[i] ^ rotr64(q[i], 32);
    xtime(e, x);
    xtime(x, y);
    for (int i = 0; i < 8; ++i) q[i] ^= y[i];
    mix_columns(q);
}

// Plane word m (m = 4*(c&1) + b) interleaves columns c&1 and (c&1)+2 of block b,
// so that after transposition plane bit 16r + 4c + b is row r, column c, block b.
inline void block_ptrs(uint8_t* buf, uint8_t* a[8], uint8_t* b[8]) {
    for (int m = 0; m < 8; ++m) {
        const int blk = m & 3, c0 = m >> 2;
        a[m] = buf + 16 * blk + 4 * c0;
        b[m] = buf + 16 * blk + 4 * (c0 + 2);
    }
}

template <bool Encrypt>
void crypt_blocks(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    const unsigned nr = ks.bytes[Layout::rounds];
    uint8_t buf[64];
    uint8_t *a[8], *b[8];
    block_ptrs(buf, a, b);
    while (n > 0) {
        // Copy through a local buffer: partial batches are zero-padded, and
        // in == out needs no special care.
        const size_t take = n < 4 ? n : 4;
        std::memset(buf, 0, sizeof buf);
        std::memcpy(buf, in, take * 16);
        u64 q[8];
        pack_pairs(a, b, q);
        if (Encrypt) {
            add_round_key(q, ks, 0);
            for (unsigned r = 1; r < nr; ++r) {
                sbox_sliced<kEnc>(q);
                for (int i = 0; i < 8; ++i) q[i] = shift_rows1(q[i]);
                mix_columns(q);
                add_round_key(q, ks, r);
            }
            sbox_sliced<kEnc>(q);
            for (int i = 0; i < 8; ++i) q[i] = shift_rows1(q[i]);
            add_round_key(q, ks, nr);
        } else {
            add_round_key(q, ks, nr);
            for (unsigned r = nr - 1; r > 0; --r) {
                for (int i = 0; i < 8; ++i) q[i] = inv_shift_rows1(q[i]);
                sbox_sliced<kDec>(q);
                add_round_key(q, ks, r);
                inv_mix_columns(q);
            }
            for (int i = 0; i < 8; ++i) q[i] = inv_shift_rows1(q[i]);
            sbox_sliced<kDec>(q);
            add_round_key(q, ks, 0);
        }
        unpack_pairs(q, a, b);
        std::memcpy(out, buf, take * 16);
        in += take * 16;
        out += take * 16;
        n -= take;
    }
}

void aes_encrypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    crypt_blocks<true>(ks, in, out, n);
}
void aes_decrypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    crypt_blocks<false>(ks, in, out, n);
}

// FIPS-197 5.2 KeyExpansion on bytes; SubWord runs the bitsliced circuit.
bool aes_set_key(KeySchedule& ks, const uint8_t* key, size_t keylen) {
    if (keylen != 16 && keylen != 24 && keylen != 32) return false;
    const unsigned nk = static_cast<unsigned>(keylen / 4);
    const unsigned nr = nk + 6;
    const unsigned nwords = 4 * (nr + 1);
    uint8_t w[4 * (kMaxRounds + 1)][4];
    std::memcpy(w, key, keylen);
    uint8_t rcon = 1;  // x^(i-1) in GF(2^8); public
    for (unsigned i = nk; i < nwords; ++i) {
        uint8_t t[4] = {w[i - 1][0], w[i - 1][1], w[i - 1][2], w[i - 1][3]};
        if (i % nk == 0) {
            const uint8_t t0 = t[0];  // RotWord
            t[0] = t[1]; t[1] = t[2]; t[2] = t[3]; t[3] = t0;
            sbox_bytes4<kEnc>(t);
            t[0] ^= rcon;
            rcon = gf_mul(rcon, 2, kAesPoly);
        } else if (nk > 6 && i % nk == 4) {
            sbox_bytes4<kEnc>(t);
        }
        for (int k = 0; k < 4; ++k) w[i][k] = w[i - nk][k] ^ t[k];
        secure_wipe(t, sizeof t);
    }
    // Spread each 16-byte round key over the planes: byte 4c+r fills the four
    // block bits at 16r + 4c, chosen by masks rather than branches.
    for (unsigned r = 0; r <= nr; ++r) {
        const uint8_t* rk = w[4 * r];
        for (unsigned i = 0; i < 8; ++i) {
            u64 plane = 0;
            for (unsigned p = 0; p < 16; ++p) {
                const u64 bit = (rk[p] >> i) & 1;
                plane |= (u64{0} - bit) & (u64{0xf} << (16 * (p & 3) + 4 * (p >> 2)));
            }
            std::memcpy(ks.bytes + Layout::rk + (r * 8 + i) * sizeof(u64), &plane, sizeof plane);
        }
    }
    ks.bytes[Layout::rounds] = static_cast<uint8_t>(nr);
    secure_wipe(w, sizeof w);
    return true;
}

} // namespace

extern const BlockCore aes = {
    .name = "aes-portable",
    .family = Family::aes,
    .hardware = false,
    .needs = 0,
    .set_key = aes_set_key,
    .encrypt_blocks = aes_encrypt,
    .decrypt_blocks = aes_decrypt,
};

} // namespace hwc::portable
