/* SPDX-License-Identifier: Apache-2.0 */
// The steady-state loop of the stitched AES-GCM kernels (aes_ce_gcm.cpp):
// 8 blocks of AES-CTR (AESE/AESMC) per iteration, interleaved instruction by
// instruction with GHASH (PMULL/PMULL2) of 8 ciphertext blocks. The C++ side
// does everything else (the first chunk of an encryption, tails, setup).
//
// Why assembly: the same loop written with intrinsics came out of GCC 12 at
// 320-350 instructions per 8 blocks instead of about 275 (spills of the
// round keys and H powers, register shuffles, unpaired loads; four-register
// LD1/ST1 through the intrinsics made it worse), and the interleaving below
// was not kept.
//
// void hwc_aes_ce_gcm8_r{10,12,14}(const uint8_t* rk,   // AesCeKey::enc
//                                  const void* hk,      // pmull::PmullKey
//                                  uint8_t ctr[16], uint8_t y[16],
//                                  const uint8_t* in, uint8_t* out,
//                                  const uint8_t* hsrc, size_t nchunks);
// For each of nchunks (>= 1) chunks of 8 blocks: y = GHASH step over the 128
// bytes at hsrc (then hsrc += 128), and out = in ^ AES(ctr, ctr+1, ...),
// stepping only the low 32 bits of ctr (big-endian, caller prevents wrap).
// ctr and y (GCM byte order) are read on entry and written back. Decryption
// passes hsrc = in (hash what is decrypted); encryption passes hsrc =
// out - 128, the chunk written before (so each chunk is hashed while the next
// one is encrypted). Both allow in == out: hsrc is read at the start of an
// iteration, `in` before `out` is written.
//
// Field arithmetic as in ghash_pmull.h: blocks RBIT-reversed per byte (so
// bit k of the 128-bit value is the coefficient of x^k), Karatsuba products
// with the halves of two blocks gathered by TRN1/TRN2, unreduced sums over
// the 8 blocks with H^8..H^1, one reduction by R = 0x87 (two PMULL2).
// Constant time: no branch or address depends on data or keys.
//
// Per iteration (AES-128): 152 AESE/AESMC, 26 PMULL(2), 11 counter
// instructions (byte-wise ADDs while the counter's last byte does not wrap,
// 31 chunks in 32), 5 LD1 of 3-4 registers (round keys, ciphertext), 4 LDP
// (powers of H), 2 LD1 + 2 ST1 of the data: 269 instructions (302 for
// AES-192, 334 for AES-256), 2.10 per byte. The EOR3 variant (CPUs with the
// SHA3 extension: the gcm8_eor3 entries, for aes-armv8-ce-eor3) folds the
// two-product sums of the Karatsuba accumulation, two steps of the
// reduction and the output's input ^ last-key ^ keystream into one
// instruction each: 250 (AES-128), 1.95 per byte. Measured figures for the
// whole kernel are in aes_ce_gcm.cpp.
//
// Registers:
//   x0 RK   round keys 0..3    x9 RK4  keys 4..7    x10 RK8  keys 8..11
//   x11 RK12 keys 12..14       x1 HK   PmullKey     x2 CTRP  x3 YP
//   x4 IN   x5 OUT   x6 HSRC   x7 N    (chunks left)  x12 scratch
//   x13     chunks left before the counter's last byte wraps in one
//   v0-v7   the 8 AES states
//   v8-v11  round keys 0..3, later 8..11 (or 8..10)
//   v16-v19 ciphertext to hash (4 blocks), later round keys 4..7, 12..14
//   v12 CTR   the counter block (big-endian, as in memory)
//   v13 ONE   bytes {0, ..., 0, 1}  v14 Y   GHASH value (RBIT domain)
//   v15 RC    0x87 in both lanes  v20-v23 K0-K3: PmullKey k[0..3] (resident)
//   v24-v25   HA, HB: the two powers of H for the current pair of blocks
//   v26-v28   LO, MID, HI: unreduced Karatsuba sums  v29-v31 T0-T2 scratch
//   v24-v31   after the reduction: the 8 input blocks, XORed with the last
//             round key
// v8-v15 are callee-saved (low halves): saved and restored.

	.text
	.arch	armv8-a+crypto

