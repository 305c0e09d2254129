// SPDX-License-Identifier: Apache-2.0
// sm4-armv8-ce: SM4 (GB/T 32907-2016) on the ARMv8.2 SM4 instructions.
//
// Compiled with -march=armv8.2-a+sm4+crypto (root CMakeLists.txt) and reached
// only through the `sm4_ce` descriptor, which the registry offers when the CPU
// probe reports kArmSm4 (HWCAP_SM4, itself an ARMv8.2 feature, so the v8.2
// baseline of this file is safe wherever it runs). Everything here but the
// descriptor has internal linkage, and the file uses intrinsics and builtins
// only (no out-of-line library templates), so no v8.2 code can leak into
// callers built for the baseline ISA. The XTS loop is in sm4_ce_xts.S.
//
// Technique: SM4E runs four rounds of one block per instruction, with the
// block's state words X0..X3 in lanes 0..3 as native integers (SM4 words are
// big-endian in memory, hence a REV32 after every load), and leaves
// (X32..X35) after eight of them; the cipher output (X35, X34, X33, X32) in
// big-endian is then exactly the register byte-reversed (one TBL). SM4EKEY
// produces four round keys from the previous four key words and four CK
// constants. The eight dependent SM4Es of one block are a latency chain
// (4 cycles each on Neoverse V1), so the parallel modes (ECB, CBC and CFB
// decryption, CTR, XTS, OCB) interleave 8 independent blocks with all eight
// round-key vectors held in registers, then 4, then 1. Serial modes (CBC and
// CFB encryption, OFB, CFB8, CBC-MAC) are latency bound one block at a time;
// all but CFB8 still go four blocks per loop pass (LDP/STP of two blocks, the
// loop's counter, compare and branch once per four blocks: 13.5 instructions
// per block in the CBC loop instead of 16).
// SM4E and SM4EKEY run in constant time; no table is indexed by secret data.
//
// Guest instructions per byte under qemu-aarch64 (16 KiB calls, GCC 12 -O2):
// ECB 0.73, CTR 0.83, CBC decryption 0.80, CFB decryption 0.79, XTS 0.98
// (both tweak rules), OCB 1.03-1.05, CBC encryption and OFB 0.85, CFB
// encryption 0.83.
#include "cores/aarch64/aarch64.h"
#include "cores/aarch64/block_frame.h"

#include "cores/cpu.h"

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <utility>

#if !defined(__ARM_FEATURE_SM4)
#error "sm4_ce.cpp needs -march=armv8.2-a+sm4 (see hwcipher_isa_flags in CMakeLists.txt)"
#endif
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "sm4_ce.cpp assumes little-endian lanes (aarch64_be is not supported)"
#endif

// The XTS loop over 8-block batches (sm4_ce_xts.S): `rk` is the encryption
// or decryption half of the schedule, `tweaks` holds the tweaks of the next 8
// blocks and is advanced past the `batches` * 8 blocks processed; `gb`
// selects the GB/T 17964 tweak rule (nonzero) or IEEE 1619 (zero).
extern "C" void hwc_sm4_ce_xts_crypt8(const uint8_t* rk, uint8_t* tweaks, const uint8_t* in,
                                      uint8_t* out, size_t batches, uint32_t gb);

