// SPDX-License-Identifier: Apache-2.0
// twofish-avx2: Twofish-128/192/256 with AVX2 word-sliced kernels for ECB
// and the parallel modes (this file) and scalar kernels for the serial ones
// (twofish_avx2_serial.cpp); shared internals in twofish_avx2.h.
//
// NOT CONSTANT-TIME, like the portable core: the key-dependent S-box/MDS
// tables are indexed with bytes of the cipher state (twofish_avx2.h).
//
// Key setup is the portable core's (cores/portable/twofish_schedule.h),
// which wipes its temporaries; the owner of the KeySchedule wipes the
// schedule itself. The kernels keep data, keystream, tweaks and offsets in
// registers (compiler spills aside); the few stack buffers they do fill
// (CFB8 decryption's windows and keystream, XTS's tweak re-sync block) are
// wiped before return.
//
// Vector engine: 16 blocks per step (two sets of 8, word-sliced), 8 for a
// remainder over 8, and one masked, zero-padded set for a remainder of
// 3..7; 1..2 leftover blocks run on the scalar cipher (a padded set costs as
// much as 8 blocks). Scalar engine: 4 blocks per step, their rounds
// interleaved (crypt_n in twofish_avx2.h), and the last 1..5 blocks as one
// step as wide as they are (drive says why). Every step loads all its input
// before it stores, so in == out works.
//
// Gathers or scalar loads. VPGATHERDD's cost differs widely between CPUs,
// and on every one measured for this project the 4-block scalar engine is
// the faster: Zen 4 (EPYC, family 25 model 17; 16 KiB, min of 60 batches:
// ECB 2.02 ns/B scalar against 2.36 through gathers, CTR 2.07 against
// 2.42), Zen 5 (ECB 3.35 TSC ticks/byte against 4.65) and Cascade Lake
// with the "Downfall" (GDS) microcode mitigation, where an 8-lane gather
// costs ~25-30 cycles (Twofish-256 ECB ~145 MiB/s scalar, ~72 through
// gathers). So the scalar engine is the rule, on every CPU: the same engine
// in every process, whatever the load (the engine used to be chosen by
// timing both at first use, and under load different processes chose
// differently). Gathers may win on CPUs not measured here (libgcrypt's
// figures for unmitigated Intel cores suggest so):
// HWCIPHER_TWOFISH_GATHER=1 selects them (=0, the scalar engine, is
// accepted too); both give the same bytes, and the tests run both.
//
// Compiled with -mavx2 (root CMakeLists.txt); reached only through the
// `twofish_avx2` descriptor, which the registry offers when the CPU probe
// reports kX86Avx2.
#include "cores/x86_64/twofish_avx2.h"

#include <cstdlib>

#include "cores/cpu.h"
#include "cores/x86_64/x86_64.h"

