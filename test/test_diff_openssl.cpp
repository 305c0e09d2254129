// SPDX-License-Identifier: Apache-2.0
// Differential tests: hwcipher against OpenSSL's default provider for every AES/SM4 mode both offer.
//
// The default provider is the reference: same key, IV, input and the same
// sequence of EVP_CipherUpdate calls must give the same output, the same
// success/failure, and the same "num" / "updated-iv" after every call. Each
// provider's ciphertext is then decrypted by the other one.
#include "test/support/ossl_env.h"
#include "test/support/vectors.h"

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace {

using namespace hwc::test;

using CipherPtr = std::unique_ptr<EVP_CIPHER, decltype(&EVP_CIPHER_free)>;
using CtxPtr = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

enum class Mode { ECB, CBC, CTS, CFB, CFB1, CFB8, OFB, CTR };

Mode mode_of(const std::string& name) {
    auto ends = [&](const char* s) {
        std::string t(s);
        return name.size() >= t.size() && name.compare(name.size() - t.size(), t.size(), t) == 0;
    };
    if (ends("-CBC-CTS")) return Mode::CTS;
    if (ends("-ECB")) return Mode::ECB;
    if (ends("-CBC")) return Mode::CBC;
    if (ends("-CFB1")) return Mode::CFB1;
    if (ends("-CFB8")) return Mode::CFB8;
    if (ends("-CFB")) return Mode::CFB;
    if (ends("-OFB")) return Mode::OFB;
    return Mode::CTR;
}

bool is_block_mode(Mode m) { return m == Mode::ECB || m == Mode::CBC || m == Mode::CTS; }

// State visible through get_ctx_params after one update call.
struct Snapshot {
    bool have_num = false;
    unsigned int num = 0;
    bool have_iv = false;
    Bytes iv;
};

Snapshot snapshot(EVP_CIPHER_CTX* ctx) {
    Snapshot s;
    // Queried one by one: a provider that lacks one key must not hide the other.
    OSSL_PARAM pn[] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_NUM, &s.num), OSSL_PARAM_construct_end()};
    s.have_num = EVP_CIPHER_CTX_get_params(ctx, pn) == 1 && OSSL_PARAM_modified(pn);
    uint8_t buf[64] = {};
    OSSL_PARAM pi[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, buf, sizeof buf),
                       OSSL_PARAM_construct_end()};
    s.have_iv = EVP_CIPHER_CTX_get_params(ctx, pi) == 1 && OSSL_PARAM_modified(pi);
    if (s.have_iv) s.iv.assign(buf, buf + std::min(pi[0].return_size, sizeof buf));
    ERR_clear_error(); // a refused query is not a cipher failure
    return s;
}

struct Spec {
    bool enc = true;
    Bytes key, iv;
    bool padding = true;
    const char* cts_mode = nullptr;
    std::vector<size_t> splits; // byte counts per EVP_CipherUpdate call
    bool in_place = false;
};

struct Result {
    bool ok = false;
    std::string failed_step;
    Bytes out;
    std::vector<Snapshot> trace;
    std::string errors;
};