namespace hwc::aarch64 {
namespace {

// ---- constants of the standard ---------------------------------------------

// System parameter FK.
alignas(16) constexpr uint32_t kFK[4] = {0xa3b1bac6, 0x56aa3350, 0x677d9197, 0xb27022dc};

// CK_i: byte j (most significant first) is (4i + j) * 7 mod 256.
struct CkTable {
    alignas(16) uint32_t v[32];
};
constexpr CkTable make_ck() {
    CkTable t{};
    for (unsigned i = 0; i < 32; ++i)
        for (unsigned j = 0; j < 4; ++j) t.v[i] = (t.v[i] << 8) | (((4 * i + j) * 7) & 0xff);
    return t;
}
constexpr CkTable kCK = make_ck();
static_assert(kCK.v[0] == 0x00070e15 && kCK.v[31] == 0x646b7279);

// Byte indices for TBL: the whole register reversed (state -> output block),
// and the 32-bit lanes reversed with bytes kept (state -> next input state,
// used by OFB, whose register never leaves the state domain).
alignas(16) constexpr uint8_t kRev128[16] = {15, 14, 13, 12, 11, 10, 9, 8,
                                             7,  6,  5,  4,  3,  2,  1, 0};
alignas(16) constexpr uint8_t kRevLanes[16] = {12, 13, 14, 15, 8, 9, 10, 11,
                                               4,  5,  6,  7,  0, 1, 2,  3};

// ---- key schedule layout ---------------------------------------------------

// KeySchedule layout: 8 vectors of 4 encryption round keys (rk0..rk31 in
// SM4E order), then the same for decryption (the round keys reversed: the
// vectors in reverse order and the lanes of each reversed). Stored and loaded
// as bytes so no access type-puns the schedule.
constexpr size_t kEncOff = 0;
constexpr size_t kDecOff = 8 * 16;
static_assert(kDecOff + 8 * 16 <= kMaxScheduleBytes);

struct RoundKeys {
    uint32x4_t k[8];
};

[[gnu::always_inline]] inline RoundKeys load_keys(const KeySchedule& ks, size_t off) {
    RoundKeys rk;
#pragma GCC unroll 8
    for (unsigned i = 0; i < 8; ++i)
        rk.k[i] = vreinterpretq_u32_u8(vld1q_u8(ks.bytes + off + 16 * i));
    return rk;
}

// ---- the block function ----------------------------------------------------

[[gnu::always_inline]] inline uint32x4_t to_state(uint8x16_t b) {
    return vreinterpretq_u32_u8(vrev32q_u8(b));
}
[[gnu::always_inline]] inline uint8x16_t from_state(uint32x4_t s, uint8x16_t rev128) {
    return vqtbl1q_u8(vreinterpretq_u8_u32(s), rev128);
}

// 32 rounds on N blocks, round-key vector by round-key vector, so the N
// independent SM4E chains overlap in the pipeline.
template <size_t N>
[[gnu::always_inline]] inline void sm4_rounds(const RoundKeys& rk, uint32x4_t (&x)[N]) {
#pragma GCC unroll 8
    for (unsigned r = 0; r < 8; ++r) {
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) x[i] = vsm4eq_u32(x[i], rk.k[r]);
    }
}

[[gnu::always_inline]] inline uint8x16_t crypt1(const RoundKeys& rk, uint8x16_t rev128,
                                                uint8x16_t b) {
    uint32x4_t x[1] = {to_state(b)};
    sm4_rounds<1>(rk, x);
    return from_state(x[0], rev128);
}

// N blocks through the cipher in place (memory byte order in and out).
template <size_t N>
[[gnu::always_inline]] inline void crypt_n(const RoundKeys& rk, uint8x16_t rev128,
                                           uint8x16_t (&b)[N]) {
    uint32x4_t x[N];
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) x[i] = to_state(b[i]);
    sm4_rounds<N>(rk, x);
#pragma GCC unroll 8
    for (size_t i = 0; i < N; ++i) b[i] = from_state(x[i], rev128);
}

// ---- the frame (block_frame.h) ----------------------------------------------

// Plain 16-byte loads and stores, which GCC pairs into LDP/STP (LD1/ST1 of
// four registers measured slower here: they need consecutive registers,
// which costs register moves); batches of 8 blocks, then 4, then 1.
// `pre`, `post` as in parallel_blocks; the cipher runs on the memory-order
// blocks `pre` returns.
template <class Pre, class Post>
[[gnu::always_inline]] inline void batches(const RoundKeys& rk, uint8x16_t rev, const uint8_t* in,
                                           uint8_t* out, size_t n, Pre&& pre, Post&& post) {
    parallel_blocks<false, 8, 4, 1>(
        in, out, n, pre, [&](auto& b) { crypt_n(rk, rev, b); }, post);
}

// ---- ECB -------------------------------------------------------------------

template <size_t Off>
void ecb_kernel(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    const RoundKeys rk = load_keys(ks, Off);
    batches(
        rk, vld1q_u8(kRev128), in, out, n, [](size_t, uint8x16_t p) { return p; },
        [](size_t, uint8x16_t b, uint8x16_t) { return b; });
}

void sm4_encrypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    ecb_kernel<kEncOff>(ks, in, out, n);
}
void sm4_decrypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    ecb_kernel<kDecOff>(ks, in, out, n);
}

// ---- serial modes: the chaining value stays in a register ------------------

