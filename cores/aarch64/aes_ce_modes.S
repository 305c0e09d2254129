/* SPDX-License-Identifier: Apache-2.0 */
// The 8-block steady-state loops of the "aes-armv8-ce" core's parallel modes
// (ECB, CBC and CFB decryption, CTR, XTS, OCB). aes_ce.cpp does everything
// else: key setup, the serial modes, CFB8, and the 0..7 blocks left over.
//
// Why assembly: these loops were first written with intrinsics, but GCC 12
// keeps the four-register LD1/ST1 lists (vld1q_u8_x4/vst1q_u8_x4) as
// register tuples and copies every block in and out of them, ties AESE's
// result to whichever input dies (a register copy per chained block), and,
// with the loads pinned to registers by inline asm, spilled the round keys
// and reloaded them every iteration in all but the simplest loops. The
// intrinsic versions came out 6-11% above the counts given below (CTR, CFB
// decryption, XTS) and moved with every small edit.
//
// C prototypes are above each entry point; aes_ce.cpp declares them. Each
// entry point takes the round keys of the direction it needs (AesCeKey
// enc or dec, 16 * (rounds + 1) bytes) and `rounds` (10, 12 or 14), and
// branches once to a copy of its loop specialised for that round count. It
// processes `chunks` >= 1 chunks of 8 whole blocks; `in == out` is allowed
// (each chunk is loaded before any of it is stored). Chaining state is read
// from and written back to memory as the matching BlockCore slot does
// (cores/core.h).
//
// Registers (all loops):
//   v0-v7    the 8 AES states
//   v17-v31  round keys: key i of NR in v(31 - NR + i), so the last key is
//            always v31 and AES-128 leaves v17-v20 free
//   v8-v16   per mode (XOR operands, tweaks, offsets, counter, checksum);
//            v8-v15 are callee-saved (low halves) and saved when used
// The final AddRoundKey is never a separate pass over the states: it is
// folded into the XOR each mode does anyway. AESE/AESMC (AESD/AESIMC) pairs
// stay adjacent so cores can fuse them. Constant time: no branch or address
// depends on keys or data (CTR branches on the public counter, OCB indexes
// its L table by the public block number).

	.arch	armv8-a+crypto
	.text

// ---- building blocks --------------------------------------------------------

// Round keys 0..\nr from \ptr (advanced) into v(31-\nr)..v31.
.macro	load_keys nr, ptr
.if \nr == 10
	ld1	{v21.16b-v24.16b}, [\ptr], #64
	ld1	{v25.16b-v28.16b}, [\ptr], #64
	ld1	{v29.16b-v31.16b}, [\ptr]
.elseif \nr == 12
	ld1	{v19.16b-v22.16b}, [\ptr], #64
	ld1	{v23.16b-v26.16b}, [\ptr], #64
	ld1	{v27.16b-v30.16b}, [\ptr], #64
	ld1	{v31.16b}, [\ptr]
.else
	ld1	{v17.16b-v20.16b}, [\ptr], #64
	ld1	{v21.16b-v24.16b}, [\ptr], #64
	ld1	{v25.16b-v28.16b}, [\ptr], #64
	ld1	{v29.16b-v31.16b}, [\ptr]
.endif
.endm

// Key 0 ^= key \nr (OCB folds the last round key into the first one).
.macro	fold_first_key nr
.if \nr == 10
	eor	v21.16b, v21.16b, v31.16b
.elseif \nr == 12
	eor	v19.16b, v19.16b, v31.16b
.else
	eor	v17.16b, v17.16b, v31.16b
.endif
.endm

// Inside .irp, register operands go through these one-line macros: a
// `\x\()` suffix would be consumed by the enclosing macro before .irp could
// substitute \x.
.macro	op_pair op, mix, s, k
	\op	\s\().16b, \k\().16b
	\mix	\s\().16b, \s\().16b
.endm

.macro	op_one op, s, k
	\op	\s\().16b, \k\().16b
