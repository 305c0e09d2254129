/* SPDX-License-Identifier: Apache-2.0 */
// Twofish block and mode kernels in base AArch64 (A64 integer instructions
// only), used by the "twofish-arm64-asm" core (twofish_asm.cpp).
//
// The key schedule is the portable core's (cores/portable/twofish_schedule.h):
//     offset    0: s[4][256]  the key-dependent g() tables, 1 KiB apart
//     offset 4096: k[40]      K0..K7 whitening, K8..K39 round keys
// twofish_asm.cpp static_asserts these offsets against the struct.
//
// NOT CONSTANT-TIME, like the portable core: g() indexes key-dependent tables
// with bytes of the state (see cores/portable/twofish.cpp for why that is
// accepted for Twofish).
//
// Technique:
//  - One round is 8 table lookups, 6 EORs folding them into g(x) and
//    g(rol8 y), 4 ADDs for the PHT and the round keys, 2 EORs into the other
//    half: 28 instructions, plus one LDP of the round-key pair shared by the
//    blocks in flight. All 16 rounds are unrolled; subkeys are addressed by
//    immediate offsets from one pointer.
//  - Byte extraction is one AND of the 0xff mask with a rotated operand
//    (`and w, mask, x, ror #n`), and the load scales the byte by 4
//    (`ldr w, [table, w, uxtw #2]`): two instructions per lookup. g(rol8 y)
//    reads y's bytes in rotated order, so the rotate by 8 never runs.
//  - The Feistel rotations (ROR1 after the XOR of one word, ROL1 before the
//    XOR of the other) are never executed either. Each state word is kept
//    as S with true value ROR(S, rho) for a rho known at assembly time: the
//    update XORs the round output into S pre-rotated by -rho (again a free
//    rotated operand), and the byte extracts add rho to their rotate amount.
//    rho drifts by one per update and is removed by the output whitening
//    (`eor out, key, S, ror #rho`). Net: no instruction per round is spent
//    on rotates.
//  - Parallel modes (ECB, CBC/CFB decryption, CTR, XTS, OCB) run two
//    independent blocks through the rounds interleaved instruction by
//    instruction, so one block's load latency is hidden behind the other's
//    work; the round-key LDP serves both. Two blocks is what the 31 general
//    registers allow with all pointers, both states and the chaining value
//    resident. Serial modes (CBC/CFB encryption, OFB) and an odd last block
//    use the one-block routines.
// Cost, measured as guest instructions per byte under qemu-aarch64 (TCG
// plugin count, EVP_CipherUpdate in 16 KiB calls, 2 MiB minus 1 MiB;
// Twofish-128, the other key sizes run the same code): ECB 29.5,
// CBC-dec 29.8, CFB-dec 30.0, CTR 30.2, XTS 30.4, OCB 30.7, CBC-enc/CFB-enc
// 30.7, OFB 31.0. The portable C++ core (GCC 12 -O2) takes 40.8 for ECB and
// 41.5-52.8 in the modes. No real-hardware cycle counts yet.
//
// Register roles, shared by every entry point and the internal routines
// (x18 is the platform register and is never touched):
//     x0  TB0   s[0], the KeySchedule itself     x5-x7  TB1-TB3  s[1..3]
//     x1  IVP   iv/tweak/OcbState pointer        x8     KP       &k[0]
//     x2  IN    x3 OUT   x4 N (blocks left)      w9     MASK     0xff
//     w10-w13   block 0 words A B C D            w14-w17 block 1 words
//     w19-w21   block 0 scratch F G I            w22-w24 block 1 scratch
//     w25-w26   KA KB  key pair                  x27-x28 CV0 CV1 chaining value,
//                                                  counter, tweak or offset
// The internal routines clobber F, G, I, KA, KB and the state words only.

	.text
	.arch	armv8-a

TB0	.req	x0
IVP	.req	x1
IN	.req	x2
OUT	.req	x3
N	.req	x4
TB1	.req	x5
TB2	.req	x6
TB3	.req	x7
KP	.req	x8
MASK	.req	w9

A_0	.req	w10
B_0	.req	w11
C_0	.req	w12
D_0	.req	w13
A_1	.req	w14
B_1	.req	w15
C_1	.req	w16
D_1	.req	w17
xA_0	.req	x10
xB_0	.req	x11
xC_0	.req	x12
xD_0	.req	x13
xA_1	.req	x14
xB_1	.req	x15
xC_1	.req	x16
xD_1	.req	x17