// CBC (C_i = E(C_{i-1} ^ P_i); CBC-MAC keeps only the chaining value) and
// CFB (C_i = E(C_{i-1}) ^ P_i) encryption.
template <bool Cfb, bool Output = true>
void feedback_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    if (n == 0) return;
    const RoundKeys rk = load_keys(ks, kEncOff);
    const uint8x16_t rev = vld1q_u8(kRev128);
    uint8x16_t c = vld1q_u8(iv);
    serial_blocks<false, Output, 4, 1>(in, out, n, [&](uint8x16_t p) {
        c = Cfb ? veorq_u8(crypt1(rk, rev, c), p) : crypt1(rk, rev, veorq_u8(c, p));
        return c;
    });
    vst1q_u8(iv, c);
}

void sm4_cbc_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    feedback_kernel<false>(ks, iv, in, out, n);
}
void sm4_cbc_mac(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, size_t n) {
    feedback_kernel<false, false>(ks, iv, in, nullptr, n);
}
void sm4_cfb_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    feedback_kernel<true>(ks, iv, in, out, n);
}

// OFB feeds each cipher output straight back in, so the register stays in
// the state domain: the next input state is the output state with its lanes
// reversed (one TBL on the critical path instead of TBL + REV32); the byte
// order is fixed up only for the keystream XOR and the returned register.
void sm4_ofb(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const RoundKeys rk = load_keys(ks, kEncOff);
    const uint8x16_t rev = vld1q_u8(kRev128);
    const uint8x16_t lanes = vld1q_u8(kRevLanes);
    uint32x4_t x[1] = {to_state(vld1q_u8(iv))};
    uint8x16_t k = vdupq_n_u8(0); // n != 0: always set by the first block
    serial_blocks<false, true, 4, 1>(in, out, n, [&](uint8x16_t p) {
        sm4_rounds<1>(rk, x);
        k = from_state(x[0], rev);
        x[0] = vreinterpretq_u32_u8(vqtbl1q_u8(vreinterpretq_u8_u32(x[0]), lanes));
        return veorq_u8(p, k);
    });
    vst1q_u8(iv, k);
}

// CFB8: one block encryption per byte; the 16-byte shift register moves left
// by one byte and takes in the ciphertext byte (EXT with a broadcast).
template <bool Encrypt>
void cfb8_kernel(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                 size_t n) {
    if (n == 0) return;
    const RoundKeys rk = load_keys(ks, kEncOff);
    uint8x16_t reg = vld1q_u8(iv);
    for (size_t i = 0; i < n; ++i) {
        uint32x4_t x[1] = {to_state(reg)};
        sm4_rounds<1>(rk, x);
        // Byte 0 of the output block is the last byte of the state register.
        const uint8_t k = vgetq_lane_u8(vreinterpretq_u8_u32(x[0]), 15);
        const uint8_t p = in[i];
        const uint8_t c = static_cast<uint8_t>(p ^ k);
        out[i] = c;
        reg = vextq_u8(reg, vdupq_n_u8(Encrypt ? c : p), 1);
    }
    vst1q_u8(iv, reg);
}

void sm4_cfb8_encrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                      size_t n) {
    cfb8_kernel<true>(ks, iv, in, out, n);
}
void sm4_cfb8_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                      size_t n) {
    cfb8_kernel<false>(ks, iv, in, out, n);
}

// ---- parallel modes ----------------------------------------------------------

// CBC decryption, P_i = D(C_i) ^ C_{i-1}, and CFB decryption,
// P_i = E(C_{i-1}) ^ C_i: one chain, the previous ciphertext block on the
// other side of the cipher. Every ciphertext block of a batch is loaded
// before any output is stored, so in == out is safe.
template <bool Cfb>
void chain_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                   size_t n) {
    if (n == 0) return;
    const RoundKeys rk = load_keys(ks, Cfb ? kEncOff : kDecOff);
    uint8x16_t prev = vld1q_u8(iv);
    batches(
        rk, vld1q_u8(kRev128), in, out, n,
        [&](size_t, uint8x16_t c) { return Cfb ? std::exchange(prev, c) : c; },
        [&](size_t, uint8x16_t b, uint8x16_t c) {
            return veorq_u8(b, Cfb ? c : std::exchange(prev, c));
        });
    vst1q_u8(iv, prev);
}

void sm4_cbc_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    chain_decrypt<false>(ks, iv, in, out, n);
}
void sm4_cfb_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    chain_decrypt<true>(ks, iv, in, out, n);
}

