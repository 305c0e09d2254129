// SPDX-License-Identifier: Apache-2.0
// Core equivalence: every compiled core and kernel against the portable core
// and against one-block-at-a-time reference loops written here.
//
// Today each family has only its portable core, so comparing "core vs
// portable" alone could never fail; the reference loops (built only on
// encrypt_blocks/decrypt_blocks called with one block) make these tests
// meaningful now and keep checking the generic kernels once accelerated
// cores appear.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "cores/cpu.h"
#include "cores/modes.h"
#include "cores/registry.h"
#include "test/support/ossl_env.h"

namespace hwc::test {
namespace {

constexpr size_t B = kBlockSize;

std::vector<size_t> key_lengths(Family f) {
    return f == Family::sm4 ? std::vector<size_t>{16} : std::vector<size_t>{16, 24, 32};
}

// Cores whose CPU features are missing are listed but cannot run here.
bool usable(const BlockCore& c) {
    static const uint32_t features = detect_cpu_features();
    return (c.needs & features) == c.needs;
}

// ---- reference loops: one block per encrypt_blocks call ----

void xor16(uint8_t* d, const uint8_t* a, const uint8_t* b) {
    for (size_t i = 0; i < B; ++i) d[i] = a[i] ^ b[i];
}

// Big-endian +1 over all 128 bits, written independently of the cores.
void be_increment(uint8_t* ctr) {
    for (int i = 15; i >= 0; --i)
        if (++ctr[i] != 0) break;
}

using ChainFn3 = void (*)(const BlockCore&, const KeySchedule&, uint8_t*, const uint8_t*, uint8_t*,
                          size_t);

void ref_ecb_enc(const BlockCore& c, const KeySchedule& ks, uint8_t*, const uint8_t* in,
                 uint8_t* out, size_t n) {
    for (size_t i = 0; i < n; ++i) c.encrypt_blocks(ks, in + i * B, out + i * B, 1);
}
void ref_ecb_dec(const BlockCore& c, const KeySchedule& ks, uint8_t*, const uint8_t* in,
                 uint8_t* out, size_t n) {
    for (size_t i = 0; i < n; ++i) c.decrypt_blocks(ks, in + i * B, out + i * B, 1);
}
void ref_cbc_enc(const BlockCore& c, const KeySchedule& ks, uint8_t* iv, const uint8_t* in,
                 uint8_t* out, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        uint8_t x[B];
        xor16(x, in + i * B, iv);
        c.encrypt_blocks(ks, x, iv, 1);
        std::memcpy(out + i * B, iv, B);
    }
}
void ref_cbc_dec(const BlockCore& c, const KeySchedule& ks, uint8_t* iv, const uint8_t* in,
                 uint8_t* out, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        uint8_t ct[B], x[B];
        std::memcpy(ct, in + i * B, B);
        c.decrypt_blocks(ks, ct, x, 1);
        xor16(out + i * B, x, iv);
        std::memcpy(iv, ct, B);
    }
}
void ref_cfb_enc(const BlockCore& c, const KeySchedule& ks, uint8_t* iv, const uint8_t* in,
                 uint8_t* out, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        uint8_t k[B];
        c.encrypt_blocks(ks, iv, k, 1);
        xor16(iv, in + i * B, k);
        std::memcpy(out + i * B, iv, B);
    }
}
void ref_cfb_dec(const BlockCore& c, const KeySchedule& ks, uint8_t* iv, const uint8_t* in,
                 uint8_t* out, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        uint8_t k[B], ct[B];
        std::memcpy(ct, in + i * B, B);
        c.encrypt_blocks(ks, iv, k, 1);
        xor16(out + i * B, ct, k);
        std::memcpy(iv, ct, B);
    }
}
void ref_ofb(const BlockCore& c, const KeySchedule& ks, uint8_t* iv, const uint8_t* in,
             uint8_t* out, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        c.encrypt_blocks(ks, iv, iv, 1);
        xor16(out + i * B, in + i * B, iv);
    }
}
void ref_ctr(const BlockCore& c, const KeySchedule& ks, uint8_t* iv, const uint8_t* in,
             uint8_t* out, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        uint8_t k[B];
        c.encrypt_blocks(ks, iv, k, 1);
        xor16(out + i * B, in + i * B, k);
        be_increment(iv);
    }
}