.endm

.macro	eor3op d, a, b
	eor	\d\().16b, \a\().16b, \b\().16b
.endm

// One round on v0-v7 with key \k: \op is aese or aesd, \mix aesmc or aesimc.
.macro	round8 op, mix, k
.irp s, v0, v1, v2, v3, v4, v5, v6, v7
	op_pair	\op, \mix, \s, \k
.endr
.endm

// All rounds on v0-v7 except the final AddRoundKey (key v31), which the
// caller merges into its own XORs.
.macro	rounds8 nr, op, mix
.if \nr == 14
	round8	\op, \mix, v17
	round8	\op, \mix, v18
.endif
.if \nr >= 12
	round8	\op, \mix, v19
	round8	\op, \mix, v20
.endif
.irp k, v21, v22, v23, v24, v25, v26, v27, v28, v29
	round8	\op, \mix, \k
.endr
.irp s, v0, v1, v2, v3, v4, v5, v6, v7
	op_one	\op, \s, v30
.endr
.endm

// \s ^= \k for each listed register \s.
.macro	eor_key k, regs:vararg
.irp s, \regs
	eor3op	\s, \s, \k
.endr
.endm

// v(i) ^= v(8+i), i = 0..7: the states with their XOR operands.
.macro	eor_states_v8_v15
	eor	v0.16b, v0.16b, v8.16b
	eor	v1.16b, v1.16b, v9.16b
	eor	v2.16b, v2.16b, v10.16b
	eor	v3.16b, v3.16b, v11.16b
	eor	v4.16b, v4.16b, v12.16b
	eor	v5.16b, v5.16b, v13.16b
	eor	v6.16b, v6.16b, v14.16b
	eor	v7.16b, v7.16b, v15.16b
.endm

// v\acc ^= v0 ^ ... ^ v7 (an OCB checksum).
.macro	sum_states acc
.irp s, v0, v1, v2, v3, v4, v5, v6, v7
	eor3op	\acc, \acc, \s
.endr
.endm

