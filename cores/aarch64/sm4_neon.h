// SPDX-License-Identifier: Apache-2.0
// The NEON SM4 engine shared by the aarch64 SM4 cores for CPUs without the
// SM4 instructions (sm4_neon.cpp: plain NEON; sm4_neon_aes.cpp: the S-box
// through AESE): key schedule, the table-driven word-sliced round, the
// one-block serial cipher, and every mode kernel, generic over a wide engine
// W (the only thing the cores differ in).
//
// Word-sliced layout. LD4 of 64 bytes leaves word X_j of 4 blocks in one
// register (byte-swapped to native order by REV32, so rotations are
// shifts); each round then runs on 4 blocks at once. The S-box is SM4's
// 256-byte table held in 16 vector registers (TBL over 4 of them, then TBX
// over the other 12 with the index lowered by 64 each time): registers,
// not memory, are indexed by data, so it runs in constant time.
//
// A wide engine W provides (see sm4_neon.cpp, sm4_neon_aes.cpp):
//   kBatch                  blocks per wide step (>= 8)
//   crypt(e, in, out)       kBatch blocks, memory to memory (in == out
//                           allowed), with the Engine e of the call (round
//                           keys of one direction, the word-sliced tables)
// Shorter runs (the last 1..kBatch-1 blocks) go through the word-sliced
// engine 4 blocks at a time; the serial modes (CBC/CFB encryption, OFB,
// CFB8, CBC-MAC) through crypt1, one block with each word in all 4 lanes.
//
// Everything has internal linkage: the including translation units are
// compiled with different -march flags, and no copy may be merged across
// them.
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "cores/core.h"
#include "cores/sm4_affine.h"
#include "cores/wipe.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "sm4_neon.h assumes little-endian lanes (aarch64_be is not supported)"
#endif

