// SPDX-License-Identifier: Apache-2.0
// Textbook AES, GCM multiplication and the XTS/CMAC doubling steps for the
// CPACF shim (see shim_crypto.h for why the shim carries its own).
//
// AES follows FIPS 197 section 5 literally: byte state in column order,
// SubBytes/ShiftRows/MixColumns/AddRoundKey and their inverses. The S-box is
// not typed in but derived at compile time from its definition (multiplicative
// inverse in GF(2^8) mod x^8+x^4+x^3+x+1, then the affine map with 0x63), so a
// mistyped table entry cannot hide in it.
#include "test/s390x/shim_crypto.h"

#include <array>
#include <cstring>

namespace hwc::test::shim {
namespace {

constexpr uint8_t xtime(uint8_t a) {
    return static_cast<uint8_t>((a << 1) ^ ((a & 0x80) ? 0x1b : 0));
}

constexpr uint8_t gf_mul(uint8_t a, uint8_t b) {
    uint8_t r = 0;
    while (b) {
        if (b & 1) r ^= a;
        a = xtime(a);
        b >>= 1;
    }
    return r;
}

// a^254 = a^-1 for a != 0 (the group has order 255); 0 maps to 0.
constexpr uint8_t gf_inverse(uint8_t a) {
    uint8_t r = 1;
    for (int i = 0; i < 254; ++i) r = gf_mul(r, a);
    return a ? r : 0;
}

constexpr uint8_t rotl8(uint8_t x, int n) {
    return static_cast<uint8_t>((x << n) | (x >> (8 - n)));
}

constexpr std::array<uint8_t, 256> make_sbox() {
    std::array<uint8_t, 256> s{};
    for (int i = 0; i < 256; ++i) {
        const uint8_t b = gf_inverse(static_cast<uint8_t>(i));
        s[i] = static_cast<uint8_t>(b ^ rotl8(b, 1) ^ rotl8(b, 2) ^ rotl8(b, 3) ^ rotl8(b, 4) ^
                                    0x63);
    }
    return s;
}

constexpr std::array<uint8_t, 256> kSbox = make_sbox();

constexpr std::array<uint8_t, 256> make_inverse_sbox() {
    std::array<uint8_t, 256> inv{};
    for (int i = 0; i < 256; ++i) inv[kSbox[i]] = static_cast<uint8_t>(i);
    return inv;
}

constexpr std::array<uint8_t, 256> kInvSbox = make_inverse_sbox();

// Spot checks from FIPS 197 figure 7 and 14.
static_assert(kSbox[0x00] == 0x63 && kSbox[0x53] == 0xed && kSbox[0xff] == 0x16);
static_assert(kInvSbox[0x63] == 0x00 && kInvSbox[0xed] == 0x53);

// Multiplication tables for the MixColumns constants.
constexpr std::array<uint8_t, 256> make_mul(uint8_t c) {
    std::array<uint8_t, 256> t{};
    for (int i = 0; i < 256; ++i) t[i] = gf_mul(static_cast<uint8_t>(i), c);
    return t;
}

constexpr auto kMul2 = make_mul(2), kMul3 = make_mul(3), kMul9 = make_mul(9),
               kMul11 = make_mul(11), kMul13 = make_mul(13), kMul14 = make_mul(14);

// State byte (row r, column c) lives at s[r + 4c], as in FIPS 197 3.4.
void sub_bytes(uint8_t s[16]) {
    for (int i = 0; i < 16; ++i) s[i] = kSbox[s[i]];
}

void inv_sub_bytes(uint8_t s[16]) {
    for (int i = 0; i < 16; ++i) s[i] = kInvSbox[s[i]];
}

// Row r moves left by r columns.
void shift_rows(uint8_t s[16]) {
    uint8_t t[16];
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) t[r + 4 * c] = s[r + 4 * ((c + r) % 4)];
    std::memcpy(s, t, 16);
}

void inv_shift_rows(uint8_t s[16]) {
    uint8_t t[16];
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 4; ++c) t[r + 4 * ((c + r) % 4)] = s[r + 4 * c];
    std::memcpy(s, t, 16);
}

void mix_columns(uint8_t s[16]) {
    for (int c = 0; c < 4; ++c) {
        uint8_t* a = s + 4 * c;
        const uint8_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
        a[0] = static_cast<uint8_t>(kMul2[a0] ^ kMul3[a1] ^ a2 ^ a3);
        a[1] = static_cast<uint8_t>(a0 ^ kMul2[a1] ^ kMul3[a2] ^ a3);
        a[2] = static_cast<uint8_t>(a0 ^ a1 ^ kMul2[a2] ^ kMul3[a3]);
        a[3] = static_cast<uint8_t>(kMul3[a0] ^ a1 ^ a2 ^ kMul2[a3]);
    }
}