Result run(const EVP_CIPHER* cipher, const Spec& s, const Bytes& input) {
    Result r;
    CtxPtr ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    OSSL_PARAM params[2] = {OSSL_PARAM_construct_end(), OSSL_PARAM_construct_end()};
    if (s.cts_mode)
        params[0] = OSSL_PARAM_construct_utf8_string(OSSL_CIPHER_PARAM_CTS_MODE, const_cast<char*>(s.cts_mode), 0);
    if (!EVP_CipherInit_ex2(ctx.get(), cipher, s.key.data(), s.iv.empty() ? nullptr : s.iv.data(), s.enc ? 1 : 0,
                            params)) {
        r.failed_step = "init";
        r.errors = take_errors();
        return r;
    }
    if (!s.padding && !EVP_CIPHER_CTX_set_padding(ctx.get(), 0)) {
        r.failed_step = "set_padding";
        r.errors = take_errors();
        return r;
    }
    // Room for inl + blocksize per call, as EVP promises the provider; never
    // empty, so data() is a real pointer even for zero-length input.
    Bytes work(input.size() + 64);
    if (s.in_place) std::copy(input.begin(), input.end(), work.begin());
    size_t inpos = 0, outpos = 0;
    for (size_t piece : s.splits) {
        const uint8_t* in = s.in_place ? work.data() + inpos : input.data() + inpos;
        if (input.empty()) in = work.data();
        int outl = -1;
        if (!EVP_CipherUpdate(ctx.get(), work.data() + outpos, &outl, in, static_cast<int>(piece))) {
            r.failed_step = "update@" + std::to_string(inpos);
            r.errors = take_errors();
            return r;
        }
        inpos += piece;
        outpos += static_cast<size_t>(outl);
        r.trace.push_back(snapshot(ctx.get()));
    }
    int outl = -1;
    if (!EVP_CipherFinal_ex(ctx.get(), work.data() + outpos, &outl)) {
        r.failed_step = "final";
        r.errors = take_errors();
        return r;
    }
    outpos += static_cast<size_t>(outl);
    r.out.assign(work.begin(), work.begin() + outpos);
    r.ok = true;
    return r;
}

// Random partition of `total` with deliberate 0- and 1-byte calls.
std::vector<size_t> random_splits(size_t total) {
    std::vector<size_t> out;
    size_t rem = total;
    while (rem > 0) {
        size_t k = random_below(10), piece;
        if (k == 0) piece = 0;
        else if (k == 1) piece = 1;
        else if (k <= 5) piece = 1 + random_below(std::min<size_t>(rem, 40));
        else if (k <= 8) piece = 1 + random_below(rem);
        else piece = rem;
        piece = std::min(piece, rem);
        out.push_back(piece);
        rem -= piece;
    }
    if (random_below(3) == 0) out.push_back(0); // trailing empty update
    return out;
}

// In-place (in == out on every call) is only well defined when each call
// emits exactly what it consumes: stream modes, or block modes in one call.
std::vector<size_t> splits_for(Mode m, size_t len, bool in_place) {
    if (m == Mode::CTS || (in_place && is_block_mode(m))) return {len};
    return random_splits(len);
}

std::string describe(const std::string& name, const Spec& s, size_t len) {
    std::string d = name + " " + (s.enc ? "enc" : "dec") + " len=" + std::to_string(len) +
                    " pad=" + std::to_string(s.padding) + " inplace=" + std::to_string(s.in_place) +
                    (s.cts_mode ? std::string(" cts=") + s.cts_mode : "") + " seed=" + std::to_string(test_seed()) +
                    " key=" + to_hex(s.key) + " iv=" + to_hex(s.iv) + " splits=";
    for (size_t i = 0; i < s.splits.size() && i < 24; ++i) d += std::to_string(s.splits[i]) + ",";
    if (s.splits.size() > 24) d += "...";
    return d;
}

// Same call sequence through both providers; hwcipher must match the default.
// A success/failure mismatch is recorded without aborting, so the remaining
// lengths of the same cipher are still compared.
void expect_same(const Result& hw, const Result& ref, const std::string& what) {
    if (hw.ok != ref.ok) {
        ADD_FAILURE() << what << "\n hwcipher ok=" << hw.ok << " step=" << hw.failed_step << " errors=" << hw.errors
                      << "\n default ok=" << ref.ok << " step=" << ref.failed_step << " errors=" << ref.errors;
        return;
    }
    if (!ref.ok) {
        EXPECT_EQ(hw.failed_step, ref.failed_step) << what;
        EXPECT_FALSE(hw.errors.empty()) << what << ": hwcipher failed without an error on the queue";
        return;
    }
    ASSERT_EQ(hw.out.size(), ref.out.size()) << what;
    ASSERT_EQ(to_hex(hw.out), to_hex(ref.out)) << what;
    ASSERT_EQ(hw.trace.size(), ref.trace.size()) << what;
    for (size_t i = 0; i < ref.trace.size(); ++i) {
        const Snapshot &h = hw.trace[i], &d = ref.trace[i];
        if (d.have_num) {
            ASSERT_TRUE(h.have_num) << what << ": num not readable after call " << i;
            ASSERT_EQ(h.num, d.num) << what << ": num after call " << i;
        }
        if (d.have_iv) {
            ASSERT_TRUE(h.have_iv) << what << ": updated-iv not readable after call " << i;
            ASSERT_EQ(to_hex(h.iv), to_hex(d.iv)) << what << ": updated-iv after call " << i;
        }
    }
}