// ECB through the modes.h entry points, in the chained signature.
void helper_ecb_enc(const BlockCore& c, const KeySchedule& ks, uint8_t*, const uint8_t* in,
                    uint8_t* out, size_t n) { ecb_encrypt(c, ks, in, out, n); }
void helper_ecb_dec(const BlockCore& c, const KeySchedule& ks, uint8_t*, const uint8_t* in,
                    uint8_t* out, size_t n) { ecb_decrypt(c, ks, in, out, n); }

struct Kernel {
    const char* name;
    ChainFn3 helper;    // hwc:: dispatching helper (core slot or generic)
    ChainFn3 generic;   // hwc::generic:: kernel, nullptr for ECB
    ChainFn3 reference; // the loops above
};

const Kernel kKernels[] = {
    {"ecb_encrypt", helper_ecb_enc, nullptr, ref_ecb_enc},
    {"ecb_decrypt", helper_ecb_dec, nullptr, ref_ecb_dec},
    {"cbc_encrypt", cbc_encrypt, generic::cbc_encrypt, ref_cbc_enc},
    {"cbc_decrypt", cbc_decrypt, generic::cbc_decrypt, ref_cbc_dec},
    {"cfb_encrypt", cfb_encrypt, generic::cfb_encrypt, ref_cfb_enc},
    {"cfb_decrypt", cfb_decrypt, generic::cfb_decrypt, ref_cfb_dec},
    {"ofb", ofb, generic::ofb, ref_ofb},
    {"ctr", ctr, generic::ctr, ref_ctr},
};

// ---- running a kernel on misaligned, guarded buffers ----

struct Result {
    Bytes out, iv;
};

constexpr uint8_t kGuard = 0xA5;

// Runs fn on `n` blocks of `in`, placed at byte offsets in_off/out_off
// (0..15) inside larger buffers whose other bytes must stay untouched. The
// input buffer must not change either (out-of-place calls).
Result run(ChainFn3 fn, const BlockCore& c, const KeySchedule& ks, const Bytes& in,
           const Bytes& iv, size_t n, bool in_place, size_t in_off, size_t out_off, size_t iv_off) {
    const size_t len = n * B;
    Bytes obuf(len + 48, kGuard), ibuf(len + 48, kGuard), ivbuf(48, kGuard);
    std::memcpy(ivbuf.data() + iv_off, iv.data(), B);
    uint8_t* o = obuf.data() + out_off;
    const uint8_t* i = o;
    // len may be 0 with an empty `in` (data() may then be null, which
    // memcpy must not be given even for zero bytes).
    if (in_place) {
        if (len != 0) std::memcpy(o, in.data(), len);
    } else {
        if (len != 0) std::memcpy(ibuf.data() + in_off, in.data(), len);
        i = ibuf.data() + in_off;
    }
    fn(c, ks, ivbuf.data() + iv_off, i, o, n);
    for (size_t k = 0; k < obuf.size(); ++k) {
        if (k < out_off || k >= out_off + len) {
            EXPECT_EQ(obuf[k], kGuard) << "output guard byte " << k << " overwritten";
        }
    }
    if (!in_place && len != 0) {
        EXPECT_EQ(0, std::memcmp(ibuf.data() + in_off, in.data(), len)) << "input modified";
    }
    for (size_t k = 0; k < ivbuf.size(); ++k) {
        if (k < iv_off || k >= iv_off + B) {
            EXPECT_EQ(ivbuf[k], kGuard) << "iv guard " << k;
        }
    }
    return {Bytes(o, o + len), Bytes(ivbuf.begin() + static_cast<long>(iv_off),
                                     ivbuf.begin() + static_cast<long>(iv_off + B))};
}

