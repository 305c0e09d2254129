// SPDX-License-Identifier: Apache-2.0
// twofish-avx2, serial modes: CBC and CFB encryption, OFB, CBC-MAC and CFB8
// encryption, one block at a time in general registers (each block needs
// the previous one's result, so there is nothing to run side by side).
//
// The chaining value stays in registers for the whole buffer, carried with
// the input whitening K0..K3 already applied, and the output whitening of
// one block and the input whitening of the next are one XOR with
// K4..K7 ^ K0..K3: per block the dependency chain is the 16 rounds plus one
// XOR. Not constant-time (table lookups indexed by state; twofish_avx2.h).
#include "cores/x86_64/twofish_avx2.h"

namespace hwc::x86_64::twofish {
namespace {

[[gnu::always_inline]] inline Words folded_whitening(const Schedule& s) {
    const uint32_t* k = s.k;
    return {k[4] ^ k[0], k[5] ^ k[1], k[6] ^ k[2], k[7] ^ k[3]};
}
[[gnu::always_inline]] inline Words in_whitening(const Schedule& s) {
    return {s.k[0], s.k[1], s.k[2], s.k[3]};
}

} // namespace

// CBC encryption: the chain x is C_{i-1} ^ K0..K3, so block i's round input
// is x ^ P_i.
void cbc_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                 size_t n) {
    if (n == 0) return;
    const Schedule& s = sched(ks);
    const Words kk = folded_whitening(s), k0 = in_whitening(s);
    Words x = xor_words(load_words(iv), k0);
    for (; n; --n, in += 16, out += 16) {
        x = xor_words(enc_rounds(s, xor_words(x, load_words(in))), kk);
        store_words(out, xor_words(x, k0));
    }
    store_words(iv, xor_words(x, k0));
}

// CBC-MAC: CBC encryption without the output.
void cbc_mac(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, size_t n) {
    if (n == 0) return;
    const Schedule& s = sched(ks);
    const Words kk = folded_whitening(s), k0 = in_whitening(s);
    Words x = xor_words(load_words(iv), k0);
    for (; n; --n, in += 16) x = xor_words(enc_rounds(s, xor_words(x, load_words(in))), kk);
    store_words(iv, xor_words(x, k0));
}

// CFB encryption: C_i = E(C_{i-1}) ^ P_i; the chain is C_i ^ K0..K3.
void cfb_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                 size_t n) {
    if (n == 0) return;
    const Schedule& s = sched(ks);
    const Words kk = folded_whitening(s), k0 = in_whitening(s);
    Words x = xor_words(load_words(iv), k0);
    for (; n; --n, in += 16, out += 16) {
        x = xor_words(xor_words(enc_rounds(s, x), kk), load_words(in));
        store_words(out, xor_words(x, k0));
    }
    store_words(iv, xor_words(x, k0));
}

// OFB: the register S_i = E(S_{i-1}) is carried as S_i ^ K0..K3.
void ofb(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const Schedule& s = sched(ks);
    const Words kk = folded_whitening(s), k0 = in_whitening(s);
    Words x = xor_words(load_words(iv), k0);
    for (; n; --n, in += 16, out += 16) {
        x = xor_words(enc_rounds(s, x), kk);
        store_words(out, xor_words(xor_words(x, k0), load_words(in)));
    }
    store_words(iv, xor_words(x, k0));
}

// CFB8 encryption, one block encryption per byte. The 16-byte shift
// register lives in two 64-bit registers (byte 0 is the low byte of lo), so
// dropping byte 0 and appending the ciphertext byte at 15 is two
// double-shifts.
void cfb8_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                  size_t n) {
    if (n == 0) return;
    const Schedule& s = sched(ks);
    uint64_t lo, hi;
    std::memcpy(&lo, iv, 8);
    std::memcpy(&hi, iv + 8, 8);
    for (; n; --n, ++in, ++out) {
        const Words e = enc1(s, {static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32),
                                 static_cast<uint32_t>(hi), static_cast<uint32_t>(hi >> 32)});
        const uint8_t c = static_cast<uint8_t>(e.a ^ *in);
        *out = c;
        lo = (lo >> 8) | (hi << 56);
        hi = (hi >> 8) | (uint64_t{c} << 56);
    }
    std::memcpy(iv, &lo, 8);
    std::memcpy(iv + 8, &hi, 8);
}

} // namespace hwc::x86_64::twofish