namespace hwc::aarch64 {
namespace {
namespace sm4n {

// ---- constants of the standard ------------------------------------------------

constexpr uint32_t kFK[4] = {0xa3b1bac6, 0x56aa3350, 0x677d9197, 0xb27022dc};
// CK_i: byte j (most significant first) is (4i + j) * 7 mod 256.
constexpr uint32_t ck(unsigned i) {
    uint32_t v = 0;
    for (unsigned j = 0; j < 4; ++j) v = (v << 8) | (((4 * i + j) * 7) & 0xff);
    return v;
}
static_assert(ck(0) == 0x00070e15 && ck(31) == 0x646b7279);

// The S-box table, generated from sm4_affine.h's reference (itself checked
// against the standard's table there).
struct SboxTable {
    alignas(16) uint8_t b[256];
};
constexpr SboxTable make_sbox() {
    SboxTable t{};
    for (unsigned x = 0; x < 256; ++x) t.b[x] = sm4alg::sm4_sbox_ref(x);
    return t;
}
constexpr SboxTable kSbox = make_sbox();

// TBL indices rotating each native 32-bit lane left by 8 and by 24 bits:
// byte j of the result is byte (j - q) mod 4 of the same lane.
struct Idx16 {
    alignas(16) uint8_t b[16];
};
constexpr Idx16 rot_idx(unsigned q) {
    Idx16 v{};
    for (unsigned i = 0; i < 16; ++i) v.b[i] = static_cast<uint8_t>((i & ~3u) | ((i - q) & 3));
    return v;
}
constexpr Idx16 kRot8 = rot_idx(1);
constexpr Idx16 kRot24 = rot_idx(3);

// ---- key schedule layout ------------------------------------------------------

// rk_0..rk_31 as native words for encryption, then reversed for decryption;
// then the same two as Pre(rk_i) bytes in memory (big-endian) order, for the
// AESE engine (sm4_affine.h: its round key carries Pre's constant).
constexpr size_t kEncOff = 0;
constexpr size_t kDecOff = 32 * 4;
constexpr size_t kPreOff = 64 * 4;   // + kEncOff or kDecOff
static_assert(kPreOff + kDecOff + 32 * 4 <= kMaxScheduleBytes);

// ---- the table-driven word-sliced round ---------------------------------------

struct Tables {
    uint8x16x4_t t[4];   // the S-box, 64 entries per group
    uint8x16_t c64, rot8, rot24;
};
[[gnu::always_inline]] inline Tables load_tables() {
    Tables k;
#pragma GCC unroll 4
    for (unsigned i = 0; i < 4; ++i) k.t[i] = vld1q_u8_x4(kSbox.b + 64 * i);
    k.c64 = vdupq_n_u8(64);
    k.rot8 = vld1q_u8(kRot8.b);
    k.rot24 = vld1q_u8(kRot24.b);
    return k;
}

// The S-box on every byte: TBL gives 0 for an index past its 64 entries and
// TBX keeps the lane, so each group answers exactly the bytes in its range.
[[gnu::always_inline]] inline uint32x4_t sbox(uint32x4_t x, const Tables& k) {
    uint8x16_t i = vreinterpretq_u8_u32(x);
    uint8x16_t s = vqtbl4q_u8(k.t[0], i);
    i = vsubq_u8(i, k.c64);
    s = vqtbx4q_u8(s, k.t[1], i);
    i = vsubq_u8(i, k.c64);
    s = vqtbx4q_u8(s, k.t[2], i);
    i = vsubq_u8(i, k.c64);
    s = vqtbx4q_u8(s, k.t[3], i);
    return vreinterpretq_u32_u8(s);
}

// L(B) = B ^ (B <<< 2) ^ (B <<< 10) ^ (B <<< 18) ^ (B <<< 24)
//      = B ^ (B <<< 24) ^ ((B ^ (B <<< 8) ^ (B <<< 16)) <<< 2).
[[gnu::always_inline]] inline uint32x4_t lin(uint32x4_t b, const Tables& k) {
    const uint8x16_t b8 = vreinterpretq_u8_u32(b);
    const uint32x4_t r8 = vreinterpretq_u32_u8(vqtbl1q_u8(b8, k.rot8));
    const uint32x4_t r16 = vreinterpretq_u32_u16(vrev32q_u16(vreinterpretq_u16_u32(b)));
    const uint32x4_t r24 = vreinterpretq_u32_u8(vqtbl1q_u8(b8, k.rot24));
    const uint32x4_t t = veorq_u32(veorq_u32(b, r8), r16);
    return veorq_u32(veorq_u32(b, r24), vsriq_n_u32(vshlq_n_u32(t, 2), t, 30));
}

// 32 rounds on S sets of four word registers (4 blocks each): round i
// updates X_i ^= L(tau(X_{i+1} ^ X_{i+2} ^ X_{i+3} ^ rk_i)).
template <size_t S>
[[gnu::always_inline]] inline void rounds(const uint32_t* rk, const Tables& k,
                                          uint32x4_t (&x)[S][4]) {
    for (unsigned r = 0; r < 32; r += 4) {
#pragma GCC unroll 4
        for (unsigned j = 0; j < 4; ++j) {
            const uint32x4_t key = vld1q_dup_u32(rk + r + j);
#pragma GCC unroll 2
            for (size_t s = 0; s < S; ++s) {
                const uint32x4_t in = veorq_u32(
                    veorq_u32(veorq_u32(x[s][(j + 1) & 3], x[s][(j + 2) & 3]), x[s][(j + 3) & 3]),
                    key);
                x[s][j] = veorq_u32(x[s][j], lin(sbox(in, k), k));
            }
        }
    }
}

[[gnu::always_inline]] inline uint32x4_t native(uint32x4_t v) {
    return vreinterpretq_u32_u8(vrev32q_u8(vreinterpretq_u8_u32(v)));
}

// 4 blocks in memory order (in == out allowed): LD4 gathers word j of the
// 4 blocks, ST4 scatters (X35, X34, X33, X32) back.
[[gnu::always_inline]] inline void crypt4(const uint32_t* rk, const Tables& k, const uint8_t* in,
                                          uint8_t* out) {
    const uint32x4x4_t v = vld4q_u32(reinterpret_cast<const uint32_t*>(in));
    uint32x4_t x[1][4];
#pragma GCC unroll 4
    for (unsigned j = 0; j < 4; ++j) x[0][j] = native(v.val[j]);
    rounds<1>(rk, k, x);
    uint32x4x4_t o;
#pragma GCC unroll 4
    for (unsigned j = 0; j < 4; ++j) o.val[j] = native(x[0][3 - j]);
    vst4q_u32(reinterpret_cast<uint32_t*>(out), o);
}

// 8 blocks: two sets of 4 in one round loop.
[[gnu::always_inline]] inline void crypt8(const uint32_t* rk, const Tables& k, const uint8_t* in,
                                          uint8_t* out) {
    uint32x4_t x[2][4];
#pragma GCC unroll 2
    for (unsigned s = 0; s < 2; ++s) {
        const uint32x4x4_t v = vld4q_u32(reinterpret_cast<const uint32_t*>(in + 64 * s));
#pragma GCC unroll 4
        for (unsigned j = 0; j < 4; ++j) x[s][j] = native(v.val[j]);
    }
    rounds<2>(rk, k, x);
#pragma GCC unroll 2
    for (unsigned s = 0; s < 2; ++s) {
        uint32x4x4_t o;
#pragma GCC unroll 4
        for (unsigned j = 0; j < 4; ++j) o.val[j] = native(x[s][3 - j]);
        vst4q_u32(reinterpret_cast<uint32_t*>(out + 64 * s), o);
    }
}

// One block for the serial modes: each state word in all 4 lanes (the
// round is the 4-block one; the other lanes compute the same thing).
[[gnu::always_inline]] inline uint8x16_t crypt1(const uint32_t* rk, const Tables& k,
                                                uint8x16_t b) {
    const uint32x4_t w = native(vreinterpretq_u32_u8(b));
    uint32x4_t x[1][4] = {{vdupq_laneq_u32(w, 0), vdupq_laneq_u32(w, 1), vdupq_laneq_u32(w, 2),
                           vdupq_laneq_u32(w, 3)}};
    rounds<1>(rk, k, x);
    const uint32x4_t o = vreinterpretq_u32_u64(
        vzip1q_u64(vreinterpretq_u64_u32(vzip1q_u32(x[0][3], x[0][2])),
                   vreinterpretq_u64_u32(vzip1q_u32(x[0][1], x[0][0]))));
    return vreinterpretq_u8_u32(native(o));
}

using u32_alias [[gnu::may_alias]] = uint32_t;
inline const uint32_t* round_keys(const KeySchedule& ks, size_t off) {
    return reinterpret_cast<const u32_alias*>(ks.bytes + off);
}

// 1..n blocks through the word-sliced engine, 4 at a time, the last 1..3
// through a zeroed stack buffer (wiped after).
[[gnu::always_inline]] inline void crypt_short(const uint32_t* rk, const Tables& k,
                                               const uint8_t* in, uint8_t* out, size_t n) {
    for (; n >= 4; n -= 4, in += 64, out += 64) crypt4(rk, k, in, out);
    if (n == 0) return;
    alignas(16) uint8_t buf[64] = {};
    std::memcpy(buf, in, 16 * n);
    crypt4(rk, k, buf, buf);
    std::memcpy(out, buf, 16 * n);
    secure_wipe(buf, sizeof buf);
}

// ---- key schedule ------------------------------------------------------------

// K_{i+4} = K_i ^ L'(tau(K_{i+1} ^ K_{i+2} ^ K_{i+3} ^ CK_i)), L'(B) = B ^
// (B <<< 13) ^ (B <<< 23); the S-box through the same registers as the
// cipher (no memory table indexed by the key).
inline bool set_key(KeySchedule& ks, const uint8_t* key, size_t keylen) {
    if (keylen != 16) return false;
    const Tables k = load_tables();
    uint32_t kw[4], rk[32];
    for (unsigned i = 0; i < 4; ++i) {
        uint32_t v;
        std::memcpy(&v, key + 4 * i, 4);
        kw[i] = __builtin_bswap32(v) ^ kFK[i];
    }
    for (unsigned r = 0; r < 32; ++r) {
        const uint32_t x = kw[(r + 1) & 3] ^ kw[(r + 2) & 3] ^ kw[(r + 3) & 3] ^ ck(r);
        const uint32_t b = vgetq_lane_u32(sbox(vdupq_n_u32(x), k), 0);
        kw[r & 3] ^= b ^ ((b << 13) | (b >> 19)) ^ ((b << 23) | (b >> 9));
        rk[r] = kw[r & 3];
    }
    for (unsigned r = 0; r < 32; ++r) {
        const uint32_t enc = rk[r], dec = rk[31 - r];
        std::memcpy(ks.bytes + kEncOff + 4 * r, &enc, 4);
        std::memcpy(ks.bytes + kDecOff + 4 * r, &dec, 4);
        for (unsigned j = 0; j < 4; ++j) { // byte j of the big-endian word
            const unsigned shift = 24 - 8 * j;
            ks.bytes[kPreOff + kEncOff + 4 * r + j] = static_cast<uint8_t>(
                sm4alg::apply(sm4alg::kPreM, (enc >> shift) & 0xff) ^ sm4alg::kPreC);
            ks.bytes[kPreOff + kDecOff + 4 * r + j] = static_cast<uint8_t>(
                sm4alg::apply(sm4alg::kPreM, (dec >> shift) & 0xff) ^ sm4alg::kPreC);
        }
    }
    secure_wipe(kw, sizeof kw);
    secure_wipe(rk, sizeof rk);
    return true;
}

// ---- batching -------------------------------------------------------------------

// Per-call state of a parallel kernel: the schedule and the word-sliced
// tables (short runs always use them).
struct Engine {
    const KeySchedule* ks;
    size_t off;          // kEncOff or kDecOff
    const uint32_t* rk;  // round_keys(*ks, off)
    Tables k;
};
[[gnu::always_inline]] inline Engine engine(const KeySchedule& ks, size_t off) {
    return {&ks, off, round_keys(ks, off), load_tables()};
}

// m <= W::kBatch blocks from in to out (in == out allowed).
template <class W>
[[gnu::always_inline]] inline void crypt_n(const Engine& e, const uint8_t* in, uint8_t* out,
                                           size_t m) {
    if (m == W::kBatch) W::crypt(e, in, out);
    else crypt_short(e.rk, e.k, in, out, m);
}

// Calls chunk(m) for each group of m <= W::kBatch blocks, full groups first.
template <class W, class Chunk>
[[gnu::always_inline]] inline void in_chunks(size_t n, Chunk&& chunk) {
    for (; n >= W::kBatch; n -= W::kBatch) chunk(W::kBatch);
    if (n) chunk(n);
}

// ---- ECB ------------------------------------------------------------------------

template <class W, size_t Off>
void ecb(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const Engine e = engine(ks, Off);
    in_chunks<W>(n, [&](size_t m) {
        crypt_n<W>(e, in, out, m);
        in += 16 * m, out += 16 * m;
    });
}

// ---- serial modes: one block at a time, the chain in a register -------------------

inline void cbc_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                 size_t n) {
    if (n == 0) return;
    const uint32_t* rk = round_keys(ks, kEncOff);
    const Tables k = load_tables();
    uint8x16_t c = vld1q_u8(iv);
    for (; n; --n, in += 16, out += 16) {
        c = crypt1(rk, k, veorq_u8(c, vld1q_u8(in)));
        vst1q_u8(out, c);
    }
    vst1q_u8(iv, c);
}

inline void cbc_mac(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, size_t n) {
    if (n == 0) return;
    const uint32_t* rk = round_keys(ks, kEncOff);
    const Tables k = load_tables();
    uint8x16_t c = vld1q_u8(iv);
    for (; n; --n, in += 16) c = crypt1(rk, k, veorq_u8(c, vld1q_u8(in)));
    vst1q_u8(iv, c);
}

inline void cfb_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                 size_t n) {
    if (n == 0) return;
    const uint32_t* rk = round_keys(ks, kEncOff);
    const Tables k = load_tables();
    uint8x16_t c = vld1q_u8(iv);
    for (; n; --n, in += 16, out += 16) {
        c = veorq_u8(crypt1(rk, k, c), vld1q_u8(in));
        vst1q_u8(out, c);
    }
    vst1q_u8(iv, c);
}

inline void ofb(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const uint32_t* rk = round_keys(ks, kEncOff);
    const Tables k = load_tables();
    uint8x16_t r = vld1q_u8(iv);
    for (; n; --n, in += 16, out += 16) {
        r = crypt1(rk, k, r);
        vst1q_u8(out, veorq_u8(vld1q_u8(in), r));
    }
    vst1q_u8(iv, r);
}

// CFB8: one block encryption per byte; the shift register moves left by one
// byte and takes in the ciphertext byte.
template <bool Encrypt>
void cfb8(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const uint32_t* rk = round_keys(ks, kEncOff);
    const Tables k = load_tables();
    uint8x16_t reg = vld1q_u8(iv);
    for (size_t i = 0; i < n; ++i) {
        const uint8_t p = in[i];
        const uint8_t c = static_cast<uint8_t>(p ^ vgetq_lane_u8(crypt1(rk, k, reg), 0));
        out[i] = c;
        reg = vextq_u8(reg, vdupq_n_u8(Encrypt ? c : p), 1);
    }
    vst1q_u8(iv, reg);
}

// ---- parallel modes ---------------------------------------------------------------

// The blocks of a chunk pass through `buf`, a stack buffer of one batch
// (wiped at the end: it held plaintext or keystream).
template <class W>
struct ChunkBuf {
    alignas(16) uint8_t b[16 * W::kBatch];
    ~ChunkBuf() { secure_wipe(b, sizeof b); }
};

// out = a ^ b over m blocks, ascending (out may be a or b).
[[gnu::always_inline]] inline void xor_blocks(uint8_t* out, const uint8_t* a, const uint8_t* b,
                                              size_t m) {
    for (size_t i = 0; i < m; ++i)
        vst1q_u8(out + 16 * i, veorq_u8(vld1q_u8(a + 16 * i), vld1q_u8(b + 16 * i)));
}

// CBC decryption: the cipher outputs go to the buffer; the XOR with the
// previous ciphertext runs from the first block to the last, each ciphertext
// block read into a register before its output block is stored. So in == out
// and output trailing its input (out = in - d, core.h's contract) read every
// ciphertext block before anything overwrites it.
template <class W>
void cbc_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                 size_t n) {
    if (n == 0) return;
    const Engine e = engine(ks, kDecOff);
    ChunkBuf<W> buf;
    uint8x16_t prev = vld1q_u8(iv);
    in_chunks<W>(n, [&](size_t m) {
        crypt_n<W>(e, in, buf.b, m);
        for (size_t i = 0; i < m; ++i) {
            const uint8x16_t c = vld1q_u8(in + 16 * i);
            vst1q_u8(out + 16 * i, veorq_u8(vld1q_u8(buf.b + 16 * i), prev));
            prev = c;
        }
        in += 16 * m, out += 16 * m;
    });
    vst1q_u8(iv, prev);
}