// CTR: the 128-bit big-endian counter is kept as two native 64-bit halves
// (carry from the low half into the high one, wrapping mod 2^128). A counter
// block's input state is those halves with the 32-bit words of each swapped
// (REV64 on .4S), so its lane 3 is the counter's low 32 bits. The buffer is
// cut into runs in which those 32 bits do not wrap; within a run the next
// block's state is one vector add away, and the halves are advanced (with
// all carries) once per run. The counter is public (the IV), so its branches
// reveal nothing secret.
[[gnu::always_inline]] inline uint32x4_t counter_state(uint64_t hi, uint64_t lo) {
    return vrev64q_u32(vreinterpretq_u32_u64(vcombine_u64(vcreate_u64(hi), vcreate_u64(lo))));
}

void sm4_ctr(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const RoundKeys rk = load_keys(ks, kEncOff);
    const uint8x16_t rev = vld1q_u8(kRev128);
    const uint32x4_t one = vsetq_lane_u32(1, vdupq_n_u32(0), 3);
    const uint64x2_t be = vreinterpretq_u64_u8(vrev64q_u8(vld1q_u8(iv)));
    uint64_t hi = vgetq_lane_u64(be, 0), lo = vgetq_lane_u64(be, 1);
    while (n != 0) {
        const uint64_t room = (uint64_t{1} << 32) - static_cast<uint32_t>(lo);
        const size_t run = n < room ? n : static_cast<size_t>(room);
        // The counter blocks go through the frame as input states already.
        uint32x4_t next = counter_state(hi, lo);
        parallel_blocks<false, 8, 4, 1>(
            in, out, run,
            [&](size_t, uint8x16_t) {
                const uint32x4_t x = next;
                next = vaddq_u32(next, one);
                return vreinterpretq_u8_u32(x);
            },
            [&](auto& b) {
                constexpr size_t N = sizeof b / sizeof b[0];
                uint32x4_t x[N];
#pragma GCC unroll 8
                for (size_t i = 0; i < N; ++i) x[i] = vreinterpretq_u32_u8(b[i]);
                sm4_rounds<N>(rk, x);
#pragma GCC unroll 8
                for (size_t i = 0; i < N; ++i) b[i] = vreinterpretq_u8_u32(x[i]);
            },
            [&](size_t, uint8x16_t b, uint8x16_t d) {
                return veorq_u8(d, from_state(vreinterpretq_u32_u8(b), rev));
            });
        const uint64_t old = lo;
        lo += run;
        hi += lo < old;
        n -= run;
    }
    const uint64x2_t end = vcombine_u64(vcreate_u64(hi), vcreate_u64(lo));
    vst1q_u8(iv, vrev64q_u8(vreinterpretq_u8_u64(end)));
}

// ---- XTS -----------------------------------------------------------------------

// One-bit tweak steps (cores/portable/generic_xts.cpp defines both rules),
// on the tweak as two native 64-bit halves; branch-free, the tweak is secret.
// IEEE 1619: little-endian, shift left, 0x87 folds into byte 0.
// GB/T 17964: big-endian bit-reflected, shift right, 0xE1 folds into byte 0.
struct Tweak {
    uint64_t a, b; // IEEE: a = low half, b = high half; GB: a = high half, b = low half
};

template <bool Gb>
Tweak load_tweak(const uint8_t t[16]) {
    const uint8x16_t v = vld1q_u8(t);
    const uint64x2_t w = vreinterpretq_u64_u8(Gb ? vrev64q_u8(v) : v);
    return {vgetq_lane_u64(w, 0), vgetq_lane_u64(w, 1)};
}

template <bool Gb>
void store_tweak(uint8_t t[16], Tweak x) {
    const uint8x16_t v = vreinterpretq_u8_u64(vcombine_u64(vcreate_u64(x.a), vcreate_u64(x.b)));
    vst1q_u8(t, Gb ? vrev64q_u8(v) : v);
}

template <bool Gb>
Tweak mul_x(Tweak x) {
    if constexpr (Gb) {
        const uint64_t carry = x.b & 1;
        return {(x.a >> 1) ^ ((uint64_t{0xE1} << 56) & (0 - carry)), (x.b >> 1) | (x.a << 63)};
    } else {
        const uint64_t carry = x.b >> 63;
        return {(x.a << 1) ^ (0x87 & (0 - carry)), (x.b << 1) | (x.a >> 63)};
    }
}

