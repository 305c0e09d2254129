// SPDX-License-Identifier: Apache-2.0
// The CPACF shim's instruction model (see cpacf_model.h).
//
// Layout of this file: decoding and the checks the hardware makes before it
// touches anything (register fields, facility, function code, GR0 bits,
// lengths), then one function per instruction. Every check runs before the
// first byte is written, so a declined execution leaves no trace.
//
// Partial completion: each instruction works in units (a 16-byte block, an
// LCFB segment, the padded last AAD or text block of KMA). After each unit
// it looks at the budget; when the budget is used up and input remains it
// stops with CC 3, having advanced the registers and written back the
// chaining state exactly as for a normal completion, so the program only has
// to branch back to the instruction.
#include "test/s390x/cpacf_model.h"

#include <cstring>

#include "test/s390x/shim_crypto.h"

namespace hwc::test::cpacf {
namespace {

using shim::AesKey;
using shim::aes_decrypt;
using shim::aes_encrypt;
using shim::xor_block;

constexpr size_t B = 16;

struct OpInfo {
    uint8_t second_byte;  // byte 1 of the instruction
    unsigned opcode;
    const char* name;
};

// Indexed by Op.
constexpr OpInfo kOps[kOpCount] = {
    {0x2e, 0xb92e, "KM"},    {0x2f, 0xb92f, "KMC"},  {0x2a, 0xb92a, "KMF"},
    {0x2b, 0xb92b, "KMO"},   {0x2d, 0xb92d, "KMCTR"}, {0x29, 0xb929, "KMA"},
    {0x3e, 0xb93e, "KIMD"},  {0x1e, 0xb91e, "KMAC"}, {0x2c, 0xb92c, "PCC"},
};

constexpr unsigned kGhash = 65;
constexpr uint64_t kModifier = 0x80;
constexpr uint64_t kKmaHs = 0x400, kKmaLaad = 0x200, kKmaLpc = 0x100;

bool is_aes(unsigned fc) { return fc >= 18 && fc <= 20; }
bool is_xts(unsigned fc) { return fc == 50 || fc == 52; }
bool is_full_xts(unsigned fc) { return fc == 82 || fc == 84; }

// Full XTS (82/84): the length of each of key 1 and key 2.
size_t full_xts_half(unsigned fc) { return fc == 82 ? 16 : 32; }

// 18/19/20 -> 16/24/32 bytes; 50/52 -> 16/32.
size_t key_length(unsigned fc) {
    if (is_xts(fc)) return fc == 50 ? 16 : 32;
    return 16 + (fc - 18) * 8;
}

bool instruction_installed(Op op, const Facilities& f) {
    switch (op) {
    case Op::km: case Op::kmc: case Op::kimd: case Op::kmac: return f.msa;
    case Op::kmf: case Op::kmo: case Op::kmctr: case Op::pcc: return f.msa4;
    case Op::kma: return f.msa8;
    }
    return false;
}

// GR0 bits an instruction defines: function code and modifier, plus LCFB
// (bits 32-39) for KMF and HS/LAAD/LPC for KMA. Anything else set is declined.
uint64_t defined_gr0_bits(Op op) {
    switch (op) {
    case Op::kmf: return 0xff | (uint64_t{0xff} << 24);
    case Op::kma: return 0xff | kKmaHs | kKmaLaad | kKmaLpc;
    default: return 0xff;
    }
}

bool even_nonzero(unsigned r) { return r != 0 && r % 2 == 0; }

uint8_t* at(uint64_t address) {
    return reinterpret_cast<uint8_t*>(static_cast<uintptr_t>(address));
}

bool all_zero(const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (p[i]) return false;
    return true;
}

// May another unit start after `done` bytes?
bool within_budget(size_t done, size_t budget) { return budget == 0 || done < budget; }

// The expanded key for `key`, from a one-entry cache per thread: tests issue
// many one-block calls with one key, and under QEMU re-expanding it costs
// more than the block. The executable's thread-local storage is static TLS,
// so this is safe in the signal handler. The reference is valid until the
// next call.
const AesKey& expanded(const uint8_t* key, size_t keylen) {
    struct Cache {
        uint8_t key[32];
        size_t keylen;
        AesKey schedule;
    };
    thread_local Cache cache{};
    if (cache.keylen != keylen || std::memcmp(cache.key, key, keylen) != 0) {
        shim::aes_expand(cache.schedule, key, keylen);
        std::memcpy(cache.key, key, keylen);
        cache.keylen = keylen;
    }
    return cache.schedule;
}

struct Exec {
    Op op;
    unsigned r1, r2, r3;
    uint64_t* gr;
    unsigned fc;
    bool decipher;
    size_t budget;
    uint8_t* param() const { return at(gr[1]); }
    uint8_t* out() const { return at(gr[r1]); }
    const uint8_t* in() const { return at(gr[r2]); }
    size_t in_len() const { return gr[r2 + 1]; }
    // R1 and R2 advance by the bytes done, R2+1 counts them down. With R1
    // equal to R2 (in place) the one register advances once.
    void advance(size_t n, bool has_output) const {
        if (has_output && r1 != r2) gr[r1] += n;
        gr[r2] += n;
        gr[r2 + 1] -= n;
    }
};

Outcome done_cc(int cc) { return Outcome{true, cc, nullptr, Op::km, true}; }

Outcome finish(bool input_left) { return done_cc(input_left ? 3 : 0); }

// ---- KM: AES (fc 18-20) and XTS-AES (fc 50/52) ------------------------------

Outcome run_km(const Exec& x) {
    uint8_t* p = x.param();
    const size_t klen = key_length(x.fc);
    const AesKey& k = expanded(p, klen);
    const bool xts = is_xts(x.fc);
    uint8_t tweak[B];
    if (xts) std::memcpy(tweak, p + klen, B);
    const size_t len = x.in_len();
    size_t done = 0;
    while (done < len && within_budget(done, x.budget)) {
        uint8_t b[B];
        std::memcpy(b, x.in() + done, B);
        if (xts) xor_block(b, b, tweak);
        if (x.decipher) aes_decrypt(k, b, b);
        else aes_encrypt(k, b, b);
        if (xts) {
            xor_block(b, b, tweak);
            shim::xts_double(tweak);
        }
        std::memcpy(x.out() + done, b, B);
        done += B;
    }
    if (xts) std::memcpy(p + klen, tweak, B);  // the XTS parameter for the next block
    x.advance(done, true);
    return finish(done < len);
}

// ---- KM full XTS (fc 82/84): key 1, key 2, tweak, next alpha power -------------
// The CPU derives the XTS parameter itself: E(K2, tweak) times the "next
// alpha power" field (the GF(2^128) element alpha^j for the next block j, in
// XTS's little-endian order; programs start it at 1). Both the field and the
// tweak stay in the block, the field advancing by alpha per block, so a
// re-execution after CC 3 continues. Modelled as the general product, which
// for the value programs use (a power of alpha) is the standard's tweak.

// r = a * b in XTS's GF(2^128): bit i (byte i/8, value 1 << i%8) is x^i.
void xts_multiply(const uint8_t a[B], const uint8_t b[B], uint8_t r[B]) {
    uint8_t v[B], acc[B] = {};
    std::memcpy(v, a, B);
    for (unsigned i = 0; i < 128; ++i) {
        if ((b[i / 8] >> (i % 8)) & 1) xor_block(acc, acc, v);
        shim::xts_double(v);
    }
    std::memcpy(r, acc, B);
}

Outcome run_km_full_xts(const Exec& x) {
    uint8_t* p = x.param();
    const size_t half = full_xts_half(x.fc);
    uint8_t* nap = p + 2 * half + B;
    uint8_t tweak[B];
    {
        // Key 2 beside the cached key 1: expanded here, used once.
        AesKey k2;
        shim::aes_expand(k2, p + half, half);
        aes_encrypt(k2, p + 2 * half, tweak);
        xts_multiply(tweak, nap, tweak);
    }
    const AesKey& k1 = expanded(p, half);
    const size_t len = x.in_len();
    size_t done = 0;
    while (done < len && within_budget(done, x.budget)) {
        uint8_t b[B];
        std::memcpy(b, x.in() + done, B);
        xor_block(b, b, tweak);
        if (x.decipher) aes_decrypt(k1, b, b);
        else aes_encrypt(k1, b, b);
        xor_block(b, b, tweak);
        shim::xts_double(tweak);
        shim::xts_double(nap);
        std::memcpy(x.out() + done, b, B);
        done += B;
    }
    x.advance(done, true);
    return finish(done < len);
}

// ---- KMC: CBC; parameter block = chaining value, key --------------------------

Outcome run_kmc(const Exec& x) {
    uint8_t* p = x.param();
    const AesKey& k = expanded(p + B, key_length(x.fc));
    uint8_t cv[B];
    std::memcpy(cv, p, B);
    const size_t len = x.in_len();
    size_t done = 0;
    while (done < len && within_budget(done, x.budget)) {
        uint8_t b[B];
        std::memcpy(b, x.in() + done, B);
        if (x.decipher) {
            uint8_t d[B];
            aes_decrypt(k, b, d);
            xor_block(d, d, cv);
            std::memcpy(cv, b, B);
            std::memcpy(x.out() + done, d, B);
        } else {
            xor_block(b, b, cv);
            aes_encrypt(k, b, cv);
            std::memcpy(x.out() + done, cv, B);
        }
        done += B;
    }
    std::memcpy(p, cv, B);
    x.advance(done, true);
    return finish(done < len);
}

// ---- KMF: CFB with LCFB bytes per step -----------------------------------------

Outcome run_kmf(const Exec& x, size_t lcfb) {
    uint8_t* p = x.param();
    const AesKey& k = expanded(p + B, key_length(x.fc));
    uint8_t cv[B];
    std::memcpy(cv, p, B);
    const size_t len = x.in_len();
    size_t done = 0;
    while (done < len && within_budget(done, x.budget)) {
        uint8_t o[B], seg[B], res[B];
        aes_encrypt(k, cv, o);
        std::memcpy(seg, x.in() + done, lcfb);
        xor_block(res, seg, o, lcfb);
        // The register shifts left by LCFB bytes and takes in the ciphertext.
        const uint8_t* ct = x.decipher ? seg : res;
        std::memmove(cv, cv + lcfb, B - lcfb);
        std::memcpy(cv + B - lcfb, ct, lcfb);
        std::memcpy(x.out() + done, res, lcfb);
        done += lcfb;
    }
    std::memcpy(p, cv, B);
    x.advance(done, true);
    return finish(done < len);
}

// ---- KMO: OFB; the chaining value is the last keystream block ------------------

Outcome run_kmo(const Exec& x) {
    uint8_t* p = x.param();
    const AesKey& k = expanded(p + B, key_length(x.fc));
    uint8_t cv[B];
    std::memcpy(cv, p, B);
    const size_t len = x.in_len();
    size_t done = 0;
    while (done < len && within_budget(done, x.budget)) {
        uint8_t b[B];
        aes_encrypt(k, cv, cv);
        std::memcpy(b, x.in() + done, B);
        xor_block(b, b, cv);
        std::memcpy(x.out() + done, b, B);
        done += B;
    }
    std::memcpy(p, cv, B);
    x.advance(done, true);
    return finish(done < len);
}

// ---- KMCTR: counter blocks come from the third operand, one per block ----------

Outcome run_kmctr(const Exec& x) {
    const AesKey& k = expanded(x.param(), key_length(x.fc));
    const uint8_t* counters = at(x.gr[x.r3]);
    const size_t len = x.in_len();
    size_t done = 0;
    while (done < len && within_budget(done, x.budget)) {
        uint8_t ks[B], b[B];
        aes_encrypt(k, counters + done, ks);
        std::memcpy(b, x.in() + done, B);
        xor_block(b, b, ks);
        std::memcpy(x.out() + done, b, B);
        done += B;
    }
    x.gr[x.r3] += done;
    x.advance(done, true);
    return finish(done < len);
}

// ---- KMAC: CBC-MAC; parameter block = chaining value, key; R1 ignored ----------

Outcome run_kmac(const Exec& x) {
    uint8_t* p = x.param();
    const AesKey& k = expanded(p + B, key_length(x.fc));
    uint8_t cv[B];
    std::memcpy(cv, p, B);
    const size_t len = x.in_len();
    size_t done = 0;
    while (done < len && within_budget(done, x.budget)) {
        xor_block(cv, cv, x.in() + done);
        aes_encrypt(k, cv, cv);
        done += B;
    }
    std::memcpy(p, cv, B);
    x.advance(done, false);
    return finish(done < len);
}

// ---- KIMD-GHASH: parameter block = X, H; R1 ignored ------------------------------

Outcome run_kimd_ghash(const Exec& x) {
    uint8_t* p = x.param();
    uint8_t y[B], h[B];
    std::memcpy(y, p, B);
    std::memcpy(h, p + B, B);
    const size_t len = x.in_len();
    size_t done = 0;
    while (done < len && within_budget(done, x.budget)) {
        xor_block(y, y, x.in() + done);
        shim::gcm_multiply(y, h);
        done += B;
    }
    std::memcpy(p, y, B);
    x.advance(done, false);
    return finish(done < len);
}

// ---- KMA-GCM ---------------------------------------------------------------------
// Parameter block: reserved (12), CV (4), T (16), H (16), TAADL (8), TPCL (8),
// J0 (16), key. AAD from R3/R3+1 first, then text from R2/R2+1 to R1. T is the
// raw GHASH state until the LPC call turns it into the tag.

constexpr size_t kKmaCv = 12, kKmaT = 16, kKmaH = 32, kKmaLengths = 48, kKmaJ0 = 64,
                 kKmaKey = 80;

uint32_t load_be32(const uint8_t* p) {
    return uint32_t{p[0]} << 24 | uint32_t{p[1]} << 16 | uint32_t{p[2]} << 8 | p[3];
}

void store_be32(uint8_t* p, uint32_t v) {
    p[0] = static_cast<uint8_t>(v >> 24);
    p[1] = static_cast<uint8_t>(v >> 16);
    p[2] = static_cast<uint8_t>(v >> 8);
    p[3] = static_cast<uint8_t>(v);
}

Outcome run_kma(const Exec& x) {
    uint8_t* p = x.param();
    const uint64_t gr0 = x.gr[0];
    const AesKey& k = expanded(p + kKmaKey, key_length(x.fc));
    uint8_t h[B], t[B], j0[B];
    if (gr0 & kKmaHs) {
        std::memcpy(h, p + kKmaH, B);
    } else {
        const uint8_t zero[B] = {};
        aes_encrypt(k, zero, h);
        std::memcpy(p + kKmaH, h, B);  // the CPU stores the H it computed
    }
    std::memcpy(t, p + kKmaT, B);
    std::memcpy(j0, p + kKmaJ0, B);
    uint32_t cv = load_be32(p + kKmaCv);

    const uint8_t* aad = at(x.gr[x.r3]);
    const size_t aad_len = x.gr[x.r3 + 1];
    const size_t text_len = x.in_len();
    size_t done = 0, aad_done = 0, text_done = 0;
    while (aad_done < aad_len && within_budget(done, x.budget)) {
        const size_t n = aad_len - aad_done < B ? aad_len - aad_done : B;  // < B only with LAAD
        uint8_t a[B] = {};
        std::memcpy(a, aad + aad_done, n);
        xor_block(t, t, a);
        shim::gcm_multiply(t, h);
        aad_done += n;
        done += n;
    }
    while (aad_done == aad_len && text_done < text_len && within_budget(done, x.budget)) {
        const size_t n = text_len - text_done < B ? text_len - text_done : B;  // < B only with LPC
        uint8_t counter[B], ks[B], src[B] = {}, dst[B] = {};
        ++cv;  // mod 2^32, never carries into J0
        std::memcpy(counter, j0, 12);
        store_be32(counter + 12, cv);
        aes_encrypt(k, counter, ks);
        std::memcpy(src, x.in() + text_done, n);
        xor_block(dst, src, ks, n);
        std::memcpy(x.out() + text_done, dst, n);
        xor_block(t, t, x.decipher ? src : dst);  // GHASH runs over the ciphertext
        shim::gcm_multiply(t, h);
        text_done += n;
        done += n;
    }
    const bool complete = aad_done == aad_len && text_done == text_len;
    if (complete && (gr0 & kKmaLpc)) {
        // TAADL || TPCL (bit counts, supplied by the program) is the last
        // GHASH block; the tag is GHASH xor E(K, J0).
        xor_block(t, t, p + kKmaLengths);
        shim::gcm_multiply(t, h);
        uint8_t ej0[B];
        aes_encrypt(k, j0, ej0);
        xor_block(t, t, ej0);
    }
    store_be32(p + kKmaCv, cv);
    std::memcpy(p + kKmaT, t, B);
    x.gr[x.r3] += aad_done;
    x.gr[x.r3 + 1] -= aad_done;
    x.advance(text_done, true);
    return finish(!complete);
}

// ---- PCC: compute last block CMAC (fc 18-20), compute XTS parameter (50/52) -----

Outcome run_pcc_cmac(const Exec& x) {
    uint8_t* p = x.param();
    const unsigned ml = p[0];  // valid bits of the message block
    if (ml > 128) return done_cc(2);
    const AesKey& k = expanded(p + 40, key_length(x.fc));
    uint8_t m[B], l[B];
    std::memcpy(m, p + 8, B);
    const uint8_t zero[B] = {};
    aes_encrypt(k, zero, l);
    shim::cmac_double(l);  // K1
    if (ml < 128) {
        m[ml / 8] |= static_cast<uint8_t>(0x80 >> (ml % 8));  // the padding 1 bit, zeros after
        shim::cmac_double(l);                                 // K2
    }
    xor_block(m, m, l);
    xor_block(m, m, p + 24);  // the ICV: the CBC-MAC of all earlier blocks
    aes_encrypt(k, m, p + 24);
    return done_cc(0);
}

Outcome run_pcc_xts(const Exec& x) {
    uint8_t* p = x.param();
    const size_t klen = key_length(x.fc);
    const AesKey& k = expanded(p, klen);
    // With block sequence number 0 the XTS parameter is E(K2, tweak).
    aes_encrypt(k, p + klen, p + klen + 48);
    return done_cc(0);
}

// ---- decoding and the up-front checks ------------------------------------------

Outcome declined(const char* why, Op op, bool known) { return Outcome{false, 0, why, op, known}; }

// Register rules of section 2: operand registers even and non-zero; R1/R2/R3
// distinct where the model would otherwise have to guess which update wins.
// R1 equal to R2 is in-place operation through one register (output address =
// input address, section 7), which the cipher instructions allow (OpenSSL
// issues KM that way): the register advances once. KMA keeps its operands in
// distinct registers in every surveyed caller, so there it stays unmodelled.
const char* register_problem(Op op, unsigned r1, unsigned r2, unsigned r3, uint8_t byte2) {
    const bool has_r1 = op != Op::kimd && op != Op::kmac && op != Op::pcc;  // KIMD/KMAC ignore R1
    const bool has_r3 = op == Op::kmctr || op == Op::kma;
    if (op == Op::pcc)
        return (byte2 || r1 || r2) ? "PCC with non-zero register fields (not modelled)" : nullptr;
    if (!has_r3 && byte2 != 0) return "bits 16-23 of an RRE instruction not zero (not modelled)";
    if (has_r3 && (byte2 & 0x0f) != 0) return "M4 field not zero (not modelled)";
    if (!even_nonzero(r2)) return "R2 odd or zero (specification exception)";
    if (has_r1 && !even_nonzero(r1)) return "R1 odd or zero (specification exception)";
    if (has_r1 && r1 == r2 && op == Op::kma) return "KMA R1 equal to R2 (not modelled)";
    if (has_r3 && !even_nonzero(r3)) return "R3 odd or zero (specification exception)";
    if (has_r3 && (r3 == r1 || r3 == r2))
        return op == Op::kma ? "KMA R3 equal to R1 or R2 (specification exception)"
                             : "KMCTR R3 equal to R1 or R2 (not modelled)";
    return nullptr;
}

// Length rules of section 7, checked before anything is processed.
const char* length_problem(const Exec& x, size_t lcfb) {
    const uint64_t gr0 = x.gr[0];
    switch (x.op) {
    case Op::pcc: return nullptr;
    case Op::kmf:
        return x.in_len() % lcfb ? "KMF length not a multiple of LCFB (specification exception)"
                                 : nullptr;
    case Op::kma: {
        const bool laad = gr0 & kKmaLaad, lpc = gr0 & kKmaLpc;
        if (!laad && x.gr[x.r3 + 1] % B)
            return "KMA AAD length not a multiple of 16 without LAAD (specification exception)";
        if (!lpc && x.in_len() % B)
            return "KMA text length not a multiple of 16 without LPC (specification exception)";
        // Every surveyed caller supplies all AAD before or with the first
        // text; what the CPU does with text before LAAD is not modelled.
        if ((x.in_len() || lpc) && !laad) return "KMA text or LPC without LAAD (not modelled)";
        return nullptr;
    }
    default:
        return x.in_len() % B
                   ? "second-operand length not a multiple of 16 (specification exception)"
                   : nullptr;
    }
}

// Parameter-block fields the model insists on (reserved fields zero, inputs
// it does not model).
const char* param_problem(const Exec& x) {
    const uint8_t* p = x.param();
    if (x.op == Op::kma && !all_zero(p, 12))
        return "KMA reserved parameter bytes 0-11 not zero (not modelled)";
    if (x.op == Op::km && is_full_xts(x.fc)) {
        const size_t half = full_xts_half(x.fc);
        if (std::memcmp(p, p + half, half) == 0)
            return "KM full XTS with key 1 equal to key 2 (not modelled)";
        if (all_zero(p + 2 * half + B, B))
            return "KM full XTS next alpha power zero (not modelled)";
        return nullptr;
    }
    if (x.op != Op::pcc) return nullptr;
    if (is_xts(x.fc)) {
        const size_t klen = key_length(x.fc);
        if (!all_zero(p + klen + 16, 16))
            return "PCC-XTS block sequence number not zero (not modelled)";
        if (!all_zero(p + klen + 32, 16))
            return "PCC-XTS intermediate bit index not zero (not modelled)";
        return nullptr;
    }
    if (!all_zero(p + 1, 7)) return "PCC-CMAC reserved bytes 1-7 not zero (not modelled)";
    const unsigned ml = p[0];
    if (ml < 128) {
        // Whether the CPU ignores message bits beyond ML is not modelled:
        // insist that they are zero.
        uint8_t tail[B];
        std::memcpy(tail, p + 8, B);
        tail[ml / 8] &= static_cast<uint8_t>(0xff >> (ml % 8));
        for (unsigned i = 0; i < ml / 8; ++i) tail[i] = 0;
        if (!all_zero(tail, B)) return "PCC-CMAC message bits beyond ML not zero (not modelled)";
    }
    return nullptr;
}

} // namespace

const char* op_name(Op op) { return kOps[static_cast<int>(op)].name; }
unsigned op_opcode(Op op) { return kOps[static_cast<int>(op)].opcode; }

bool implemented(Op op, unsigned fc, const Facilities& f) {
    if (!instruction_installed(op, f)) return false;
    switch (op) {
    // Full XTS (MSA10) has no facility bit the shim reads; like KM-XTS it is
    // offered on an MSA4 machine, the query bit being what announces it.
    case Op::km: return is_aes(fc) || ((is_xts(fc) || is_full_xts(fc)) && f.msa4);
    case Op::kmc: case Op::kmf: case Op::kmo: case Op::kmctr: case Op::kma: return is_aes(fc);
    case Op::kimd: return fc == kGhash && f.msa4;
    case Op::kmac: return is_aes(fc) && f.msa4;
    case Op::pcc: return is_aes(fc) || is_xts(fc);
    }
    return false;
}

void add_query_bits(unsigned opcode, unsigned char mask[16], const Facilities& f) {
    for (int i = 0; i < kOpCount; ++i) {
        if (kOps[i].opcode != opcode) continue;
        for (unsigned fc = 1; fc < 128; ++fc)
            if (implemented(static_cast<Op>(i), fc, f))
                mask[fc / 8] = static_cast<unsigned char>(mask[fc / 8] | (0x80 >> (fc % 8)));
    }
}

Outcome execute(const uint8_t insn[4], uint64_t gr[16], const Facilities& f, size_t budget) {
    if (insn[0] != 0xb9) return declined("not a CPACF instruction", Op::km, false);
    int index = -1;
    for (int i = 0; i < kOpCount; ++i)
        if (kOps[i].second_byte == insn[1]) index = i;
    if (index < 0) return declined("not a CPACF instruction the shim models", Op::km, false);
    const Op op = static_cast<Op>(index);
    auto decline = [op](const char* why) { return declined(why, op, true); };

    if (!instruction_installed(op, f))
        return decline("facility for this instruction not installed (operation exception)");
    const unsigned r1 = insn[3] >> 4, r2 = insn[3] & 15, r3 = insn[2] >> 4;
    if (const char* why = register_problem(op, r1, r2, r3, insn[2])) return decline(why);

    // Only GR0 bits 32-63 carry function code, modifier and flags; bits 0-31
    // are ignored by these instructions (OpenSSL loads GR0 with a 32-bit
    // load and leaves the high word stale), and GR0 is left as it is.
    // Undefined bits of the low word are still declined. (The runners read
    // only low-word flags from GR0.)
    const uint64_t gr0 = gr[0] & 0xffffffffu;
    const unsigned fc = gr0 & 0x7f;
    const bool modifier = gr0 & kModifier;
    if (fc == 0)
        return decline("query trapped: the emulator answers queries itself (not modelled)");
    if (gr0 & ~defined_gr0_bits(op))
        return decline("GR0 bits beyond function code, modifier and flags set (not modelled)");
    if (modifier && (op == Op::kimd || op == Op::kmac || op == Op::pcc))
        return decline("modifier bit set for KIMD/KMAC/PCC (specification exception)");
    if (!implemented(op, fc, f)) return decline("function code not modelled");

    size_t lcfb = 0;
    if (op == Op::kmf) {
        lcfb = (gr0 >> 24) & 0xff;
        if (lcfb == 0 || lcfb > B)
            return decline("KMF LCFB 0 or above 16 (specification exception)");
    }
    const Exec x{op, r1, r2, r3, gr, fc, modifier, budget};
    if (const char* why = length_problem(x, lcfb)) return decline(why);
    if (const char* why = param_problem(x)) return decline(why);

    Outcome o{};
    switch (op) {
    case Op::km: o = is_full_xts(fc) ? run_km_full_xts(x) : run_km(x); break;
    case Op::kmc: o = run_kmc(x); break;
    case Op::kmf: o = run_kmf(x, lcfb); break;
    case Op::kmo: o = run_kmo(x); break;
    case Op::kmctr: o = run_kmctr(x); break;
    case Op::kma: o = run_kma(x); break;
    case Op::kimd: o = run_kimd_ghash(x); break;
    case Op::kmac: o = run_kmac(x); break;
    case Op::pcc: o = is_xts(fc) ? run_pcc_xts(x) : run_pcc_cmac(x); break;
    }
    o.op = op;
    o.known_op = true;
    return o;
}

} // namespace hwc::test::cpacf