std::vector<size_t> block_counts() {
    std::vector<size_t> v;
    for (size_t n = 0; n <= 40; ++n) v.push_back(n);
    for (size_t n : {64, 100, 255, 256, 301}) v.push_back(n);
    return v;
}

std::string family_label(const testing::TestParamInfo<Family>& i) { return family_name(i.param); }

const Family kFamilies[] = {Family::aes, Family::sm4, Family::twofish};

class CoreEquivalence : public testing::TestWithParam<Family> {
protected:
    void SetUp() override {
        cores_ = cores_for(GetParam());
        ASSERT_FALSE(cores_.empty());
        portable_ = cores_.back();
        std::string list;
        for (const BlockCore* c : cores_) {
            EXPECT_EQ(c->family, GetParam()) << c->name;
            list += std::string(list.empty() ? "" : ",") + c->name + (usable(*c) ? "" : "(unusable)");
        }
        // Shown in the XML report; the seed reproduces a failing run.
        RecordProperty("cores", list);
        RecordProperty("seed", std::to_string(test_seed()));
        seed_trace_ = std::make_unique<testing::ScopedTrace>(
            __FILE__, __LINE__, "HWCIPHER_TEST_SEED=" + std::to_string(test_seed()));
    }
    void TearDown() override { seed_trace_.reset(); }
    std::unique_ptr<testing::ScopedTrace> seed_trace_;
    std::span<const BlockCore* const> cores_;
    const BlockCore* portable_ = nullptr;
};

TEST_P(CoreEquivalence, SetKeyLengths) {
    for (const BlockCore* c : cores_) {
        if (!usable(*c)) continue;
        SCOPED_TRACE(c->name);
        auto ks = std::make_unique<KeySchedule>();
        Bytes key = random_bytes(64);
        for (size_t len : key_lengths(GetParam()))
            EXPECT_TRUE(c->set_key(*ks, key.data(), len)) << "legal length " << len;
        std::vector<size_t> bad = {0, 15, 17, 33};
        if (GetParam() == Family::sm4) bad.insert(bad.end(), {24, 32});
        for (size_t len : bad) EXPECT_FALSE(c->set_key(*ks, key.data(), len)) << "length " << len;
    }
}

TEST_P(CoreEquivalence, BlockKernels) {
    auto ks = std::make_unique<KeySchedule>(), ks_p = std::make_unique<KeySchedule>();
    size_t checks = 0;
    for (const BlockCore* c : cores_) {
        if (!usable(*c)) continue;
        for (size_t klen : key_lengths(GetParam())) {
            Bytes key = random_bytes(klen);
            ASSERT_TRUE(c->set_key(*ks, key.data(), klen));
            ASSERT_TRUE(portable_->set_key(*ks_p, key.data(), klen));
            for (const Kernel& k : kKernels) {
                for (size_t n : block_counts()) {
                    for (bool in_place : {false, true}) {
                        SCOPED_TRACE(std::string(c->name) + " key " + std::to_string(klen) + " " +
                                     k.name + " n=" + std::to_string(n) +
                                     (in_place ? " in-place" : " out-of-place"));
                        Bytes in = random_bytes(n * B), iv = random_bytes(B);
                        // Offsets cycle through 0..15 (mostly misaligned).
                        size_t oi = (n + 1) % 16, oo = (n * 7 + 3) % 16, ov = (n * 5 + 1) % 16;
                        Result want = run(k.reference, *c, *ks, in, iv, n, in_place, oi, oo, ov);
                        Result got = run(k.helper, *c, *ks, in, iv, n, in_place, oi, oo, ov);
                        Result port = run(k.helper, *portable_, *ks_p, in, iv, n, in_place, 0, 0, 0);
                        EXPECT_EQ(to_hex(got.out), to_hex(want.out)) << "helper vs reference";
                        EXPECT_EQ(to_hex(got.iv), to_hex(want.iv)) << "helper iv";
                        EXPECT_EQ(to_hex(got.out), to_hex(port.out)) << "core vs portable";
                        EXPECT_EQ(to_hex(got.iv), to_hex(port.iv)) << "core vs portable iv";
                        if (k.generic != nullptr) {
                            Result gen = run(k.generic, *c, *ks, in, iv, n, in_place, oo, oi, ov);
                            EXPECT_EQ(to_hex(gen.out), to_hex(want.out)) << "generic vs reference";
                            EXPECT_EQ(to_hex(gen.iv), to_hex(want.iv)) << "generic iv";
                        }
                        // Two calls continue one stream through the written-back iv.
                        if (n >= 2) {
                            Bytes iv2 = iv, out2(n * B);
                            size_t first = n / 3 + 1;
                            k.helper(*c, *ks, iv2.data(), in.data(), out2.data(), first);
                            k.helper(*c, *ks, iv2.data(), in.data() + first * B,
                                     out2.data() + first * B, n - first);
                            EXPECT_EQ(to_hex(out2), to_hex(want.out)) << "split at " << first;
                            EXPECT_EQ(to_hex(iv2), to_hex(want.iv)) << "split iv";
                        }
                        if (HasFailure()) return; // one clear failure, not thousands
                        ++checks;
                    }
                }
            }
            // ECB decryption inverts encryption on a large batch.
            Bytes pt = random_bytes(301 * B), ct(pt.size()), back(pt.size());
            ecb_encrypt(*c, *ks, pt.data(), ct.data(), 301);
            ecb_decrypt(*c, *ks, ct.data(), back.data(), 301);
            EXPECT_EQ(to_hex(back), to_hex(pt)) << c->name << " ECB round trip";
        }
    }
    EXPECT_GT(checks, 0u);
}

