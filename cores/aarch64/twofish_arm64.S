/* SPDX-License-Identifier: Apache-2.0 */
// Twofish block and mode kernels in base AArch64 (integer instructions only)
// for the "twofish-arm64-asm" core; twofish_asm.cpp declares the entry points
// (contracts of cores/core.h) and checks the schedule offsets below against
// cores/portable/twofish_schedule.h (g() tables s[4][256], then k[40]). NOT
// CONSTANT-TIME, like the portable core (cores/portable/twofish.cpp says why).
//
// A round is 8 table lookups, 6 EORs folding them into g(x) and g(rol8 y),
// 4 ADDs (PHT, round keys), 2 EORs into the other half and one LDP of the
// round keys; all 16 rounds unrolled. A byte is one AND of the 0xff mask with
// a rotated operand, scaled by 4 in the load. No rotate runs: g(rol8 y) reads
// y's bytes in rotated order, and each state word is kept as S with true
// value ROR(S, rho), rho known at assembly time, so the Feistel ROR1/ROL1
// become rotate amounts of the EORs and byte extracts, and the output
// whitening removes the rest (`eor out, key, S, ror #rho`). The parallel modes
// (ECB, CBC/CFB decryption, CTR, XTS, OCB) run two blocks interleaved
// instruction by instruction, so one block's load latency hides behind the
// other's work (two is what the 31 registers hold with all pointers, both
// states and the chaining value resident); serial modes and an odd last
// block use the one-block routines. Guest instructions per byte under
// qemu-aarch64 (Twofish-128, 16 KiB updates): ECB 29.5, CBC-dec 29.8, CFB-dec
// 30.0, CTR 30.2, XTS 30.4, OCB 30.7, CBC-enc/CFB-enc 30.6, OFB 30.9.
//
// Registers (x18, the platform register, is never touched): TB0-TB3 the g()
// tables (TB0 is the KeySchedule), KP &k[0], MASK 0xff; IVP the iv, tweak or
// OcbState; IN, OUT, N the blocks left; per block the words A B C D and
// scratch F G I (block 0: w10-w13, w19-w21; block 1: w14-w17, w22-w24); KA KB
// a key pair; CV0 CV1 the chaining value, counter, tweak or offset. The block
// routines clobber F, G, I, KA, KB and the state words only.
	.text
	.arch	armv8-a

TB0 .req x0;	IVP .req x1;	IN .req x2;	OUT .req x3;	N .req x4
TB1 .req x5;	TB2 .req x6;	TB3 .req x7;	KP .req x8;	MASK .req w9
KA .req w25;	KB .req w26;	xKA .req x25;	xKB .req x26
CV0 .req x27;	CV1 .req x28;	wCV0 .req w27;	wCV1 .req w28
// Block b's registers, w and x forms (A_0, xA_0, ...); both share MASK, KA, KB.
.macro	block_regs b, ra, rb, rc, rd, rf, rg, ri
	block_reg \b, A, \ra;	block_reg \b, B, \rb;	block_reg \b, C, \rc;	block_reg \b, D, \rd
	block_reg \b, F, \rf;	block_reg \b, G, \rg;	block_reg \b, I, \ri
	block_reg \b, MASK, 9;	block_reg \b, KA, 25;	block_reg \b, KB, 26
.endm
.macro	block_reg b, name, r
\name\()_\b .req w\r;	x\name\()_\b .req x\r
.endm
	block_regs 0, 10, 11, 12, 13, 19, 20, 21
	block_regs 1, 14, 15, 16, 17, 22, 23, 24
	.set	TF_TABLES, 0;	.set	TF_TABLE_STRIDE, 1024;	.set	TF_KEYS, 4096

// ---- rounds -------------------------------------------------------------------
// `each nb, step, args`: `step 0, args` and, with nb == 2, `step 1, args`, so
// the two blocks' chains interleave. Steps name registers without _0/_1.
.macro	each nb, step, args:vararg
	\step	0, \args
.if \nb == 2
	\step	1, \args