namespace hwc::x86_64 {
namespace twofish {
namespace { // every kernel here is reached only through the descriptor below

// ---- engine choice -------------------------------------------------------------

// Blocks per step of the scalar engine (crypt_n in twofish_avx2.h says why 4).
constexpr size_t kScalarWays = 4;

bool gather_selected() {
    const char* force = std::getenv("HWCIPHER_TWOFISH_GATHER");
    return force != nullptr && force[0] == '1';
}

bool use_gather() {
    static const bool gather = gather_selected(); // thread-safe, once
    return gather;
}

template <bool Enc, size_t N>
[[gnu::always_inline]] inline void scalar_ecb_n(const Schedule& s, const uint8_t* in,
                                                uint8_t* out) {
    Words w[N];
#pragma GCC unroll 8
    for (size_t j = 0; j < N; ++j) w[j] = load_words(in + 16 * j);
    crypt_n<Enc, N>(s, w);
#pragma GCC unroll 8
    for (size_t j = 0; j < N; ++j) store_words(out + 16 * j, w[j]);
}

// Blocks left to the scalar cipher after the vector steps.
constexpr size_t kScalarTail = 2;

// ---- ECB and the step driver ----------------------------------------------------

// Loads m (1..8*S) blocks from p into v, zero beyond m.
template <size_t S>
[[gnu::always_inline]] inline void load_blocks(Blocks<S>& v, const uint8_t* p, size_t m) {
    if (m == 8 * S) {
#pragma GCC unroll 8
        for (size_t i = 0; i < 4 * S; ++i) v[i] = vload(p + 32 * i);
    } else {
#pragma GCC unroll 8
        for (size_t i = 0; i < 4 * S; ++i)
            v[i] = _mm256_maskload_epi32(reinterpret_cast<const int*>(p + 32 * i),
                                         tail_mask(m, i));
    }
}
// Stores the first m blocks of v; masked stores never touch the bytes past m.
template <size_t S>
[[gnu::always_inline]] inline void store_blocks(uint8_t* p, const Blocks<S>& v, size_t m) {
    if (m == 8 * S) {
#pragma GCC unroll 8
        for (size_t i = 0; i < 4 * S; ++i) vstore(p + 32 * i, v[i]);
    } else {
#pragma GCC unroll 8
        for (size_t i = 0; i < 4 * S; ++i)
            _mm256_maskstore_epi32(reinterpret_cast<int*>(p + 32 * i), tail_mask(m, i), v[i]);
    }
}

// The widest last step of the scalar engine: 4 + 1 blocks as one.
constexpr size_t kScalarRestMax = kScalarWays + 1;

// The last n blocks (1..3 or kScalarRestMax, never kScalarWays) as one
// scalar<n> step, out of line: the main loop's 4-block step then stays the
// only call of scalar<4>, inlined into the loop as before (with the other
// widths beside it in the kernel, GCC moved that step out of the loop, and
// Twofish OCB decryption at 16 KiB lost about 15%).
template <size_t N = 1, class Scalar>
[[gnu::always_inline]] inline void scalar_width(const uint8_t* in, uint8_t* out, size_t n,
                                                Scalar& scalar) {
    if constexpr (N <= kScalarRestMax) {
        if constexpr (N != kScalarWays)
            if (n == N) return scalar.template operator()<N>(in, out);
        scalar_width<N + 1>(in, out, n, scalar);
    }
}
template <class Scalar>
[[gnu::noinline]] void scalar_rest(const uint8_t* in, uint8_t* out, size_t n, Scalar& scalar) {
    scalar_width(in, out, n, scalar);
}

// Runs n blocks. Gather engine: as step<S>(in, out, m), 16 at a time, 8,
// then one padded set of 3..7, and the last 1..2 blocks as scalar<m>(in,
// out). Scalar engine: scalar<N>(in, out) on N = kScalarWays blocks at a
// time and the last 1..5 as one step: one block's rounds are a chain of
// ~190 cycles that a wider step overlaps with the others', so 4 + 1 blocks
// took two chains' time where one 5-block step takes about 1.25, and 3
// leftover blocks one at a time took three (a 64-byte Twofish-GCM message
// is 5 blocks with E(K, J0)). The widths 2, 3 and 5 add ~53 KB of code to
// the module (~260 KB while crypt_n's rounds were fully unrolled); 6 and 7
// would add more, for rarer remainders.
template <class Step, class Scalar>
[[gnu::always_inline]] inline void drive(const uint8_t* in, uint8_t* out, size_t n, Step&& step,
                                         Scalar&& scalar) {
    if (use_gather()) {
        for (; n >= 16; n -= 16, in += 256, out += 256) step.template operator()<2>(in, out, 16);
        if (n >= 8) {
            step.template operator()<1>(in, out, 8);
            n -= 8, in += 128, out += 128;
        }
        if (n > kScalarTail) {
            step.template operator()<1>(in, out, n);
            return;
        }
    } else {
        for (; n >= kScalarWays && n != kScalarRestMax;
             n -= kScalarWays, in += 16 * kScalarWays, out += 16 * kScalarWays)
            scalar.template operator()<kScalarWays>(in, out);
    }
    if (n != 0) scalar_rest(in, out, n, scalar);
}

template <bool Enc>
void ecb_kernel(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    const Schedule& s = sched(ks);
    drive(
        in, out, n,
        [&]<size_t S>(const uint8_t* src, uint8_t* dst, size_t m) {
            Blocks<S> v;
            load_blocks<S>(v, src, m);
            crypt_sets<Enc, S>(s, v);
            store_blocks<S>(dst, v, m);
        },
        [&]<size_t N>(const uint8_t* src, uint8_t* dst) { scalar_ecb_n<Enc, N>(s, src, dst); });
}

void ecb_encrypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    ecb_kernel<true>(ks, in, out, n);
}
void ecb_decrypt(const KeySchedule& ks, const uint8_t* in, uint8_t* out, size_t n) {
    ecb_kernel<false>(ks, in, out, n);
}

// One block through the scalar cipher, from and to an XMM register (moved
// word by word: no stack copy of the data to wipe afterwards).
[[gnu::always_inline]] inline Words to_words(__m128i x) {
    return {static_cast<uint32_t>(_mm_cvtsi128_si32(x)),
            static_cast<uint32_t>(_mm_extract_epi32(x, 1)),
            static_cast<uint32_t>(_mm_extract_epi32(x, 2)),
            static_cast<uint32_t>(_mm_extract_epi32(x, 3))};
}
[[gnu::always_inline]] inline __m128i from_words(Words w) {
    return _mm_setr_epi32(static_cast<int>(w.a), static_cast<int>(w.b), static_cast<int>(w.c),
                          static_cast<int>(w.d));
}
// The block whose bytes are the big-endian 128-bit number hi:lo.
[[gnu::always_inline]] inline Words be_words(uint64_t hi, uint64_t lo) {
    const uint64_t x = __builtin_bswap64(hi), y = __builtin_bswap64(lo);
    return {static_cast<uint32_t>(x), static_cast<uint32_t>(x >> 32), static_cast<uint32_t>(y),
            static_cast<uint32_t>(y >> 32)};
}
// N blocks through the scalar cipher, in place in XMM registers.
template <bool Enc, size_t N>
[[gnu::always_inline]] inline void crypt_xmm(const Schedule& s, __m128i (&x)[N]) {
    Words w[N];
#pragma GCC unroll 8
    for (size_t j = 0; j < N; ++j) w[j] = to_words(x[j]);
    crypt_n<Enc, N>(s, w);
#pragma GCC unroll 8
    for (size_t j = 0; j < N; ++j) x[j] = from_words(w[j]);
}

// Block 2i-1 of a step as the partner of block 2i: the low lane of the
// result is the previous step's last block for i == 0.
template <size_t S>
[[gnu::always_inline]] inline void shift_one(Blocks<S>& dst, const Blocks<S>& c, __m128i prev) {
    dst[0] = pair(prev, _mm256_castsi256_si128(c[0]));
#pragma GCC unroll 8
    for (size_t i = 1; i < 4 * S; ++i)
        dst[i] = pair(_mm256_extracti128_si256(c[i - 1], 1), _mm256_castsi256_si128(c[i]));
}

// ---- CBC and CFB decryption ------------------------------------------------------

// CBC decryption: P_i = D(C_i) ^ C_{i-1}.
void cbc_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                 size_t n) {
    if (n == 0) return;
    const Schedule& s = sched(ks);
    __m128i prev = load128(iv);
    drive(
        in, out, n,
        [&]<size_t S>(const uint8_t* src, uint8_t* dst, size_t m) {
            Blocks<S> v, c, p;
            load_blocks<S>(c, src, m);
#pragma GCC unroll 8
            for (size_t i = 0; i < 4 * S; ++i) v[i] = c[i];
            decrypt_sets<S>(s, v);
            shift_one<S>(p, c, prev);
#pragma GCC unroll 8
            for (size_t i = 0; i < 4 * S; ++i) v[i] = vxor(v[i], p[i]);
            prev = load128(src + 16 * (m - 1));
            store_blocks<S>(dst, v, m);
        },
        [&]<size_t N>(const uint8_t* src, uint8_t* dst) {
            __m128i c[N], x[N];
#pragma GCC unroll 8
            for (size_t j = 0; j < N; ++j) x[j] = c[j] = load128(src + 16 * j);
            crypt_xmm<false, N>(s, x);
#pragma GCC unroll 8
            for (size_t j = 0; j < N; ++j)
                store128(dst + 16 * j, _mm_xor_si128(x[j], j ? c[j - 1] : prev));
            prev = c[N - 1];
        });
    store128(iv, prev);
}

// CFB decryption: P_i = C_i ^ E(C_{i-1}); every cipher input is known.
void cfb_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                 size_t n) {
    if (n == 0) return;
    const Schedule& s = sched(ks);
    __m128i prev = load128(iv);
    drive(
        in, out, n,
        [&]<size_t S>(const uint8_t* src, uint8_t* dst, size_t m) {
            Blocks<S> v, c;
            load_blocks<S>(c, src, m);
            shift_one<S>(v, c, prev);
            encrypt_sets<S>(s, v);
#pragma GCC unroll 8
            for (size_t i = 0; i < 4 * S; ++i) v[i] = vxor(v[i], c[i]);
            prev = load128(src + 16 * (m - 1));
            store_blocks<S>(dst, v, m);
        },
        [&]<size_t N>(const uint8_t* src, uint8_t* dst) {
            __m128i c[N], x[N];
#pragma GCC unroll 8
            for (size_t j = 0; j < N; ++j) {
                c[j] = load128(src + 16 * j);
                x[j] = j ? c[j - 1] : prev;
            }
            crypt_xmm<true, N>(s, x);
#pragma GCC unroll 8
            for (size_t j = 0; j < N; ++j) store128(dst + 16 * j, _mm_xor_si128(x[j], c[j]));
            prev = c[N - 1];
        });
    store128(iv, prev);
}