// ---- generic CFB8 / CFB1 against shift-register references ----

void ref_cfb_bits(const BlockCore& c, const KeySchedule& ks, uint8_t* reg, const uint8_t* in,
                  uint8_t* out, size_t units, bool bits, bool enc) {
    // Shift the register left by 1 byte or 1 bit, appending the ciphertext.
    for (size_t u = 0; u < units; ++u) {
        uint8_t k[B];
        c.encrypt_blocks(ks, reg, k, 1);
        if (!bits) {
            uint8_t x = in[u], y = static_cast<uint8_t>(x ^ k[0]);
            out[u] = y;
            std::memmove(reg, reg + 1, B - 1);
            reg[B - 1] = enc ? y : x;
            continue;
        }
        const unsigned sh = 7 - u % 8;
        unsigned x = (in[u / 8] >> sh) & 1, y = x ^ (k[0] >> 7);
        out[u / 8] = static_cast<uint8_t>((out[u / 8] & ~(1u << sh)) | (y << sh));
        unsigned fb = enc ? y : x;
        for (size_t i = 0; i < B; ++i)
            reg[i] = static_cast<uint8_t>(reg[i] << 1 | (i + 1 < B ? reg[i + 1] >> 7 : fb));
    }
}

TEST_P(CoreEquivalence, GenericCfb8AndCfb1) {
    auto ks = std::make_unique<KeySchedule>();
    for (const BlockCore* c : cores_) {
        if (!usable(*c)) continue;
        for (size_t klen : key_lengths(GetParam())) {
            Bytes key = random_bytes(klen);
            ASSERT_TRUE(c->set_key(*ks, key.data(), klen));
            for (bool bits : {false, true}) {
                std::vector<size_t> lens;
                for (size_t n = 0; n <= 40; ++n) lens.push_back(n);
                for (size_t n : {127, 128, 129, 300}) lens.push_back(n);
                for (size_t units : lens) {
                    for (bool enc : {true, false}) {
                        SCOPED_TRACE(std::string(c->name) + (bits ? " cfb1" : " cfb8") +
                                     (enc ? " enc" : " dec") + " units=" + std::to_string(units));
                        const size_t nbytes = bits ? (units + 7) / 8 : units;
                        Bytes in = random_bytes(nbytes), iv = random_bytes(B);
                        // Bits past the end keep their value in both runs.
                        Bytes want(nbytes, 0x5a), got(nbytes, 0x5a), ivw = iv, ivg = iv;
                        ref_cfb_bits(*c, *ks, ivw.data(), in.data(), want.data(), units, bits, enc);
                        if (bits) generic::cfb1(*c, *ks, ivg.data(), in.data(), got.data(), units, enc);
                        else generic::cfb8(*c, *ks, ivg.data(), in.data(), got.data(), units, enc);
                        if (bits && units % 8) { // compare only the processed bits
                            uint8_t mask = static_cast<uint8_t>(0xff00u >> (units % 8));
                            want.back() &= mask;
                            got.back() &= mask;
                        }
                        EXPECT_EQ(to_hex(got), to_hex(want));
                        EXPECT_EQ(to_hex(ivg), to_hex(ivw)) << "register";
                        // In place gives the same result.
                        Bytes inplace = in, ivi = iv;
                        if (bits) generic::cfb1(*c, *ks, ivi.data(), inplace.data(), inplace.data(), units, enc);
                        else generic::cfb8(*c, *ks, ivi.data(), inplace.data(), inplace.data(), units, enc);
                        if (bits && units % 8) inplace.back() &= static_cast<uint8_t>(0xff00u >> (units % 8));
                        EXPECT_EQ(to_hex(inplace), to_hex(want)) << "in place";
                        if (HasFailure()) return;
                    }
                }
            }
        }
    }
}

