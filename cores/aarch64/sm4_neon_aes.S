/* SPDX-License-Identifier: Apache-2.0 */
// The 16-block byte-sliced SM4 step of the "sm4-neon-aes" core
// (sm4_neon_aes.cpp explains the technique and generates, and checks at
// compile time, the constants this code reads). Written in assembly because
// it needs all 32 vector registers: 16 state, 6 constants, 4 round-key
// bytes, 6 scratch; compiled intrinsics spilled in the round loop.
//
//   void hwc_sm4_neon_aes_crypt16(const uint8_t* rk4, const uint8_t* in,
//                                 uint8_t* out, const uint8_t* consts);
//
// rk4: 32 rounds x 4 bytes of Pre(rk) (big-endian byte order); in/out: 16
// blocks (in == out allowed: all are loaded before any is stored); consts:
// nine 16-byte vectors, in this order: the inverse ShiftRows TBL index, F0
// low/high nibble tables, F1 low/high, Q low/high, Q^-1 low/high.
//
// Register roles:
//     x0 rk4 (advances)   x1 in   x2 out   x3 consts   x4 loop counter
//     v0-v15   state: v(4w + j) holds byte j of word X_w of the 16 blocks
//              (lane 4b + g is block 4g + b)
//     v16      0x0f in every byte        v17 inverse ShiftRows index
//     v18 v19  F0 nibble tables          v20 v21 F1 nibble tables
//     v22-v25  the round's 4 key bytes, each in every lane (LD4R); the Q or
//              Q^-1 tables (v22, v23) outside the round loop
//     v26-v31  scratch
// Cost: 69 instructions a round (17 per byte register plus the LD4R),
// 2232 for the 32 rounds, about 2500 for 16 blocks with the transposes and
// the Q maps (9.8 per byte).

	.text
	.arch	armv8-a+crypto

// The 4x4 exchange between "lane 4b + w of register g" and "lane 4b + g of
// register w": byte transposes at 8, then at 16 bits; its own inverse.
.macro	exchange a0, a1, a2, a3
	trn1	v26.16b, v\a0\().16b, v\a1\().16b
	trn2	v27.16b, v\a0\().16b, v\a1\().16b
	trn1	v28.16b, v\a2\().16b, v\a3\().16b
	trn2	v29.16b, v\a2\().16b, v\a3\().16b
	trn1	v\a0\().8h, v26.8h, v28.8h
	trn1	v\a1\().8h, v27.8h, v29.8h
	trn2	v\a2\().8h, v26.8h, v28.8h
	trn2	v\a3\().8h, v27.8h, v29.8h
.endm

// A byte-wise linear map from its nibble tables (v22 low, v23 high).
.macro	nibmap r
	and	v26.16b, v\r\().16b, v16.16b
	ushr	v27.16b, v\r\().16b, #4
	tbl	v26.16b, {v22.16b}, v26.16b
	tbl	v27.16b, {v23.16b}, v27.16b
	eor	v\r\().16b, v26.16b, v27.16b
.endm
.macro	nibmap4 a, b, c, d
	nibmap	\a
	nibmap	\b
	nibmap	\c
	nibmap	\d
.endm

// One byte position of a round: y = AESE(InvShiftRows(x1 ^ x2 ^ x3), key),
// then F0 y into o0 and o1, F1 y into o1, o2, o3 (the target word's bytes
// j, j+1, j+2, j+3 mod 4).
.macro	sm4_byte o0, o1, o2, o3, x1, x2, x3, key
	eor	v26.16b, v\x1\().16b, v\x2\().16b
	eor	v26.16b, v26.16b, v\x3\().16b
	tbl	v26.16b, {v26.16b}, v17.16b
	aese	v26.16b, v\key\().16b
	and	v27.16b, v26.16b, v16.16b
	ushr	v28.16b, v26.16b, #4
	tbl	v29.16b, {v18.16b}, v27.16b
	tbl	v26.16b, {v19.16b}, v28.16b
	eor	v29.16b, v29.16b, v26.16b
	tbl	v30.16b, {v20.16b}, v27.16b
	tbl	v26.16b, {v21.16b}, v28.16b
	eor	v30.16b, v30.16b, v26.16b
	eor	v\o0\().16b, v\o0\().16b, v29.16b
	eor	v29.16b, v29.16b, v30.16b
	eor	v\o1\().16b, v\o1\().16b, v29.16b
	eor	v\o2\().16b, v\o2\().16b, v30.16b
	eor	v\o3\().16b, v\o3\().16b, v30.16b