.endif
.endm
// d = a insn c, or a insn ROR(c, r) (the rotate taken mod 32).
.macro	op b, insn, d, a, c
	\insn	\d\()_\b, \a\()_\b, \c\()_\b
.endm
.macro	op_ror b, insn, d, a, c, r
	\insn	\d\()_\b, \a\()_\b, \c\()_\b, ror #((\r) & 31)
.endm
// acc = s[t][byte of src at bit `rot`] for t = 0, acc ^= it for t = 1..3.
.macro	g_step nb, acc, src, rot, t
.if \t == 0
	g_lookup \nb, \acc, \src, \rot, TB0
.else
	g_lookup \nb, I, \src, \rot, TB\t
	each	\nb, op, eor, \acc, \acc, I
.endif
.endm
.macro	g_lookup nb, acc, src, rot, tab
	each	\nb, op_ror, and, \acc, MASK, \src, \rot
	each	\nb, table_load, \acc, \tab
.endm
.macro	table_load b, acc, tab
	ldr	\acc\()_\b, [\tab, \acc\()_\b, uxtw #2]
.endm

// One Feistel round: x and y (true values ROR(x, rx), ROR(y, ry)) give
//     F = g(x) + g(rol8 y) + K[koff/4],  G = g(x) + 2 g(rol8 y) + K[koff/4 + 1],
// XORed into u and v rotated right by ru and rv: -rho for XOR-then-ROR1 on a
// word at rho, 1 - rho for ROL1-then-XOR.
.macro	round nb, x, y, u, v, rx, ry, ru, rv, koff
	ldp	KA, KB, [KP, #(\koff)]
.irp	t, 0, 1, 2, 3
	g_step	\nb, F, \x, (\rx+8*\t), \t
	g_step	\nb, G, \y, (\ry+8*\t+24), \t
.endr
	each	\nb, op, add, F, F, G
	each	\nb, op, add, G, F, G
	each	\nb, op, add, F, F, KA
	each	\nb, op, add, G, G, KB
	each	\nb, op_ror, eor, \u, \u, F, \ru
	each	\nb, op_ror, eor, \v, \v, G, \rv
.endm

// w_i = K[koff/4 + i] ^ ROR(w_i, r_i): input and output whitening.
.macro	whiten nb, w0, w1, w2, w3, r0, r1, r2, r3, koff
	ldp	KA, KB, [KP, #(\koff)]
	each	\nb, op_ror, eor, \w0, KA, \w0, \r0
	each	\nb, op_ror, eor, \w1, KB, \w1, \r1
	ldp	KA, KB, [KP, #(\koff+8)]
	each	\nb, op_ror, eor, \w2, KA, \w2, \r2
	each	\nb, op_ror, eor, \w3, KB, \w3, \r3
.endm

// Encryption: plaintext words in A B C D, ciphertext left in C D A B (the
// final swap is a renaming); after round pair i every word is at rotation
// +-(i+1): A, C drift right (XOR then ROR1), B, D left. Decryption: the
// reverse, round keys from K38/K39 down.
.macro	encrypt_body nb
	whiten	\nb, A, B, C, D, 0, 0, 0, 0, 0
.irp i, 0, 1, 2, 3, 4, 5, 6, 7
	round	\nb, A, B, C, D, (\i), (-\i), (-\i), (1+\i), (32+16*\i)
	round	\nb, C, D, A, B, (\i+1), (-\i-1), (-\i), (1+\i), (40+16*\i)
.endr
	whiten	\nb, C, D, A, B, 8, 24, 8, 24, 16
.endm
.macro	decrypt_body nb
	whiten	\nb, C, D, A, B, 0, 0, 0, 0, 16
.irp i, 0, 1, 2, 3, 4, 5, 6, 7
	round	\nb, C, D, A, B, (-\i), (\i), (1+\i), (-\i), (152-16*\i)
	round	\nb, A, B, C, D, (-\i-1), (\i+1), (1+\i), (-\i), (144-16*\i)
.endr
	whiten	\nb, A, B, C, D, 24, 8, 24, 8, 0
.endm

// ---- block routines tf_enc1/2, tf_dec1/2 (bl; register roles above) ----------
.macro	function name
	.p2align 4
	.type	\name, %function
\name:
	.cfi_startproc
.endm
.macro	end_function name
	.cfi_endproc
	.size	\name, . - \name
.endm
.macro	entry_point name	// exported from the object, not from the module
	.globl	\name
	.hidden	\name
	function \name
.endm
.irp	dir, enc, dec
.irp	nb, 1, 2
function tf_\dir\nb
	\dir\()rypt_body \nb
	ret
	end_function tf_\dir\nb
.endr
.endr
// ---- entry points: frame ------------------------------------------------------
// Saves x19..x30, sets up the table and key pointers. 112-byte frame: x29/x30,
// x19..x28, then 16 bytes (STASH) where XTS and OCB keep a pair's first mask.
	.set	STASH, 96
.macro	prologue
	stp	x29, x30, [sp, #-112]!
	.cfi_def_cfa_offset 112
	.cfi_offset x29, -112
	.cfi_offset x30, -104
	mov	x29, sp
	save_pair 19, 20;	save_pair 21, 22;	save_pair 23, 24
	save_pair 25, 26;	save_pair 27, 28
	add	TB1, TB0, #(TF_TABLES + 1*TF_TABLE_STRIDE)
	add	TB2, TB0, #(TF_TABLES + 2*TF_TABLE_STRIDE)
	add	TB3, TB0, #(TF_TABLES + 3*TF_TABLE_STRIDE)
	add	KP, TB0, #TF_KEYS
	mov	MASK, #0xff
.endm
.macro	save_pair r0, r1
	stp	x\r0, x\r1, [sp, #(8*\r0 - 136)]
	.cfi_offset x\r0, 8*\r0 - 248
	.cfi_offset x\r1, 8*\r0 - 240
.endm
// Code after it (the early `9: ret`) runs in the entry state, as the CFI says.
.macro	epilogue
	ldp	x19, x20, [sp, #16];	ldp	x21, x22, [sp, #32];	ldp	x23, x24, [sp, #48]
	ldp	x25, x26, [sp, #64];	ldp	x27, x28, [sp, #80]
	ldp	x29, x30, [sp], #112
	.cfi_def_cfa_offset 0
.irp	r, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30
	.cfi_restore x\r
.endr
	ret
.endm

// A parallel-mode kernel: CV0/CV1 from *IVP (if `cv`), `setup`, pairs of
// blocks through `load dir, 2`, the 2-block routine and `finish dir, 2` (they
// step IN and OUT), an odd last block the same with 1, `done`, CV0/CV1 back.
.macro	parallel_kernel name, dir, load, finish, setup=, done=, cv=1, count=x4
entry_point \name
	cbz	\count, 9f
	prologue
.if \cv
	ldp	CV0, CV1, [IVP]
.endif
	\setup
	subs	N, N, #2
	b.lo	2f
1:	\load	\dir, 2
	bl	tf_\dir\()2
	\finish	\dir, 2
	subs	N, N, #2
	b.hs	1b
2:	tbz	N, #0, 3f		// N is -1 when one block is left, -2 when none
	\load	\dir, 1
	bl	tf_\dir\()1
	\finish	\dir, 1
3:	\done
.if \cv
	stp	CV0, CV1, [IVP]
.endif
	epilogue
9:	ret
	end_function \name
.endm

.macro	blocks_args		// BlocksFn (ks, in, out, nblocks) into the ChainFn layout
	mov	N, x3
	mov	OUT, x2
	mov	IN, x1
.endm
// `in_dir m, args`: `m args, w0, w1, w2, w3`, a block's words in memory order
// as the `dir` routine takes them; `out_dir`: as it leaves them.
.macro	in_enc m, args:vararg
	\m	\args, A, B, C, D
.endm
.macro	in_dec m, args:vararg
	\m	\args, C, D, A, B
.endm
.macro	out_enc m, args:vararg
	in_dec	\m, \args
.endm
.macro	out_dec m, args:vararg
	in_enc	\m, \args
.endm
// nb blocks from IN into the words or from the words to OUT, stepping it.
.macro	ld_blocks dir, nb
	in_\dir	move_blocks, ldp, IN, \nb
.endm
.macro	st_blocks dir, nb
	out_\dir move_blocks, stp, OUT, \nb
.endm
.macro	move_blocks insn, ptr, nb, w0, w1, w2, w3
.if \nb == 2
	\insn	\w0\()_1, \w1\()_1, [\ptr, #16]
	\insn	\w2\()_1, \w3\()_1, [\ptr, #24]
.endif
	\insn	\w2\()_0, \w3\()_0, [\ptr, #8]
	\insn	\w0\()_0, \w1\()_0, [\ptr], #(16*\nb)
.endm

// ---- ECB, CBC and CFB decryption, CTR -----------------------------------------
// CBC decryption: P_i = D(C_i) ^ C_{i-1}, C_{i-1} in CV0/CV1 (two
// little-endian halves); every C_i is loaded before the stores (in == out).
.macro	cbc_dec_finish dir, nb
	cbc_xor_cv 0
.if \nb == 2
	ldp	CV0, CV1, [IN, #-32]
	cbc_xor_cv 1
.endif
	ldp	CV0, CV1, [IN, #-16]
	st_blocks dec, \nb
.endm
.macro	cbc_xor_cv b
	eor	A_\b, A_\b, wCV0
	eor	xB_\b, xB_\b, CV0, lsr #32	// (only the low 32 bits are stored)
	eor	C_\b, C_\b, wCV1
	eor	xD_\b, xD_\b, CV1, lsr #32
.endm
// Keystream (an encryption's output) ^= nb input blocks at IN, to OUT.
.macro	keystream_out dir, nb
	each	\nb, ld_words, F, G, 0
	each	\nb, op, eor, C, C, F
	each	\nb, op, eor, D, D, G
	each	\nb, ld_words, F, G, 8
	each	\nb, op, eor, A, A, F
	each	\nb, op, eor, B, B, G
.if \nb == 2
	add	IN, IN, #32
.endif
	st_blocks enc, \nb
.endm
.macro	ld_words b, w0, w1, off
	ldp	\w0\()_\b, \w1\()_\b, [IN, #(16*\b + \off)]
.endm
// CFB decryption: P_i = C_i ^ E(C_{i-1}); block 0 encrypts C_{i-1} (CV0/CV1),
// block 1 the first block at IN.
.macro	cfb_dec_load dir, nb
	mov	A_0, wCV0
	lsr	xB_0, CV0, #32
	mov	C_0, wCV1
	lsr	xD_0, CV1, #32
.if \nb == 2
	ldp	A_1, B_1, [IN]
	ldp	C_1, D_1, [IN, #8]
.endif
.endm
.macro	cfb_dec_finish dir, nb
	ldp	CV0, CV1, [IN, #(16*\nb - 16)]	// the last C_i chains on
	keystream_out \dir, \nb
.endm
// CTR: the big-endian counter as native integers, CV0 high and CV1 low half
// (rev_cv on the way in and out): ADDS/ADC step it mod 2^128.
.macro	ctr_load dir, nb
	each	\nb, ctr_block
.endm
.macro	ctr_block b
	rev	xA_\b, CV0
	lsr	xB_\b, xA_\b, #32
	rev	xC_\b, CV1
	lsr	xD_\b, xC_\b, #32
	adds	CV1, CV1, #1
	adc	CV0, CV0, xzr
.endm
.macro	rev_cv
	rev	CV0, CV0
	rev	CV1, CV1
.endm

parallel_kernel hwc_twofish_arm64_ecb_encrypt, enc, ld_blocks, st_blocks, blocks_args, , 0, x3
parallel_kernel hwc_twofish_arm64_ecb_decrypt, dec, ld_blocks, st_blocks, blocks_args, , 0, x3
parallel_kernel hwc_twofish_arm64_cbc_decrypt, dec, ld_blocks, cbc_dec_finish
parallel_kernel hwc_twofish_arm64_cfb_decrypt, enc, cfb_dec_load, cfb_dec_finish
parallel_kernel hwc_twofish_arm64_ctr, enc, ctr_load, keystream_out, rev_cv, rev_cv

// ---- XTS and OCB --------------------------------------------------------------
// Both mask each block before and after the cipher with its own 128-bit value
// (tweak, offset) in CV0 (bytes 0..7) and CV1 (8..15), little-endian; a pair's
// first mask waits in STASH. Blocks are masked as 64-bit halves, split into
// words afterwards (the block routines read only the low 32 bits of each) and
// joined back by one ORR per half.
// nb blocks from IN, masked: block 0 with CV0/CV1, which `next` steps on for
// block 1; with `ck` the plaintext is first folded into the checksum xKA/xKB.
.macro	load_masked dir, nb, next=xts_next_tweak, ck=0
	in_\dir	load_masked1, 0, \ck
.if \nb == 2
	stp	CV0, CV1, [sp, #STASH]
	\next
	in_\dir	load_masked1, 1, \ck
	add	IN, IN, #32
.endif
.endm
.macro	load_masked1 b, ck, w0, w1, w2, w3
	ldp	x\w0\()_\b, x\w2\()_\b, [IN, #(16*\b)]
.if \ck
	eor	xKA, xKA, x\w0\()_\b
	eor	xKB, xKB, x\w2\()_\b
.endif
	eor	x\w0\()_\b, x\w0\()_\b, CV0
	eor	x\w2\()_\b, x\w2\()_\b, CV1
	lsr	x\w1\()_\b, x\w0\()_\b, #32
	lsr	x\w3\()_\b, x\w2\()_\b, #32
.endm
// The nb output blocks, masked again, to OUT (with `ck`: and into the checksum).
.macro	store_masked dir, nb, ck=0
.if \nb == 2
	ldp	xF_0, xG_0, [sp, #STASH]
	out_\dir store_masked1, 0, xF_0, xG_0, \ck
	out_\dir store_masked1, 1, CV0, CV1, \ck
	add	OUT, OUT, #32
.else
	out_\dir store_masked1, 0, CV0, CV1, \ck
.endif
.endm
.macro	store_masked1 b, m0, m1, ck, w0, w1, w2, w3
	orr	xI_0, x\w0\()_\b, x\w1\()_\b, lsl #32
	orr	xI_1, x\w2\()_\b, x\w3\()_\b, lsl #32
	eor	xI_0, xI_0, \m0
	eor	xI_1, xI_1, \m1
.if \ck
	eor	xKA, xKA, xI_0
	eor	xKB, xKB, xI_1
.endif
	stp	xI_0, xI_1, [OUT, #(16*\b)]
.endm
// XTS over whole blocks of one data unit; tweak times alpha (IEEE 1619:
// little-endian, x^128 = x^7+x^2+x+1), branch-free since the tweak is secret.
.macro	xts_next_tweak
	asr	xI_0, CV1, #63
	mov	xI_1, #0x87		// (not encodable as an AND immediate)
	extr	CV1, CV1, CV0, #63
	and	xI_0, xI_0, xI_1
	eor	CV0, xI_0, CV0, lsl #1
.endm
.macro	xts_finish dir, nb
	store_masked \dir, \nb
	xts_next_tweak
.endm
// OCB (RFC 7253): checksum ^= P_i, C_i = Offset_i ^ E(P_i ^ Offset_i) or
// P_i = Offset_i ^ D(C_i ^ Offset_i). OcbState (cores/core.h, offsets checked
// in twofish_asm.cpp): offset at 0 (in CV0/CV1 throughout), checksum at 16,
// blocks at 32, L at 40; block count and checksum go back per pair.
// blocks += 1 (in xF_0), offset ^= L[ntz(blocks)] (L table in xG_0).
.macro	ocb_next_offset
	add	xF_0, xF_0, #1
	rbit	xI_0, xF_0
	clz	xI_0, xI_0
	add	xI_0, xG_0, xI_0, lsl #4
	ldp	xF_1, xG_1, [xI_0]
	eor	CV0, CV0, xF_1
	eor	CV1, CV1, xG_1
.endm
.macro	ocb_load dir, nb
	ldp	xF_0, xG_0, [IVP, #32]	// blocks, L
.ifc \dir, enc
	ldp	xKA, xKB, [IVP, #16]	// checksum
	ocb_next_offset
	load_masked enc, \nb, ocb_next_offset, 1
	stp	xKA, xKB, [IVP, #16]
.else
	ocb_next_offset
	load_masked dec, \nb, ocb_next_offset
.endif
	str	xF_0, [IVP, #32]
.endm
.macro	ocb_finish dir, nb
.ifc \dir, enc
	store_masked enc, \nb
.else
	ldp	xKA, xKB, [IVP, #16]
	store_masked dec, \nb, 1
	stp	xKA, xKB, [IVP, #16]
.endif
.endm

.irp	dir, enc, dec
parallel_kernel hwc_twofish_arm64_xts_\dir\()rypt, \dir, load_masked, xts_finish
parallel_kernel hwc_twofish_arm64_ocb_\dir\()rypt, \dir, ocb_load, ocb_finish
.endr

// ---- serial modes: CBC and CFB encryption, OFB --------------------------------
// One block at a time through tf_enc1, the chaining value or OFB register in
// the words w0..w3 between blocks; `step` does a block, stepping IN and OUT.
.macro	serial_kernel name, step, w0, w1, w2, w3
entry_point \name
	cbz	x4, 9f
	prologue
	ldp	\w0\()_0, \w1\()_0, [IVP]
	ldp	\w2\()_0, \w3\()_0, [IVP, #8]
1:	\step
	subs	N, N, #1
	b.ne	1b
	stp	\w0\()_0, \w1\()_0, [IVP]
	stp	\w2\()_0, \w3\()_0, [IVP, #8]
	epilogue
9:	ret
	end_function \name
.endm

// CBC encryption: C_i = E(P_i ^ C_{i-1}), chaining value in C D A B.
.macro	cbc_enc_step
	move_blocks ldp, IN, 1, F, G, I, KA	// the input block
	eor	I_0, I_0, A_0		// word 2 = P2 ^ chaining word 2 (in A)
	eor	KA, KA, B_0
	eor	A_0, F_0, C_0		// word 0 = P0 ^ chaining word 0 (in C)
	eor	B_0, G_0, D_0
	mov	C_0, I_0
	mov	D_0, KA
	bl	tf_enc1
	st_blocks enc, 1
.endm
// CFB encryption: C_i = P_i ^ E(C_{i-1}), the register (A B C D) = C_i.
.macro	cfb_enc_step
	bl	tf_enc1			// keystream in C D A B
	move_blocks ldp, IN, 1, F, G, I, KA	// the input block
	eor	F_0, F_0, C_0
	eor	G_0, G_0, D_0
	eor	C_0, I_0, A_0
	eor	D_0, KA, B_0
	mov	A_0, F_0
	mov	B_0, G_0
	st_blocks dec, 1
.endm
// OFB: the register (A B C D) becomes E(register); output = input ^ register.
.macro	ofb_step
	bl	tf_enc1			// new register in C D A B
	mov	F_0, A_0		// back to A B C D
	mov	G_0, B_0
	mov	A_0, C_0
	mov	B_0, D_0
	mov	C_0, F_0
	mov	D_0, G_0
	move_blocks ldp, IN, 1, F, G, I, KA	// the input block
	eor	F_0, F_0, A_0
	eor	G_0, G_0, B_0
	eor	I_0, I_0, C_0
	eor	KA, KA, D_0
	move_blocks stp, OUT, 1, F, G, I, KA
.endm

serial_kernel hwc_twofish_arm64_cbc_encrypt, cbc_enc_step, C, D, A, B
serial_kernel hwc_twofish_arm64_cfb_encrypt, cfb_enc_step, A, B, C, D
serial_kernel hwc_twofish_arm64_ofb, ofb_step, A, B, C, D

	.section .note.GNU-stack, "", %progbits
