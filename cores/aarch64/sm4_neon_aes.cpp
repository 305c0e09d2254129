// SPDX-License-Identifier: Apache-2.0
// sm4-neon-aes: SM4 (GB/T 32907-2016) on NEON with its S-box computed by
// AESE, for aarch64 CPUs with the AES instructions but not SM4's (Neoverse
// N1/Graviton2, Ampere Altra, Cortex-A72/A76 class). The mode kernels, the
// key schedule and the serial modes are sm4_neon.h's; this core's wide step
// is 16 blocks byte-sliced.
//
// Compiled with -march=armv8-a+crypto (root CMakeLists.txt) and reached only
// through the `sm4_neon_aes` descriptor, which the registry offers when the
// CPU probe reports kArmAes. Everything but the descriptor has internal
// linkage, so no AES code can be merged into baseline callers.
//
// Technique. S_sm4(x) = PostS(SubBytes(Pre(x))) (sm4_affine.h), SubBytes
// being AESE's. The 16 blocks are byte-sliced: register (w, j) holds byte j
// of word X_w of all 16 blocks, so SM4's byte rotations by 8, 16 and 24
// bits only rename registers. The state is kept in sm4_affine.h's serial
// form X' = Q X (Q = Pre's matrix on each byte), which turns a round into
//     y  = SubBytes(X1' ^ X2' ^ X3' ^ Pre(rk))   (AESE, key Pre(rk))
//     X0' ^= F0 y + R F1 y + R^2 F1 y + R^3 F3 y
// with F3 = F0 + F1 (as linear maps), so per byte register one AESE, two
// nibble-table maps (four TBLs) and XORs into the target registers the
// rotation R selects. AESE's ShiftRows would move bytes between blocks,
// so its input is first permuted by the inverse ShiftRows (one TBL).
// Round keys Pre(rk) are stored with the schedule, four bytes per round,
// broadcast by one LD4R. Q and Q^-1 are applied once, on the way in and
// out. TBL indexes registers, not memory, so everything runs in constant
// time.
//
// Guest instructions per byte under qemu-aarch64 (16 KiB updates, -cpu
// neoverse-n1): see README's aarch64 benchmark.
#include "cores/aarch64/aarch64.h"

#include "cores/aarch64/sm4_neon.h"
#include "cores/cpu.h"

#if !defined(__ARM_FEATURE_AES) && !defined(__ARM_FEATURE_CRYPTO)
#error "sm4_neon_aes.cpp needs -march=armv8-a+crypto (see hwcipher_isa_flags in CMakeLists.txt)"
#endif

// 16 blocks through the cipher, in == out allowed (sm4_neon_aes.S): `rk4`
// holds the 32 rounds' Pre(rk) bytes of one direction, `consts` is
// kCrypt16 below.
extern "C" void hwc_sm4_neon_aes_crypt16(const uint8_t* rk4, const uint8_t* in, uint8_t* out,
                                         const uint8_t* consts);