.endm

// One round: word (a0..a3) ^= T(word b ^ word c ^ word d), each word given
// as its four byte registers.
.macro	sm4_round a0, a1, a2, a3, b0, b1, b2, b3, c0, c1, c2, c3, d0, d1, d2, d3
	ld4r	{v22.16b-v25.16b}, [x0], #4
	sm4_byte \a0, \a1, \a2, \a3, \b0, \c0, \d0, 22
	sm4_byte \a1, \a2, \a3, \a0, \b1, \c1, \d1, 23
	sm4_byte \a2, \a3, \a0, \a1, \b2, \c2, \d2, 24
	sm4_byte \a3, \a0, \a1, \a2, \b3, \c3, \d3, 25
.endm

	.globl	hwc_sm4_neon_aes_crypt16
	.type	hwc_sm4_neon_aes_crypt16, %function
	.p2align 4
hwc_sm4_neon_aes_crypt16:
	stp	d8, d9, [sp, #-64]!
	stp	d10, d11, [sp, #16]
	stp	d12, d13, [sp, #32]
	stp	d14, d15, [sp, #48]

	// Blocks 4g..4g+3: LD4 leaves byte j of their 16 words in v(4g + j),
	// lane 4b + w; the exchange makes that lane 4b + g of v(4w + j).
	ld4	{v0.16b-v3.16b}, [x1], #64
	ld4	{v4.16b-v7.16b}, [x1], #64
	ld4	{v8.16b-v11.16b}, [x1], #64
	ld4	{v12.16b-v15.16b}, [x1]
	movi	v16.16b, #0x0f
	ld1	{v17.16b-v20.16b}, [x3]
	ldr	q21, [x3, #64]
	ldp	q22, q23, [x3, #80]
	exchange 0, 4, 8, 12
	exchange 1, 5, 9, 13
	exchange 2, 6, 10, 14
	exchange 3, 7, 11, 15
	// Into the Q domain.
	nibmap4	0, 1, 2, 3
	nibmap4	4, 5, 6, 7
	nibmap4	8, 9, 10, 11
	nibmap4	12, 13, 14, 15

	mov	x4, #8
1:	sm4_round 0, 1, 2, 3,  4, 5, 6, 7,  8, 9, 10, 11,  12, 13, 14, 15
	sm4_round 4, 5, 6, 7,  8, 9, 10, 11,  12, 13, 14, 15,  0, 1, 2, 3
	sm4_round 8, 9, 10, 11,  12, 13, 14, 15,  0, 1, 2, 3,  4, 5, 6, 7
	sm4_round 12, 13, 14, 15,  0, 1, 2, 3,  4, 5, 6, 7,  8, 9, 10, 11
	subs	x4, x4, #1
	b.ne	1b

	// Out of the Q domain; the output block is (X35, X34, X33, X32) =
	// words 3, 2, 1, 0: exchanging (v(12 + j), v(8 + j), v(4 + j), v(j))
	// leaves blocks 0-3 in v12-v15, 4-7 in v8-v11, 8-11 in v4-v7 and
	// 12-15 in v0-v3, each ready for ST4.
	ldp	q22, q23, [x3, #112]
	nibmap4	0, 1, 2, 3
	nibmap4	4, 5, 6, 7
	nibmap4	8, 9, 10, 11
	nibmap4	12, 13, 14, 15
	exchange 12, 8, 4, 0
	exchange 13, 9, 5, 1
	exchange 14, 10, 6, 2
	exchange 15, 11, 7, 3
	st4	{v12.16b-v15.16b}, [x2], #64
	st4	{v8.16b-v11.16b}, [x2], #64
	st4	{v4.16b-v7.16b}, [x2], #64
	st4	{v0.16b-v3.16b}, [x2]

	ldp	d10, d11, [sp, #16]
	ldp	d12, d13, [sp, #32]
	ldp	d14, d15, [sp, #48]
	ldp	d8, d9, [sp], #64
	ret
	.size	hwc_sm4_neon_aes_crypt16, . - hwc_sm4_neon_aes_crypt16

	.section .note.GNU-stack, "", %progbits