std::vector<size_t> test_lengths(Mode m) {
    std::vector<size_t> v;
    for (size_t i = 0; i <= 49; ++i) v.push_back(i);
    if (m == Mode::CFB1 && hwc::test::vec::emulated()) {
        // One block operation per bit: under QEMU (and on s390x through the
        // CPACF shim, one trapped KM per bit) the full list costs minutes per
        // cipher. Keep every length class up to 1 KiB and a few random ones.
        for (size_t b : {63, 64, 65, 127, 128, 129, 255, 256, 257, 1023, 1024, 1025}) v.push_back(b);
        for (int i = 0; i < 4; ++i) v.push_back(50 + random_below(1024 - 50));
        return v;
    }
    for (size_t b : {63, 64, 65, 127, 128, 129, 255, 256, 257, 1023, 1024, 1025, 4095, 4096}) v.push_back(b);
    // Random sample of the rest of 0..4096 keeps the suite fast under qemu.
    for (int i = 0; i < 24; ++i) v.push_back(50 + random_below(4096 - 50));
    // CFB1/CFB8 run one block operation per bit/byte: smaller large case.
    v.push_back(m == Mode::CFB1 ? 2048 + 7 : m == Mode::CFB8 ? 8192 + 11 : 65536 + 13);
    return v;
}

class DiffOpenssl : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        hw_.reset(fetch_hwcipher(GetParam()));
        ref_.reset(fetch_default(GetParam()));
        ASSERT_NE(ref_, nullptr) << "default provider lacks " << GetParam();
        ASSERT_NE(hw_, nullptr) << "hwcipher lacks " << GetParam() << ": " << take_errors();
    }
    CipherPtr hw_{nullptr, EVP_CIPHER_free};
    CipherPtr ref_{nullptr, EVP_CIPHER_free};
};

TEST_P(DiffOpenssl, EncryptAndCrossDecrypt) {
    const std::string name = GetParam();
    const Mode m = mode_of(name);
    const size_t keylen = static_cast<size_t>(EVP_CIPHER_get_key_length(ref_.get()));
    const size_t ivlen = static_cast<size_t>(EVP_CIPHER_get_iv_length(ref_.get()));
    std::vector<const char*> cts_modes = {nullptr};
    if (m == Mode::CTS) cts_modes = {"CS1", "CS2", "CS3"};
    std::vector<bool> paddings = {true};
    if (m == Mode::ECB || m == Mode::CBC) paddings = {true, false};

    for (size_t len : test_lengths(m)) {
        for (const char* cts : cts_modes) {
            for (bool pad : paddings) {
                const Bytes pt = random_bytes(len);
                Spec e;
                e.key = random_bytes(keylen);
                e.iv = random_bytes(ivlen);
                e.padding = pad;
                e.cts_mode = cts;
                e.in_place = random_below(2) == 0;
                e.splits = splits_for(m, len, e.in_place);
                const std::string what = describe(name, e, len);
                Result hw = run(hw_.get(), e, pt);
                Spec e_ref = e;
                e_ref.in_place = !e.in_place && (!is_block_mode(m) || e.splits.size() == 1);
                Result ref = run(ref_.get(), e_ref, pt);
                expect_same(hw, ref, what);
                if (HasFatalFailure()) return;
                if (!ref.ok || !hw.ok) continue;

                // Cross-decrypt: default decrypts hwcipher's ciphertext and
                // vice versa, with a fresh split that both share.
                Spec d = e;
                d.enc = false;
                d.in_place = random_below(2) == 0;
                d.splits = splits_for(m, ref.out.size(), d.in_place);
                const std::string dwhat = describe(name, d, ref.out.size());
                Result hw_dec = run(hw_.get(), d, ref.out);
                Result ref_dec = run(ref_.get(), d, hw.out);
                expect_same(hw_dec, ref_dec, dwhat);
                if (HasFatalFailure()) return;
                ASSERT_EQ(to_hex(hw_dec.out), to_hex(pt)) << dwhat;
            }
        }
    }
}