// CFB decryption: P_i = C_i ^ E(C_{i-1}); the cipher inputs are the
// previous ciphertext and the chunk's blocks but its last.
template <class W>
void cfb_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                 size_t n) {
    if (n == 0) return;
    const Engine e = engine(ks, kEncOff);
    ChunkBuf<W> buf;
    uint8x16_t prev = vld1q_u8(iv);
    in_chunks<W>(n, [&](size_t m) {
        vst1q_u8(buf.b, prev);
        std::memcpy(buf.b + 16, in, 16 * (m - 1));
        prev = vld1q_u8(in + 16 * (m - 1));
        crypt_n<W>(e, buf.b, buf.b, m);
        xor_blocks(out, in, buf.b, m);
        in += 16 * m, out += 16 * m;
    });
    vst1q_u8(iv, prev);
}

// CTR: the 128-bit big-endian counter as two native halves; within a run in
// which its low 32 bits do not wrap, each counter block is the previous one
// with 1 added to the native form of its last word. The counter is public
// (the IV), so its branches reveal nothing secret.
template <class W>
void ctr(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const Engine e = engine(ks, kEncOff);
    ChunkBuf<W> buf;
    const uint32x4_t one = vsetq_lane_u32(1, vdupq_n_u32(0), 3);
    const uint64x2_t be = vreinterpretq_u64_u8(vrev64q_u8(vld1q_u8(iv)));
    uint64_t hi = vgetq_lane_u64(be, 0), lo = vgetq_lane_u64(be, 1);
    while (n != 0) {
        const uint64_t room = (uint64_t{1} << 32) - static_cast<uint32_t>(lo);
        const size_t run = n < room ? n : static_cast<size_t>(room);
        // The counter block in memory order, its words in native order.
        uint32x4_t c = native(vreinterpretq_u32_u8(
            vrev64q_u8(vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(hi), vcreate_u64(lo))))));
        in_chunks<W>(run, [&](size_t m) {
            for (size_t i = 0; i < m; ++i, c = vaddq_u32(c, one))
                vst1q_u8(buf.b + 16 * i, vreinterpretq_u8_u32(native(c)));
            crypt_n<W>(e, buf.b, buf.b, m);
            xor_blocks(out, in, buf.b, m);
            in += 16 * m, out += 16 * m;
        });
        const uint64_t old = lo;
        lo += run;
        hi += lo < old;
        n -= run;
    }
    const uint64x2_t end = vcombine_u64(vcreate_u64(hi), vcreate_u64(lo));
    vst1q_u8(iv, vrev64q_u8(vreinterpretq_u8_u64(end)));
}

