// SPDX-License-Identifier: Apache-2.0
// aes-armv8-ce: AES-128/192/256 on the ARMv8 Crypto Extensions
// (AESE/AESMC, AESD/AESIMC), with kernels for every mode slot AES uses.
//
// Compiled with -march=armv8-a+crypto (root CMakeLists.txt) and reached only
// through the `aes_ce` descriptor, which the registry offers when HWCAP_AES
// is set. The AES instructions run in constant time; nothing here branches or
// indexes memory on secret data (the CTR branches look at the public
// counter, the OCB table index is the public block number).
//
// Division of labour:
//  - the parallel modes (ECB, CBC/CFB decryption, CTR, XTS, OCB) run whole
//    chunks of 8 blocks in aes_ce_modes.S (8 blocks in flight cover AESE
//    latency x issue width on current cores; see that file for why it is
//    assembly) and the 0..7 blocks left over here, 4 and then 1 at a time;
//  - the serial modes (CBC/CFB encryption, OFB, CBC-MAC) and CFB8 are here:
//    one dependency chain, kept in a register across the whole buffer;
//  - key expansion is here, in plain code: it runs once per key.
// Every kernel is a template on the round count (10/12/14), instantiated
// through aes_ce_with_rounds, with its round keys loaded into registers once
// per call and the rounds fully unrolled (cores/aarch64/aes_ce.h).
#include "cores/aarch64/aarch64.h"
#include "cores/aarch64/aes_ce.h"
#include "cores/aarch64/aes_ce_gcm.h"
#include "cores/aarch64/block_frame.h"
#include "cores/cpu.h"
#include "cores/wipe.h"

#include <arm_neon.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstring>
#include <utility>

// The 8-block loops (aes_ce_modes.S): `keys` are AesCeKey::enc or ::dec,
// `chunks` >= 1 groups of 8 blocks, chaining state read and written back as
// by the matching slot.
extern "C" {
void hwc_aes_ce_ecb_enc8(const uint8_t* keys, unsigned rounds, const uint8_t* in, uint8_t* out,
                         size_t chunks);
void hwc_aes_ce_ecb_dec8(const uint8_t* keys, unsigned rounds, const uint8_t* in, uint8_t* out,
                         size_t chunks);
void hwc_aes_ce_cbc_dec8(const uint8_t* keys, unsigned rounds, uint8_t iv[16], const uint8_t* in,
                         uint8_t* out, size_t chunks);
void hwc_aes_ce_cfb_dec8(const uint8_t* keys, unsigned rounds, uint8_t iv[16], const uint8_t* in,
                         uint8_t* out, size_t chunks);
void hwc_aes_ce_ctr8(const uint8_t* keys, unsigned rounds, uint8_t ctr[16], const uint8_t* in,
                     uint8_t* out, size_t chunks);
void hwc_aes_ce_xts_enc8(const uint8_t* keys, unsigned rounds, uint8_t tweak[16],
                         const uint8_t* in, uint8_t* out, size_t chunks);
void hwc_aes_ce_xts_dec8(const uint8_t* keys, unsigned rounds, uint8_t tweak[16],
                         const uint8_t* in, uint8_t* out, size_t chunks);
// st->blocks must be a multiple of 8.
void hwc_aes_ce_ocb_enc8(const uint8_t* keys, unsigned rounds, hwc::OcbState* st,
                         const uint8_t* in, uint8_t* out, size_t chunks);
void hwc_aes_ce_ocb_dec8(const uint8_t* keys, unsigned rounds, hwc::OcbState* st,
                         const uint8_t* in, uint8_t* out, size_t chunks);
}

