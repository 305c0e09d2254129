/* SPDX-License-Identifier: Apache-2.0 */
// SM4-XTS bulk loop for the "sm4-armv8-ce" core (sm4_ce.cpp, which sets up
// the first tweaks, runs the last 0..7 blocks and documents the SM4E data
// layout). Written in assembly because it needs the eight tweaks in two
// groups of four consecutive registers (TBL/TBX tables) and all 32 vector
// registers; compiled intrinsics spilled.
//
// Each iteration runs 8 blocks: C_i = E(P_i ^ T_i) ^ T_i (or D for
// decryption: the caller passes the decryption round keys), then advances
// every tweak by x^8 for the next iteration. Multiplying by x^8 rotates a
// tweak by one byte (EXT #15), which is already right except for its new
// bytes 0 and 1: they depend only on the byte b that rotated round (old
// byte 15) and on the old byte 0:
//   IEEE 1619 (little-endian, reduction 0x87):
//       new[0] = b ^ lo(b * 0x86),  new[1] = old[0] ^ hi(b * 0x86)
//   GB/T 17964 (bit-reflected big-endian, reduction 0xE1 -> b * 0x1C2
//   over bytes 0..1 big-endian, whose b * 0x100 part is b itself):
//       new[0] = b ^ hi(b * 0xC2),  new[1] = old[0] ^ lo(b * 0xC2)
// where * is the carry-less 8x8 -> 16-bit product. The eight (b, old[0])
// pairs are gathered into one register (TBL + TBX), the eight products come
// from one PMULL .8H (base Advanced SIMD, not the crypto PMULL), put in
// (lo, hi) or (hi, lo) byte order by one TBL, and XORed in; each tweak then
// takes its pair with one INS. That is 6 + 2 * 8 = 22 instructions for 8
// tweaks instead of 5 per one-bit step.
// Cost: 124 guest instructions per 128 bytes in the loop (0.97 per byte).
//
// Register roles:
//     x0 round keys (8 x 16 bytes, SM4E order)   x1 tweaks (8 x 16 bytes, in/out)
//     x2 in   x3 out   x4 batches of 8 blocks (>= 1)   w5 nonzero for GB
//     v0-v7   data blocks, then scratch for the tweak update
//     v8      TBL index: whole register reversed (state -> output bytes)
//     v9 v10  TBL/TBX indices gathering (old[15], old[0]) of tweaks 0-3 / 4-7
//     v11     the multiplier byte (0x86 or 0xC2) in every lane
//     v12     TBL index putting the products in the rule's byte order
//     v16-v23 tweaks T0..T7          v24-v31 round keys rk0..rk31, 4 per vector

	.text
	.arch	armv8.2-a+sm4

	.section .rodata
	.p2align 4
.Lconsts:
	.byte	15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0
	.byte	15, 0, 31, 16, 47, 32, 63, 48, 255, 255, 255, 255, 255, 255, 255, 255
	.byte	255, 255, 255, 255, 255, 255, 255, 255, 15, 0, 31, 16, 47, 32, 63, 48
.Lieee:
	.fill	16, 1, 0x86
	.byte	0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15
.Lgb:
	.fill	16, 1, 0xc2
	.byte	1, 0, 3, 2, 5, 4, 7, 6, 9, 8, 11, 10, 13, 12, 15, 14

	.text

// Four rounds (one round-key vector) on all eight blocks.
.macro	sm4e8 k
	sm4e	v0.4s, \k\().4s
	sm4e	v1.4s, \k\().4s
	sm4e	v2.4s, \k\().4s
	sm4e	v3.4s, \k\().4s
	sm4e	v4.4s, \k\().4s
	sm4e	v5.4s, \k\().4s
	sm4e	v6.4s, \k\().4s
	sm4e	v7.4s, \k\().4s
.endm

// v0..v7 ^= T0..T7
.macro	xor_tweaks
	eor	v0.16b, v0.16b, v16.16b
	eor	v1.16b, v1.16b, v17.16b
	eor	v2.16b, v2.16b, v18.16b
	eor	v3.16b, v3.16b, v19.16b
	eor	v4.16b, v4.16b, v20.16b
	eor	v5.16b, v5.16b, v21.16b
	eor	v6.16b, v6.16b, v22.16b
	eor	v7.16b, v7.16b, v23.16b
.endm