// ---- CTR -----------------------------------------------------------------------

// The 128-bit big-endian counter as two native halves, wrapping mod 2^128.
struct Counter {
    uint64_t hi, lo;
    void add(uint64_t k) {
        const uint64_t l = lo + k;
        hi += l < lo;
        lo = l;
    }
    __m128i block() const {
        const __m128i bswap = _mm_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
        return _mm_shuffle_epi8(
            _mm_set_epi64x(static_cast<long long>(hi), static_cast<long long>(lo)), bswap);
    }
};

void ctr(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const Schedule& s = sched(ks);
    Counter ctr;
    std::memcpy(&ctr.hi, iv, 8);
    std::memcpy(&ctr.lo, iv + 8, 8);
    ctr.hi = __builtin_bswap64(ctr.hi);
    ctr.lo = __builtin_bswap64(ctr.lo);
    drive(
        in, out, n,
        [&]<size_t S>(const uint8_t* src, uint8_t* dst, size_t m) {
            // Counter blocks cost a few instructions against ~100 loads per
            // block of the cipher: no fast path for the no-carry case.
            Blocks<S> v, d;
#pragma GCC unroll 8
            for (size_t i = 0; i < 4 * S; ++i) {
                Counter c0 = ctr, c1 = ctr;
                c0.add(2 * i);
                c1.add(2 * i + 1);
                v[i] = pair(c0.block(), c1.block());
            }
            encrypt_sets<S>(s, v);
            load_blocks<S>(d, src, m);
#pragma GCC unroll 8
            for (size_t i = 0; i < 4 * S; ++i) v[i] = vxor(v[i], d[i]);
            store_blocks<S>(dst, v, m);
            ctr.add(m);
        },
        [&]<size_t N>(const uint8_t* src, uint8_t* dst) {
            Words w[N];
#pragma GCC unroll 8
            for (size_t j = 0; j < N; ++j) {
                w[j] = be_words(ctr.hi, ctr.lo);
                ctr.add(1);
            }
            crypt_n<true, N>(s, w);
#pragma GCC unroll 8
            for (size_t j = 0; j < N; ++j)
                store_words(dst + 16 * j, xor_words(w[j], load_words(src + 16 * j)));
        });
    store128(iv, ctr.block());
}