// XTS tweak steps on the tweak as memory bytes (both rules in
// cores/portable/generic_xts.cpp), branch-free (the tweak is secret).
// IEEE 1619: the block is a little-endian 128-bit number, doubled; the bit
// shifted out of the top folds back as 0x87 into byte 0.
[[gnu::always_inline]] inline uint8x16_t xts_next_ieee(uint8x16_t t) {
    const int64x2_t v = vreinterpretq_s64_u8(t);
    const int64x2_t top = vshrq_n_s64(v, 63);   // each half's top bit, spread
    const uint64x2_t fold = {0x87, 1};          // high half's into byte 0, low half's carry up
    const uint64x2_t carry = vandq_u64(vreinterpretq_u64_s64(vextq_s64(top, top, 1)), fold);
    return vreinterpretq_u8_u64(veorq_u64(vshlq_n_u64(vreinterpretq_u64_s64(v), 1), carry));
}
// GB/T 17964: the block is a big-endian bit-reflected number, halved; the
// bit shifted out of the bottom folds back as 0xE1 into byte 0. Worked on
// the byte-reversed halves (the first 8 bytes as the high native half).
[[gnu::always_inline]] inline uint8x16_t xts_next_gb(uint8x16_t t) {
    const uint64x2_t v = vreinterpretq_u64_u8(vrev64q_u8(t));
    const int64x2_t low = vshrq_n_s64(vshlq_n_s64(vreinterpretq_s64_u64(v), 63), 63);
    const uint64x2_t fold = {uint64_t{0xE1} << 56, uint64_t{1} << 63};
    const uint64x2_t carry = vandq_u64(vreinterpretq_u64_s64(vextq_s64(low, low, 1)), fold);
    return vrev64q_u8(vreinterpretq_u8_u64(veorq_u64(vshrq_n_u64(v, 1), carry)));
}

