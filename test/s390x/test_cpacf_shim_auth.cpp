// SPDX-License-Identifier: Apache-2.0
// The CPACF shim's own semantics, part 2: the authenticating instructions.
// KMA-GCM (one call and streamed, 96-bit and other IV lengths), KIMD-GHASH
// (against hwcipher's portable GHASH and as part of a GCM composed of KM,
// KMCTR and KIMD) and CMAC from KMAC plus PCC, each compared with OpenSSL's
// default provider at several partial-completion granularities.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>

#include "cores/portable/portable.h"
#include "test/s390x/cpacf_shim.h"
#include "test/s390x/shim_insn.h"
#include "test/s390x/shim_reference.h"

namespace hwc::test {
namespace {

using namespace shimref;

constexpr uint64_t kDecipher = 0x80, kLpc = 0x100, kLaad = 0x200, kHs = 0x400;

// KMA parameter block offsets.
constexpr size_t kCv = 12, kT = 16, kH = 32, kTaadl = 48, kTpcl = 56, kJ0 = 64, kKey = 80;

const size_t kAadLengths[] = {0, 1, 16, 17, 40, 100};
const size_t kTextLengths[] = {0, 1, 15, 16, 17, 32, 48, 100, 257, 1024};

Bytes kma_param(const Bytes& key, const Bytes& j0) {
    Bytes p(kKey + key.size(), 0);
    std::memcpy(p.data() + kJ0, j0.data(), B);
    std::memcpy(p.data() + kCv, j0.data() + 12, 4);  // CV starts at J0's counter word
    std::memcpy(p.data() + kKey, key.data(), key.size());
    return p;
}

// J0 = IV || 0^31 || 1 for 96-bit IVs, else GHASH(IV padded || 0^64 || bits)
// computed with KMA itself as an AAD-only call (T is then the raw GHASH).
Bytes j0_for(const Bytes& key, const Bytes& iv) {
    if (iv.size() == 12) return concat(iv, {0, 0, 0, 1});
    Bytes block = iv;
    block.resize((iv.size() + B - 1) / B * B + 8, 0);
    block.resize(block.size() + 8);
    store_be64(block.data() + block.size() - 8, uint64_t{iv.size()} * 8);
    Bytes p = kma_param(key, Bytes(B, 0));
    EXPECT_EQ(insn::kma(aes_fc(key.size()) | kLaad, p.data(), nullptr, nullptr, 0, block.data(),
                        block.size()), 0);
    return slice(p, kT, B);
}

struct Split {
    size_t aad, text1, text2;  // AAD bytes in the first call; text ends of calls 2 and 3
};

Split random_split(size_t aad_len, size_t text_len) {
    Split s;
    s.aad = random_below(aad_len / B + 1) * B;
    s.text1 = random_below(text_len / B + 1) * B;
    s.text2 = s.text1 + random_below((text_len - s.text1) / B + 1) * B;
    return s;
}

struct Gcm {
    Bytes out, tag, h;
};

// GCM by KMA in one call (split == nullptr) or streamed in four calls:
// AAD only without LAAD (the CPU computes H), the rest of the AAD with the
// first text, more text, then the final call with LAAD|LPC and the lengths.
Gcm kma_gcm(const Bytes& key, const Bytes& iv, const Bytes& aad, const Bytes& in, bool enc,
            const Split* split) {
    const uint64_t fc = aes_fc(key.size()) | (enc ? 0 : kDecipher);
    Bytes p = kma_param(key, j0_for(key, iv)), out(in.size());
    Gcm r;
    if (split == nullptr) {
        store_be64(p.data() + kTaadl, uint64_t{aad.size()} * 8);
        store_be64(p.data() + kTpcl, uint64_t{in.size()} * 8);
        EXPECT_EQ(insn::kma(fc | kLaad | kLpc, p.data(), out.data(), in.data(), in.size(),
                            aad.data(), aad.size()), 0);
    } else {
        const Split& s = *split;
        EXPECT_EQ(insn::kma(fc, p.data(), out.data(), in.data(), 0, aad.data(), s.aad), 0);
        EXPECT_EQ(insn::kma(fc | kLaad | kHs, p.data(), out.data(), in.data(), s.text1,
                            aad.data() + s.aad, aad.size() - s.aad), 0);
        EXPECT_EQ(insn::kma(fc | kLaad | kHs, p.data(), out.data() + s.text1, in.data() + s.text1,
                            s.text2 - s.text1, nullptr, 0), 0);
        store_be64(p.data() + kTaadl, uint64_t{aad.size()} * 8);
        store_be64(p.data() + kTpcl, uint64_t{in.size()} * 8);
        EXPECT_EQ(insn::kma(fc | kLaad | kLpc | kHs, p.data(), out.data() + s.text2,
                            in.data() + s.text2, in.size() - s.text2, nullptr, 0), 0);
    }
    r.out = out;
    r.tag = slice(p, kT, B);
    r.h = slice(p, kH, B);
    return r;
}

void check_kma(const Granularity& g, size_t keylen, const Bytes& iv, size_t aad_len,
               size_t text_len) {
    SCOPED_TRACE(g.label() + ", key " + std::to_string(keylen) + ", IV " +
                 std::to_string(iv.size()) + ", AAD " + std::to_string(aad_len) + ", text " +
                 std::to_string(text_len));
    const Bytes key = random_bytes(keylen), aad = random_bytes(aad_len),
                pt = random_bytes(text_len);
    const Sealed want = evp_gcm(key, iv, aad, pt);
    const Bytes h = evp(aes_name(keylen, "ECB"), key, {}, Bytes(B, 0), true);
    const Split split = random_split(aad_len, text_len);
    for (const Split* s : {static_cast<const Split*>(nullptr), &split}) {
        SCOPED_TRACE(s ? "streamed, splits " + std::to_string(s->aad) + "/" +
                             std::to_string(s->text1) + "/" + std::to_string(s->text2)
                       : std::string("one call"));
        const Gcm e = kma_gcm(key, iv, aad, pt, true, s);
        EXPECT_EQ(to_hex(e.out), to_hex(want.ct));
        EXPECT_EQ(to_hex(e.tag), to_hex(want.tag));
        EXPECT_EQ(to_hex(e.h), to_hex(h)) << "H stored by the CPU";
        const Gcm d = kma_gcm(key, iv, aad, want.ct, false, s);
        EXPECT_EQ(to_hex(d.out), to_hex(pt));
        EXPECT_EQ(to_hex(d.tag), to_hex(want.tag)) << "decipher tag (GHASH over the input)";
    }
}

TEST(CpacfShimAuth, KmaMatchesGcm) {
    if (!(msa8())) GTEST_SKIP() << "the CPU model lacks MSA8 (KMA)";
    for (const Granularity& g : granularities()) {
        AtGranularity at(g);
        for (size_t keylen : kKeyLengths)
            for (size_t aad_len : kAadLengths)
                for (size_t text_len : kTextLengths)
                    check_kma(g, keylen, random_bytes(12), aad_len, text_len);
    }
}

TEST(CpacfShimAuth, KmaMatchesGcmWithOtherIvLengths) {
    if (!(msa8())) GTEST_SKIP() << "the CPU model lacks MSA8 (KMA)";
    for (const Granularity& g : granularities()) {
        AtGranularity at(g);
        for (size_t keylen : kKeyLengths)
            for (size_t ivlen : {1, 8, 16, 60})
                check_kma(g, keylen, random_bytes(ivlen), 20, 70);
    }
}

// The 32-bit counter wraps to 0 without carrying into J0.
TEST(CpacfShimAuth, KmaCounterWrapsMod32Bits) {
    if (!(msa8())) GTEST_SKIP() << "the CPU model lacks MSA8 (KMA)";
    const Bytes key = random_bytes(16), pt = random_bytes(5 * B);
    Bytes j0 = random_bytes(B);
    std::memcpy(j0.data() + 12, "\xff\xff\xff\xfe", 4);
    Bytes p = kma_param(key, j0), out(pt.size());
    store_be64(p.data() + kTpcl, uint64_t{pt.size()} * 8);
    EXPECT_EQ(insn::kma(18 | kLaad | kLpc, p.data(), out.data(), pt.data(), pt.size(), nullptr, 0),
              0);
    Bytes counters;
    for (uint32_t c : {0xffffffffu, 0u, 1u, 2u, 3u}) {
        Bytes ctr = slice(j0, 0, 12);
        for (int s = 24; s >= 0; s -= 8) ctr.push_back(static_cast<uint8_t>(c >> s));
        counters = concat(counters, ctr);
    }
    const Bytes ks = evp("AES-128-ECB", key, {}, counters, true);
    for (size_t i = 0; i < pt.size(); ++i) EXPECT_EQ(out[i], pt[i] ^ ks[i]) << i;
    EXPECT_EQ(to_hex(slice(p, kCv, 4)), "00000003");
}

// KIMD-GHASH against the portable GHASH core, in two calls.
TEST(CpacfShimAuth, KimdMatchesPortableGhash) {
    if (!(msa4())) GTEST_SKIP() << "the CPU model lacks MSA4";
    for (const Granularity& g : granularities()) {
        AtGranularity at(g);
        for (size_t n : {0, 1, 2, 3, 5, 16, 31, 64}) {
            SCOPED_TRACE(g.label() + ", blocks " + std::to_string(n));
            const Bytes h = random_bytes(B), y0 = random_bytes(B), data = random_bytes(n * B);
            Bytes param = concat(y0, h);
            const size_t split = random_below(n + 1) * B;
            EXPECT_EQ(insn::kimd(65, param.data(), data.data(), split), 0);
            EXPECT_EQ(insn::kimd(65, param.data(), data.data() + split, data.size() - split), 0);
            auto gk = std::make_unique<GhashKey>();
            portable::ghash.set_key(*gk, h.data());
            Bytes y = y0;
            portable::ghash.update(*gk, y.data(), data.data(), n);
            EXPECT_EQ(to_hex(slice(param, 0, B)), to_hex(y));
            EXPECT_EQ(to_hex(slice(param, B, B)), to_hex(h)) << "H must stay";
        }
    }
}

Bytes pad16(const Bytes& b) {
    Bytes r = b;
    r.resize((b.size() + B - 1) / B * B, 0);
    return r;
}

// GCM composed the MSA4 way: H and E(K, J0) with KM, the text with KMCTR over
// inc32 counters, the hash with KIMD.
TEST(CpacfShimAuth, KmKmctrKimdComposeGcm) {
    if (!(msa4())) GTEST_SKIP() << "the CPU model lacks MSA4";
    for (const Granularity& g : granularities()) {
        AtGranularity at(g);
        for (size_t keylen : kKeyLengths) {
            for (size_t text_len : {0, 1, 16, 33, 100}) {
                SCOPED_TRACE(g.label() + ", key " + std::to_string(keylen) + ", text " +
                             std::to_string(text_len));
                const Bytes key = random_bytes(keylen), iv = random_bytes(12),
                            aad = random_bytes(21), pt = random_bytes(text_len);
                const uint64_t fc = aes_fc(keylen);
                Bytes kp = key, h(B), zero(B, 0);
                EXPECT_EQ(insn::km(fc, kp.data(), h.data(), zero.data(), B), 0);
                const Bytes j0 = concat(iv, {0, 0, 0, 1});
                const Bytes padded = pad16(pt);
                Bytes counters;
                for (uint32_t i = 0; i < padded.size() / B; ++i) {
                    Bytes c = slice(j0, 0, 12);
                    for (int s = 24; s >= 0; s -= 8)
                        c.push_back(static_cast<uint8_t>((i + 2) >> s));
                    counters = concat(counters, c);
                }
                Bytes ct(padded.size());
                EXPECT_EQ(insn::kmctr(fc, kp.data(), ct.data(), padded.data(), padded.size(),
                                      counters.data()), 0);
                ct.resize(text_len);
                Bytes lengths(B);
                store_be64(lengths.data(), uint64_t{aad.size()} * 8);
                store_be64(lengths.data() + 8, uint64_t{text_len} * 8);
                const Bytes hashed = concat(concat(pad16(aad), pad16(ct)), lengths);
                Bytes gp = concat(Bytes(B, 0), h);
                EXPECT_EQ(insn::kimd(65, gp.data(), hashed.data(), hashed.size()), 0);
                Bytes ej0(B), tag(B);
                EXPECT_EQ(insn::km(fc, kp.data(), ej0.data(), j0.data(), B), 0);
                for (size_t i = 0; i < B; ++i) tag[i] = gp[i] ^ ej0[i];
                const Sealed want = evp_gcm(key, iv, aad, pt);
                EXPECT_EQ(to_hex(ct), to_hex(want.ct));
                EXPECT_EQ(to_hex(tag), to_hex(want.tag));
            }
        }
    }
}

// CMAC: KMAC over every complete block but the last, PCC on the last
// (possibly empty) block with the KMAC result as ICV.
Bytes cpacf_cmac(const Bytes& key, const Bytes& msg) {
    const uint64_t fc = aes_fc(key.size());
    const size_t n = msg.size();
    const bool last_full = n > 0 && n % B == 0;
    const size_t head = last_full ? n - B : n / B * B;
    Bytes kp = concat(Bytes(B, 0), key);
    EXPECT_EQ(insn::kmac(fc, kp.data(), msg.data(), head), 0);
    Bytes pp(40 + key.size(), 0);
    pp[0] = static_cast<uint8_t>((n - head) * 8);  // ML: valid bits of the last block
    if (n > head) std::memcpy(pp.data() + 8, msg.data() + head, n - head);
    std::memcpy(pp.data() + 24, kp.data(), B);
    std::memcpy(pp.data() + 40, key.data(), key.size());
    EXPECT_EQ(insn::pcc(fc, pp.data()), 0);
    return slice(pp, 24, B);
}

TEST(CpacfShimAuth, KmacAndPccMatchCmac) {
    if (!(msa4())) GTEST_SKIP() << "the CPU model lacks MSA4";
    for (const Granularity& g : granularities()) {
        AtGranularity at(g);
        for (size_t keylen : kKeyLengths) {
            for (size_t len : {0, 1, 15, 16, 17, 31, 32, 33, 64, 100, 257}) {
                SCOPED_TRACE(g.label() + ", key " + std::to_string(keylen) + ", bytes " +
                             std::to_string(len));
                const Bytes key = random_bytes(keylen), msg = random_bytes(len);
                EXPECT_EQ(to_hex(cpacf_cmac(key, msg)), to_hex(evp_cmac(key, msg)));
            }
        }
    }
}

// ML above 128 is invalid input: CC 2, nothing stored.
TEST(CpacfShimAuth, PccCmacRejectsMlAbove128WithCc2) {
    if (!(msa4())) GTEST_SKIP() << "the CPU model lacks MSA4";
    const Bytes key = random_bytes(16);
    Bytes pp(56, 0);
    pp[0] = 129;
    std::memcpy(pp.data() + 40, key.data(), 16);
    const Bytes before = pp;
    EXPECT_EQ(insn::pcc(18, pp.data()), 2);
    EXPECT_EQ(to_hex(pp), to_hex(before));
}

} // namespace
} // namespace hwc::test
