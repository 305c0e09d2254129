// SPDX-License-Identifier: Apache-2.0
// Constant-time portable SM4 (GB/T 32907-2016), bitsliced 16 blocks at a time.
//
// Technique: bitslicing. Each of the four 32-bit state words X0..X3 of sixteen
// blocks is held in eight 64-bit planes (plane p = bit p of every byte); plane
// bit position 16*j + b holds byte j (j = 0 is the most significant byte of
// the big-endian word) of block b. Then:
//   - tau (four parallel S-boxes) is one boolean circuit on eight planes. The
//     SM4 S-box is S(x) = A*I(A*x + c) + c, with I the inversion in
//     GF(2)[x]/(x^8+x^7+x^6+x^5+x^4+x^2+1), A the circulant matrix whose row
//     i is 0xa7 rotated left by i (output bit i = x_i+x_{i+1}+x_{i+2}+x_{i+5}+
//     x_{i+7}) and c = 0xd3 (Liu et al., "Analysis of the SM4 block cipher
//     and its S-box"). The inversion runs through the shared tower-field
//     circuit of sbox_sliced.h; the field isomorphism is folded into A.
//     These facts are checked against the GB/T 32907-2016 Appendix A example
//     by the tests, and a few table entries are static_asserted below.
//   - rotating a 32-bit word left by 8q+s bits is, per plane, a rotation of
//     the 64-bit plane by 16q bits (bytes move) plus renumbering planes by s,
//     the low s planes coming from the next byte: L costs only shifts/XORs.
// The key schedule uses the same circuit for its S-boxes; round keys are
// stored already spread over the planes.

#include "cores/portable/portable.h"
#include "cores/portable/sbox_sliced.h"

#include <cstring>

namespace hwc::portable {
namespace {

constexpr unsigned kSm4Poly = 0x1f5;  // x^8+x^7+x^6+x^5+x^4+x^2+1
constexpr Mat8 kIso = tower_iso(kSm4Poly);
constexpr Mat8 kA = mat_circulant(0xa7);
constexpr uint8_t kC = 0xd3;
// S(x) = A * Iso^-1 * tinv(Iso * A * x + Iso * c) + c.
constexpr SboxSpec kSbox{mat_mul(kIso, kA), mat_apply(kIso, kC), mat_mul(kA, mat_inv(kIso)), kC};

// First and last entries of the GB/T 32907-2016 S-box table.
static_assert(sbox_eval(kSbox, 0x00) == 0xd6 && sbox_eval(kSbox, 0x01) == 0x90);
static_assert(sbox_eval(kSbox, 0x02) == 0xe9 && sbox_eval(kSbox, 0x03) == 0xfe);
static_assert(sbox_eval(kSbox, 0xff) == 0x48);

// System parameter FK (a constant of the standard).
constexpr uint32_t kFK[4] = {0xa3b1bac6, 0x56aa3350, 0x677d9197, 0xb27022dc};

// CK_i: byte j is (4i + j) * 7 mod 256.
constexpr uint32_t ck(unsigned i) {
    uint32_t v = 0;
    for (unsigned j = 0; j < 4; ++j) v = (v << 8) | (((4 * i + j) * 7) & 0xff);
    return v;
}
static_assert(ck(0) == 0x00070e15 && ck(31) == 0x646b7279);

constexpr size_t kRounds = 32;
constexpr size_t kRkBytes = kRounds * 8 * sizeof(u64);
static_assert(kRkBytes <= kMaxScheduleBytes);

inline uint32_t rotl32(uint32_t x, unsigned k) { return (x << k) | (x >> (32 - k)); }

// Plane p of the 32-bit word t rotated left by K bits (K = 8q + s).
template <unsigned K>
inline u64 rol_plane(const u64 t[8], unsigned p) {
    constexpr unsigned q = K / 8, s = K % 8;
    return p >= s ? rotr64(t[p - s], 16 * q) : rotr64(t[p + 8 - s], 16 * (q + 1));
}

// One round: a ^= L(tau(b ^ c ^ d ^ rk)).
inline void round(u64 a[8], const u64 b[8], const u64 c[8], const u64 d[8],
                  const KeySchedule& ks, unsigned r) {
    u64 t[8];
    for (unsigned p = 0; p < 8; ++p) {
        u64 k;
        std::memcpy(&k, ks.bytes + (r * 8 + p) * sizeof(u64), sizeof k);
        t[p] = b[p] ^ c[p] ^ d[p] ^ k;
    }
    sbox_sliced<kSbox>(t);
    for (unsigned p = 0; p < 8; ++p)
        a[p] ^= t[p] ^ rol_plane<2>(t, p) ^ rol_plane<10>(t, p) ^ rol_plane<18>(t, p)
              ^ rol_plane<24>(t, p);
}

template <bool Encrypt>
void crypt_blocks(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    uint8_t buf[256];
    while (n > 0) {
        // Through a local buffer: zero-padded partial batches, in == out safe.
        const size_t take = n < 16 ? n : 16;
        std::memset(buf, 0, sizeof buf);
        std::memcpy(buf, in, take * 16);
        // Plane word m pairs block m (even byte lanes) with block m + 8.
        u64 x[4][8];
        for (unsigned w = 0; w < 4; ++w) {
            const uint8_t *a[8], *b[8];
            for (unsigned m = 0; m < 8; ++m) {
                a[m] = buf + 16 * m + 4 * w;
                b[m] = buf + 16 * (m + 8) + 4 * w;
            }
            pack_pairs(a, b, x[w]);
        }
        for (unsigned r = 0; r < kRounds; r += 4) {
            const unsigned k0 = Encrypt ? r : 31 - r;
            const unsigned k1 = Encrypt ? r + 1 : 30 - r;
            const unsigned k2 = Encrypt ? r + 2 : 29 - r;
            const unsigned k3 = Encrypt ? r + 3 : 28 - r;
            round(x[0], x[1], x[2], x[3], ks, k0);
            round(x[1], x[2], x[3], x[0], ks, k1);
            round(x[2], x[3], x[0], x[1], ks, k2);
            round(x[3], x[0], x[1], x[2], ks, k3);
        }
        // Output is (X35, X34, X33, X32) = (x[3], x[2], x[1], x[0]).
        for (unsigned w = 0; w < 4; ++w) {
            uint8_t *a[8], *b[8];
            for (unsigned m = 0; m < 8; ++m) {
                a[m] = buf + 16 * m + 4 * w;
                b[m] = buf + 16 * (m + 8) + 4 * w;
            }
            unpack_pairs(x[3 - w], a, b);
        }
        std::memcpy(out, buf, take * 16);
        in += take * 16;
        out += take * 16;
        n -= take;
    }
}

void sm4_encrypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    crypt_blocks<true>(ks, in, out, n);
}
void sm4_decrypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    crypt_blocks<false>(ks, in, out, n);
}