void inv_mix_columns(uint8_t s[16]) {
    for (int c = 0; c < 4; ++c) {
        uint8_t* a = s + 4 * c;
        const uint8_t a0 = a[0], a1 = a[1], a2 = a[2], a3 = a[3];
        a[0] = static_cast<uint8_t>(kMul14[a0] ^ kMul11[a1] ^ kMul13[a2] ^ kMul9[a3]);
        a[1] = static_cast<uint8_t>(kMul9[a0] ^ kMul14[a1] ^ kMul11[a2] ^ kMul13[a3]);
        a[2] = static_cast<uint8_t>(kMul13[a0] ^ kMul9[a1] ^ kMul14[a2] ^ kMul11[a3]);
        a[3] = static_cast<uint8_t>(kMul11[a0] ^ kMul13[a1] ^ kMul9[a2] ^ kMul14[a3]);
    }
}

void add_round_key(uint8_t s[16], const uint8_t rk[16]) { xor_block(s, s, rk); }

} // namespace

// FIPS 197 5.2: Nk key words, then w[i] = w[i-Nk] ^ f(w[i-1]).
bool aes_expand(AesKey& k, const uint8_t* key, size_t keylen) {
    if (keylen != 16 && keylen != 24 && keylen != 32) return false;
    const int nk = static_cast<int>(keylen / 4);
    k.rounds = nk + 6;
    const int words = 4 * (k.rounds + 1);
    uint8_t w[60][4];
    std::memcpy(w, key, keylen);
    uint8_t rcon = 1;
    for (int i = nk; i < words; ++i) {
        uint8_t t[4] = {w[i - 1][0], w[i - 1][1], w[i - 1][2], w[i - 1][3]};
        if (i % nk == 0) {
            const uint8_t t0 = t[0];
            t[0] = static_cast<uint8_t>(kSbox[t[1]] ^ rcon);
            t[1] = kSbox[t[2]];
            t[2] = kSbox[t[3]];
            t[3] = kSbox[t0];
            rcon = xtime(rcon);
        } else if (nk > 6 && i % nk == 4) {
            for (uint8_t& b : t) b = kSbox[b];
        }
        for (int j = 0; j < 4; ++j) w[i][j] = static_cast<uint8_t>(w[i - nk][j] ^ t[j]);
    }
    for (int r = 0; r <= k.rounds; ++r) std::memcpy(k.round_key[r], w[4 * r], 16);
    return true;
}

void aes_encrypt(const AesKey& k, const uint8_t in[16], uint8_t out[16]) {
    uint8_t s[16];
    std::memcpy(s, in, 16);
    add_round_key(s, k.round_key[0]);
    for (int r = 1; r < k.rounds; ++r) {
        sub_bytes(s);
        shift_rows(s);
        mix_columns(s);
        add_round_key(s, k.round_key[r]);
    }
    sub_bytes(s);
    shift_rows(s);
    add_round_key(s, k.round_key[k.rounds]);
    std::memcpy(out, s, 16);
}

// FIPS 197 5.3, the straightforward inverse cipher (not the equivalent one).
void aes_decrypt(const AesKey& k, const uint8_t in[16], uint8_t out[16]) {
    uint8_t s[16];
    std::memcpy(s, in, 16);
    add_round_key(s, k.round_key[k.rounds]);
    for (int r = k.rounds - 1; r >= 1; --r) {
        inv_shift_rows(s);
        inv_sub_bytes(s);
        add_round_key(s, k.round_key[r]);
        inv_mix_columns(s);
    }
    inv_shift_rows(s);
    inv_sub_bytes(s);
    add_round_key(s, k.round_key[0]);
    std::memcpy(out, s, 16);
}

// SP 800-38D algorithm 1: walk the bits of x from the left, keep V = h * x^i.
void gcm_multiply(uint8_t x[16], const uint8_t h[16]) {
    uint8_t z[16] = {};
    uint8_t v[16];
    std::memcpy(v, h, 16);
    for (int i = 0; i < 128; ++i) {
        if (x[i / 8] & (0x80 >> (i % 8))) xor_block(z, z, v);
        const bool lsb = v[15] & 1;
        for (int j = 15; j > 0; --j) v[j] = static_cast<uint8_t>((v[j] >> 1) | (v[j - 1] << 7));
        v[0] >>= 1;
        if (lsb) v[0] ^= 0xe1;
    }
    std::memcpy(x, z, 16);
}

void xts_double(uint8_t t[16]) {
    const bool carry = t[15] & 0x80;
    for (int j = 15; j > 0; --j) t[j] = static_cast<uint8_t>((t[j] << 1) | (t[j - 1] >> 7));
    t[0] = static_cast<uint8_t>(t[0] << 1);
    if (carry) t[0] ^= 0x87;
}

void cmac_double(uint8_t b[16]) {
    const bool carry = b[0] & 0x80;
    for (int j = 0; j < 15; ++j) b[j] = static_cast<uint8_t>((b[j] << 1) | (b[j + 1] >> 7));
    b[15] = static_cast<uint8_t>(b[15] << 1);
    if (carry) b[15] ^= 0x87;
}

} // namespace hwc::test::shim