namespace hwc::aarch64 {
namespace {

using namespace sm4alg;

// ---- constants ------------------------------------------------------------------

// ShiftRows takes output byte 4c + r from input byte 4((c + r) mod 4) + r;
// a TBL with this index before AESE undoes it, so each byte (block) stays
// in its lane.
struct Idx {
    alignas(16) uint8_t b[16];
};
constexpr unsigned shift_rows_src(unsigned i) { return 4 * (((i >> 2) + (i & 3)) & 3) + (i & 3); }
constexpr Idx make_inv_shift_rows() {
    Idx v{};
    for (unsigned i = 0; i < 16; ++i) v.b[shift_rows_src(i)] = static_cast<uint8_t>(i);
    return v;
}
constexpr Idx kInvShiftRows = make_inv_shift_rows();
constexpr bool inv_shift_rows_check() {
    for (unsigned i = 0; i < 16; ++i)
        if (kInvShiftRows.b[shift_rows_src(i)] != i) return false;
    return true;
}
static_assert(inv_shift_rows_check());

// The round's maps on y = SubBytes(...): F0 without a constant, F1 with all
// of it. Each output byte takes F1 three times (R F1, R^2 F1 and the F1
// half of R^3 F3) and F0 twice, so the constant counts once, as it must.
constexpr SerialMats kF = serial_mats(kPostSubM, kPostSubC);
constexpr Nibbles kF0 = nibble_tables(kF.f0, 0);
constexpr Nibbles kF1 = nibble_tables(kF.f1, kF.k0);
constexpr Nibbles kQNib = nibble_tables(kPreM, 0);
constexpr Nibbles kQiNib = nibble_tables(kQinv, 0);

// The round as this file computes it, on native words (byte k = bits
// 8k..8k+7; byte k of the word is byte 3 - k of the big-endian block word),
// checked against the SM4 round in the serial form.
constexpr uint8_t nib(const Nibbles& t, unsigned x) {
    return static_cast<uint8_t>(t.lo[x & 15] ^ t.hi[x >> 4]);
}
constexpr uint32_t model_t(uint32_t pre_in) {
    uint32_t acc = 0;
    for (unsigned k = 0; k < 4; ++k) {
        const uint8_t y = aes_subbytes((pre_in >> (8 * k)) & 0xff);
        const uint32_t a = nib(kF0, y), b = nib(kF1, y);
        // F0 y into bytes k and k+3, F1 y into k+1, k+2, k+3.
        acc ^= (a << (8 * k)) | (a << (8 * ((k + 3) & 3)));
        acc ^= (b << (8 * ((k + 1) & 3))) ^ (b << (8 * ((k + 2) & 3))) ^ (b << (8 * ((k + 3) & 3)));
    }
    return acc;
}
constexpr bool model_checks() {
    uint32_t w = 0x01234567;
    for (unsigned i = 0; i < 64; ++i, w = w * 0x9e3779b1u + 0x7f4a7c15u)
        if (model_t(bytewise(kPreM, w, kPreC)) != bytewise(kPreM, ref_t(w), 0)) return false;
    for (unsigned x = 0; x < 256; ++x)
        if (nib(kQiNib, nib(kQNib, x)) != x) return false;
    return true;
}
static_assert(model_checks(), "the byte-sliced round does not match the SM4 round");

// ---- the byte-sliced engine (sm4_neon_aes.S) -----------------------------------

// The constants crypt16 reads, in its order.
struct Crypt16Consts {
    alignas(16) uint8_t isr[16];
    uint8_t f0lo[16], f0hi[16], f1lo[16], f1hi[16];
    uint8_t qlo[16], qhi[16], qilo[16], qihi[16];
};
constexpr Crypt16Consts make_consts() {
    Crypt16Consts c{};
    for (unsigned i = 0; i < 16; ++i) {
        c.isr[i] = kInvShiftRows.b[i];
        c.f0lo[i] = kF0.lo[i], c.f0hi[i] = kF0.hi[i];
        c.f1lo[i] = kF1.lo[i], c.f1hi[i] = kF1.hi[i];
        c.qlo[i] = kQNib.lo[i], c.qhi[i] = kQNib.hi[i];
        c.qilo[i] = kQiNib.lo[i], c.qihi[i] = kQiNib.hi[i];
    }
    return c;
}
constexpr Crypt16Consts kCrypt16 = make_consts();
static_assert(sizeof(Crypt16Consts) == 9 * 16);

struct AesWide {
    static constexpr size_t kBatch = 16;
    [[gnu::always_inline]] static void crypt(const sm4n::Engine& e, const uint8_t* in,
                                             uint8_t* out) {
        hwc_sm4_neon_aes_crypt16(e.ks->bytes + sm4n::kPreOff + e.off, in, out, kCrypt16.isr);
    }
};

} // namespace

extern constinit const BlockCore sm4_neon_aes =
    sm4n::make_core<AesWide>("sm4-neon-aes", kArmAes, true);

} // namespace hwc::aarch64
