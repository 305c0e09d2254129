// SPDX-License-Identifier: Apache-2.0
// The load/compute/store frame around the aarch64 cores' block functions
// (aes_ce.cpp, sm4_ce.cpp), written once: blocks are taken in groups of the
// widths a core chooses (largest first), loaded from `in`, turned into output
// blocks by the mode's step and stored to `out`, both pointers advancing.
//  - serial_blocks: the serial modes (CBC/CFB encryption, OFB, CBC-MAC):
//    step(block) -> output block, one block after the other, the chain kept
//    by the step between calls;
//  - parallel_blocks: the parallel modes' tails (whatever the assembly loops
//    leave): every block of a group through pre(i, block) -> cipher input,
//    then the cipher on the whole group at once, then post(i, state, block)
//    -> output block; pre and post see i = 0..N-1 in order and keep the
//    mode's running state (chaining value, counter, tweak).
// `Ld1x4` loads and stores four blocks with one LD1/ST1 of four registers
// (AES); otherwise each block is a plain 16-byte access, which GCC pairs
// into LDP/STP (SM4: the four-register lists cost register moves there).
//
// Included only by translation units built with their core's -march: the
// helpers sit in an unnamed namespace so each unit has its own copy (see
// aes_ce.h for why).
#pragma once

#include <arm_neon.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

namespace hwc::aarch64 {
namespace {

template <size_t N>
using Width = std::integral_constant<size_t, N>;

// N blocks from p into b, or from b to p; p advances past them.
template <bool Ld1x4, size_t N>
[[gnu::always_inline]] inline void load_blocks(const uint8_t*& p, uint8x16_t (&b)[N]) {
    if constexpr (Ld1x4 && N == 4) {
        const uint8x16x4_t v = vld1q_u8_x4(p);
        b[0] = v.val[0], b[1] = v.val[1], b[2] = v.val[2], b[3] = v.val[3];
    } else {
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) b[i] = vld1q_u8(p + 16 * i);
    }
    p += 16 * N;
}

template <bool Ld1x4, size_t N>
[[gnu::always_inline]] inline void store_blocks(uint8_t*& p, const uint8x16_t (&b)[N]) {
    if constexpr (Ld1x4 && N == 4) {
        vst1q_u8_x4(p, {{b[0], b[1], b[2], b[3]}});
    } else {
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) vst1q_u8(p + 16 * i, b[i]);
    }
    p += 16 * N;
}

// Calls group(Width<W>) while W blocks remain, for each W of Widths in turn
// (largest first, the last 1). `Prev` is the width before W: when it is at
// most 2 W, fewer than 2 W blocks are left and W runs at most once.
template <size_t Prev, size_t W, size_t... Rest, class Group>
[[gnu::always_inline]] inline void in_groups_after(size_t n, Group&& group) {
    if constexpr (Prev != 0 && Prev <= 2 * W) {
        if (n >= W) {
            group(Width<W>{});
            n -= W;
        }
    } else {
        for (; n >= W; n -= W) group(Width<W>{});
    }
    if constexpr (sizeof...(Rest) != 0) in_groups_after<W, Rest...>(n, group);
    else static_assert(W == 1, "the last width must be 1");
}

template <size_t... Widths, class Group>
[[gnu::always_inline]] inline void in_groups(size_t n, Group&& group) {
    in_groups_after<0, Widths...>(n, group);
}

template <bool Ld1x4, bool Output, size_t... Widths, class Step>
[[gnu::always_inline]] inline void serial_blocks(const uint8_t*& in, uint8_t*& out, size_t n,
                                                 Step&& step) {
    in_groups<Widths...>(n, [&](auto w) {
        constexpr size_t N = decltype(w)::value;
        uint8x16_t b[N];
        load_blocks<Ld1x4>(in, b);
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) b[i] = step(b[i]);
        if constexpr (Output) store_blocks<Ld1x4>(out, b);
    });
}

// `crypt(b)` runs the cipher on an array of N blocks in place (its open or
// closed form is the caller's business: post sees what it leaves).
template <bool Ld1x4, size_t... Widths, class Pre, class Crypt, class Post>
[[gnu::always_inline]] inline void parallel_blocks(const uint8_t*& in, uint8_t*& out, size_t n,
                                                   Pre&& pre, Crypt&& crypt, Post&& post) {
    in_groups<Widths...>(n, [&](auto w) {
        constexpr size_t N = decltype(w)::value;
        uint8x16_t d[N], b[N];
        load_blocks<Ld1x4>(in, d);
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) b[i] = pre(i, d[i]);
        crypt(b);
#pragma GCC unroll 8
        for (size_t i = 0; i < N; ++i) b[i] = post(i, b[i], d[i]);
        store_blocks<Ld1x4>(out, b);
    });
}

} // namespace
} // namespace hwc::aarch64