RK	.req	x0
HK	.req	x1
CTRP	.req	x2
YP	.req	x3
IN	.req	x4
OUT	.req	x5
HSRC	.req	x6
N	.req	x7
RK4	.req	x9
RK8	.req	x10
RK12	.req	x11

CTR	.req	v12
ONE	.req	v13
Y	.req	v14
RC	.req	v15
K0	.req	v20
K1	.req	v21
K2	.req	v22
K3	.req	v23
HA	.req	v24
HB	.req	v25
LO	.req	v26
MID	.req	v27
HI	.req	v28
T0	.req	v29
T1	.req	v30
T2	.req	v31

// PmullKey layout (ghash_pmull.h): h[0..7] = H^1..H^8 at 16*i, k[0..3] at 128.
#define PMULL_KEY_K 128

// One AES round (AESE+AESMC, kept adjacent for fusion) on state \s. (Inside
// .irp the register operands go through these small macros: a `\x\()`
// suffix is consumed by the enclosing macro before .irp could use it.)
.macro	aes_round s, k
	aese	\s\().16b, \k\().16b
	aesmc	\s\().16b, \s\().16b
.endm

.macro	aes_last s, k
	aese	\s\().16b, \k\().16b
.endm

.macro	eor16 d, a, b
	eor	\d\().16b, \a\().16b, \b\().16b
.endm

.macro	round8 k
.irp s, v0, v1, v2, v3, v4, v5, v6, v7
	aes_round \s, \k
.endr
.endm

// Accumulates T1 ^ T2 into \acc (or sets it, for the first pair); one
// EOR3 with the SHA3 extension (\e3).
.macro	acc2 acc, first, e3
.if \first
	eor	\acc\().16b, T1.16b, T2.16b
.elseif \e3
	eor3	\acc\().16b, \acc\().16b, T1.16b, T2.16b
.else
	eor	\acc\().16b, \acc\().16b, T1.16b
	eor	\acc\().16b, \acc\().16b, T2.16b
.endif
.endm