bool sm4_set_key(KeySchedule& ks, const uint8_t* key, size_t keylen) {
    if (keylen != 16) return false;
    uint32_t k[4];
    for (unsigned i = 0; i < 4; ++i)
        k[i] = ((uint32_t{key[4 * i]} << 24) | (uint32_t{key[4 * i + 1]} << 16) |
                (uint32_t{key[4 * i + 2]} << 8) | uint32_t{key[4 * i + 3]}) ^ kFK[i];
    uint8_t b[4];
    for (unsigned r = 0; r < kRounds; ++r) {
        const uint32_t x = k[(r + 1) & 3] ^ k[(r + 2) & 3] ^ k[(r + 3) & 3] ^ ck(r);
        for (unsigned j = 0; j < 4; ++j) b[j] = static_cast<uint8_t>(x >> (24 - 8 * j));
        sbox_bytes4<kSbox>(b);
        const uint32_t s = (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) |
                           (uint32_t{b[2]} << 8) | uint32_t{b[3]};
        const uint32_t rk = k[r & 3] ^ s ^ rotl32(s, 13) ^ rotl32(s, 23);  // L'
        k[r & 3] = rk;
        // Spread: byte j of rk fills the 16 block bits at 16j of plane p.
        for (unsigned p = 0; p < 8; ++p) {
            u64 plane = 0;
            for (unsigned j = 0; j < 4; ++j) {
                const u64 bit = (rk >> (24 - 8 * j + p)) & 1;
                plane |= (u64{0} - bit) & (u64{0xffff} << (16 * j));
            }
            std::memcpy(ks.bytes + (r * 8 + p) * sizeof(u64), &plane, sizeof plane);
        }
    }
    secure_wipe(k, sizeof k);
    secure_wipe(b, sizeof b);
    return true;
}

} // namespace

extern const BlockCore sm4 = {
    .name = "sm4-portable",
    .family = Family::sm4,
    .hardware = false,
    .needs = 0,
    .set_key = sm4_set_key,
    .encrypt_blocks = sm4_encrypt,
    .decrypt_blocks = sm4_decrypt,
};

} // namespace hwc::portable