// ---- XTS -----------------------------------------------------------------------

// The running tweak in two native 64-bit halves. IEEE 1619: the block is a
// little-endian 128-bit x, stepped to x * alpha (shift left, 0x87 into byte
// 0). GB/T 17964: the block is big-endian and bit-reflected, stepped by a
// shift right with 0xE1 into byte 0; `hi` then holds bytes 0..7 as a
// big-endian number.
template <bool Gb>
struct Tweak {
    uint64_t hi, lo;
    explicit Tweak(const uint8_t* t) {
        std::memcpy(&lo, Gb ? t + 8 : t, 8);
        std::memcpy(&hi, Gb ? t : t + 8, 8);
        if constexpr (Gb) {
            lo = __builtin_bswap64(lo);
            hi = __builtin_bswap64(hi);
        }
    }
    void step() {
        if constexpr (Gb) {
            const uint64_t carry = lo & 1;
            lo = (lo >> 1) | (hi << 63);
            hi = (hi >> 1) ^ ((0 - carry) & (uint64_t{0xE1} << 56));
        } else {
            const uint64_t carry = hi >> 63;
            hi = (hi << 1) | (lo >> 63);
            lo = (lo << 1) ^ ((0 - carry) & 0x87);
        }
    }
    __m128i block() const {
        if constexpr (Gb)
            return _mm_set_epi64x(static_cast<long long>(__builtin_bswap64(lo)),
                                  static_cast<long long>(__builtin_bswap64(hi)));
        else return _mm_set_epi64x(static_cast<long long>(hi), static_cast<long long>(lo));
    }
    Words words() const {
        if constexpr (Gb) return be_words(hi, lo);
        else
            return {static_cast<uint32_t>(lo), static_cast<uint32_t>(lo >> 32),
                    static_cast<uint32_t>(hi), static_cast<uint32_t>(hi >> 32)};
    }
    void store(uint8_t* t) const { store128(t, block()); }
};