F_0	.req	w19
G_0	.req	w20
I_0	.req	w21
F_1	.req	w22
G_1	.req	w23
I_1	.req	w24
KA	.req	w25
KB	.req	w26
xF_0	.req	x19
xG_0	.req	x20
xI_0	.req	x21
xF_1	.req	x22
xG_1	.req	x23
xI_1	.req	x24
xKA	.req	x25
xKB	.req	x26

CV0	.req	x27
CV1	.req	x28
wCV0	.req	w27
wCV1	.req	w28

// Offsets into the schedule (twofish_asm.cpp checks them).
	.set	TF_TABLES, 0
	.set	TF_TABLE_STRIDE, 1024
	.set	TF_KEYS, 4096

// ---- round building blocks ------------------------------------------------
// Each macro works on `nb` blocks (1 or 2); with 2 it emits every step for
// block 0 and then block 1, which interleaves the two dependency chains.
// Register names are passed without the _0/_1 suffix.

// acc = table[byte of src], the byte taken at bit `rot` (mod 32) of src.
.macro	g_first nb, acc, src, rot, tab
	and	\acc\()_0, MASK, \src\()_0, ror #((\rot) & 31)
.if \nb == 2
	and	\acc\()_1, MASK, \src\()_1, ror #((\rot) & 31)