namespace hwc::aarch64 {
namespace {

// The assembly reads OcbState by these offsets.
static_assert(offsetof(OcbState, offset) == 0 && offsetof(OcbState, checksum) == 16 &&
              offsetof(OcbState, blocks) == 32 && offsetof(OcbState, l) == 40);

using Block = uint8x16_t;

// ---- the frame: groups of 4 blocks (one LD1/ST1 each), then single blocks ----

template <bool Output = true, class Step>
[[gnu::always_inline]] inline void serial(const uint8_t* in, uint8_t* out, size_t n, Step&& step) {
    serial_blocks<true, Output, 4, 1>(in, out, n, step);
}

// The tail of an assembly loop through the cipher's open form (the final
// AddRoundKey is left to post, which merges it with its own XOR).
template <unsigned NR, bool Encrypt, class Pre, class Post>
[[gnu::always_inline]] inline void tail(const AesCeRounds<NR>& rk, const uint8_t* in, uint8_t* out,
                                        size_t n, Pre&& pre, Post&& post) {
    parallel_blocks<true, 4, 1>(
        in, out, n, pre, [&](auto& b) { aes_ce_crypt_open<Encrypt>(rk, rk.k[0], b); }, post);
}

// Runs an assembly loop over the whole chunks of 8 blocks and advances the
// buffers past them; returns the number of blocks left (0..7).
template <class Loop>
[[gnu::always_inline]] inline size_t run_chunks(size_t n, const uint8_t*& in, uint8_t*& out,
                                                Loop&& loop) {
    if (n >= 8) {
        loop(n / 8);
        in += 128 * (n / 8);
        out += 128 * (n / 8);
    }
    return n % 8;
}

// ---- ECB -------------------------------------------------------------------------

template <unsigned NR, bool Encrypt>
void ecb(const AesCeKey& key, const uint8_t* in, uint8_t* out, size_t n) {
    const auto& keys = Encrypt ? key.enc : key.dec;
    n = run_chunks(n, in, out, [&](size_t chunks) {
        if constexpr (Encrypt) hwc_aes_ce_ecb_enc8(keys[0], NR, in, out, chunks);
        else hwc_aes_ce_ecb_dec8(keys[0], NR, in, out, chunks);
    });
    if (n == 0) return;
    const AesCeRounds<NR> rk = aes_ce_load<NR>(keys);
    tail<NR, Encrypt>(
        rk, in, out, n, [](size_t, Block d) { return d; },
        [&](size_t, Block b, Block) { return veorq_u8(b, rk.k[NR]); });
}

// ---- serial modes: one chain, kept in a register across the whole buffer -----
//
// Each keeps the previous block's *open* state o (cipher output = o ^ k_last).
// The next block's cipher input X enters through AESE's own key XOR:
// AESE(o, k_0 ^ k_last ^ d) = AESE(X ^ k_0) when X = (o ^ k_last) ^ d, so the
// XOR with d (plaintext or nothing) and with k_last happen on a side branch
// and the critical path is AESE/AESMC only. Four blocks are loaded and stored
// per instruction; the chain inside a group is still one block at a time.

// C_i = E(C_{i-1} ^ P_i): o_i = open(o_{i-1}) with first key k_0 ^ k_last ^ P_i.
// Without Output (CBC-MAC) only the chaining value survives.
template <unsigned NR, bool Output = true>
void cbc_encrypt(const AesCeKey& key, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    const AesCeRounds<NR> rk = aes_ce_load<NR>(key.enc);
    const Block k_last = rk.k[NR], k0_last = veorq_u8(rk.k[0], k_last);
    Block o = veorq_u8(vld1q_u8(iv), k_last);
    serial<Output>(in, out, n, [&](Block p) {
        o = aes_ce_encrypt1_open<NR>(rk, veorq_u8(k0_last, p), o);
        return veorq_u8(o, k_last);
    });
    vst1q_u8(iv, veorq_u8(o, k_last));
}

template <unsigned NR>
void cbc_mac(const AesCeKey& key, uint8_t iv[16], const uint8_t* in, size_t n) {
    cbc_encrypt<NR, false>(key, iv, in, nullptr, n);
}

// C_i = E(C_{i-1}) ^ P_i. With t_i = P_i ^ k_last, C_i = o_i ^ t_i and
// o_{i+1} = open(o_i) with first key k_0 ^ t_i (o_0 = IV, t_0 = 0): one XOR
// more than the direct form, none of them on the chain.
template <unsigned NR>
void cfb_encrypt(const AesCeKey& key, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    const AesCeRounds<NR> rk = aes_ce_load<NR>(key.enc);
    Block o = vld1q_u8(iv), t = vdupq_n_u8(0);
    serial(in, out, n, [&](Block p) {
        o = aes_ce_encrypt1_open<NR>(rk, veorq_u8(rk.k[0], t), o);
        t = veorq_u8(p, rk.k[NR]);
        return veorq_u8(o, t);
    });
    vst1q_u8(iv, veorq_u8(o, t));
}

// The OFB register S_i = E(S_{i-1}) = o_i ^ k_last; output P_i ^ S_i.
template <unsigned NR>
void ofb(const AesCeKey& key, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    const AesCeRounds<NR> rk = aes_ce_load<NR>(key.enc);
    const Block k_last = rk.k[NR], k0_last = veorq_u8(rk.k[0], k_last);
    Block o = veorq_u8(vld1q_u8(iv), k_last);
    serial(in, out, n, [&](Block p) {
        o = aes_ce_encrypt1_open<NR>(rk, k0_last, o);
        return veorq_u8(o, veorq_u8(p, k_last));
    });
    vst1q_u8(iv, veorq_u8(o, k_last));
}

// ---- CBC and CFB decryption: the tails of the assembly loops ---------------------
//
// P_i = D(C_i) ^ C_{i-1} and P_i = E(C_{i-1}) ^ C_i: one chain, the previous
// ciphertext block on the other side of the cipher. Each group loads all its
// input before storing anything, so in == out works.
template <unsigned NR, bool Cfb>
void chain_decrypt(const AesCeKey& key, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                   size_t n) {
    n = run_chunks(n, in, out, [&](size_t chunks) {
        if constexpr (Cfb) hwc_aes_ce_cfb_dec8(key.enc[0], NR, iv, in, out, chunks);
        else hwc_aes_ce_cbc_dec8(key.dec[0], NR, iv, in, out, chunks);
    });
    if (n == 0) return;
    const AesCeRounds<NR> rk = aes_ce_load<NR>(Cfb ? key.enc : key.dec);
    Block prev = vld1q_u8(iv);
    tail<NR, Cfb>(
        rk, in, out, n, [&](size_t, Block c) { return Cfb ? std::exchange(prev, c) : c; },
        [&](size_t, Block b, Block c) {
            return veorq_u8(b, veorq_u8(Cfb ? c : std::exchange(prev, c), rk.k[NR]));
        });
    vst1q_u8(iv, prev);
}

// ---- CTR: the tail of the assembly loop ----------------------------------------------

// ctr + 1 as a 128-bit big-endian integer, wrapping mod 2^128. In the
// byte-reversed halves {hi, lo} a carry out of lo (lo wrapped to 0) enters hi
// as "minus all-ones".
[[gnu::always_inline]] inline Block counter_next(Block ctr) {
    const uint64x2_t inc = vcombine_u64(vcreate_u64(0), vcreate_u64(1));
    uint64x2_t v = vaddq_u64(vreinterpretq_u64_u8(vrev64q_u8(ctr)), inc);
    v = vsubq_u64(v, vextq_u64(vceqzq_u64(v), vdupq_n_u64(0), 1));
    return vrev64q_u8(vreinterpretq_u8_u64(v));
}

template <unsigned NR>
void ctr(const AesCeKey& key, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    n = run_chunks(n, in, out, [&](size_t chunks) {
        hwc_aes_ce_ctr8(key.enc[0], NR, iv, in, out, chunks);
    });
    if (n == 0) return;
    const AesCeRounds<NR> rk = aes_ce_load<NR>(key.enc);
    Block ctr = vld1q_u8(iv);
    tail<NR, true>(
        rk, in, out, n,
        [&](size_t, Block) {
            const Block b = ctr;
            ctr = counter_next(ctr);
            return b;
        },
        [&](size_t, Block b, Block d) { return veorq_u8(b, veorq_u8(d, rk.k[NR])); });
    vst1q_u8(iv, ctr);
}

// ---- CFB8 ----------------------------------------------------------------------------
//
// Per byte: keystream byte = E(R)[0], R shifts left one byte and takes in the
// ciphertext byte. k_last[0] is folded into the data (kl0 has it in every
// byte), so a keystream byte costs the open rounds only.

// One byte, either direction (the tails).
template <unsigned NR, bool Encrypt>
[[gnu::always_inline]] inline void cfb8_byte(const AesCeRounds<NR>& rk, uint8_t kl0, Block& r,
                                             const uint8_t* in, uint8_t* out) {
    const uint8_t x = *in;
    const uint8_t y = static_cast<uint8_t>(
        x ^ kl0 ^ vgetq_lane_u8(aes_ce_encrypt1_open<NR>(rk, rk.k[0], r), 0));
    *out = y;
    r = vextq_u8(r, vdupq_n_u8(Encrypt ? y : x), 1);
}

// Encryption is serial. For 16 bytes at a time, w holds the (k_last[0]-
// masked) input rotated so its byte 0 is the current byte; E(R) ^ w then has
// the ciphertext byte at position 0, which EXT shifts into R. After 16 steps
// R is exactly the 16 ciphertext bytes.
template <unsigned NR>
void cfb8_encrypt(const AesCeKey& key, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                  size_t nbytes) {
    const AesCeRounds<NR> rk = aes_ce_load<NR>(key.enc);
    const Block kl0 = vdupq_laneq_u8(rk.k[NR], 0);
    Block r = vld1q_u8(iv);
    for (; nbytes >= 16; nbytes -= 16, in += 16, out += 16) {
        Block w = veorq_u8(vld1q_u8(in), kl0);
#pragma GCC unroll 16
        for (int j = 0; j < 16; ++j) {
            r = vextq_u8(r, veorq_u8(aes_ce_encrypt1_open<NR>(rk, rk.k[0], r), w), 1);
            w = vextq_u8(w, w, 1);
        }
        vst1q_u8(out, r);
    }
    for (; nbytes != 0; --nbytes) cfb8_byte<NR, true>(rk, key.enc[NR][0], r, in++, out++);
    vst1q_u8(iv, r);
}

// Decryption knows every register value in advance: for 16 input bytes C,
// the j-th register is bytes j..j+15 of R || C, so all 16 encryptions are
// independent (two groups of 8); their byte 0s are gathered into one vector.
template <size_t Base, size_t... J>
[[gnu::always_inline]] inline void cfb8_registers(Block r, Block c, Block (&b)[8],
                                                  std::index_sequence<J...>) {
    ((b[J] = vextq_u8(r, c, Base + J)), ...);
}

template <size_t Base, size_t... J>
[[gnu::always_inline]] inline void cfb8_gather(Block& ks, const Block (&b)[8],
                                               std::index_sequence<J...>) {
    ((ks = vcopyq_laneq_u8(ks, Base + J, b[J], 0)), ...);
}

template <unsigned NR>
void cfb8_decrypt(const AesCeKey& key, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                  size_t nbytes) {
    const AesCeRounds<NR> rk = aes_ce_load<NR>(key.enc);
    const Block kl0 = vdupq_laneq_u8(rk.k[NR], 0);
    Block r = vld1q_u8(iv);
    for (; nbytes >= 16; nbytes -= 16, in += 16, out += 16) {
        const Block c = vld1q_u8(in);
        Block ks = c, b[8]; // every lane of ks is overwritten by the gathers
        cfb8_registers<0>(r, c, b, std::make_index_sequence<8>{});
        aes_ce_encrypt_open<NR>(rk, b);
        cfb8_gather<0>(ks, b, std::make_index_sequence<8>{});
        cfb8_registers<8>(r, c, b, std::make_index_sequence<8>{});
        aes_ce_encrypt_open<NR>(rk, b);
        cfb8_gather<8>(ks, b, std::make_index_sequence<8>{});
        vst1q_u8(out, veorq_u8(veorq_u8(c, kl0), ks));
        r = c;
    }
    for (; nbytes != 0; --nbytes) cfb8_byte<NR, false>(rk, key.enc[NR][0], r, in++, out++);
    vst1q_u8(iv, r);
}

// ---- XTS (IEEE 1619 tweak): the tail of the assembly loop ---------------------------

// T * alpha: the tweak is a little-endian 128-bit integer, shifted left by
// one; the bit leaving each 64-bit half re-enters as 1 in the upper half or
// as 0x87 in the lower (x^128 = x^7 + x^2 + x + 1). Branch-free: the tweak
// is secret.
[[gnu::always_inline]] inline Block xts_next(Block t) {
    const uint64x2_t poly = vcombine_u64(vcreate_u64(0x87), vcreate_u64(1));
    const uint64x2_t v = vreinterpretq_u64_u8(t);
    const int64x2_t top = vshrq_n_s64(vreinterpretq_s64_u64(v), 63); // all-ones where bit 63 set
    const uint64x2_t carry = vandq_u64(vreinterpretq_u64_s64(vextq_s64(top, top, 1)), poly);
    return vreinterpretq_u8_u64(veorq_u64(vaddq_u64(v, v), carry));
}

template <unsigned NR, bool Encrypt>
void xts(const AesCeKey& key, uint8_t tweak[16], const uint8_t* in, uint8_t* out, size_t n) {
    const auto& keys = Encrypt ? key.enc : key.dec;
    n = run_chunks(n, in, out, [&](size_t chunks) {
        if constexpr (Encrypt) hwc_aes_ce_xts_enc8(keys[0], NR, tweak, in, out, chunks);
        else hwc_aes_ce_xts_dec8(keys[0], NR, tweak, in, out, chunks);
    });
    if (n == 0) return;
    const AesCeRounds<NR> rk = aes_ce_load<NR>(keys);
    Block t = vld1q_u8(tweak), tw[4]; // tw: the tweaks of the group in flight
    tail<NR, Encrypt>(
        rk, in, out, n,
        [&](size_t i, Block p) {
            tw[i] = t;
            t = xts_next(t);
            return veorq_u8(p, tw[i]);
        },
        [&](size_t i, Block b, Block) { return veorq_u8(b, veorq_u8(tw[i], rk.k[NR])); });
    vst1q_u8(tweak, t);
}

// ---- OCB ---------------------------------------------------------------------------------
//
// Offset_i = Offset_{i-1} ^ L[ntz(i)]. Blocks go one at a time until the
// block number is a multiple of 8, then in chunks of 8 through the assembly
// loop, then one at a time again. Here the offset is kept XORed with the
// final round key of the direction used and AESE/AESD get k_0 ^ k_last as
// their first key, so the offset XORs before and after the cipher absorb the
// first and last AddRoundKey: C = o' ^ open(P ^ o') with o' the folded offset.

template <unsigned NR, bool Encrypt>
void ocb_singles(const AesCeKey& key, OcbState& st, const uint8_t*& in, uint8_t*& out, size_t n) {
    const AesCeRounds<NR> rk = aes_ce_load<NR>(Encrypt ? key.enc : key.dec);
    const Block k_last = rk.k[NR], k0 = veorq_u8(rk.k[0], k_last);
    Block off = veorq_u8(vld1q_u8(st.offset), k_last);
    Block sum = vld1q_u8(st.checksum);
    uint64_t blocks = st.blocks;
    for (; n != 0; --n, in += 16, out += 16) {
        off = veorq_u8(off, vld1q_u8(st.l[std::countr_zero(++blocks)]));
        const Block p = vld1q_u8(in);
        Block b[1] = {veorq_u8(p, off)};
        aes_ce_crypt_open<Encrypt>(rk, k0, b);
        b[0] = veorq_u8(b[0], off);
        sum = veorq_u8(sum, Encrypt ? p : b[0]);
        vst1q_u8(out, b[0]);
    }
    vst1q_u8(st.offset, veorq_u8(off, k_last));
    vst1q_u8(st.checksum, sum);
    st.blocks = blocks;
}

template <unsigned NR, bool Encrypt>
void ocb(const AesCeKey& key, OcbState& st, const uint8_t* in, uint8_t* out, size_t n) {
    const size_t lead = std::min<size_t>(n, (8 - st.blocks % 8) % 8);
    if (lead != 0) ocb_singles<NR, Encrypt>(key, st, in, out, lead);
    n = run_chunks(n - lead, in, out, [&](size_t chunks) {
        if constexpr (Encrypt) hwc_aes_ce_ocb_enc8(key.enc[0], NR, &st, in, out, chunks);
        else hwc_aes_ce_ocb_dec8(key.dec[0], NR, &st, in, out, chunks);
    });
    if (n != 0) ocb_singles<NR, Encrypt>(key, st, in, out, n);
}

// ---- slot entry points -----------------------------------------------------------------------

// Each kernel family as a type with a per-round-count `run`, so one adapter
// serves every slot signature: it picks the instantiation for the key's
// round count and forwards the slot's arguments.
struct EcbEnc { template <unsigned NR> static constexpr auto run = ecb<NR, true>; };
struct EcbDec { template <unsigned NR> static constexpr auto run = ecb<NR, false>; };
struct CbcEnc { template <unsigned NR> static constexpr auto run = cbc_encrypt<NR>; };
struct CbcDec { template <unsigned NR> static constexpr auto run = chain_decrypt<NR, false>; };
struct CfbEnc { template <unsigned NR> static constexpr auto run = cfb_encrypt<NR>; };
struct CfbDec { template <unsigned NR> static constexpr auto run = chain_decrypt<NR, true>; };
struct Ofb { template <unsigned NR> static constexpr auto run = ofb<NR>; };
struct Ctr { template <unsigned NR> static constexpr auto run = ctr<NR>; };
struct Cfb8Enc { template <unsigned NR> static constexpr auto run = cfb8_encrypt<NR>; };
struct Cfb8Dec { template <unsigned NR> static constexpr auto run = cfb8_decrypt<NR>; };
struct CbcMac { template <unsigned NR> static constexpr auto run = cbc_mac<NR>; };
struct XtsEnc { template <unsigned NR> static constexpr auto run = xts<NR, true>; };
struct XtsDec { template <unsigned NR> static constexpr auto run = xts<NR, false>; };
struct OcbEnc { template <unsigned NR> static constexpr auto run = ocb<NR, true>; };
struct OcbDec { template <unsigned NR> static constexpr auto run = ocb<NR, false>; };

// Flattened: the kernel and its frame (block_frame.h) become one function per
// slot; left to its heuristics GCC called some kernels out of line, a few
// instructions more per call.
template <class Kernel, class... Args>
[[gnu::flatten]] void slot(const KeySchedule& ks, Args... args) {
    const AesCeKey& key = aes_ce_key(ks);
    aes_ce_with_rounds(key, [&](auto nr) {
        Kernel::template run<decltype(nr)::value>(key, args...);
    });
}

// ---- key schedule ----------------------------------------------------------------------------

static_assert(std::endian::native == std::endian::little, "key words are read little-endian");

// SubWord: with the word copied into all four columns, ShiftRows only moves
// bytes between equal columns, so AESE with a zero key is SubBytes on each
// byte: the hardware S-box, in constant time.
uint32_t sub_word(uint32_t w) {
    const Block v = vreinterpretq_u8_u32(vdupq_n_u32(w));
    return vgetq_lane_u32(vreinterpretq_u32_u8(vaeseq_u8(v, vdupq_n_u8(0))), 0);
}

// FIPS-197 5.2 KeyExpansion over 32-bit words read little-endian from the
// key bytes, so RotWord (a0a1a2a3 -> a1a2a3a0) is a right rotation by 8 and
// Rcon XORs into the low byte.
bool set_key(KeySchedule& ks, const uint8_t* key, size_t keylen) {
    if (keylen != 16 && keylen != 24 && keylen != 32) return false;
    const unsigned nk = static_cast<unsigned>(keylen / 4);
    const unsigned nr = nk + 6;
    uint32_t w[4 * 15];
    std::memcpy(w, key, keylen);
    uint32_t rcon = 1;
    for (unsigned i = nk; i < 4 * (nr + 1); ++i) {
        uint32_t t = w[i - 1];
        if (i % nk == 0) {
            t = std::rotr(sub_word(t), 8) ^ rcon;
            rcon = (rcon << 1) ^ ((rcon >> 7) * 0x11b); // x * rcon in GF(2^8), public
        } else if (nk == 8 && i % nk == 4) {
            t = sub_word(t);
        }
        w[i] = w[i - nk] ^ t;
    }
    AesCeKey& k = aes_ce_key(ks);
    std::memcpy(k.enc, w, 16 * (nr + 1));
    // Equivalent inverse cipher (FIPS-197 5.3.5): keys in reverse order, the
    // middle ones through InvMixColumns.
    std::memcpy(k.dec[0], k.enc[nr], 16);
    for (unsigned r = 1; r < nr; ++r) vst1q_u8(k.dec[r], vaesimcq_u8(vld1q_u8(k.enc[nr - r])));
    std::memcpy(k.dec[nr], k.enc[0], 16);
    k.rounds = nr;
    secure_wipe(w, sizeof w);
    return true;
}

} // namespace

extern const BlockCore aes_ce = {
    .name = "aes-armv8-ce",
    .family = Family::aes,
    .hardware = true,
    .needs = kArmAes,
    .set_key = set_key,
    .encrypt_blocks = slot<EcbEnc>,
    .decrypt_blocks = slot<EcbDec>,
    .cbc_encrypt = slot<CbcEnc>,
    .cbc_decrypt = slot<CbcDec>,
    .cfb_encrypt = slot<CfbEnc>,
    .cfb_decrypt = slot<CfbDec>,
    .ofb = slot<Ofb>,
    .ctr = slot<Ctr>,
    .cfb8_encrypt = slot<Cfb8Enc>,
    .cfb8_decrypt = slot<Cfb8Dec>,
    .cbc_mac = slot<CbcMac>,
    .xts_encrypt = slot<XtsEnc>,
    .xts_decrypt = slot<XtsDec>,
    .ocb_encrypt = slot<OcbEnc>,
    .ocb_decrypt = slot<OcbDec>,
    // Stitched CTR+GHASH (aes_ce_gcm.cpp); only used when GCM's GHASH core
    // is ghash-pmull, whose key layout it reads.
    .gcm_ghash = &ghash_pmull,
    .gcm_encrypt = gcm_ce_encrypt,
    .gcm_decrypt = gcm_ce_decrypt,
};

} // namespace hwc::aarch64
