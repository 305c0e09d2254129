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
// Per iteration (AES-128): 152 AESE/AESMC, 26 PMULL(2), 16 counter
// instructions, 5 LD1 of 3-4 registers (round keys, ciphertext), 4 LDP
// (powers of H), 2 LD1 + 2 ST1 of the data: 274 instructions (307 for
// AES-192, 339 for AES-256), 2.14 per byte; measured figures for the whole
// kernel are in aes_ce_gcm.cpp.
//
// Registers:
//   x0 RK   round keys 0..3    x9 RK4  keys 4..7    x10 RK8  keys 8..11
//   x11 RK12 keys 12..14       x1 HK   PmullKey     x2 CTRP  x3 YP
//   x4 IN   x5 OUT   x6 HSRC   x7 N    (chunks left)  w12 scratch
//   v0-v7   the 8 AES states
//   v8-v11  round keys 0..3, later 8..11 (or 8..10)
//   v16-v19 ciphertext to hash (4 blocks), later round keys 4..7, 12..14
//   v12 CTR   counter block with each 32-bit word byte-swapped: lane 3 is
//             the counter as a native integer, one ADD steps it, REV32 gives
//             the block to encrypt
//   v13 ONE   {0, 0, 0, 1}        v14 Y   GHASH value (RBIT domain)
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

.macro	next_counter s
	rev32	\s\().16b, CTR.16b
	add	CTR.4s, CTR.4s, ONE.4s
.endm

.macro	round8 k
.irp s, v0, v1, v2, v3, v4, v5, v6, v7
	aes_round \s, \k
.endr
.endm

// Accumulates T1 ^ T2 into \acc (or sets it, for the first pair).
.macro	acc2 acc, first
.if \first
	eor	\acc\().16b, T1.16b, T2.16b
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
.macro	round8_pair k, a, b, off, kk, first
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
	acc2	LO, \first
	aes_round v5, \k
	pmull2	T2.1q, \a\().2d, HA.2d
	pmull2	T1.1q, \b\().2d, HB.2d
	aes_round v6, \k
	acc2	HI, \first
	pmull	T2.1q, T0.1d, \kk\().1d
	aes_round v7, \k
	pmull2	T1.1q, T0.2d, \kk\().2d
	acc2	MID, \first
.endm

// One AES round with key \k, interleaved with the reduction of LO/MID/HI
// into Y (ghash_pmull.h, reduce()).
.macro	round8_reduce k
	aes_round v0, \k
	eor	MID.16b, MID.16b, LO.16b
	aes_round v1, \k
	eor	MID.16b, MID.16b, HI.16b	// a0 b1 ^ a1 b0, summed
	pmull2	T0.1q, HI.2d, RC.2d		// h1 R
	aes_round v2, \k
	ext	T1.16b, LO.16b, HI.16b, #8	// {l1, h0}
	aes_round v3, \k
	eor	T1.16b, T1.16b, MID.16b
	aes_round v4, \k
	eor	T1.16b, T1.16b, T0.16b		// {l1^m0^t0, h0^m1^t1}
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

// Last AESE with key \k, then out = state ^ (input ^ last key).
.macro	final_round k
.irp s, v0, v1, v2, v3, v4, v5, v6, v7
	aes_last \s, \k
.endr
	eor	v0.16b, v0.16b, v24.16b
	eor	v1.16b, v1.16b, v25.16b
	eor	v2.16b, v2.16b, v26.16b
	eor	v3.16b, v3.16b, v27.16b
	st1	{v0.16b-v3.16b}, [OUT], #64
	eor	v4.16b, v4.16b, v28.16b
	eor	v5.16b, v5.16b, v29.16b
	eor	v6.16b, v6.16b, v30.16b
	eor	v7.16b, v7.16b, v31.16b
	st1	{v4.16b-v7.16b}, [OUT], #64
.endm

// The 8 counter blocks into v0-v7.
.macro	counters
.irp s, v0, v1, v2, v3, v4, v5, v6, v7
	next_counter \s
.endr
.endm

.macro	gcm8 name, nr
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
	rev32	CTR.16b, CTR.16b
	movi	ONE.2d, #0
	mov	w12, #1
	mov	ONE.s[3], w12
	ld1	{Y.16b}, [YP]
	rbit	Y.16b, Y.16b

1:	ld1	{v8.16b-v11.16b}, [RK]
	ld1	{v16.16b-v19.16b}, [HSRC], #64
	counters
	round8_pair v8, v16, v17, 96, K3, 1	// blocks 0, 1: H^8, H^7
	round8_pair v9, v18, v19, 64, K2, 0	// blocks 2, 3: H^6, H^5
	ld1	{v16.16b-v19.16b}, [HSRC], #64
	round8_pair v10, v16, v17, 32, K1, 0	// blocks 4, 5: H^4, H^3
	round8_pair v11, v18, v19, 0, K0, 0	// blocks 6, 7: H^2, H^1
	ld1	{v16.16b-v19.16b}, [RK4]
.if \nr == 10
	ld1	{v8.16b-v10.16b}, [RK8]
.else
	ld1	{v8.16b-v11.16b}, [RK8]
.endif
	round8_reduce v16
	round8_load v17
	round8	v18
	round8	v19
.if \nr == 10
	xor_last v10
	round8	v8
	final_round v9
.elseif \nr == 12
	ld1	{v16.16b}, [RK12]
	xor_last v16
	round8	v8
	round8	v9
	round8	v10
	final_round v11
.else
	ld1	{v16.16b-v18.16b}, [RK12]
	xor_last v18
	round8	v8
	round8	v9
	round8	v10
	round8	v11
	round8	v16
	final_round v17
.endif
	subs	N, N, #1
	b.ne	1b

	rev32	CTR.16b, CTR.16b
	st1	{CTR.16b}, [CTRP]
	rbit	Y.16b, Y.16b
	st1	{Y.16b}, [YP]
	ldp	d10, d11, [sp, #16]
	ldp	d12, d13, [sp, #32]
	ldp	d14, d15, [sp, #48]
	ldp	d8, d9, [sp], #64
	ret
	.size	\name, . - \name
.endm

	gcm8	hwc_aes_ce_gcm8_r10, 10
	gcm8	hwc_aes_ce_gcm8_r12, 12
	gcm8	hwc_aes_ce_gcm8_r14, 14

	.section .note.GNU-stack, "", %progbits