.endif
	ldr	\acc\()_0, [\tab, \acc\()_0, uxtw #2]
.if \nb == 2
	ldr	\acc\()_1, [\tab, \acc\()_1, uxtw #2]
.endif
.endm

// acc ^= table[byte of src at bit `rot`].
.macro	g_next nb, acc, src, rot, tab
	and	I_0, MASK, \src\()_0, ror #((\rot) & 31)
.if \nb == 2
	and	I_1, MASK, \src\()_1, ror #((\rot) & 31)
.endif
	ldr	I_0, [\tab, I_0, uxtw #2]
.if \nb == 2
	ldr	I_1, [\tab, I_1, uxtw #2]
.endif
	eor	\acc\()_0, \acc\()_0, I_0
.if \nb == 2
	eor	\acc\()_1, \acc\()_1, I_1
.endif
.endm

// One Feistel round. x and y (true values ROR(x, rx), ROR(y, ry)) feed
//     F = g(x) + g(rol8 y) + K[koff/4],  G = g(x) + 2 g(rol8 y) + K[koff/4 + 1]
// and F, G are XORed into u and v rotated right by ru and rv. The caller
// derives ru/rv from the lazy rotations of u and v: XOR-then-ROR1 on a word
// at rho uses -rho, ROL1-then-XOR uses 1 - rho.
.macro	round nb, x, y, u, v, rx, ry, ru, rv, koff
	ldp	KA, KB, [KP, #(\koff)]
	g_first	\nb, F, \x, (\rx), TB0
	g_first	\nb, G, \y, (\ry+24), TB0
	g_next	\nb, F, \x, (\rx+8), TB1
	g_next	\nb, G, \y, (\ry), TB1
	g_next	\nb, F, \x, (\rx+16), TB2
	g_next	\nb, G, \y, (\ry+8), TB2
	g_next	\nb, F, \x, (\rx+24), TB3
	g_next	\nb, G, \y, (\ry+16), TB3
	add	F_0, F_0, G_0
.if \nb == 2
	add	F_1, F_1, G_1
.endif
	add	G_0, F_0, G_0
.if \nb == 2
	add	G_1, F_1, G_1
.endif
	add	F_0, F_0, KA
.if \nb == 2
	add	F_1, F_1, KA
.endif
	add	G_0, G_0, KB
.if \nb == 2
	add	G_1, G_1, KB
.endif
	eor	\u\()_0, \u\()_0, F_0, ror #((\ru) & 31)
.if \nb == 2
	eor	\u\()_1, \u\()_1, F_1, ror #((\ru) & 31)
.endif
	eor	\v\()_0, \v\()_0, G_0, ror #((\rv) & 31)
.if \nb == 2
	eor	\v\()_1, \v\()_1, G_1, ror #((\rv) & 31)
.endif
.endm

// w0..w3 ^= K[koff/4 ..]: the input whitening (all rotations are still 0).
.macro	whiten_in nb, w0, w1, w2, w3, koff
	ldp	KA, KB, [KP, #(\koff)]
	eor	\w0\()_0, \w0\()_0, KA
	eor	\w1\()_0, \w1\()_0, KB
.if \nb == 2
	eor	\w0\()_1, \w0\()_1, KA
	eor	\w1\()_1, \w1\()_1, KB
.endif
	ldp	KA, KB, [KP, #(\koff+8)]
	eor	\w2\()_0, \w2\()_0, KA
	eor	\w3\()_0, \w3\()_0, KB
.if \nb == 2
	eor	\w2\()_1, \w2\()_1, KA
	eor	\w3\()_1, \w3\()_1, KB
.endif
.endm

// w_i = K[koff/4 + i] ^ ROR(w_i, r_i): output whitening, undoing the lazy
// rotations on the way.
.macro	whiten_out nb, w0, w1, w2, w3, r0, r1, r2, r3, koff
	ldp	KA, KB, [KP, #(\koff)]
	eor	\w0\()_0, KA, \w0\()_0, ror #((\r0) & 31)
	eor	\w1\()_0, KB, \w1\()_0, ror #((\r1) & 31)
.if \nb == 2
	eor	\w0\()_1, KA, \w0\()_1, ror #((\r0) & 31)
	eor	\w1\()_1, KB, \w1\()_1, ror #((\r1) & 31)
.endif
	ldp	KA, KB, [KP, #(\koff+8)]
	eor	\w2\()_0, KA, \w2\()_0, ror #((\r2) & 31)
	eor	\w3\()_0, KB, \w3\()_0, ror #((\r3) & 31)
.if \nb == 2
	eor	\w2\()_1, KA, \w2\()_1, ror #((\r2) & 31)
	eor	\w3\()_1, KB, \w3\()_1, ror #((\r3) & 31)
.endif
.endm

// Encryption: plaintext words P0..P3 in A B C D on entry, ciphertext words
// C0..C3 in C D A B on return (the final swap is only a renaming).
// Rounds 2i and 2i+1; after round pair i every word sits at rotation
// +-(i+1): A and C drift right (XOR then ROR1), B and D left (ROL1 then XOR).
.macro	encrypt_body nb
	whiten_in \nb, A, B, C, D, 0
.irp i, 0, 1, 2, 3, 4, 5, 6, 7
	round	\nb, A, B, C, D, (\i), (-\i), (-\i), (1+\i), (32+16*\i)
	round	\nb, C, D, A, B, (\i+1), (-\i-1), (-\i), (1+\i), (40+16*\i)
.endr
	whiten_out \nb, C, D, A, B, 8, 24, 8, 24, 16
.endm

// Decryption: ciphertext words C0..C3 in C D A B on entry, plaintext words
// P0..P3 in A B C D on return. Rounds run backwards: round keys from K38/K39
// down, A and C drift left (ROL1 then XOR), B and D right.
.macro	decrypt_body nb
	whiten_in \nb, C, D, A, B, 16
.irp i, 0, 1, 2, 3, 4, 5, 6, 7
	round	\nb, C, D, A, B, (-\i), (\i), (1+\i), (-\i), (152-16*\i)
	round	\nb, A, B, C, D, (-\i-1), (\i+1), (1+\i), (-\i), (144-16*\i)
.endr
	whiten_out \nb, A, B, C, D, 24, 8, 24, 8, 0
.endm

// ---- internal block routines (called with bl; see the register roles) ----

.macro	local_function name
	.p2align 4
	.type	\name, %function
\name:
	.cfi_startproc
.endm

.macro	end_function name
	.cfi_endproc
	.size	\name, . - \name
.endm

local_function tf_enc1
	encrypt_body 1
	ret
	end_function tf_enc1

local_function tf_enc2
	encrypt_body 2
	ret
	end_function tf_enc2

local_function tf_dec1
	decrypt_body 1
	ret
	end_function tf_dec1

local_function tf_dec2
	decrypt_body 2
	ret
	end_function tf_dec2

// ---- entry points -----------------------------------------------------------

.macro	entry_point name
	.p2align 4
	.globl	\name
	.hidden	\name
	.type	\name, %function
\name:
	.cfi_startproc
.endm

// Saves the callee-saved registers the kernels use and sets up the table and
// key pointers. 112-byte frame: x29/x30, x19..x28, then one 16-byte slot
// (STASH) where XTS and OCB keep the first block's tweak/offset of a pair
// across the block routine.
	.set	STASH, 96
.macro	prologue
	stp	x29, x30, [sp, #-112]!
	.cfi_def_cfa_offset 112
	.cfi_offset x29, -112
	.cfi_offset x30, -104
	mov	x29, sp
	stp	x19, x20, [sp, #16]
	stp	x21, x22, [sp, #32]
	stp	x23, x24, [sp, #48]
	stp	x25, x26, [sp, #64]
	stp	x27, x28, [sp, #80]
	.cfi_offset x19, -96
	.cfi_offset x20, -88
	.cfi_offset x21, -80
	.cfi_offset x22, -72
	.cfi_offset x23, -64
	.cfi_offset x24, -56
	.cfi_offset x25, -48
	.cfi_offset x26, -40
	.cfi_offset x27, -32
	.cfi_offset x28, -24
	add	TB1, TB0, #(TF_TABLES + 1*TF_TABLE_STRIDE)
	add	TB2, TB0, #(TF_TABLES + 2*TF_TABLE_STRIDE)
	add	TB3, TB0, #(TF_TABLES + 3*TF_TABLE_STRIDE)
	add	KP, TB0, #TF_KEYS
	mov	MASK, #0xff
.endm

// Restores them and returns. Code after it (the early `9: ret` for
// nblocks == 0) runs with the entry state again, which the CFI says.
.macro	epilogue
	ldp	x19, x20, [sp, #16]
	ldp	x21, x22, [sp, #32]
	ldp	x23, x24, [sp, #48]
	ldp	x25, x26, [sp, #64]
	ldp	x27, x28, [sp, #80]
	ldp	x29, x30, [sp], #112
	.cfi_def_cfa_offset 0
	.cfi_restore x19
	.cfi_restore x20
	.cfi_restore x21
	.cfi_restore x22
	.cfi_restore x23
	.cfi_restore x24
	.cfi_restore x25
	.cfi_restore x26
	.cfi_restore x27
	.cfi_restore x28
	.cfi_restore x29
	.cfi_restore x30
	ret
.endm

// BlocksFn (ks, in, out, nblocks) arrives as x0..x3; move it into the
// ChainFn layout (ks, iv, in, out, nblocks) the kernels share.
.macro	blocks_args
	mov	N, x3
	mov	OUT, x2
	mov	IN, x1
.endm

// void hwc_twofish_arm64_ecb_encrypt(const KeySchedule& ks, const uint8_t* in,
//                                    uint8_t* out, size_t nblocks);
entry_point hwc_twofish_arm64_ecb_encrypt
	cbz	x3, 9f
	blocks_args
	prologue
	subs	N, N, #2
	b.lo	2f
1:	ldp	A_1, B_1, [IN, #16]
	ldp	C_1, D_1, [IN, #24]
	ldp	C_0, D_0, [IN, #8]
	ldp	A_0, B_0, [IN], #32
	bl	tf_enc2
	stp	C_1, D_1, [OUT, #16]
	stp	A_1, B_1, [OUT, #24]
	stp	A_0, B_0, [OUT, #8]
	stp	C_0, D_0, [OUT], #32
	subs	N, N, #2
	b.hs	1b
2:	tbz	N, #0, 3f		// N is -1 when one block is left, -2 when none
	ldp	A_0, B_0, [IN]
	ldp	C_0, D_0, [IN, #8]
	bl	tf_enc1
	stp	C_0, D_0, [OUT]
	stp	A_0, B_0, [OUT, #8]
3:	epilogue
9:	ret
	end_function hwc_twofish_arm64_ecb_encrypt

// void hwc_twofish_arm64_ecb_decrypt(const KeySchedule& ks, const uint8_t* in,
//                                    uint8_t* out, size_t nblocks);
entry_point hwc_twofish_arm64_ecb_decrypt
	cbz	x3, 9f
	blocks_args
	prologue
	subs	N, N, #2
	b.lo	2f
1:	ldp	C_1, D_1, [IN, #16]
	ldp	A_1, B_1, [IN, #24]
	ldp	A_0, B_0, [IN, #8]
	ldp	C_0, D_0, [IN], #32
	bl	tf_dec2
	stp	A_1, B_1, [OUT, #16]
	stp	C_1, D_1, [OUT, #24]
	stp	C_0, D_0, [OUT, #8]
	stp	A_0, B_0, [OUT], #32
	subs	N, N, #2
	b.hs	1b
2:	tbz	N, #0, 3f
	ldp	C_0, D_0, [IN]
	ldp	A_0, B_0, [IN, #8]
	bl	tf_dec1
	stp	A_0, B_0, [OUT]
	stp	C_0, D_0, [OUT, #8]
3:	epilogue
9:	ret
	end_function hwc_twofish_arm64_ecb_decrypt

// CBC decryption, two blocks at a time: P_i = D(C_i) ^ C_{i-1}. Every
// ciphertext word a pair needs is loaded before the pair's first store, so
// in == out works; CV0/CV1 carry C_{i-1} (as two little-endian 64-bit halves)
// from one pair to the next.
// void hwc_twofish_arm64_cbc_decrypt(const KeySchedule& ks, uint8_t iv[16],
//                                    const uint8_t* in, uint8_t* out, size_t nblocks);
entry_point hwc_twofish_arm64_cbc_decrypt
	cbz	x4, 9f
	prologue
	ldp	CV0, CV1, [IVP]
	subs	N, N, #2
	b.lo	2f
1:	ldp	C_1, D_1, [IN, #16]
	ldp	A_1, B_1, [IN, #24]
	ldp	C_0, D_0, [IN]
	ldp	A_0, B_0, [IN, #8]
	bl	tf_dec2
	eor	A_0, A_0, wCV0		// block 0 ^= C_{i-1}
	eor	xB_0, xB_0, CV0, lsr #32	// (only the low 32 bits are stored)
	eor	C_0, C_0, wCV1
	eor	xD_0, xD_0, CV1, lsr #32
	ldp	CV0, CV1, [IN], #16	// block 1 ^= C_i
	eor	A_1, A_1, wCV0
	eor	xB_1, xB_1, CV0, lsr #32
	eor	C_1, C_1, wCV1
	eor	xD_1, xD_1, CV1, lsr #32
	ldp	CV0, CV1, [IN], #16	// C_{i+1} chains into the next pair
	stp	A_1, B_1, [OUT, #16]
	stp	C_1, D_1, [OUT, #24]
	stp	C_0, D_0, [OUT, #8]
	stp	A_0, B_0, [OUT], #32
	subs	N, N, #2
	b.hs	1b
2:	tbz	N, #0, 3f
	ldp	C_0, D_0, [IN]
	ldp	A_0, B_0, [IN, #8]
	bl	tf_dec1
	eor	A_0, A_0, wCV0
	eor	xB_0, xB_0, CV0, lsr #32
	eor	C_0, C_0, wCV1
	eor	xD_0, xD_0, CV1, lsr #32
	ldp	CV0, CV1, [IN]
	stp	A_0, B_0, [OUT]
	stp	C_0, D_0, [OUT, #8]
3:	stp	CV0, CV1, [IVP]
	epilogue
9:	ret
	end_function hwc_twofish_arm64_cbc_decrypt

// CFB decryption, two blocks at a time: P_i = C_i ^ E(C_{i-1}), all cipher
// inputs known up front. CV0/CV1 carry C_{i-1} between pairs, as in CBC.
// void hwc_twofish_arm64_cfb_decrypt(const KeySchedule& ks, uint8_t iv[16],
//                                    const uint8_t* in, uint8_t* out, size_t nblocks);
entry_point hwc_twofish_arm64_cfb_decrypt
	cbz	x4, 9f
	prologue
	ldp	CV0, CV1, [IVP]
	subs	N, N, #2
	b.lo	2f
1:	mov	A_0, wCV0		// block 0 = E(C_{i-1})
	lsr	xB_0, CV0, #32
	mov	C_0, wCV1
	lsr	xD_0, CV1, #32
	ldp	A_1, B_1, [IN]		// block 1 = E(C_i)
	ldp	C_1, D_1, [IN, #8]
	bl	tf_enc2
	ldp	F_0, G_0, [IN]
	ldp	F_1, G_1, [IN, #16]
	eor	C_0, C_0, F_0
	eor	D_0, D_0, G_0
	eor	C_1, C_1, F_1
	eor	D_1, D_1, G_1
	ldp	F_0, G_0, [IN, #8]
	ldp	F_1, G_1, [IN, #24]
	eor	A_0, A_0, F_0
	eor	B_0, B_0, G_0
	eor	A_1, A_1, F_1
	eor	B_1, B_1, G_1
	ldp	CV0, CV1, [IN, #16]
	add	IN, IN, #32
	stp	C_1, D_1, [OUT, #16]
	stp	A_1, B_1, [OUT, #24]
	stp	A_0, B_0, [OUT, #8]
	stp	C_0, D_0, [OUT], #32
	subs	N, N, #2
	b.hs	1b
2:	tbz	N, #0, 3f
	mov	A_0, wCV0
	lsr	xB_0, CV0, #32
	mov	C_0, wCV1
	lsr	xD_0, CV1, #32
	bl	tf_enc1
	ldp	F_0, G_0, [IN]
	ldp	I_0, KA, [IN, #8]
	eor	C_0, C_0, F_0
	eor	D_0, D_0, G_0
	eor	A_0, A_0, I_0
	eor	B_0, B_0, KA
	ldp	CV0, CV1, [IN]
	stp	C_0, D_0, [OUT]
	stp	A_0, B_0, [OUT, #8]
3:	stp	CV0, CV1, [IVP]
	epilogue
9:	ret
	end_function hwc_twofish_arm64_cfb_decrypt

// CTR, two blocks at a time. The 128-bit big-endian counter lives in CV0
// (high half) and CV1 (low half) as native integers: ADDS/ADC step it with
// the full 2^128 wrap, REV turns each half back into block bytes.
// void hwc_twofish_arm64_ctr(const KeySchedule& ks, uint8_t iv[16],
//                            const uint8_t* in, uint8_t* out, size_t nblocks);

// Counter block into A B C D (block b), then counter + 1.
.macro	ctr_block b
	rev	xA_\b, CV0
	lsr	xB_\b, xA_\b, #32
	rev	xC_\b, CV1
	lsr	xD_\b, xC_\b, #32
	adds	CV1, CV1, #1
	adc	CV0, CV0, xzr
.endm

entry_point hwc_twofish_arm64_ctr
	cbz	x4, 9f
	prologue
	ldp	CV0, CV1, [IVP]
	rev	CV0, CV0
	rev	CV1, CV1
	subs	N, N, #2
	b.lo	2f
1:	ctr_block 0
	ctr_block 1
	bl	tf_enc2
	ldp	F_0, G_0, [IN]
	ldp	F_1, G_1, [IN, #16]
	eor	C_0, C_0, F_0
	eor	D_0, D_0, G_0
	eor	C_1, C_1, F_1
	eor	D_1, D_1, G_1
	ldp	F_0, G_0, [IN, #8]
	ldp	F_1, G_1, [IN, #24]
	eor	A_0, A_0, F_0
	eor	B_0, B_0, G_0
	eor	A_1, A_1, F_1
	eor	B_1, B_1, G_1
	add	IN, IN, #32
	stp	C_1, D_1, [OUT, #16]
	stp	A_1, B_1, [OUT, #24]
	stp	A_0, B_0, [OUT, #8]
	stp	C_0, D_0, [OUT], #32
	subs	N, N, #2
	b.hs	1b
2:	tbz	N, #0, 3f
	ctr_block 0
	bl	tf_enc1
	ldp	F_0, G_0, [IN]
	ldp	I_0, KA, [IN, #8]
	eor	C_0, C_0, F_0
	eor	D_0, D_0, G_0
	eor	A_0, A_0, I_0
	eor	B_0, B_0, KA
	stp	C_0, D_0, [OUT]
	stp	A_0, B_0, [OUT, #8]
3:	rev	CV0, CV0
	rev	CV1, CV1
	stp	CV0, CV1, [IVP]
	epilogue
9:	ret
	end_function hwc_twofish_arm64_ctr

// ---- XTS and OCB ------------------------------------------------------------
// Both whiten every block with a per-block 128-bit value (XTS tweak, OCB
// offset) before and after the cipher, kept in CV0 (bytes 0..7) and CV1
// (bytes 8..15) as little-endian 64-bit halves. The input side works on
// 64-bit halves and splits them into the 32-bit words afterwards (the block
// routines only read the low 32 bits of each word register); the output
// side joins the words back with one ORR per half.

// Block b (at IN + 16*b) into A B C D (encryption order) or C D A B
// (decryption order), XORed with CV0/CV1. With `ck` set the plaintext is
// first folded into the OCB checksum in xKA/xKB.
.macro	load_masked dir, b, ck=0
.ifc \dir, enc
	ldp	xA_\b, xC_\b, [IN, #(16*\b)]
.if \ck
	eor	xKA, xKA, xA_\b
	eor	xKB, xKB, xC_\b
.endif
	eor	xA_\b, xA_\b, CV0
	eor	xC_\b, xC_\b, CV1
	lsr	xB_\b, xA_\b, #32
	lsr	xD_\b, xC_\b, #32
.else
	ldp	xC_\b, xA_\b, [IN, #(16*\b)]
	eor	xC_\b, xC_\b, CV0
	eor	xA_\b, xA_\b, CV1
	lsr	xD_\b, xC_\b, #32
	lsr	xB_\b, xA_\b, #32
.endif
.endm

// Output block b (C D A B after encryption, A B C D after decryption) XORed
// with m0/m1 to OUT + 16*b; with `ck` the result (OCB plaintext) is folded
// into the checksum in xKA/xKB.
.macro	store_masked dir, b, m0, m1, ck=0
.ifc \dir, enc
	orr	xI_0, xC_\b, xD_\b, lsl #32
	orr	xI_1, xA_\b, xB_\b, lsl #32
.else
	orr	xI_0, xA_\b, xB_\b, lsl #32
	orr	xI_1, xC_\b, xD_\b, lsl #32
.endif
	eor	xI_0, xI_0, \m0
	eor	xI_1, xI_1, \m1
.if \ck
	eor	xKA, xKA, xI_0
	eor	xKB, xKB, xI_1
.endif
	stp	xI_0, xI_1, [OUT, #(16*\b)]
.endm

// XTS tweak times alpha (IEEE 1619: little-endian, x^128 = x^7+x^2+x+1),
// branch-free since the tweak is secret.
.macro	xts_next_tweak
	asr	xI_0, CV1, #63
	mov	xI_1, #0x87		// (not encodable as an AND immediate)
	extr	CV1, CV1, CV0, #63
	and	xI_0, xI_0, xI_1
	eor	CV0, xI_0, CV0, lsl #1
.endm

// XTS over whole blocks of one data unit (IEEE 1619 tweak update), two
// blocks at a time: the pair's first tweak waits in STASH, the second stays
// in CV0/CV1. `tweak` is the running tweak, read and written back.
// void hwc_twofish_arm64_xts_{en,de}crypt(const KeySchedule& ks, uint8_t tweak[16],
//                                        const uint8_t* in, uint8_t* out, size_t nblocks);
.macro	xts_kernel name, dir
entry_point \name
	cbz	x4, 9f
	prologue
	ldp	CV0, CV1, [IVP]
	subs	N, N, #2
	b.lo	2f
1:	load_masked \dir, 0
	stp	CV0, CV1, [sp, #STASH]
	xts_next_tweak
	load_masked \dir, 1
	add	IN, IN, #32
	bl	tf_\dir\()2
	ldp	xF_0, xG_0, [sp, #STASH]
	store_masked \dir, 0, xF_0, xG_0
	store_masked \dir, 1, CV0, CV1
	add	OUT, OUT, #32
	xts_next_tweak
	subs	N, N, #2
	b.hs	1b
2:	tbz	N, #0, 3f
	load_masked \dir, 0
	bl	tf_\dir\()1
	store_masked \dir, 0, CV0, CV1
	xts_next_tweak
3:	stp	CV0, CV1, [IVP]
	epilogue
9:	ret
	end_function \name
.endm

xts_kernel hwc_twofish_arm64_xts_encrypt, enc
xts_kernel hwc_twofish_arm64_xts_decrypt, dec

// OCB (RFC 7253) whole data blocks, two at a time. OcbState (cores/core.h,
// offsets checked in twofish_asm.cpp): offset at 0, checksum at 16, blocks
// at 32, L table pointer at 40. The offset lives in CV0/CV1 for the whole
// call; the block count and checksum are read and written back per pair.

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

// void hwc_twofish_arm64_ocb_{en,de}crypt(const KeySchedule& ks, OcbState& st,
//                                        const uint8_t* in, uint8_t* out, size_t nblocks);
// Encryption: checksum ^= P_i, C_i = Offset_i ^ E(P_i ^ Offset_i);
// decryption: P_i = Offset_i ^ D(C_i ^ Offset_i), checksum ^= P_i.
.macro	ocb_kernel name, dir
entry_point \name
	cbz	x4, 9f
	prologue
	ldp	CV0, CV1, [IVP]
	subs	N, N, #2
	b.lo	2f
1:	ldp	xF_0, xG_0, [IVP, #32]	// blocks, L
.ifc \dir, enc
	ldp	xKA, xKB, [IVP, #16]	// checksum
.endif
	ocb_next_offset
	stp	CV0, CV1, [sp, #STASH]
	load_masked \dir, 0, 1
	ocb_next_offset
	load_masked \dir, 1, 1
	str	xF_0, [IVP, #32]
.ifc \dir, enc
	stp	xKA, xKB, [IVP, #16]
.endif
	add	IN, IN, #32
	bl	tf_\dir\()2
	ldp	xF_0, xG_0, [sp, #STASH]
.ifc \dir, enc
	store_masked \dir, 0, xF_0, xG_0
	store_masked \dir, 1, CV0, CV1
.else
	ldp	xKA, xKB, [IVP, #16]
	store_masked \dir, 0, xF_0, xG_0, 1
	store_masked \dir, 1, CV0, CV1, 1
	stp	xKA, xKB, [IVP, #16]
.endif
	add	OUT, OUT, #32
	subs	N, N, #2
	b.hs	1b
2:	tbz	N, #0, 3f
	ldp	xF_0, xG_0, [IVP, #32]
.ifc \dir, enc
	ldp	xKA, xKB, [IVP, #16]
.endif
	ocb_next_offset
	str	xF_0, [IVP, #32]
	load_masked \dir, 0, 1
.ifc \dir, enc
	stp	xKA, xKB, [IVP, #16]
.endif
	bl	tf_\dir\()1
.ifc \dir, enc
	store_masked \dir, 0, CV0, CV1
.else
	ldp	xKA, xKB, [IVP, #16]
	store_masked \dir, 0, CV0, CV1, 1
	stp	xKA, xKB, [IVP, #16]
.endif
3:	stp	CV0, CV1, [IVP]
	epilogue
9:	ret
	end_function \name
.endm

ocb_kernel hwc_twofish_arm64_ocb_encrypt, enc
ocb_kernel hwc_twofish_arm64_ocb_decrypt, dec

// CBC encryption, serial: C_i = E(P_i ^ C_{i-1}). Between blocks the
// chaining value stays in the encryption's output registers (C D A B).
// void hwc_twofish_arm64_cbc_encrypt(const KeySchedule& ks, uint8_t iv[16],
//                                    const uint8_t* in, uint8_t* out, size_t nblocks);
entry_point hwc_twofish_arm64_cbc_encrypt
	cbz	x4, 9f
	prologue
	ldp	C_0, D_0, [IVP]
	ldp	A_0, B_0, [IVP, #8]
1:	ldp	F_0, G_0, [IN]
	ldp	I_0, KA, [IN, #8]
	eor	I_0, I_0, A_0		// word 2 = P2 ^ chaining word 2 (in A)
	eor	KA, KA, B_0
	eor	A_0, F_0, C_0		// word 0 = P0 ^ chaining word 0 (in C)
	eor	B_0, G_0, D_0
	mov	C_0, I_0
	mov	D_0, KA
	add	IN, IN, #16
	bl	tf_enc1
	stp	A_0, B_0, [OUT, #8]
	stp	C_0, D_0, [OUT], #16
	subs	N, N, #1
	b.ne	1b
	stp	C_0, D_0, [IVP]
	stp	A_0, B_0, [IVP, #8]
	epilogue
9:	ret
	end_function hwc_twofish_arm64_cbc_encrypt

// CFB encryption, serial: C_i = P_i ^ E(C_{i-1}); the register (A B C D
// between blocks) takes the ciphertext.
// void hwc_twofish_arm64_cfb_encrypt(const KeySchedule& ks, uint8_t iv[16],
//                                    const uint8_t* in, uint8_t* out, size_t nblocks);
entry_point hwc_twofish_arm64_cfb_encrypt
	cbz	x4, 9f
	prologue
	ldp	A_0, B_0, [IVP]
	ldp	C_0, D_0, [IVP, #8]
1:	bl	tf_enc1			// keystream in C D A B
	ldp	F_0, G_0, [IN]
	ldp	I_0, KA, [IN, #8]
	eor	F_0, F_0, C_0
	eor	G_0, G_0, D_0
	eor	C_0, I_0, A_0
	eor	D_0, KA, B_0
	mov	A_0, F_0
	mov	B_0, G_0
	add	IN, IN, #16
	stp	C_0, D_0, [OUT, #8]
	stp	A_0, B_0, [OUT], #16
	subs	N, N, #1
	b.ne	1b
	stp	A_0, B_0, [IVP]
	stp	C_0, D_0, [IVP, #8]
	epilogue
9:	ret
	end_function hwc_twofish_arm64_cfb_encrypt

// OFB, serial: the register (A B C D between blocks) becomes E(register),
// and the output is input ^ register.
// void hwc_twofish_arm64_ofb(const KeySchedule& ks, uint8_t iv[16],
//                            const uint8_t* in, uint8_t* out, size_t nblocks);
entry_point hwc_twofish_arm64_ofb
	cbz	x4, 9f
	prologue
	ldp	A_0, B_0, [IVP]
	ldp	C_0, D_0, [IVP, #8]
1:	bl	tf_enc1			// new register in C D A B
	mov	F_0, A_0		// back to A B C D
	mov	G_0, B_0
	mov	A_0, C_0
	mov	B_0, D_0
	mov	C_0, F_0
	mov	D_0, G_0
	ldp	F_0, G_0, [IN]
	ldp	I_0, KA, [IN, #8]
	eor	F_0, F_0, A_0
	eor	G_0, G_0, B_0
	eor	I_0, I_0, C_0
	eor	KA, KA, D_0
	add	IN, IN, #16
	stp	I_0, KA, [OUT, #8]
	stp	F_0, G_0, [OUT], #16
	subs	N, N, #1
	b.ne	1b
	stp	A_0, B_0, [IVP]
	stp	C_0, D_0, [IVP, #8]
	epilogue
9:	ret
	end_function hwc_twofish_arm64_ofb

	.section .note.GNU-stack, "", %progbits