// Zeroes n 16-byte blocks with vector stores; the empty asm statement, which
// may read memory through p, keeps the compiler from dropping the stores to
// a dead buffer.
inline void wipe_blocks(uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) vst1q_u8(p + 16 * i, vdupq_n_u8(0));
    asm volatile("" : : "r"(p) : "memory");
}

// The tweaks of the first 8 blocks come from one-bit steps here; the
// assembly loop then runs whole batches of 8, advancing all 8 tweaks by x^8
// per batch (sm4_ce_xts.S explains how), and the last 0..7 blocks go one at
// a time with the tweaks it leaves behind.
template <bool Gb, size_t Off>
void xts_kernel(const KeySchedule& ks, uint8_t tweak[16], const uint8_t* in, uint8_t* out,
                size_t n) {
    if (n == 0) return;
    // The tweaks of the next 8 blocks (secret: wiped below).
    alignas(16) uint8_t tw[8][16];
    Tweak t = load_tweak<Gb>(tweak);
    for (unsigned i = 0; i < 8; ++i) {
        store_tweak<Gb>(tw[i], t);
        t = mul_x<Gb>(t);
    }
    if (n >= 8) {
        hwc_sm4_ce_xts_crypt8(ks.bytes + Off, &tw[0][0], in, out, n / 8, Gb ? 1 : 0);
        in += 16 * (n & ~size_t{7});
        out += 16 * (n & ~size_t{7});
        n &= 7;
    }
    // 0..7 blocks left, using tw[0..n-1]; tw[n] is then the next tweak.
    if (n != 0) {
        const RoundKeys rk = load_keys(ks, Off);
        const uint8x16_t rev = vld1q_u8(kRev128);
        for (size_t i = 0; i < n; ++i, in += 16, out += 16) {
            const uint8x16_t x = vld1q_u8(tw[i]);
            vst1q_u8(out, veorq_u8(crypt1(rk, rev, veorq_u8(vld1q_u8(in), x)), x));
        }
    }
    vst1q_u8(tweak, vld1q_u8(tw[n]));
    wipe_blocks(&tw[0][0], 8);
}