// XTS over whole blocks: `tweak` is the running (encrypted) tweak; the
// chunk's tweaks are kept in a second buffer for the XOR after the cipher.
template <class W, bool Gb, size_t Off>
void xts(const KeySchedule& ks, uint8_t tweak[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const Engine e = engine(ks, Off);
    ChunkBuf<W> buf, tw;
    uint8x16_t t = vld1q_u8(tweak);
    in_chunks<W>(n, [&](size_t m) {
        for (size_t i = 0; i < m; ++i) {
            vst1q_u8(tw.b + 16 * i, t);
            vst1q_u8(buf.b + 16 * i, veorq_u8(vld1q_u8(in + 16 * i), t));
            t = Gb ? xts_next_gb(t) : xts_next_ieee(t);
        }
        crypt_n<W>(e, buf.b, buf.b, m);
        xor_blocks(out, buf.b, tw.b, m);
        in += 16 * m, out += 16 * m;
    });
    vst1q_u8(tweak, t);
}

// OCB (OcbState in cores/core.h): block i uses Offset_i = Offset_{i-1} ^
// L[ntz(i)] (i counts the message's blocks, public); the checksum takes the
// plaintext. Offsets are kept in a second buffer for the XOR after the
// cipher.
template <class W, bool Encrypt>
void ocb(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const Engine e = engine(ks, Encrypt ? kEncOff : kDecOff);
    ChunkBuf<W> buf, off;
    uint8x16_t offset = vld1q_u8(st.offset);
    uint8x16_t sum = vld1q_u8(st.checksum);
    uint64_t blocks = st.blocks;
    in_chunks<W>(n, [&](size_t m) {
        for (size_t i = 0; i < m; ++i) {
            const uint8x16_t x = vld1q_u8(in + 16 * i);
            offset = veorq_u8(offset, vld1q_u8(st.l[__builtin_ctzll(++blocks)]));
            vst1q_u8(off.b + 16 * i, offset);
            vst1q_u8(buf.b + 16 * i, veorq_u8(x, offset));
            if constexpr (Encrypt) sum = veorq_u8(sum, x);
        }
        crypt_n<W>(e, buf.b, buf.b, m);
        for (size_t i = 0; i < m; ++i) {
            const uint8x16_t y = veorq_u8(vld1q_u8(buf.b + 16 * i), vld1q_u8(off.b + 16 * i));
            if constexpr (!Encrypt) sum = veorq_u8(sum, y);
            vst1q_u8(out + 16 * i, y);
        }
        in += 16 * m, out += 16 * m;
    });
    vst1q_u8(st.offset, offset);
    vst1q_u8(st.checksum, sum);
    st.blocks = blocks;
}

// ---- the descriptor -----------------------------------------------------------------

template <class W>
constexpr BlockCore make_core(const char* name, uint32_t needs, bool hardware) {
    return BlockCore{
        .name = name,
        .family = Family::sm4,
        .hardware = hardware,
        .needs = needs,
        .set_key = set_key,
        .encrypt_blocks = ecb<W, kEncOff>,
        .decrypt_blocks = ecb<W, kDecOff>,
        .cbc_encrypt = cbc_encrypt,
        .cbc_decrypt = cbc_decrypt<W>,
        .cfb_encrypt = cfb_encrypt,
        .cfb_decrypt = cfb_decrypt<W>,
        .ofb = ofb,
        .ctr = ctr<W>,
        .cfb8_encrypt = cfb8<true>,
        .cfb8_decrypt = cfb8<false>,
        .cbc_mac = cbc_mac,
        .xts_encrypt = xts<W, false, kEncOff>,
        .xts_decrypt = xts<W, false, kDecOff>,
        .xts_gb_encrypt = xts<W, true, kEncOff>,
        .xts_gb_decrypt = xts<W, true, kDecOff>,
        .ocb_encrypt = ocb<W, true>,
        .ocb_decrypt = ocb<W, false>,
    };
}

} // namespace sm4n
} // namespace
} // namespace hwc::aarch64