.macro	save_v8_v15
	stp	d8, d9, [sp, #-64]!
	stp	d10, d11, [sp, #16]
	stp	d12, d13, [sp, #32]
	stp	d14, d15, [sp, #48]
.endm

.macro	restore_v8_v15
	ldp	d10, d11, [sp, #16]
	ldp	d12, d13, [sp, #32]
	ldp	d14, d15, [sp, #48]
	ldp	d8, d9, [sp], #64
.endm

// The frame of every loop below: loop_enter (v8-v15 saved unless `save` is
// 0, round keys loaded), the mode's set-up, then the chunk from label 1 on:
// mem8 ld1 loads 8 blocks, ..., loop_next stores 8 results and counts the
// chunks down; the mode's write-back, then loop_leave.

// 8 blocks between memory at \ptr (advanced past them) and v0-v7, or v8-v15
// with `high` set; \insn is ld1 or st1.
.macro	mem8 insn, ptr, high=0
.if \high
	\insn	{v8.16b-v11.16b}, [\ptr], #64
	\insn	{v12.16b-v15.16b}, [\ptr], #64
.else
	\insn	{v0.16b-v3.16b}, [\ptr], #64
	\insn	{v4.16b-v7.16b}, [\ptr], #64
.endif
.endm

.macro	loop_enter nr, save=1
.if \save
	save_v8_v15
.endif
	load_keys \nr, x0
.endm

// The chunk's 8 results (v0-v7, or v8-v15 with `high`) to \out, then back
// to label 1 while \count chunks remain.
.macro	loop_next out, count, high=0
	mem8	st1, \out, \high
	subs	\count, \count, #1
	b.ne	1b
.endm

.macro	loop_leave save=1
.if \save
	restore_v8_v15
.endif
	ret
.endm

// An exported entry point \name(keys, rounds, ...) that branches to
// \name\()_r10/_r12/_r14 by w1, and the three copies of \body.
.macro	entry name, body, a=0, b=0
	.globl	\name
	.hidden	\name
	.type	\name, %function
	.p2align 4
\name:
	cmp	w1, #12
	b.lt	\name\()_r10
	b.eq	\name\()_r12
	b	\name\()_r14
	.size	\name, . - \name
.irp nr, 10, 12, 14
	.type	\name\()_r\nr, %function
	.p2align 4
\name\()_r\nr:
	\body	\nr, \a, \b
	.size	\name\()_r\nr, . - \name\()_r\nr
.endr
.endm

// ---- ECB ----------------------------------------------------------------------
//
// void hwc_aes_ce_ecb_enc8(const uint8_t* enc_keys, unsigned rounds,
//                          const uint8_t* in, uint8_t* out, size_t chunks);
// void hwc_aes_ce_ecb_dec8(const uint8_t* dec_keys, unsigned rounds,
//                          const uint8_t* in, uint8_t* out, size_t chunks);
// AES-128: 166 instructions per chunk (1.30 per byte).

.macro	ecb_body nr, op, mix
	loop_enter \nr, 0
1:	mem8	ld1, x2
	rounds8	\nr, \op, \mix
	eor_key	v31, v0, v1, v2, v3, v4, v5, v6, v7
	loop_next x3, x4
	loop_leave 0
.endm

	entry	hwc_aes_ce_ecb_enc8, ecb_body, aese, aesmc
	entry	hwc_aes_ce_ecb_dec8, ecb_body, aesd, aesimc

// ---- CBC decryption -----------------------------------------------------------
//
// void hwc_aes_ce_cbc_dec8(const uint8_t* dec_keys, unsigned rounds,
//                          uint8_t iv[16], const uint8_t* in, uint8_t* out,
//                          size_t chunks);
// P_i = D(C_i) ^ C_{i-1}. Before the rounds consume C_0..C_7, v8-v15 get
// C_{i-1} ^ (last key), v16 carrying C_7 ^ (last key) to the next chunk, so
// one EOR per block finishes both the cipher and the chaining.
// AES-128: 175 instructions per chunk (1.37 per byte).

.macro	cbc_dec_body nr, a, b
	loop_enter \nr
	ld1	{v16.16b}, [x2]
	eor	v16.16b, v16.16b, v31.16b
1:	mem8	ld1, x3
	mov	v8.16b, v16.16b
	eor	v9.16b, v0.16b, v31.16b
	eor	v10.16b, v1.16b, v31.16b
	eor	v11.16b, v2.16b, v31.16b
	eor	v12.16b, v3.16b, v31.16b
	eor	v13.16b, v4.16b, v31.16b
	eor	v14.16b, v5.16b, v31.16b
	eor	v15.16b, v6.16b, v31.16b
	eor	v16.16b, v7.16b, v31.16b
	rounds8	\nr, aesd, aesimc
	eor_states_v8_v15
	loop_next x4, x5
	eor	v16.16b, v16.16b, v31.16b
	st1	{v16.16b}, [x2]
	loop_leave
.endm

	entry	hwc_aes_ce_cbc_dec8, cbc_dec_body

// ---- CFB decryption -----------------------------------------------------------
//
// void hwc_aes_ce_cfb_dec8(const uint8_t* enc_keys, unsigned rounds,
//                          uint8_t iv[16], const uint8_t* in, uint8_t* out,
//                          size_t chunks);
// P_i = E(C_{i-1}) ^ C_i. The chunk's ciphertext is loaded twice: shifted by
// one block as cipher inputs (v1-v7; v0 is the previous chunk's C_7) and in
// place as XOR operands (v8-v15), which then hold the output: two loads
// more instead of eight register copies.
// AES-128: 178 instructions per chunk (1.39 per byte).

.macro	cfb_dec_body nr, a, b
	loop_enter \nr
	ld1	{v0.16b}, [x2]
1:	add	x6, x3, #64
	ld1	{v1.16b-v4.16b}, [x3]
	ld1	{v5.16b-v7.16b}, [x6]
	mem8	ld1, x3, 1
	rounds8	\nr, aese, aesmc
	eor_key	v31, v0, v1, v2, v3, v4, v5, v6, v7
	eor	v8.16b, v8.16b, v0.16b
	eor	v9.16b, v9.16b, v1.16b
	eor	v10.16b, v10.16b, v2.16b
	eor	v11.16b, v11.16b, v3.16b
	eor	v12.16b, v12.16b, v4.16b
	eor	v13.16b, v13.16b, v5.16b
	eor	v14.16b, v14.16b, v6.16b
	mov	v0.16b, v15.16b			// C_7: next chunk's first input
	eor	v15.16b, v15.16b, v7.16b
	loop_next x4, x5, 1
	st1	{v0.16b}, [x2]
	loop_leave
.endm

	entry	hwc_aes_ce_cfb_dec8, cfb_dec_body

// ---- CTR ------------------------------------------------------------------------
//
// void hwc_aes_ce_ctr8(const uint8_t* enc_keys, unsigned rounds,
//                      uint8_t ctr[16], const uint8_t* in, uint8_t* out,
//                      size_t chunks);
// void hwc_aes_ce_ctr8_eor3(...same...);   CPUs with the SHA3 extension
// ctr is a 128-bit big-endian counter, +1 per block, wrapping mod 2^128. It
// stays a big-endian block (v16). While its last byte cannot wrap within a
// chunk (nor stepping past it), each next block is one byte-wise ADD of
// {0,...,0,1}; how many chunks in a row can go that way follows from the
// last byte, so the check runs once per such run (up to 31 chunks), not per
// chunk. Otherwise (one chunk in 32) the chunk's counters are built from the
// two byte-reversed 64-bit halves, carrying from low to high. The counter
// is public, so branching on it leaks nothing. Output = keystream ^ input ^
// last round key: two EORs per block, or one EOR3 (SHA3 extension).
// AES-128: 183 instructions per chunk (1.43 per byte), 175 with EOR3 (1.37).

// \s = the counter in v8 ({hi, lo} as integers), then v8 + 1 with the
// carry from lo into hi (v9 = {0, 1}, v10 = 0, v11 scratch).
.macro	ctr_carry_step s
	rev64	\s\().16b, v8.16b
	add	v8.2d, v8.2d, v9.2d
	cmeq	v11.2d, v8.2d, #0		// lane 1: lo wrapped to 0
	ext	v11.16b, v11.16b, v10.16b, #8	// ... moved to lane 0
	sub	v8.2d, v8.2d, v11.2d		// hi - (-1)
.endm

.macro	eor3_ops d, a, b, c
	eor3	\d\().16b, \a\().16b, \b\().16b, \c\().16b
.endm

// The rounds on the counter blocks in v0-v7, then out = v0-v7 ^ in ^ key
// \nr (the final AddRoundKey) for 8 blocks.
.macro	ctr_chunk nr, eor3
	rounds8	\nr, aese, aesmc
	ld1	{v8.16b-v11.16b}, [x3], #64
	ld1	{v12.16b-v15.16b}, [x3], #64
.if \eor3
	eor3_ops v0, v0, v8, v31
	eor3_ops v1, v1, v9, v31
	eor3_ops v2, v2, v10, v31
	eor3_ops v3, v3, v11, v31
	eor3_ops v4, v4, v12, v31
	eor3_ops v5, v5, v13, v31
	eor3_ops v6, v6, v14, v31
	eor3_ops v7, v7, v15, v31
.else
	eor_key	v31, v8, v9, v10, v11, v12, v13, v14, v15
	eor_states_v8_v15
.endif
	st1	{v0.16b-v3.16b}, [x4], #64
	st1	{v4.16b-v7.16b}, [x4], #64
.endm

// The 8 counter blocks into v0-v7 and the next counter into v16, by
// byte-wise ADDs of \inc = {0, ..., 0, 1} (no carry out of the last byte).
.macro	ctr_blocks inc
	mov	v0.16b, v16.16b
	add	v1.16b, v0.16b, \inc\().16b
	add	v2.16b, v1.16b, \inc\().16b
	add	v3.16b, v2.16b, \inc\().16b
	add	v4.16b, v3.16b, \inc\().16b
	add	v5.16b, v4.16b, \inc\().16b
	add	v6.16b, v5.16b, \inc\().16b
	add	v7.16b, v6.16b, \inc\().16b
	add	v16.16b, v7.16b, \inc\().16b
.endm

// The +1 of the last byte stays in v17 where the round keys leave it free
// (AES-128, AES-192); AES-256 reloads it into v8 per chunk.
.macro	ctr_body nr, eor3, b
	loop_enter \nr
	ld1	{v16.16b}, [x2]
	adrp	x6, .Lctr_consts
	add	x6, x6, :lo12:.Lctr_consts
.if \nr != 14
	ldr	q17, [x6]			// {0, ..., 0, 1}
.endif
1:	umov	w7, v16.b[15]
	subs	w7, w7, #0xff - 8
	b.hi	4f				// the last byte may wrap: one carry chunk
	neg	w7, w7
	lsr	w7, w7, #3
	add	x7, x7, #1			// chunks before that: (0xf7 - b) / 8 + 1
	cmp	x7, x5
	csel	x7, x7, x5, lo
	sub	x5, x5, x7
2:
.if \nr == 14
	ldr	q8, [x6]
	ctr_blocks v8
.else
	ctr_blocks v17
.endif
	ctr_chunk \nr, \eor3
	subs	x7, x7, #1
	b.ne	2b
	cbnz	x5, 1b
3:	st1	{v16.16b}, [x2]
	loop_leave
4:	ldr	q9, [x6, #16]			// {0, 1}: +1 on the low half
	movi	v10.2d, #0
	rev64	v8.16b, v16.16b			// {hi, lo} as integers
.irp s, v0, v1, v2, v3, v4, v5, v6, v7
	ctr_carry_step \s
.endr
	rev64	v16.16b, v8.16b
	ctr_chunk \nr, \eor3
	subs	x5, x5, #1
	b.ne	1b
	b	3b
.endm

	entry	hwc_aes_ce_ctr8, ctr_body, 0
	.arch	armv8.2-a+crypto+sha3
	entry	hwc_aes_ce_ctr8_eor3, ctr_body, 1
	.arch	armv8-a+crypto

// ---- XTS (IEEE 1619 tweak) --------------------------------------------------------
//
// void hwc_aes_ce_xts_enc8(const uint8_t* enc_keys, unsigned rounds,
//                          uint8_t tweak[16], const uint8_t* in, uint8_t* out,
//                          size_t chunks);
// void hwc_aes_ce_xts_dec8(const uint8_t* dec_keys, ...same...);
// C_i = E(P_i ^ T_i) ^ T_i with T_{i+1} = T_i * alpha; tweak holds T_0 on
// entry and the next unused tweak on return. Tweaks live in v8-v15.
// AES-128: 222 instructions per chunk (1.73 per byte), 40 of them tweaks.

// v\dst = v\src * alpha: the tweak is a little-endian 128-bit integer shifted
// left by one; the bit leaving each 64-bit half comes back as 1 in the upper
// half or as 0x87 in the lower (v16 = {0x87, 1}). v0 is scratch. Branch-free:
// the tweak is secret.
.macro	next_tweak dst, src
	sshr	v0.2d, v\src\().2d, #63
	add	v\dst\().2d, v\src\().2d, v\src\().2d
	ext	v0.16b, v0.16b, v0.16b, #8
	and	v0.16b, v0.16b, v16.16b
	eor	v\dst\().16b, v\dst\().16b, v0.16b
.endm

.macro	xts_body nr, op, mix
	loop_enter \nr
	ld1	{v8.16b}, [x2]
	adrp	x6, .Lxts_poly
	ldr	q16, [x6, :lo12:.Lxts_poly]
1:	next_tweak 9, 8
	next_tweak 10, 9
	next_tweak 11, 10
	next_tweak 12, 11
	next_tweak 13, 12
	next_tweak 14, 13
	next_tweak 15, 14
	mem8	ld1, x3
	eor_states_v8_v15
	rounds8	\nr, \op, \mix
	eor_key	v31, v0, v1, v2, v3, v4, v5, v6, v7
	eor_states_v8_v15
	mem8	st1, x4
	next_tweak 8, 15		// (v0 is its scratch: after the store)
	subs	x5, x5, #1
	b.ne	1b
	st1	{v8.16b}, [x2]
	loop_leave
.endm

	entry	hwc_aes_ce_xts_enc8, xts_body, aese, aesmc
	entry	hwc_aes_ce_xts_dec8, xts_body, aesd, aesimc

// ---- OCB ----------------------------------------------------------------------------
//
// void hwc_aes_ce_ocb_enc8(const uint8_t* enc_keys, unsigned rounds,
//                          OcbState* st, const uint8_t* in, uint8_t* out,
//                          size_t chunks);
// void hwc_aes_ce_ocb_dec8(const uint8_t* dec_keys, ...same...);
// OcbState (cores/core.h): offset at 0, checksum at 16, blocks at 32, l at
// 40; st->blocks must be a multiple of 8. Block i uses
// Offset_i = Offset_{i-1} ^ L[ntz(i)]: in a chunk starting at a multiple of
// 8 that is L0, L1, L0, L2, L0, L1, L0 and then L[ntz(i)] for its last block.
// The offsets are kept XORed with the last round key and key 0 is replaced
// by key 0 ^ last key, so the XOR with the offset before the cipher and the
// one after it also do the first and last AddRoundKey.
// AES-128: 195 instructions per chunk (1.52 per byte).

.macro	ocb_body nr, op, mix
	loop_enter \nr
	fold_first_key \nr
	ld1	{v15.16b}, [x2]			// Offset
	eor	v15.16b, v15.16b, v31.16b
	ldr	q16, [x2, #16]			// Checksum
	ldp	x7, x8, [x2, #32]		// blocks, L
1:	ld1	{v0.16b-v2.16b}, [x8]		// L0, L1, L2
	add	x7, x7, #8
	rbit	x9, x7
	clz	x9, x9
	ldr	q3, [x8, x9, lsl #4]		// L[ntz(blocks)]
	eor	v8.16b, v15.16b, v0.16b
	eor	v9.16b, v8.16b, v1.16b
	eor	v10.16b, v9.16b, v0.16b
	eor	v11.16b, v10.16b, v2.16b
	eor	v12.16b, v11.16b, v0.16b
	eor	v13.16b, v12.16b, v1.16b
	eor	v14.16b, v13.16b, v0.16b
	eor	v15.16b, v14.16b, v3.16b
	mem8	ld1, x3
.ifc \op, aese
	sum_states v16				// Checksum ^= P
.endif
	eor_states_v8_v15
	rounds8	\nr, \op, \mix
	eor_states_v8_v15
.ifc \op, aesd
	sum_states v16				// Checksum ^= P
.endif
	loop_next x4, x5
	eor	v15.16b, v15.16b, v31.16b
	st1	{v15.16b}, [x2]
	str	q16, [x2, #16]
	str	x7, [x2, #32]
	loop_leave
.endm

	entry	hwc_aes_ce_ocb_enc8, ocb_body, aese, aesmc
	entry	hwc_aes_ce_ocb_dec8, ocb_body, aesd, aesimc

// ---- constants ------------------------------------------------------------------------

	.section .rodata
	.p2align 4
.Lctr_consts:
	.byte	0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1
	.quad	0, 1
.Lxts_poly:
	.quad	0x87, 1

	.section .note.GNU-stack, "", %progbits