template <bool Enc, bool Gb>
void xts_kernel(const KeySchedule& ks, uint8_t tweak[16], const uint8_t* in, uint8_t* out,
                size_t n) {
    if (n == 0) return;
    const Schedule& s = sched(ks);
    Tweak<Gb> t(tweak);
    drive(
        in, out, n,
        [&]<size_t S>(const uint8_t* src, uint8_t* dst, size_t m) {
            Blocks<S> v, tw;
#pragma GCC unroll 8
            for (size_t i = 0; i < 4 * S; ++i) {
                const __m128i t0 = t.block();
                t.step();
                tw[i] = pair(t0, t.block());
                t.step();
            }
            load_blocks<S>(v, src, m);
#pragma GCC unroll 8
            for (size_t i = 0; i < 4 * S; ++i) v[i] = vxor(v[i], tw[i]);
            crypt_sets<Enc, S>(s, v);
#pragma GCC unroll 8
            for (size_t i = 0; i < 4 * S; ++i) v[i] = vxor(v[i], tw[i]);
            store_blocks<S>(dst, v, m);
            // A padded step stepped the tweak for the missing blocks too:
            // restart from the one after the last real block.
            if (m != 8 * S) {
                alignas(16) uint8_t b[16];
                store128(b, m & 1 ? _mm256_extracti128_si256(tw[m / 2], 1)
                                  : _mm256_castsi256_si128(tw[m / 2]));
                t = Tweak<Gb>(b);
                secure_wipe(b, sizeof b);
            }
        },
        [&]<size_t N>(const uint8_t* src, uint8_t* dst) {
            Words tw[N], x[N];
#pragma GCC unroll 8
            for (size_t j = 0; j < N; ++j) {
                tw[j] = t.words();
                t.step();
                x[j] = xor_words(load_words(src + 16 * j), tw[j]);
            }
            crypt_n<Enc, N>(s, x);
#pragma GCC unroll 8
            for (size_t j = 0; j < N; ++j) store_words(dst + 16 * j, xor_words(x[j], tw[j]));
        });
    t.store(tweak);
}

