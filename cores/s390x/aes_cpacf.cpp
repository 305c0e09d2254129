// SPDX-License-Identifier: Apache-2.0
// aes-cpacf: AES-128/192/256 and its modes on CPACF (z/Architecture MSA).
//
// CPACF takes the raw key in a parameter block, not a schedule, and does the
// whole mode in one instruction: ECB and XTS on KM, CBC on KMC, CFB128 and
// CFB8 on KMF (LCFB 16 / 1), OFB on KMO, CTR on KMA-GCM (its 32-bit counter
// carried here) or else KMCTR with counter blocks the program writes,
// CBC-MAC on KMAC, stitched GCM on KMA. Every kernel is one instruction call
// per invocation (KMCTR: one per batch of counters), with the
// chaining value carried in and out of the parameter block. XTS: the first
// tweak from PCC compute-XTS-parameter, the blocks on KM-XTS; whole-block
// data units in one KM full-XTS call where the machine has it (MSA10). CMAC's
// last block on PCC compute-last-block-CMAC.
//
// Availability is per instruction and per function code (one per key size,
// and MSA1-era machines lack AES-192/256), so set_key records which
// instructions have this key's code; a kernel whose instruction is missing
// runs the generic kernel (cores/modes.h) over this core's ECB, and ECB
// itself falls back to the portable AES when KM lacks the code. Kernels of an
// MSA level the build excludes (HWCIPHER_S390X_MSA4/_MSA8) are not compiled
// at all: their slots stay empty and the generic kernels serve them.
// OCB masks its blocks in software around one KM call per pass; CCM pairs
// KMAC with the CTR kernel, whose counter engine is KMA-GCM where it exists.
// KM and KMCTR read the key in place in the KeySchedule (their parameter
// block is just the key); the other parameter blocks are stack copies of the
// key and chaining state, wiped after each call.
#include <bit>
#include <cstddef>
#include <cstring>

#include "cores/byte_order.h"
#include "cores/cpu.h"
#include "cores/modes.h"
#include "cores/portable/portable.h"
#include "cores/s390x/cpacf.h"
#include "cores/s390x/cpacf_detect.h"
#include "cores/s390x/s390x.h"
#include "cores/wipe.h"