// One AES round with key \k on all 8 states, interleaved with the GHASH
// products of blocks \a, \b (raw ciphertext, destroyed) with HA = H^(8-2j),
// HB = H^(7-2j) loaded from HK+\off, and the Karatsuba operand \kk = k[3-j].
// The first pair (\first = 1) also XORs Y into its first block and starts
// the sums instead of adding to them.
.macro	round8_pair k, a, b, off, kk, first, e3
	aes_round v0, \k
	ldp	q25, q24, [HK, #\off]		// HB, HA
	rbit	\a\().16b, \a\().16b
	aes_round v1, \k
	rbit	\b\().16b, \b\().16b
.if \first
	eor	\a\().16b, \a\().16b, Y.16b
.endif
	aes_round v2, \k
	trn1	T0.2d, \a\().2d, \b\().2d	// {a0, b0}
	trn2	T1.2d, \a\().2d, \b\().2d	// {a1, b1}
	aes_round v3, \k
	pmull	T2.1q, \a\().1d, HA.1d
	eor	T0.16b, T0.16b, T1.16b		// {a0^a1, b0^b1}
	aes_round v4, \k
	pmull	T1.1q, \b\().1d, HB.1d
	acc2	LO, \first, \e3
	aes_round v5, \k
	pmull2	T2.1q, \a\().2d, HA.2d
	pmull2	T1.1q, \b\().2d, HB.2d
	aes_round v6, \k
	acc2	HI, \first, \e3
	pmull	T2.1q, T0.1d, \kk\().1d
	aes_round v7, \k
	pmull2	T1.1q, T0.2d, \kk\().2d
	acc2	MID, \first, \e3
.endm

// One AES round with key \k, interleaved with the reduction of LO/MID/HI
// into Y (ghash_pmull.h, reduce()).
.macro	round8_reduce k, e3
	aes_round v0, \k
.if \e3
	eor3	MID.16b, MID.16b, LO.16b, HI.16b	// a0 b1 ^ a1 b0, summed
	aes_round v1, \k
.else
	eor	MID.16b, MID.16b, LO.16b
	aes_round v1, \k
	eor	MID.16b, MID.16b, HI.16b	// a0 b1 ^ a1 b0, summed
.endif
	pmull2	T0.1q, HI.2d, RC.2d		// h1 R
	aes_round v2, \k
	ext	T1.16b, LO.16b, HI.16b, #8	// {l1, h0}
	aes_round v3, \k
.if \e3
	eor3	T1.16b, T1.16b, MID.16b, T0.16b	// {l1^m0^t0, h0^m1^t1}
	aes_round v4, \k
.else
	eor	T1.16b, T1.16b, MID.16b
	aes_round v4, \k
	eor	T1.16b, T1.16b, T0.16b		// {l1^m0^t0, h0^m1^t1}
.endif
	aes_round v5, \k
	pmull2	T0.1q, T1.2d, RC.2d		// (h0^m1^t1) R
	aes_round v6, \k
	trn1	Y.2d, LO.2d, T1.2d		// {l0, l1^m0^t0}
	aes_round v7, \k
	eor	Y.16b, Y.16b, T0.16b
.endm

// One AES round with key \k, interleaved with the load of the 8 input blocks
// into v24-v31 (free once the reduction is done).
.macro	round8_load k
	aes_round v0, \k
	ld1	{v24.16b-v27.16b}, [IN], #64
	aes_round v1, \k
	aes_round v2, \k
	aes_round v3, \k
	ld1	{v28.16b-v31.16b}, [IN], #64
	aes_round v4, \k
	aes_round v5, \k
	aes_round v6, \k
	aes_round v7, \k
.endm

// The 8 input blocks ^= the last round key \kl.
.macro	xor_last kl
.irp d, v24, v25, v26, v27, v28, v29, v30, v31
	eor16	\d, \d, \kl
.endr
.endm

// Last AESE with key \k, then out = state ^ input ^ last key \kl: the
// input already XORed with \kl (xor_last) or, with the SHA3 extension
// (\e3), one EOR3 per block.
.macro	out_eor s, d, kl, e3
.if \e3
	eor3	\s\().16b, \s\().16b, \d\().16b, \kl\().16b
.else
	eor	\s\().16b, \s\().16b, \d\().16b
.endif
.endm
.macro	final_round k, kl, e3
.irp s, v0, v1, v2, v3, v4, v5, v6, v7
	aes_last \s, \k
.endr
	out_eor	v0, v24, \kl, \e3
	out_eor	v1, v25, \kl, \e3
	out_eor	v2, v26, \kl, \e3
	out_eor	v3, v27, \kl, \e3
	st1	{v0.16b-v3.16b}, [OUT], #64
	out_eor	v4, v28, \kl, \e3
	out_eor	v5, v29, \kl, \e3
	out_eor	v6, v30, \kl, \e3
	out_eor	v7, v31, \kl, \e3
	st1	{v4.16b-v7.16b}, [OUT], #64
.endm

.macro	xor_last_unless kl, e3
.if !\e3
	xor_last \kl
.endif
.endm

// The 8 counter blocks into v0-v7 while the counter's last byte cannot wrap
// within the chunk (nor stepping past it): one byte-wise ADD of ONE =
// {0,...,0,1} each.
.macro	counters
	mov	v0.16b, CTR.16b
	add	v1.16b, v0.16b, ONE.16b
	add	v2.16b, v1.16b, ONE.16b
	add	v3.16b, v2.16b, ONE.16b
	add	v4.16b, v3.16b, ONE.16b
	add	v5.16b, v4.16b, ONE.16b
	add	v6.16b, v5.16b, ONE.16b
	add	v7.16b, v6.16b, ONE.16b
	add	CTR.16b, v7.16b, ONE.16b
.endm

.macro	native_step s
	rev32	\s\().16b, T0.16b
	add	T0.4s, T0.4s, T1.4s
.endm

// The same when the last byte wraps (one chunk in 32): the low 32 bits as a
// native integer in T0, +1 (T1 = {0, 0, 0, 1}) per block.
.macro	counters_carry
	rev32	T0.16b, CTR.16b
	movi	T1.2d, #0
	mov	w12, #1
	mov	T1.s[3], w12
.irp s, v0, v1, v2, v3, v4, v5, v6, v7
	native_step \s
.endr
	rev32	CTR.16b, T0.16b
.endm

.macro	gcm8 name, nr, e3
	.p2align 4
	.globl	\name
	.hidden	\name
	.type	\name, %function
\name:
	stp	d8, d9, [sp, #-64]!
	stp	d10, d11, [sp, #16]
	stp	d12, d13, [sp, #32]
	stp	d14, d15, [sp, #48]
	add	RK4, RK, #64
	add	RK8, RK, #128
	add	RK12, RK, #192
	add	x12, HK, #PMULL_KEY_K
	ld1	{K0.16b-K3.16b}, [x12]
	mov	x12, #0x87
	dup	RC.2d, x12
	ld1	{CTR.16b}, [CTRP]
	movi	ONE.2d, #0
	mov	w12, #1
	mov	ONE.b[15], w12
	ld1	{Y.16b}, [YP]
	rbit	Y.16b, Y.16b
	// x13 = chunks before the counter's last byte wraps inside one: with
	// last byte b, (0xf7 - b) / 8 + 1, or none when b > 0xf7. After such a
	// chunk b is below 8, and 31 chunks go by before the next.
	umov	w12, CTR.b[15]
	mov	x13, #0
	subs	w12, w12, #0xff - 8
	b.hi	1f
	neg	w12, w12
	lsr	w12, w12, #3
	add	x13, x12, #1

1:	ld1	{v8.16b-v11.16b}, [RK]
	ld1	{v16.16b-v19.16b}, [HSRC], #64
	subs	x13, x13, #1
	b.lo	5f
	counters
2:	round8_pair v8, v16, v17, 96, K3, 1, \e3	// blocks 0, 1: H^8, H^7
	round8_pair v9, v18, v19, 64, K2, 0, \e3	// blocks 2, 3: H^6, H^5
	ld1	{v16.16b-v19.16b}, [HSRC], #64
	round8_pair v10, v16, v17, 32, K1, 0, \e3	// blocks 4, 5: H^4, H^3
	round8_pair v11, v18, v19, 0, K0, 0, \e3	// blocks 6, 7: H^2, H^1
	ld1	{v16.16b-v19.16b}, [RK4]
.if \nr == 10
	ld1	{v8.16b-v10.16b}, [RK8]
.else
	ld1	{v8.16b-v11.16b}, [RK8]
.endif
	round8_reduce v16, \e3
	round8_load v17
	round8	v18
	round8	v19
.if \nr == 10
	xor_last_unless v10, \e3
	round8	v8
	final_round v9, v10, \e3
.elseif \nr == 12
	ld1	{v16.16b}, [RK12]
	xor_last_unless v16, \e3
	round8	v8
	round8	v9
	round8	v10
	final_round v11, v16, \e3
.else
	ld1	{v16.16b-v18.16b}, [RK12]
	xor_last_unless v18, \e3
	round8	v8
	round8	v9
	round8	v10
	round8	v11
	round8	v16
	final_round v17, v18, \e3
.endif
	subs	N, N, #1
	b.ne	1b

	st1	{CTR.16b}, [CTRP]
	rbit	Y.16b, Y.16b
	st1	{Y.16b}, [YP]
	ldp	d10, d11, [sp, #16]
	ldp	d12, d13, [sp, #32]
	ldp	d14, d15, [sp, #48]
	ldp	d8, d9, [sp], #64
	ret
5:	counters_carry
	mov	x13, #31
	b	2b
	.size	\name, . - \name
.endm

	gcm8	hwc_aes_ce_gcm8_r10, 10, 0
	gcm8	hwc_aes_ce_gcm8_r12, 12, 0
	gcm8	hwc_aes_ce_gcm8_r14, 14, 0

	.arch	armv8.2-a+crypto+sha3
	gcm8	hwc_aes_ce_gcm8_eor3_r10, 10, 1
	gcm8	hwc_aes_ce_gcm8_eor3_r12, 12, 1
	gcm8	hwc_aes_ce_gcm8_eor3_r14, 14, 1

	.section .note.GNU-stack, "", %progbits