// Output must not depend on how the input is cut into update calls, even
// with several messages on one context via IV-only re-init.
TEST_P(DiffOpenssl, ReinitWithNewIvMatches) {
    const std::string name = GetParam();
    const Mode m = mode_of(name);
    const int keylen = EVP_CIPHER_get_key_length(ref_.get());
    const int ivlen = EVP_CIPHER_get_iv_length(ref_.get());
    const Bytes key = random_bytes(static_cast<size_t>(keylen));
    CtxPtr a(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free), b(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    ASSERT_TRUE(EVP_EncryptInit_ex2(a.get(), hw_.get(), key.data(), nullptr, nullptr)) << take_errors();
    ASSERT_TRUE(EVP_EncryptInit_ex2(b.get(), ref_.get(), key.data(), nullptr, nullptr)) << take_errors();
    for (int msg = 0; msg < 6; ++msg) {
        const Bytes iv = random_bytes(static_cast<size_t>(ivlen));
        const size_t len = m == Mode::CTS ? 16 + random_below(100) : random_below(100);
        const Bytes pt = random_bytes(len);
        ASSERT_TRUE(EVP_EncryptInit_ex2(a.get(), nullptr, nullptr, ivlen ? iv.data() : nullptr, nullptr));
        ASSERT_TRUE(EVP_EncryptInit_ex2(b.get(), nullptr, nullptr, ivlen ? iv.data() : nullptr, nullptr));
        Bytes oa(len + 32), ob(len + 32);
        int la = 0, lb = 0, fa = 0, fb = 0;
        ASSERT_TRUE(EVP_EncryptUpdate(a.get(), oa.data(), &la, pt.data(), static_cast<int>(len))) << take_errors();
        ASSERT_TRUE(EVP_EncryptUpdate(b.get(), ob.data(), &lb, pt.data(), static_cast<int>(len)));
        const int ra = EVP_EncryptFinal_ex(a.get(), oa.data() + la, &fa);
        const int rb = EVP_EncryptFinal_ex(b.get(), ob.data() + lb, &fb);
        take_errors();
        ASSERT_EQ(ra, rb) << name << " message " << msg << " len " << len;
        oa.resize(static_cast<size_t>(la + fa));
        ob.resize(static_cast<size_t>(lb + fb));
        ASSERT_EQ(to_hex(oa), to_hex(ob)) << name << " message " << msg << " len " << len;
    }
}

std::vector<std::string> openssl_names() {
    std::vector<std::string> v;
    for (const char* bits : {"128", "192", "256"})
        for (const char* mode : {"ECB", "CBC", "CBC-CTS", "CFB", "CFB1", "CFB8", "OFB", "CTR"})
            v.push_back(std::string("AES-") + bits + "-" + mode);
    // SM4 modes the 3.0 default provider implements (no CFB1/CFB8/CTS there).
    for (const char* mode : {"ECB", "CBC", "OFB", "CFB", "CTR"}) v.push_back(std::string("SM4-") + mode);
    return v;
}

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
    std::string s = info.param;
    std::replace(s.begin(), s.end(), '-', '_');
    return s;
}

INSTANTIATE_TEST_SUITE_P(AesSm4, DiffOpenssl, ::testing::ValuesIn(openssl_names()), param_name);

// CFB1 with "use-bits" = 1: lengths count bits. Each call starts at bit 0 of
// its own buffer, so a message cut at a non-byte boundary is a list of
// separately packed pieces. Only the significant bits of the last byte of a
// piece are compared (the rest is outside the contract).
class DiffCfb1Bits : public ::testing::TestWithParam<std::string> {};