// ---- CTR counter arithmetic: full 128-bit big-endian wrap and carries ----

TEST_P(CoreEquivalence, CtrCounterCarries) {
    auto ks = std::make_unique<KeySchedule>();
    // Counters just below a carry boundary: all ones (wraps to zero), and
    // the low 32, 64 and 96 bits all ones with a distinct upper part.
    const char* starts[] = {
        "ffffffffffffffffffffffffffffffff", "0123456789abcdef01234567ffffffff",
        "0123456789abcdefffffffffffffffff", "01234567ffffffffffffffffffffffff",
        "000000000000000000000000fffffffe", "00000000000000fffffffffffffffff0",
        "fffffffffffffffffffffffffffffff0",
    };
    for (const BlockCore* c : cores_) {
        if (!usable(*c)) continue;
        Bytes key = random_bytes(16);
        ASSERT_TRUE(c->set_key(*ks, key.data(), 16));
        for (const char* s : starts) {
            for (size_t n : {1, 2, 3, 17, 40}) {
                SCOPED_TRACE(std::string(c->name) + " ctr from " + s + " n=" + std::to_string(n));
                Bytes iv0 = from_hex(s), in = random_bytes(n * B);
                // Expected: explicit counter blocks from be_increment.
                Bytes counters, ctr = iv0;
                for (size_t i = 0; i < n; ++i) {
                    counters.insert(counters.end(), ctr.begin(), ctr.end());
                    be_increment(ctr.data());
                }
                Bytes ksb(n * B), want(n * B);
                c->encrypt_blocks(*ks, counters.data(), ksb.data(), n);
                for (size_t i = 0; i < n * B; ++i) want[i] = in[i] ^ ksb[i];
                for (ChainFn3 fn : {static_cast<ChainFn3>(hwc::ctr), static_cast<ChainFn3>(generic::ctr)}) {
                    Bytes iv = iv0, got(n * B);
                    fn(*c, *ks, iv.data(), in.data(), got.data(), n);
                    EXPECT_EQ(to_hex(got), to_hex(want));
                    EXPECT_EQ(to_hex(iv), to_hex(ctr)) << "returned counter";
                }
                if (std::string(s) == "ffffffffffffffffffffffffffffffff" && n >= 2) {
                    EXPECT_EQ(to_hex(Bytes(counters.begin() + 16, counters.begin() + 32)),
                              "00000000000000000000000000000000"); // the reference wraps
                }
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Families, CoreEquivalence, testing::ValuesIn(kFamilies), family_label);

} // namespace
} // namespace hwc::test