void sm4_xts_encrypt(const KeySchedule& ks, uint8_t tweak[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    xts_kernel<false, kEncOff>(ks, tweak, in, out, n);
}
void sm4_xts_decrypt(const KeySchedule& ks, uint8_t tweak[16], const uint8_t* in, uint8_t* out,
                     size_t n) {
    xts_kernel<false, kDecOff>(ks, tweak, in, out, n);
}
void sm4_xts_gb_encrypt(const KeySchedule& ks, uint8_t tweak[16], const uint8_t* in,
                        uint8_t* out, size_t n) {
    xts_kernel<true, kEncOff>(ks, tweak, in, out, n);
}
void sm4_xts_gb_decrypt(const KeySchedule& ks, uint8_t tweak[16], const uint8_t* in,
                        uint8_t* out, size_t n) {
    xts_kernel<true, kDecOff>(ks, tweak, in, out, n);
}

// ---- OCB -------------------------------------------------------------------------

// OcbState contract in cores/core.h. Block i uses L[ntz(i)]; once the block
// count is a multiple of 8, the next 8 blocks use L0 L1 L0 L2 L0 L1 L0 and
// then L[ntz(i + 8)], so a batch needs one table lookup. Leading blocks up
// to that alignment and the tail go one at a time.
template <bool Encrypt>
void ocb_kernel(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out,
                size_t n) {
    if (n == 0) return;
    const RoundKeys rk = load_keys(ks, Encrypt ? kEncOff : kDecOff);
    const uint8x16_t rev = vld1q_u8(kRev128);
    uint8x16_t offset = vld1q_u8(st.offset);
    uint8x16_t sum = vld1q_u8(st.checksum);
    uint64_t i = st.blocks;
    auto one_block = [&] {
        ++i;
        offset = veorq_u8(offset, vld1q_u8(st.l[__builtin_ctzll(i)]));
        const uint8x16_t x = vld1q_u8(in);
        const uint8x16_t y = veorq_u8(crypt1(rk, rev, veorq_u8(x, offset)), offset);
        sum = veorq_u8(sum, Encrypt ? x : y);
        vst1q_u8(out, y);
        in += 16, out += 16, --n;
    };
    while (n != 0 && i % 8 != 0) one_block();
    if (n >= 8) {
        const uint8x16_t l0 = vld1q_u8(st.l[0]), l1 = vld1q_u8(st.l[1]), l2 = vld1q_u8(st.l[2]);
        for (; n >= 8; n -= 8) {
            uint8x16_t o[8], b[8];
            o[0] = veorq_u8(offset, l0);
            o[1] = veorq_u8(o[0], l1);
            o[2] = veorq_u8(o[1], l0);
            o[3] = veorq_u8(o[2], l2);
            o[4] = veorq_u8(o[3], l0);
            o[5] = veorq_u8(o[4], l1);
            o[6] = veorq_u8(o[5], l0);
            i += 8;
            o[7] = veorq_u8(o[6], vld1q_u8(st.l[__builtin_ctzll(i)]));
            offset = o[7];
            load_blocks<false>(in, b);
            if constexpr (Encrypt) {
#pragma GCC unroll 8
                for (unsigned j = 0; j < 8; ++j) sum = veorq_u8(sum, b[j]);
            }
#pragma GCC unroll 8
            for (unsigned j = 0; j < 8; ++j) b[j] = veorq_u8(b[j], o[j]);
            crypt_n<8>(rk, rev, b);
#pragma GCC unroll 8
            for (unsigned j = 0; j < 8; ++j) b[j] = veorq_u8(b[j], o[j]);
            if constexpr (!Encrypt) {
#pragma GCC unroll 8
                for (unsigned j = 0; j < 8; ++j) sum = veorq_u8(sum, b[j]);
            }
            store_blocks<false>(out, b);
        }
    }
    while (n != 0) one_block();
    vst1q_u8(st.offset, offset);
    vst1q_u8(st.checksum, sum);
    st.blocks = i;
}

void sm4_ocb_encrypt(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out,
                     size_t n) {
    ocb_kernel<true>(ks, st, in, out, n);
}
void sm4_ocb_decrypt(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out,
                     size_t n) {
    ocb_kernel<false>(ks, st, in, out, n);
}

// ---- key schedule --------------------------------------------------------------

// K0..K3 = MK ^ FK (words big-endian); each SM4EKEY turns the previous four
// key words and CK[4i..4i+3] into round keys rk[4i..4i+3], which are also
// the next four key words. The intermediate words live only in registers.
bool sm4_set_key(KeySchedule& ks, const uint8_t* key, size_t keylen) {
    if (keylen != 16) return false;
    uint32x4_t k = veorq_u32(to_state(vld1q_u8(key)), vld1q_u32(kFK));
    for (unsigned i = 0; i < 8; ++i) {
        k = vsm4ekeyq_u32(k, vld1q_u32(kCK.v + 4 * i));
        vst1q_u8(ks.bytes + kEncOff + 16 * i, vreinterpretq_u8_u32(k));
        const uint32x4_t r = vrev64q_u32(k); // lanes 1 0 3 2
        vst1q_u8(ks.bytes + kDecOff + 16 * (7 - i), vreinterpretq_u8_u32(vextq_u32(r, r, 2)));
    }
    return true;
}

} // namespace

extern const BlockCore sm4_ce = {
    .name = "sm4-armv8-ce",
    .family = Family::sm4,
    .hardware = true,
    .needs = kArmSm4,
    .set_key = sm4_set_key,
    .encrypt_blocks = sm4_encrypt,
    .decrypt_blocks = sm4_decrypt,
    .cbc_encrypt = sm4_cbc_encrypt,
    .cbc_decrypt = sm4_cbc_decrypt,
    .cfb_encrypt = sm4_cfb_encrypt,
    .cfb_decrypt = sm4_cfb_decrypt,
    .ofb = sm4_ofb,
    .ctr = sm4_ctr,
    .cfb8_encrypt = sm4_cfb8_encrypt,
    .cfb8_decrypt = sm4_cfb8_decrypt,
    .cbc_mac = sm4_cbc_mac,
    .xts_encrypt = sm4_xts_encrypt,
    .xts_decrypt = sm4_xts_decrypt,
    .xts_gb_encrypt = sm4_xts_gb_encrypt,
    .xts_gb_decrypt = sm4_xts_gb_decrypt,
    .ocb_encrypt = sm4_ocb_encrypt,
    .ocb_decrypt = sm4_ocb_decrypt,
};

} // namespace hwc::aarch64