Result run_bits(const EVP_CIPHER* c, bool enc, const Bytes& key, const Bytes& iv,
                const std::vector<std::pair<Bytes, size_t>>& pieces) {
    Result r;
    CtxPtr ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    unsigned int one = 1;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_USE_BITS, &one), OSSL_PARAM_construct_end()};
    if (!EVP_CipherInit_ex2(ctx.get(), c, key.data(), iv.data(), enc, nullptr) ||
        !EVP_CIPHER_CTX_set_params(ctx.get(), p)) {
        r.failed_step = "init";
        r.errors = take_errors();
        return r;
    }
    for (const auto& [data, bits] : pieces) {
        Bytes out(data.size() + 16, 0);
        int outl = -1;
        if (!EVP_CipherUpdate(ctx.get(), out.data(), &outl, data.data(), static_cast<int>(bits))) {
            r.failed_step = "update";
            r.errors = take_errors();
            return r;
        }
        out.resize((bits + 7) / 8);
        if (bits % 8) out.back() &= static_cast<uint8_t>(0xff00u >> (bits % 8));
        r.out.insert(r.out.end(), out.begin(), out.end());
        r.trace.push_back(snapshot(ctx.get()));
    }
    int fl = -1;
    uint8_t fbuf[32];
    r.ok = EVP_CipherFinal_ex(ctx.get(), fbuf, &fl) == 1 && fl == 0;
    if (!r.ok) r.failed_step = "final";
    return r;
}

TEST_P(DiffCfb1Bits, BitLengthsMatchDefault) {
    CipherPtr hw(fetch_hwcipher(GetParam()), EVP_CIPHER_free), ref(fetch_default(GetParam()), EVP_CIPHER_free);
    ASSERT_NE(hw, nullptr);
    ASSERT_NE(ref, nullptr);
    const size_t keylen = static_cast<size_t>(EVP_CIPHER_get_key_length(ref.get()));
    for (int round = 0; round < 60; ++round) {
        const Bytes key = random_bytes(keylen), iv = random_bytes(16);
        std::vector<std::pair<Bytes, size_t>> pieces;
        const size_t npieces = 1 + random_below(6);
        for (size_t i = 0; i < npieces; ++i) {
            const size_t bits = random_below(4) == 0 ? random_below(9) : random_below(300);
            Bytes data = random_bytes((bits + 7) / 8 + 1);
            pieces.emplace_back(std::move(data), bits);
        }
        const std::string what = GetParam() + " bits round " + std::to_string(round) + " key=" + to_hex(key) +
                                 " iv=" + to_hex(iv);
        Result h = run_bits(hw.get(), true, key, iv, pieces), d = run_bits(ref.get(), true, key, iv, pieces);
        expect_same(h, d, what);
        if (HasFatalFailure()) return;
        // Decrypt hwcipher's output with the default provider, piece by piece.
        std::vector<std::pair<Bytes, size_t>> ct;
        size_t off = 0;
        for (const auto& [data, bits] : pieces) {
            const size_t n = (bits + 7) / 8;
            ct.emplace_back(Bytes(h.out.begin() + off, h.out.begin() + off + n), bits);
            off += n;
        }
        Result back = run_bits(ref.get(), false, key, iv, ct), hback = run_bits(hw.get(), false, key, iv, ct);
        expect_same(hback, back, what + " (decrypt)");
        if (HasFatalFailure()) return;
        off = 0;
        for (const auto& [data, bits] : pieces) {
            const size_t n = (bits + 7) / 8;
            Bytes want(data.begin(), data.begin() + n);
            if (bits % 8) want.back() &= static_cast<uint8_t>(0xff00u >> (bits % 8));
            ASSERT_EQ(to_hex(Bytes(back.out.begin() + off, back.out.begin() + off + n)), to_hex(want)) << what;
            off += n;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Aes, DiffCfb1Bits, ::testing::Values("AES-128-CFB1", "AES-192-CFB1", "AES-256-CFB1"),
                         param_name);

} // namespace