namespace hwc::s390x {
namespace {

static_assert(std::endian::native == std::endian::big, "CPACF code is for big-endian s390x");

// Which instructions have this key's function code, decided at set_key.
enum Have : uint32_t {
    kHaveKm = 1u << 0,     // KM-AES (ECB); otherwise the portable schedule is used
    kHaveKmc = 1u << 1,    // KMC-AES (CBC)
    kHaveKmf = 1u << 2,    // KMF-AES (CFB128, CFB8)
    kHaveKmo = 1u << 3,    // KMO-AES (OFB)
    kHaveKmctr = 1u << 4,  // KMCTR-AES (CTR)
    kHaveKmac = 1u << 5,   // KMAC-AES (CBC-MAC)
    kHaveXts = 1u << 6,    // KM-XTS-AES (128 and 256 only)
    kHaveKma = 1u << 7,    // KMA-GCM-AES
    kHavePccXts = 1u << 8,   // PCC compute-XTS-parameter (128 and 256 only)
    kHaveFullXts = 1u << 9,  // KM full-XTS-AES (128 and 256 only)
    kHavePccCmac = 1u << 10, // PCC compute-last-block-CMAC
};

// What the core keeps, at the end of the KeySchedule: the front belongs to
// the portable AES schedule (under 1 KiB) when KM lacks this key size.
struct CpacfKey {
    uint8_t key[32];   // the raw key: CPACF parameter blocks take it as is
    uint32_t keylen;   // 16, 24 or 32
    uint32_t fc;       // 18, 19 or 20
    uint32_t have;     // Have bits
};
constexpr size_t kCpacfKeyOffset = kMaxScheduleBytes - 64;
static_assert(sizeof(CpacfKey) <= kMaxScheduleBytes - kCpacfKeyOffset);

const CpacfKey& cpacf_key(const KeySchedule& ks) {
    return *reinterpret_cast<const CpacfKey*>(ks.bytes + kCpacfKeyOffset);
}
CpacfKey& cpacf_key(KeySchedule& ks) {
    return *reinterpret_cast<CpacfKey*>(ks.bytes + kCpacfKeyOffset);
}

unsigned long direction(bool decrypt) { return decrypt ? cpacf::kDecipher : 0; }

bool set_key(KeySchedule& ks, const uint8_t* key, size_t keylen) {
    if (keylen != 16 && keylen != 24 && keylen != 32) return false;
    CpacfKey& k = cpacf_key(ks);
    std::memset(&k, 0, sizeof k);
    std::memcpy(k.key, key, keylen);
    k.keylen = static_cast<uint32_t>(keylen);
    k.fc = static_cast<uint32_t>(cpacf::kAes128 + (keylen - 16) / 8);

    const CpacfCaps& caps = cpacf_caps();
    uint32_t have = 0;
    if (caps.has(Insn::km, k.fc)) have |= kHaveKm;
    if (caps.has(Insn::kmc, k.fc)) have |= kHaveKmc;
#if defined(HWCIPHER_S390X_MSA4)
    if (caps.has(Insn::kmf, k.fc)) have |= kHaveKmf;
    if (caps.has(Insn::kmo, k.fc)) have |= kHaveKmo;
    if (caps.has(Insn::kmctr, k.fc)) have |= kHaveKmctr;
    if (caps.has(Insn::kmac, k.fc)) have |= kHaveKmac;
    if (caps.has(Insn::pcc, k.fc)) have |= kHavePccCmac;
    if (keylen != 24) {  // there is no XTS-AES-192
        if (caps.has(Insn::km, k.fc + cpacf::kXtsOffset)) have |= kHaveXts;
        if (caps.has(Insn::pcc, k.fc + cpacf::kXtsOffset)) have |= kHavePccXts;
        if (caps.has(Insn::km, k.fc + cpacf::kFullXtsOffset)) have |= kHaveFullXts;
    }
#endif
#if defined(HWCIPHER_S390X_MSA8)
    if (caps.has(Insn::kma, k.fc)) have |= kHaveKma;
#endif
    k.have = have;
    if ((have & kHaveKm) == 0) return portable::aes.set_key(ks, key, keylen);
    return true;
}

// ---- ECB: KM ---------------------------------------------------------------

void encrypt_blocks(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const CpacfKey& k = cpacf_key(ks);
    // KM-AES only reads its parameter block (the key), so it can point into ks.
    if (k.have & kHaveKm) cpacf::km(k.fc, k.key, out, in, n * kBlockSize);
    else portable::aes.encrypt_blocks(ks, in, out, n);
}

void decrypt_blocks(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const CpacfKey& k = cpacf_key(ks);
    if (k.have & kHaveKm) cpacf::km(k.fc | cpacf::kDecipher, k.key, out, in, n * kBlockSize);
    else portable::aes.decrypt_blocks(ks, in, out, n);
}

// ---- chained modes: parameter block = chaining value, key -----------------

// KMC, KMF, KMO and KMAC share this layout; the CPU reads keylen key bytes.
struct ChainParam {
    uint8_t cv[16];
    uint8_t key[32];
};

ChainParam chain_param(const CpacfKey& k, const uint8_t iv[kBlockSize]) {
    ChainParam p;
    std::memcpy(p.cv, iv, kBlockSize);
    std::memcpy(p.key, k.key, sizeof p.key);
    return p;
}

void finish_chain(ChainParam& p, uint8_t iv[kBlockSize]) {
    std::memcpy(iv, p.cv, kBlockSize);
    secure_wipe(&p, sizeof p);
}

// KMC: the chaining value out is the last ciphertext block.
void kmc_crypt(const CpacfKey& k, bool decrypt, uint8_t iv[kBlockSize], const uint8_t* in,
               uint8_t* out, size_t n) {
    ChainParam p = chain_param(k, iv);
    cpacf::kmc(k.fc | direction(decrypt), &p, out, in, n * kBlockSize);
    finish_chain(p, iv);
}

void cbc_encrypt(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in,
                 uint8_t* out, size_t n) {
    const CpacfKey& k = cpacf_key(ks);
    if ((k.have & kHaveKmc) == 0) return generic::cbc_encrypt(aes_cpacf, ks, iv, in, out, n);
    if (n != 0) kmc_crypt(k, false, iv, in, out, n);
}

void cbc_decrypt(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in,
                 uint8_t* out, size_t n) {
    const CpacfKey& k = cpacf_key(ks);
    if ((k.have & kHaveKmc) == 0) return generic::cbc_decrypt(aes_cpacf, ks, iv, in, out, n);
    if (n != 0) kmc_crypt(k, true, iv, in, out, n);
}

#if defined(HWCIPHER_S390X_MSA4)

// KMF with LCFB = 16 (CFB128, chaining value = last ciphertext block) or
// LCFB = 1 (CFB8, chaining value = the 16-byte shift register).
void kmf_crypt(const CpacfKey& k, unsigned long lcfb, bool decrypt, uint8_t iv[kBlockSize],
               const uint8_t* in, uint8_t* out, size_t nbytes) {
    ChainParam p = chain_param(k, iv);
    cpacf::kmf(k.fc | direction(decrypt) | cpacf::kmf_lcfb(lcfb), &p, out, in, nbytes);
    finish_chain(p, iv);
}

void cfb_encrypt(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in,
                 uint8_t* out, size_t n) {
    const CpacfKey& k = cpacf_key(ks);
    if ((k.have & kHaveKmf) == 0) return generic::cfb_encrypt(aes_cpacf, ks, iv, in, out, n);
    if (n != 0) kmf_crypt(k, 16, false, iv, in, out, n * kBlockSize);
}

void cfb_decrypt(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in,
                 uint8_t* out, size_t n) {
    const CpacfKey& k = cpacf_key(ks);
    if ((k.have & kHaveKmf) == 0) return generic::cfb_decrypt(aes_cpacf, ks, iv, in, out, n);
    if (n != 0) kmf_crypt(k, 16, true, iv, in, out, n * kBlockSize);
}

void cfb8_encrypt(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in,
                  uint8_t* out, size_t nbytes) {
    const CpacfKey& k = cpacf_key(ks);
    if ((k.have & kHaveKmf) == 0) return generic::cfb8(aes_cpacf, ks, iv, in, out, nbytes, true);
    if (nbytes != 0) kmf_crypt(k, 1, false, iv, in, out, nbytes);
}

void cfb8_decrypt(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in,
                  uint8_t* out, size_t nbytes) {
    const CpacfKey& k = cpacf_key(ks);
    if ((k.have & kHaveKmf) == 0) return generic::cfb8(aes_cpacf, ks, iv, in, out, nbytes, false);
    if (nbytes != 0) kmf_crypt(k, 1, true, iv, in, out, nbytes);
}

// KMO: the chaining value out is the last keystream block, the OFB register.
void ofb(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out,
         size_t n) {
    const CpacfKey& k = cpacf_key(ks);
    if ((k.have & kHaveKmo) == 0) return generic::ofb(aes_cpacf, ks, iv, in, out, n);
    if (n == 0) return;
    ChainParam p = chain_param(k, iv);
    cpacf::kmo(k.fc, &p, out, in, n * kBlockSize);
    finish_chain(p, iv);
}

// KMAC: CBC-MAC, the chaining value out is the MAC state.
void cbc_mac(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in, size_t n) {
    const CpacfKey& k = cpacf_key(ks);
    if ((k.have & kHaveKmac) == 0) return generic::cbc_mac(aes_cpacf, ks, iv, in, n);
    if (n == 0) return;
    ChainParam p = chain_param(k, iv);
    cpacf::kmac(k.fc, &p, in, n * kBlockSize);
    finish_chain(p, iv);
}

// ---- CTR: KMA-GCM as a counter engine, else KMCTR over counters written here

#if defined(HWCIPHER_S390X_MSA8)

// KMA-GCM-AES parameter block.
struct KmaParam {
    uint8_t reserved[12];
    uint8_t cv[4];      // 32-bit counter, incremented before each block's use
    uint8_t t[16];      // running GHASH (the tag only after a call with LPC)
    uint8_t h[16];      // hash subkey, valid with HS
    uint64_t taadl;     // total AAD / text bits: consumed only with LPC
    uint64_t tpcl;
    uint8_t j0[16];     // counter block i is j0[0..11] || (cv + i)
    uint8_t key[32];
};
static_assert(offsetof(KmaParam, t) == 16 && offsetof(KmaParam, h) == 32);
static_assert(offsetof(KmaParam, taadl) == 48 && offsetof(KmaParam, j0) == 64);
static_assert(offsetof(KmaParam, key) == 80);

// KMA-GCM used for its counter mode alone, as OpenSSL does on s390x: one
// call for the whole buffer, nothing to write per block. KMA steps only the
// low 32 bits of the counter block (J0 bytes 0..11 || CV, CV + 1 per block,
// wrapping mod 2^32), so a call ends where they wrap and the carry into the
// upper 96 bits is taken here. The GHASH it computes on the side runs under
// a zero H (HS) and is dropped: no LPC, so neither J0's last word nor the
// lengths are read.
void kma_ctr(const CpacfKey& k, uint8_t ctr[kBlockSize], const uint8_t* in, uint8_t* out,
             size_t n) {
    KmaParam p;
    std::memset(&p, 0, sizeof p);
    std::memcpy(p.key, k.key, sizeof p.key);  // all 32 bytes: a fixed-size copy
    uint64_t hi;
    uint32_t mid, low;  // the counter: hi (bytes 0..7), mid (8..11), low (12..15)
    std::memcpy(&hi, ctr, 8);
    std::memcpy(&mid, ctr + 8, 4);
    std::memcpy(&low, ctr + 12, 4);
    const unsigned long fc = k.fc | cpacf::kKmaHs | cpacf::kKmaLaad;
    while (n != 0) {
        const uint64_t room = (uint64_t{1} << 32) - low;  // blocks until `low` wraps
        const size_t m = n < room ? n : static_cast<size_t>(room);
        std::memcpy(p.j0, &hi, 8);
        std::memcpy(p.j0 + 8, &mid, 4);
        store_be32(p.cv, low - 1);
        cpacf::kma(fc, &p, out, in, m * kBlockSize, nullptr, 0);
        in += m * kBlockSize;
        out += m * kBlockSize;
        n -= m;
        low += static_cast<uint32_t>(m);
        if (low == 0 && ++mid == 0) ++hi;  // (m == room: the wrap)
    }
    std::memcpy(ctr, &hi, 8);
    std::memcpy(ctr + 8, &mid, 4);
    std::memcpy(ctr + 12, &low, 4);
    secure_wipe(&p, sizeof p);
}

#endif // HWCIPHER_S390X_MSA8

// Counter blocks per KMCTR call: 2 KiB of stack.
constexpr size_t kCtrBatch = 128;

// Writes `m` consecutive 128-bit big-endian counters starting at hi:lo and
// leaves hi:lo at the next one. The carry into `hi` is taken between runs,
// so the inner loop is two stores and two adds per block.
void fill_counters(uint8_t* dst, uint64_t& hi, uint64_t& lo, size_t m) {
    while (m != 0) {
        const uint64_t to_wrap = 0 - lo;  // counters before `lo` wraps; 0 means 2^64
        const size_t run = (to_wrap != 0 && to_wrap < m) ? static_cast<size_t>(to_wrap) : m;
        for (size_t i = 0; i < run; ++i, dst += kBlockSize, ++lo) {
            std::memcpy(dst, &hi, 8);  // native order is big-endian
            std::memcpy(dst + 8, &lo, 8);
        }
        if (lo == 0) ++hi;
        m -= run;
    }
}

// Flattened so that kma_ctr is inlined here whatever GCC's heuristics make of
// its other uses (out of line, a CTR update cost 4 instructions more).
[[gnu::flatten]] void ctr(const KeySchedule& ks, uint8_t iv[kBlockSize], const uint8_t* in,
                          uint8_t* out, size_t n) {
    const CpacfKey& k = cpacf_key(ks);
#if defined(HWCIPHER_S390X_MSA8)
    if (k.have & kHaveKma) {
        if (n != 0) kma_ctr(k, iv, in, out, n);
        return;
    }
#endif
    if ((k.have & kHaveKmctr) == 0) return generic::ctr(aes_cpacf, ks, iv, in, out, n);
    uint64_t hi, lo;
    std::memcpy(&hi, iv, 8);
    std::memcpy(&lo, iv + 8, 8);
    // Counters are public (they derive from the IV); the keystream never
    // leaves the CPU, so nothing here needs wiping.
    alignas(8) uint8_t ctrs[kCtrBatch * kBlockSize];
    while (n != 0) {
        const size_t m = n < kCtrBatch ? n : kCtrBatch;
        fill_counters(ctrs, hi, lo, m);
        // KMCTR-AES only reads its parameter block (the key).
        cpacf::kmctr(k.fc, k.key, out, in, m * kBlockSize, ctrs);
        in += m * kBlockSize;
        out += m * kBlockSize;
        n -= m;
    }
    std::memcpy(iv, &hi, 8);
    std::memcpy(iv + 8, &lo, 8);
}

// ---- CCM: CBC-MAC on KMAC, the counter part on this core's CTR -------------

// Blocks per pass (16 KiB): one KMAC and one CTR call each, the second pass
// reading what the first left in the cache. The MAC reads the plaintext:
// before CTR overwrites it when encrypting (in == out), after CTR produced it
// when decrypting. cbc_mac and ctr fall back by themselves where KMAC or the
// counter engines lack this key's function code.
constexpr size_t kCcmPass = 1024;

#if defined(HWCIPHER_S390X_MSA8)

// KMAC and KMA-GCM as the counter engine (as kma_ctr), each parameter block
// set up once per message rather than once per pass and instruction: CCM's
// whole-block work is these two calls per pass and nothing else, so their
// set-up is most of its per-message cost. KMA steps CV in its parameter
// block, so passes continue from it. When the low 32 bits of the counter
// would wrap (by the end of this call: the counter after the last block,
// which a partial last block goes on with, included), ccm_crypt takes its
// generic loop instead, whose ctr() carries into the upper bits.
template <bool Encrypt>
void ccm_kma(const CpacfKey& k, uint8_t mac[kBlockSize], uint8_t ctr[kBlockSize],
             const uint8_t* in, uint8_t* out, size_t n) {
    const uint32_t low = load_be32(ctr + 12);
    ChainParam mp = chain_param(k, mac);
    KmaParam cp;
    std::memset(&cp, 0, sizeof cp);
    std::memcpy(cp.key, k.key, sizeof cp.key);
    std::memcpy(cp.j0, ctr, 12);
    store_be32(cp.cv, low - 1);
    const unsigned long fc = k.fc | cpacf::kKmaHs | cpacf::kKmaLaad;
    while (n != 0) {
        const size_t m = n < kCcmPass ? n : kCcmPass;
        if constexpr (Encrypt) cpacf::kmac(k.fc, &mp, in, m * kBlockSize);
        cpacf::kma(fc, &cp, out, in, m * kBlockSize, nullptr, 0);
        if constexpr (!Encrypt) cpacf::kmac(k.fc, &mp, out, m * kBlockSize);
        in += m * kBlockSize;
        out += m * kBlockSize;
        n -= m;
    }
    store_be32(ctr + 12, load_be32(cp.cv) + 1); // the next counter (no carry: see above)
    finish_chain(mp, mac);
    secure_wipe(&cp, sizeof cp);
}

#endif // HWCIPHER_S390X_MSA8

template <bool Encrypt>
void ccm_crypt(const KeySchedule& ks, uint8_t mac[kBlockSize], uint8_t ctr_block[kBlockSize],
               const uint8_t* in, uint8_t* out, size_t n) {
#if defined(HWCIPHER_S390X_MSA8)
    const CpacfKey& k = cpacf_key(ks);
    // A call whose counter would wrap takes the loop below, whose ctr()
    // carries into the upper bits (kma_ctr).
    if ((k.have & (kHaveKmac | kHaveKma)) == (kHaveKmac | kHaveKma) &&
        n < (uint64_t{1} << 32) - load_be32(ctr_block + 12)) {
        if (n != 0) ccm_kma<Encrypt>(k, mac, ctr_block, in, out, n);
        return;
    }
#endif
    while (n != 0) {
        const size_t m = n < kCcmPass ? n : kCcmPass;
        if constexpr (Encrypt) cbc_mac(ks, mac, in, m);
        ctr(ks, ctr_block, in, out, m);
        if constexpr (!Encrypt) cbc_mac(ks, mac, out, m);
        in += m * kBlockSize;
        out += m * kBlockSize;
        n -= m;
    }
}

void ccm_encrypt(const KeySchedule& ks, uint8_t mac[kBlockSize], uint8_t ctr_block[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t n) {
    ccm_crypt<true>(ks, mac, ctr_block, in, out, n);
}

void ccm_decrypt(const KeySchedule& ks, uint8_t mac[kBlockSize], uint8_t ctr_block[kBlockSize],
                 const uint8_t* in, uint8_t* out, size_t n) {
    ccm_crypt<false>(ks, mac, ctr_block, in, out, n);
}

// ---- OCB: the offsets in software, the blocks in one KM call per pass --------

// Blocks per KM call (16 KiB).
constexpr size_t kOcbPass = 1024;

// A block as two big-endian 64-bit halves (native order): the offsets, the
// checksum and the masking are XORs, done two words at a time.
struct Half2 {
    uint64_t hi, lo;
};

Half2 load2(const uint8_t* p) {
    Half2 v;
    std::memcpy(&v.hi, p, 8);
    std::memcpy(&v.lo, p + 8, 8);
    return v;
}

void store2(uint8_t* p, Half2 v) {
    std::memcpy(p, &v.hi, 8);
    std::memcpy(p + 8, &v.lo, 8);
}

Half2 operator^(Half2 a, Half2 b) { return {a.hi ^ b.hi, a.lo ^ b.lo}; }

// Offset_i = Offset_{i-1} ^ L[ntz(i)]; C_i = Offset_i ^ E(P_i ^ Offset_i),
// Checksum ^= P_i (decryption: P_i = Offset_i ^ D(C_i ^ Offset_i)). Per pass:
// the masked blocks are written straight to `out`, one KM call enciphers them
// there, and a second loop recomputes the same offsets (from the pass's first
// offset and block number) to unmask them. Offsets and checksum live in
// registers only; `in == out` works, as each block is read before its output
// is written. Without KM for this key size the schedule is the portable one:
// the generic kernel then runs over it.
template <bool Encrypt>
void ocb_crypt(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out, size_t n) {
    const CpacfKey& k = cpacf_key(ks);
    if ((k.have & kHaveKm) == 0) {
        if constexpr (Encrypt) return generic::ocb_encrypt(aes_cpacf, ks, st, in, out, n);
        else return generic::ocb_decrypt(aes_cpacf, ks, st, in, out, n);
    }
    const uint8_t(*const l)[kBlockSize] = st.l;
    Half2 offset = load2(st.offset), sum = load2(st.checksum);
    uint64_t blocks = st.blocks;
    while (n != 0) {
        const size_t m = n < kOcbPass ? n : kOcbPass;
        Half2 o = offset;
        for (size_t j = 0; j < m; ++j) {
            o = o ^ load2(l[std::countr_zero(blocks + 1 + j)]);
            const Half2 x = load2(in + j * kBlockSize);
            if constexpr (Encrypt) sum = sum ^ x;
            store2(out + j * kBlockSize, x ^ o);
        }
        cpacf::km(k.fc | direction(!Encrypt), k.key, out, out, m * kBlockSize);
        o = offset;
        for (size_t j = 0; j < m; ++j) {
            o = o ^ load2(l[std::countr_zero(blocks + 1 + j)]);
            const Half2 y = load2(out + j * kBlockSize) ^ o;
            if constexpr (!Encrypt) sum = sum ^ y;
            store2(out + j * kBlockSize, y);
        }
        offset = o;
        blocks += m;
        in += m * kBlockSize;
        out += m * kBlockSize;
        n -= m;
    }
    store2(st.offset, offset);
    store2(st.checksum, sum);
    st.blocks = blocks;
}

void ocb_encrypt(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out,
                 size_t n) {
    ocb_crypt<true>(ks, st, in, out, n);
}

void ocb_decrypt(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out,
                 size_t n) {
    ocb_crypt<false>(ks, st, in, out, n);
}

// ---- XTS: KM-XTS with the running tweak as the XTS parameter --------------

// The XTS parameter blocks put the key (16 or 32 bytes; there is no
// XTS-AES-192) first and the rest right after it, so their layout depends on
// the key size. Each builder is a template on that size: every copy is then
// of a constant length (inline stores instead of memcpy calls, which cost
// tens of instructions each per data unit), and the runtime key size picks
// one of two instantiations.

// Parameter block: key, then the XTS parameter: the encrypted tweak for the
// next block, written back by the CPU.
template <size_t KeyLen>
void xts_crypt_with(const CpacfKey& k, bool decrypt, uint8_t tweak[kBlockSize],
                    const uint8_t* in, uint8_t* out, size_t n) {
    uint8_t p[KeyLen + kBlockSize];
    std::memcpy(p, k.key, KeyLen);
    std::memcpy(p + KeyLen, tweak, kBlockSize);
    cpacf::km((k.fc + cpacf::kXtsOffset) | direction(decrypt), p, out, in, n * kBlockSize);
    std::memcpy(tweak, p + KeyLen, kBlockSize);
    secure_wipe(p, sizeof p);
}

void xts_crypt(const CpacfKey& k, bool decrypt, uint8_t tweak[kBlockSize], const uint8_t* in,
               uint8_t* out, size_t n) {
    if (k.keylen == 32) xts_crypt_with<32>(k, decrypt, tweak, in, out, n);
    else xts_crypt_with<16>(k, decrypt, tweak, in, out, n);
}

void xts_encrypt(const KeySchedule& ks, uint8_t tweak[kBlockSize], const uint8_t* in,
                 uint8_t* out, size_t n) {
    const CpacfKey& k = cpacf_key(ks);
    if ((k.have & kHaveXts) == 0) return generic::xts_encrypt(aes_cpacf, ks, tweak, in, out, n);
    if (n != 0) xts_crypt(k, false, tweak, in, out, n);
}

void xts_decrypt(const KeySchedule& ks, uint8_t tweak[kBlockSize], const uint8_t* in,
                 uint8_t* out, size_t n) {
    const CpacfKey& k = cpacf_key(ks);
    if ((k.have & kHaveXts) == 0) return generic::xts_decrypt(aes_cpacf, ks, tweak, in, out, n);
    if (n != 0) xts_crypt(k, true, tweak, in, out, n);
}

// PCC compute-XTS-parameter with block sequence number 0: E(key 2, iv), one
// instruction without touching the KM path. `ks` holds key 2. Parameter
// block: key, tweak, j (16), intermediate bit index (16), XTS parameter out.
template <size_t KeyLen>
void xts_tweak_with(const CpacfKey& k, const uint8_t iv[kBlockSize], uint8_t tweak[kBlockSize]) {
    uint8_t p[KeyLen + 4 * kBlockSize] = {};
    std::memcpy(p, k.key, KeyLen);
    std::memcpy(p + KeyLen, iv, kBlockSize);
    cpacf::pcc(k.fc + cpacf::kXtsOffset, p);
    std::memcpy(tweak, p + KeyLen + 3 * kBlockSize, kBlockSize);
    secure_wipe(p, sizeof p);
}

void xts_tweak(const KeySchedule& ks, const uint8_t iv[kBlockSize], uint8_t tweak[kBlockSize]) {
    const CpacfKey& k = cpacf_key(ks);
    if ((k.have & kHavePccXts) == 0) return encrypt_blocks(ks, iv, tweak, 1);
    if (k.keylen == 32) xts_tweak_with<32>(k, iv, tweak);
    else xts_tweak_with<16>(k, iv, tweak);
}

// Whether two keys of KeyLen bytes differ, in whole 8-byte words and without
// branching on key bytes.
template <size_t KeyLen>
bool keys_differ(const uint8_t* a, const uint8_t* b) {
    uint64_t diff = 0;
    for (size_t i = 0; i < KeyLen; i += 8) {
        uint64_t x;
        uint64_t y;
        std::memcpy(&x, a + i, 8);
        std::memcpy(&y, b + i, 8);
        diff |= x ^ y;
    }
    return diff != 0;
}

// KM full XTS: the CPU derives the tweak from key 2 and the IV itself, so a
// whole-block data unit is one instruction call. Parameter block: key 1,
// key 2, the IV, then the multiplier for the next block ("next alpha power",
// the field element 1 to start: byte 0 = 1, little-endian like the tweak).
// Equal halves (accepted for decryption only) stay on the PCC + KM-XTS path:
// whether the CPU refuses such a pair is not documented.
template <size_t KeyLen>
bool xts_unit_with(const CpacfKey& k1, const CpacfKey& k2, bool decrypt,
                   const uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out, size_t n) {
    if (!keys_differ<KeyLen>(k1.key, k2.key)) return false;
    uint8_t p[2 * KeyLen + 2 * kBlockSize];
    std::memcpy(p, k1.key, KeyLen);
    std::memcpy(p + KeyLen, k2.key, KeyLen);
    std::memcpy(p + 2 * KeyLen, iv, kBlockSize);
    std::memset(p + 2 * KeyLen + kBlockSize, 0, kBlockSize);
    p[2 * KeyLen + kBlockSize] = 1;
    cpacf::km((k1.fc + cpacf::kFullXtsOffset) | direction(decrypt), p, out, in, n * kBlockSize);
    secure_wipe(p, sizeof p);
    return true;
}

bool xts_unit_crypt(const KeySchedule& data_ks, const KeySchedule& tweak_ks, bool decrypt,
                    const uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out, size_t n) {
    const CpacfKey& k1 = cpacf_key(data_ks);
    const CpacfKey& k2 = cpacf_key(tweak_ks);
    if ((k1.have & kHaveFullXts) == 0 || k2.keylen != k1.keylen || n == 0) return false;
    if (k1.keylen == 32) return xts_unit_with<32>(k1, k2, decrypt, iv, in, out, n);
    return xts_unit_with<16>(k1, k2, decrypt, iv, in, out, n);
}

bool xts_unit_encrypt(const KeySchedule& data_ks, const KeySchedule& tweak_ks,
                      const uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out, size_t n) {
    return xts_unit_crypt(data_ks, tweak_ks, false, iv, in, out, n);
}

bool xts_unit_decrypt(const KeySchedule& data_ks, const KeySchedule& tweak_ks,
                      const uint8_t iv[kBlockSize], const uint8_t* in, uint8_t* out, size_t n) {
    return xts_unit_crypt(data_ks, tweak_ks, true, iv, in, out, n);
}

// ---- CMAC's last block: PCC compute-last-block-CMAC -------------------------

// The CPU derives the subkey, pads a short block (ML < 128 bits) and XORs
// the ICV, so the provider's subkeys and padding are not needed. Parameter
// block: ML (bits), 7 reserved, the message block (bits past ML zero), the
// ICV in and the CMAC out, the key.
bool cmac_last(const KeySchedule& ks, uint8_t x[kBlockSize], const uint8_t* last, size_t n) {
    const CpacfKey& k = cpacf_key(ks);
    if ((k.have & kHavePccCmac) == 0 || n > kBlockSize) return false;
    uint8_t p[8 + 2 * kBlockSize + 32] = {};
    p[0] = static_cast<uint8_t>(n * 8);
    if (n != 0) std::memcpy(p + 8, last, n);
    std::memcpy(p + 8 + kBlockSize, x, kBlockSize);
    std::memcpy(p + 8 + 2 * kBlockSize, k.key, k.keylen);
    cpacf::pcc(k.fc, p);
    std::memcpy(x, p + 8 + kBlockSize, kBlockSize);
    secure_wipe(p, sizeof p);
    return true;
}

#endif // HWCIPHER_S390X_MSA4

#if defined(HWCIPHER_S390X_MSA8)

// ---- GCM: KMA, stitched with ghash-kimd's key -------------------------------

// Whole blocks only, never the final call: the GCM engine adds the lengths
// block and E(K, J0) itself, so T stays the raw GHASH state (no LPC). H comes
// from the GHASH key (HS), so the CPU never recomputes it. LAAD with no AAD:
// every text-carrying KMA call in the surveyed software sets it, and with an
// empty AAD operand it does not change T.
// Inlined into gcm_encrypt and gcm_decrypt: GCC stopped inlining it into
// gcm_decrypt once this file grew (GCM decryption +1 instruction per update);
// inlined into both, a GCM update costs 16 (encryption) / 20 (decryption)
// fewer instructions than before either.
[[gnu::always_inline]] inline void kma_crypt(const CpacfKey& k, const GhashKey& hk, bool decrypt,
                                             uint8_t ctr[kBlockSize], uint8_t y[kBlockSize],
                                             const uint8_t* in, uint8_t* out, size_t n) {
    KmaParam p;
    std::memset(&p, 0, sizeof p);
    store_be32(p.cv, load_be32(ctr + 12) - 1);
    std::memcpy(p.t, y, kBlockSize);
    std::memcpy(p.h, ghash_kimd_subkey(hk), kBlockSize);
    std::memcpy(p.j0, ctr, 12);
    std::memcpy(p.j0 + 12, p.cv, 4);
    // All 32 bytes (zero past keylen; the CPU reads keylen): a fixed-size
    // copy is a few instructions, a variable one a library call.
    std::memcpy(p.key, k.key, sizeof p.key);
    const unsigned long flags = cpacf::kKmaHs | cpacf::kKmaLaad;
    cpacf::kma(k.fc | direction(decrypt) | flags, &p, out, in, n * kBlockSize, nullptr, 0);
    std::memcpy(y, p.t, kBlockSize);
    store_be32(ctr + 12, load_be32(p.cv) + 1);
    secure_wipe(&p, sizeof p);
}

// Without KMA for this key size: CTR and GHASH one after the other. The
// caller keeps the 32-bit counter field from wrapping inside one call, so the
// 128-bit CTR kernel steps it exactly as inc32 would.
void gcm_encrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr_block[kBlockSize],
                 uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const CpacfKey& k = cpacf_key(ks);
    if (k.have & kHaveKma) return kma_crypt(k, hk, false, ctr_block, y, in, out, n);
    ctr(ks, ctr_block, in, out, n);
    ghash_kimd.update(hk, y, out, n);
}

void gcm_decrypt(const KeySchedule& ks, const GhashKey& hk, uint8_t ctr_block[kBlockSize],
                 uint8_t y[kBlockSize], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const CpacfKey& k = cpacf_key(ks);
    if (k.have & kHaveKma) return kma_crypt(k, hk, true, ctr_block, y, in, out, n);
    ghash_kimd.update(hk, y, in, n);  // before CTR: in == out would lose the ciphertext
    ctr(ks, ctr_block, in, out, n);
}

#endif // HWCIPHER_S390X_MSA8

} // namespace

extern const BlockCore aes_cpacf = {
    .name = "aes-cpacf",
    .family = Family::aes,
    .hardware = true,
    .needs = kS390Msa | kS390KmAes,
    .set_key = set_key,
    .encrypt_blocks = encrypt_blocks,
    .decrypt_blocks = decrypt_blocks,
    .cbc_encrypt = cbc_encrypt,
    .cbc_decrypt = cbc_decrypt,
#if defined(HWCIPHER_S390X_MSA4)
    .cfb_encrypt = cfb_encrypt,
    .cfb_decrypt = cfb_decrypt,
    .ofb = ofb,
    .ctr = ctr,
    .cfb8_encrypt = cfb8_encrypt,
    .cfb8_decrypt = cfb8_decrypt,
    .cbc_mac = cbc_mac,
    .cmac_last = cmac_last,
    .xts_encrypt = xts_encrypt,
    .xts_decrypt = xts_decrypt,
    .xts_tweak = xts_tweak,
    .xts_unit_encrypt = xts_unit_encrypt,
    .xts_unit_decrypt = xts_unit_decrypt,
    .ocb_encrypt = ocb_encrypt,
    .ocb_decrypt = ocb_decrypt,
#endif
#if defined(HWCIPHER_S390X_MSA8)
    .gcm_ghash = &ghash_kimd,
    .gcm_encrypt = gcm_encrypt,
    .gcm_decrypt = gcm_decrypt,
#endif
#if defined(HWCIPHER_S390X_MSA4)
    .ccm_encrypt = ccm_encrypt,
    .ccm_decrypt = ccm_decrypt,
#endif
};

} // namespace hwc::s390x