void xts_encrypt(const KeySchedule& ks, uint8_t t[16], const uint8_t* in, uint8_t* out,
                 size_t n) {
    xts_kernel<true, false>(ks, t, in, out, n);
}
void xts_decrypt(const KeySchedule& ks, uint8_t t[16], const uint8_t* in, uint8_t* out,
                 size_t n) {
    xts_kernel<false, false>(ks, t, in, out, n);
}
void xts_gb_encrypt(const KeySchedule& ks, uint8_t t[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    xts_kernel<true, true>(ks, t, in, out, n);
}
void xts_gb_decrypt(const KeySchedule& ks, uint8_t t[16], const uint8_t* in, uint8_t* out,
                    size_t n) {
    xts_kernel<false, true>(ks, t, in, out, n);
}

// ---- OCB -----------------------------------------------------------------------

// Offsets are made one block at a time (Offset_i = Offset_{i-1} ^ L[ntz(i)],
// i counting every block of the message); the checksum is kept per lane of
// a YMM register and folded at the end.
template <bool Enc>
void ocb_kernel(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out, size_t n) {
    if (n == 0) return;
    const Schedule& s = sched(ks);
    __m128i off = load128(st.offset);
    __m256i sum = _mm256_zextsi128_si256(load128(st.checksum));
    uint64_t idx = st.blocks;
    auto next_offset = [&] {
        ++idx;
        off = _mm_xor_si128(off, load128(st.l[std::countr_zero(idx)]));
        return off;
    };
    drive(
        in, out, n,
        [&]<size_t S>(const uint8_t* src, uint8_t* dst, size_t m) {
            Blocks<S> v, o;
            // Offsets for the real blocks only: padded ones reuse the last.
#pragma GCC unroll 8
            for (size_t i = 0; i < 4 * S; ++i) {
                const __m128i o0 = 2 * i < m ? next_offset() : off;
                const __m128i o1 = 2 * i + 1 < m ? next_offset() : off;
                o[i] = pair(o0, o1);
            }
            load_blocks<S>(v, src, m);
            if constexpr (Enc) {
#pragma GCC unroll 8
                for (size_t i = 0; i < 4 * S; ++i) sum = vxor(sum, v[i]);
            }
#pragma GCC unroll 8
            for (size_t i = 0; i < 4 * S; ++i) v[i] = vxor(v[i], o[i]);
            crypt_sets<Enc, S>(s, v);
#pragma GCC unroll 8
            for (size_t i = 0; i < 4 * S; ++i) v[i] = vxor(v[i], o[i]);
            if constexpr (!Enc) {
                // Padded blocks decrypt to garbage: mask them out of the sum.
#pragma GCC unroll 8
                for (size_t i = 0; i < 4 * S; ++i)
                    sum = vxor(sum, m == 8 * S ? v[i] : _mm256_and_si256(v[i], tail_mask(m, i)));
            }
            store_blocks<S>(dst, v, m);
        },
        [&]<size_t N>(const uint8_t* src, uint8_t* dst) {
            __m128i o[N], x[N];
#pragma GCC unroll 8
            for (size_t j = 0; j < N; ++j) {
                o[j] = next_offset();
                const __m128i p = load128(src + 16 * j);
                if constexpr (Enc) sum = vxor(sum, _mm256_zextsi128_si256(p));
                x[j] = _mm_xor_si128(p, o[j]);
            }
            crypt_xmm<Enc, N>(s, x);
#pragma GCC unroll 8
            for (size_t j = 0; j < N; ++j) {
                const __m128i y = _mm_xor_si128(x[j], o[j]);
                if constexpr (!Enc) sum = vxor(sum, _mm256_zextsi128_si256(y));
                store128(dst + 16 * j, y);
            }
        });
    store128(st.offset, off);
    st.blocks = idx;
    store128(st.checksum, _mm_xor_si128(_mm256_castsi256_si128(sum),
                                        _mm256_extracti128_si256(sum, 1)));
}

void ocb_encrypt(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out,
                 size_t n) {
    ocb_kernel<true>(ks, st, in, out, n);
}
void ocb_decrypt(const KeySchedule& ks, OcbState& st, const uint8_t* in, uint8_t* out,
                 size_t n) {
    ocb_kernel<false>(ks, st, in, out, n);
}

// ---- CFB8 decryption -------------------------------------------------------------

// Parallel: the register for every byte is made of ciphertext only. Per 16
// bytes, the 16 registers are the byte windows k..k+15 over the previous
// and the current ciphertext block, one 16-block step encrypts them, and
// byte 0 of each is the keystream byte (the scalar engine takes the 16
// windows 4 at a time). Leftover bytes go one block encryption per byte.
void cfb8_decrypt(const KeySchedule& ks, uint8_t iv[16], const uint8_t* in, uint8_t* out,
                  size_t n) {
    if (n == 0) return;
    const Schedule& s = sched(ks);
    alignas(32) uint8_t win[32];
    std::memcpy(win, iv, 16);
    if (use_gather()) {
        for (; n >= 16; n -= 16, in += 16, out += 16) {
            std::memcpy(win + 16, in, 16);
            Blocks<2> v;
#pragma GCC unroll 8
            for (size_t i = 0; i < 8; ++i) v[i] = pair(load128(win + 2 * i), load128(win + 2 * i + 1));
            encrypt_sets<2>(s, v);
            alignas(32) uint8_t ksb[256]; // keystream byte k is byte 0 of block k
#pragma GCC unroll 8
            for (size_t i = 0; i < 8; ++i) vstore(ksb + 32 * i, v[i]);
            for (size_t k = 0; k < 16; ++k) out[k] = static_cast<uint8_t>(win[16 + k] ^ ksb[16 * k]);
            secure_wipe(ksb, sizeof ksb);
            std::memcpy(win, win + 16, 16);
        }
    } else {
        for (; n >= 16; n -= 16, in += 16, out += 16) {
            std::memcpy(win + 16, in, 16);
            for (size_t k = 0; k < 16; k += kScalarWays) {
                Words w[kScalarWays];
#pragma GCC unroll 8
                for (size_t j = 0; j < kScalarWays; ++j) w[j] = load_words(win + k + j);
                crypt_n<true, kScalarWays>(s, w);
#pragma GCC unroll 8
                for (size_t j = 0; j < kScalarWays; ++j)
                    out[k + j] = static_cast<uint8_t>(win[16 + k + j] ^ w[j].a);
            }
            std::memcpy(win, win + 16, 16);
        }
    }
    for (; n; --n, ++in, ++out) {
        const Words e = enc1(s, load_words(win));
        const uint8_t c = *in;
        *out = static_cast<uint8_t>(c ^ e.a);
        std::memmove(win, win + 1, 15);
        win[15] = c;
    }
    std::memcpy(iv, win, 16);
    secure_wipe(win, sizeof win);
}

} // namespace
} // namespace twofish