// Tweak t times x^8, its new bytes 0..1 taken from halfword i of v0.
.macro	next_tweak t, i
	ext	\t\().16b, \t\().16b, \t\().16b, #15
	mov	\t\().h[0], v0.h[\i]
.endm

// void hwc_sm4_ce_xts_crypt8(const uint8_t rk[128], uint8_t tweaks[128],
//                            const uint8_t* in, uint8_t* out, size_t batches,
//                            uint32_t gb);
	.p2align 4
	.globl	hwc_sm4_ce_xts_crypt8
	.hidden	hwc_sm4_ce_xts_crypt8
	.type	hwc_sm4_ce_xts_crypt8, %function
hwc_sm4_ce_xts_crypt8:
	// v8-v15 are callee-saved (their low halves); v8-v12 are used.
	stp	d8, d9, [sp, #-48]!
	stp	d10, d11, [sp, #16]
	str	d12, [sp, #32]

	ld1	{v24.16b-v27.16b}, [x0], #64
	ld1	{v28.16b-v31.16b}, [x0]
	ld1	{v16.16b-v19.16b}, [x1], #64
	ld1	{v20.16b-v23.16b}, [x1]
	sub	x1, x1, #64
	adrp	x6, .Lconsts
	add	x6, x6, :lo12:.Lconsts
	ld1	{v8.16b-v10.16b}, [x6]
	add	x7, x6, #(.Lgb - .Lconsts)
	add	x6, x6, #(.Lieee - .Lconsts)
	cmp	w5, #0
	csel	x6, x7, x6, ne
	ld1	{v11.16b, v12.16b}, [x6]

1:	ld1	{v0.16b-v3.16b}, [x2], #64
	ld1	{v4.16b-v7.16b}, [x2], #64
	xor_tweaks
	// SM4 words are big-endian: lane i = X_i as a native integer.
	rev32	v0.16b, v0.16b
	rev32	v1.16b, v1.16b
	rev32	v2.16b, v2.16b
	rev32	v3.16b, v3.16b
	rev32	v4.16b, v4.16b
	rev32	v5.16b, v5.16b
	rev32	v6.16b, v6.16b
	rev32	v7.16b, v7.16b
	sm4e8	v24
	sm4e8	v25
	sm4e8	v26
	sm4e8	v27
	sm4e8	v28
	sm4e8	v29
	sm4e8	v30
	sm4e8	v31
	// (X32..X35) in lanes 0..3 -> output (X35..X32) big-endian.
	tbl	v0.16b, {v0.16b}, v8.16b
	tbl	v1.16b, {v1.16b}, v8.16b
	tbl	v2.16b, {v2.16b}, v8.16b
	tbl	v3.16b, {v3.16b}, v8.16b
	tbl	v4.16b, {v4.16b}, v8.16b
	tbl	v5.16b, {v5.16b}, v8.16b
	tbl	v6.16b, {v6.16b}, v8.16b
	tbl	v7.16b, {v7.16b}, v8.16b
	xor_tweaks
	st1	{v0.16b-v3.16b}, [x3], #64
	st1	{v4.16b-v7.16b}, [x3], #64

	// v0 halfword i = (old[15], old[0]) of tweak i.
	tbl	v0.16b, {v16.16b-v19.16b}, v9.16b
	tbx	v0.16b, {v20.16b-v23.16b}, v10.16b
	xtn	v1.8b, v0.8h                    // the eight b = old[15]
	pmull	v1.8h, v1.8b, v11.8b
	tbl	v1.16b, {v1.16b}, v12.16b
	eor	v0.16b, v0.16b, v1.16b          // halfword i = new bytes 0..1 of tweak i
	next_tweak v16, 0
	next_tweak v17, 1
	next_tweak v18, 2
	next_tweak v19, 3
	next_tweak v20, 4
	next_tweak v21, 5
	next_tweak v22, 6
	next_tweak v23, 7
	subs	x4, x4, #1
	b.ne	1b

	st1	{v16.16b-v19.16b}, [x1], #64
	st1	{v20.16b-v23.16b}, [x1]
	ldr	d12, [sp, #32]
	ldp	d10, d11, [sp, #16]
	ldp	d8, d9, [sp], #48
	ret
	.size	hwc_sm4_ce_xts_crypt8, . - hwc_sm4_ce_xts_crypt8

	.section .note.GNU-stack, "", %progbits