extern const BlockCore twofish_avx2 = {
    .name = "twofish-avx2",
    .family = Family::twofish,
    .hardware = false, // table lookups and integer SIMD: no cipher instructions behind it
    .needs = kX86Avx2,
    .set_key = portable::twofish_set_key,
    .encrypt_blocks = twofish::ecb_encrypt,
    .decrypt_blocks = twofish::ecb_decrypt,
    .cbc_encrypt = twofish::cbc_encrypt,
    .cbc_decrypt = twofish::cbc_decrypt,
    .cfb_encrypt = twofish::cfb_encrypt,
    .cfb_decrypt = twofish::cfb_decrypt,
    .ofb = twofish::ofb,
    .ctr = twofish::ctr,
    .cfb8_encrypt = twofish::cfb8_encrypt,
    .cfb8_decrypt = twofish::cfb8_decrypt,
    .cbc_mac = twofish::cbc_mac,
    .xts_encrypt = twofish::xts_encrypt,
    .xts_decrypt = twofish::xts_decrypt,
    .xts_gb_encrypt = twofish::xts_gb_encrypt,
    .xts_gb_decrypt = twofish::xts_gb_decrypt,
    .ocb_encrypt = twofish::ocb_encrypt,
    .ocb_decrypt = twofish::ocb_decrypt,
};

} // namespace hwc::x86_64
