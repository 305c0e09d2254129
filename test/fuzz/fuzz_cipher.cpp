// SPDX-License-Identifier: Apache-2.0
// Differential cipher fuzzing: one message through every cipher hwcipher
// offers, encrypted and decrypted with hwcipher's best cores, its portable
// cores, OpenSSL's default provider where it has the algorithm, and
// libgcrypt for Twofish in the modes it shares with us. The input chooses
// the algorithm, key, IV (and AEAD IV length), tag length, padding, CTS
// variant, AAD, data, how the data is split across updates, in-place or
// not, and whether the tag given for decryption is the right one.
//
// The two hwcipher instances must agree on everything (each step's result,
// every output byte, tags); the default provider and libgcrypt on whether
// the whole operation succeeded and, when it did, on the output and tag.
// Encryption runs on the fuzz data as plaintext; decryption on the
// ciphertext just made (AEAD, key wrap: with the tag) or, for the other
// modes, on the fuzz data itself as ciphertext (so bad padding is compared
// too).
#include <fuzzer/FuzzedDataProvider.h>
#include <gcrypt.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>

#include <cstring>
#include <string>

#include "test/fuzz/fuzz_env.h"

namespace {

using hwc::fuzz::Bytes;
using hwc::fuzz::fail;
using hwc::fuzz::hex;

enum class Kind { ecb, cbc, cts, cfb, cfb1, cfb8, ofb, ctr, gcm, ccm, ocb, siv, gcm_siv, xts, wrap };

Kind kind_of(const std::string& n) {
    auto has = [&](const char* s) { return n.find(s) != std::string::npos; };
    if (has("GCM-SIV")) return Kind::gcm_siv;
    if (has("-SIV")) return Kind::siv;
    if (has("GCM")) return Kind::gcm;
    if (has("CCM")) return Kind::ccm;
    if (has("OCB")) return Kind::ocb;
    if (has("XTS")) return Kind::xts;
    if (has("WRAP")) return Kind::wrap;
    if (has("CTS")) return Kind::cts;
    if (has("CFB1")) return Kind::cfb1;
    if (has("CFB8")) return Kind::cfb8;
    if (has("CFB")) return Kind::cfb;
    if (has("OFB")) return Kind::ofb;
    if (has("CTR")) return Kind::ctr;
    if (has("ECB")) return Kind::ecb;
    return Kind::cbc;
}

bool aead(Kind k) {
    return k == Kind::gcm || k == Kind::ccm || k == Kind::ocb || k == Kind::siv || k == Kind::gcm_siv;
}
// Modes that take their data in one update per message.
bool one_shot(Kind k) {
    return k == Kind::cts || k == Kind::xts || k == Kind::wrap || k == Kind::ccm || k == Kind::siv ||
           k == Kind::gcm_siv;
}

// Everything the input chose.
struct Spec {
    std::string name;
    Kind kind;
    Bytes key, iv, aad, data;
    size_t ivlen = 0;  // AEAD IV length set through params (0: the default)
    size_t taglen = 16;
    bool padding = true, in_place = false, right_tag = true;
    const char* cts = nullptr;
    std::vector<size_t> splits; // update sizes (sum = data size)
};

// What one implementation did with one direction.
struct Result {
    bool ok = false;
    int step = 0; // the step that failed (0: none)
    Bytes out, tag;
};

std::string describe(const Spec& s, bool enc) {
    std::string d = s.name + (enc ? " encrypt" : " decrypt") + " key=" + hex(s.key) + " iv=" + hex(s.iv) +
                    " ivlen=" + std::to_string(s.ivlen) + " taglen=" + std::to_string(s.taglen) +
                    " aad=" + hex(s.aad) + " padding=" + std::to_string(s.padding) +
                    " in_place=" + std::to_string(s.in_place) + " cts=" + (s.cts ? s.cts : "-") +
                    " splits=";
    for (size_t n : s.splits) d += std::to_string(n) + ",";
    return d + " data=" + hex(s.data);
}

// Runs one direction on one OpenSSL implementation. `tag` is the tag to
// verify when decrypting an AEAD.
Result run(EVP_CIPHER* cipher, const Spec& s, bool enc, const Bytes& input, const Bytes& tag) {
    Result r;
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    auto step = [&](int id, bool ok) {
        if (!ok && r.step == 0) r.step = id;
        return ok;
    };
    auto finish = [&] {
        EVP_CIPHER_CTX_free(ctx);
        ERR_clear_error();
        r.ok = r.step == 0;
        return r;
    };
    if (!step(1, ctx != nullptr)) return finish();
    if (s.kind == Kind::wrap) EVP_CIPHER_CTX_set_flags(ctx, EVP_CIPHER_CTX_FLAG_WRAP_ALLOW);
    if (!step(2, EVP_CipherInit_ex2(ctx, cipher, nullptr, nullptr, enc ? 1 : 0, nullptr) == 1))
        return finish();
    if (s.ivlen != 0 &&
        !step(3, EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_IVLEN, static_cast<int>(s.ivlen), nullptr) == 1))
        return finish();
    // Tag length (CCM, OCB) before the key (OCB: in both directions, its
    // nonce encodes it); the expected tag when decrypting.
    if ((s.kind == Kind::ccm || s.kind == Kind::ocb) && (enc || s.kind == Kind::ocb) &&
        !step(4, EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(s.taglen), nullptr) == 1))
        return finish();
    if (aead(s.kind) && !enc &&
        !step(5, EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, static_cast<int>(tag.size()),
                                     const_cast<uint8_t*>(tag.data())) == 1))
        return finish();
    if (s.cts != nullptr) {
        OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_string(OSSL_CIPHER_PARAM_CTS_MODE,
                                                           const_cast<char*>(s.cts), 0),
                          OSSL_PARAM_construct_end()};
        if (!step(6, EVP_CIPHER_CTX_set_params(ctx, p) == 1)) return finish();
    }
    if (!step(7, EVP_CipherInit_ex2(ctx, nullptr, s.key.data(), s.iv.empty() ? nullptr : s.iv.data(),
                                    -1, nullptr) == 1))
        return finish();
    if ((s.kind == Kind::ecb || s.kind == Kind::cbc) && !s.padding) EVP_CIPHER_CTX_set_padding(ctx, 0);
    int n = 0;
    if (s.kind == Kind::ccm &&
        !step(8, EVP_CipherUpdate(ctx, nullptr, &n, nullptr, static_cast<int>(input.size())) == 1))
        return finish();
    if (aead(s.kind) && !s.aad.empty()) {
        // SIV takes each AAD update as its own component; the others one
        // string in any split. One update keeps every mode comparable.
        if (!step(9, EVP_CipherUpdate(ctx, nullptr, &n, s.aad.data(), static_cast<int>(s.aad.size())) == 1))
            return finish();
    }
    // Output room: the input plus two blocks (padding, key wrap's 8..16 bytes).
    Bytes buf(input.size() + 48, 0);
    if (s.in_place && !input.empty()) std::memcpy(buf.data(), input.data(), input.size());
    size_t pos = 0, done = 0;
    const std::vector<size_t> whole = {input.size()};
    const std::vector<size_t>& parts = one_shot(s.kind) ? whole : s.splits;
    for (size_t part : parts) {
        // One-shot modes get their one data update even when it is empty
        // (as OpenSSL's evp_test does: the default provider's SIV cannot
        // finish without one; hwcipher's can).
        // Never a null input: in == NULL means something else to the AEAD
        // modes (the CCM length, the final call).
        static const uint8_t none = 0;
        const uint8_t* in = s.in_place ? buf.data() + pos : input.empty() ? &none : input.data() + pos;
        if (!step(10, EVP_CipherUpdate(ctx, buf.data() + done, &n, in, static_cast<int>(part)) == 1))
            return finish();
        if (n < 0 || done + static_cast<size_t>(n) > buf.size()) fail("update length", describe(s, enc));
        // In place, output may only trail the input (key wrap expands).
        if (s.in_place && s.kind != Kind::wrap && done + static_cast<size_t>(n) > pos + part)
            fail("in-place output ahead of the input", describe(s, enc));
        done += static_cast<size_t>(n);
        pos += part;
    }
    if (!step(11, EVP_CipherFinal_ex(ctx, buf.data() + done, &n) == 1)) return finish();
    done += static_cast<size_t>(n);
    if (done > buf.size()) fail("final length", describe(s, enc));
    buf.resize(done);
    r.out = std::move(buf);
    if (aead(s.kind) && enc) {
        r.tag.resize(s.taglen);
        if (!step(12, EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, static_cast<int>(s.taglen),
                                          r.tag.data()) == 1))
            return finish();
    }
    return finish();
}

// ---- libgcrypt (Twofish 128/256: ECB, CBC without padding, CFB, OFB, CTR) ----

bool gcrypt_ready() {
    static const bool ready = [] {
        if (!gcry_check_version(GCRYPT_VERSION)) return false;
        gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
        gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
        return true;
    }();
    return ready;
}

// Returns false when libgcrypt has no counterpart for this case.
bool gcrypt_run(const Spec& s, bool enc, const Bytes& input, Result& r) {
    if (s.name.rfind("TWOFISH-", 0) != 0 || !gcrypt_ready()) return false;
    const int algo = s.key.size() == 16 ? GCRY_CIPHER_TWOFISH128
                     : s.key.size() == 32 ? GCRY_CIPHER_TWOFISH : 0;
    int mode = 0;
    switch (s.kind) {
    case Kind::ecb: mode = GCRY_CIPHER_MODE_ECB; break;
    case Kind::cbc: mode = GCRY_CIPHER_MODE_CBC; break;
    case Kind::cfb: mode = GCRY_CIPHER_MODE_CFB; break;
    case Kind::cfb8: mode = GCRY_CIPHER_MODE_CFB8; break;
    case Kind::ofb: mode = GCRY_CIPHER_MODE_OFB; break;
    case Kind::ctr: mode = GCRY_CIPHER_MODE_CTR; break;
    default: return false;
    }
    if (algo == 0) return false;
    const bool blocks = s.kind == Kind::ecb || s.kind == Kind::cbc;
    if (blocks && (s.padding || input.size() % 16 != 0)) return false;
    gcry_cipher_hd_t h;
    if (gcry_cipher_open(&h, algo, mode, 0) != 0) return false;
    bool ok = gcry_cipher_setkey(h, s.key.data(), s.key.size()) == 0;
    if (ok && s.kind == Kind::ctr) ok = gcry_cipher_setctr(h, s.iv.data(), 16) == 0;
    else if (ok && s.kind != Kind::ecb) ok = gcry_cipher_setiv(h, s.iv.data(), 16) == 0;
    r.out = input;
    if (ok && !input.empty())
        ok = (enc ? gcry_cipher_encrypt(h, r.out.data(), r.out.size(), nullptr, 0)
                  : gcry_cipher_decrypt(h, r.out.data(), r.out.size(), nullptr, 0)) == 0;
    gcry_cipher_close(h);
    if (!ok) fail("libgcrypt refused a case it should take", describe(s, enc));
    r.ok = true;
    return true;
}

void compare(const char* who, const Spec& s, bool enc, const Result& hw, const Result& other,
             bool strict) {
    if (hw.ok != other.ok || (strict && hw.step != other.step))
        fail(who, describe(s, enc) + "\nhwcipher best: ok=" + std::to_string(hw.ok) + " step=" +
                      std::to_string(hw.step) + "\nother: ok=" + std::to_string(other.ok) +
                      " step=" + std::to_string(other.step));
    if (hw.ok && (hw.out != other.out || hw.tag != other.tag))
        fail(who, describe(s, enc) + "\nhwcipher best: " + hex(hw.out) + " tag " + hex(hw.tag) +
                      "\nother:         " + hex(other.out) + " tag " + hex(other.tag));
}

// Cases where hwcipher differs from OpenSSL 3.0's default provider on
// purpose or by a limitation of the latter, so the two are not compared:
//  - SIV with an empty plaintext: the default provider's update returns at
//    once for zero bytes, and its final then fails (no SIV computed);
//    hwcipher computes the SIV of the empty message (RFC 5297 allows it).
bool default_comparable(const Spec& s) {
    if (s.kind == Kind::siv && s.data.empty()) return false;
    return true;
}

// One direction through every implementation; returns hwcipher best's result.
Result differential(const hwc::fuzz::Fetched& f, const Spec& s, bool enc, const Bytes& input,
                    const Bytes& tag) {
    const Result best = run(f.best, s, enc, input, tag);
    compare("hwcipher best cores vs portable cores", s, enc, best, run(f.portable, s, enc, input, tag),
            true);
    if (f.deflt != nullptr && default_comparable(s))
        compare("hwcipher vs the default provider", s, enc, best, run(f.deflt, s, enc, input, tag), false);
    Result g;
    if (gcrypt_run(s, enc, input, g)) compare("hwcipher vs libgcrypt", s, enc, best, g, false);
    return best;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FuzzedDataProvider fdp(data, size);
    const hwc::fuzz::Env& e = hwc::fuzz::env();
    const size_t index = fdp.ConsumeIntegralInRange<size_t>(0, e.ciphers.size() - 1);
    const hwc::fuzz::Fetched& f = hwc::fuzz::cipher(index);
    Spec s;
    s.name = e.ciphers[index];
    s.kind = kind_of(s.name);
    const int keylen = EVP_CIPHER_get_key_length(f.best);
    int ivlen = EVP_CIPHER_get_iv_length(f.best);
    s.padding = fdp.ConsumeBool();
    s.in_place = fdp.ConsumeBool();
    s.right_tag = fdp.ConsumeBool();
    if (s.kind == Kind::gcm || s.kind == Kind::ccm || s.kind == Kind::ocb) {
        // A non-default IV length for the modes that take one.
        if (fdp.ConsumeBool()) {
            const int lo = s.kind == Kind::ccm ? 7 : 1, hi = s.kind == Kind::gcm ? 64 : s.kind == Kind::ccm ? 13 : 15;
            ivlen = fdp.ConsumeIntegralInRange<int>(lo, hi);
            s.ivlen = static_cast<size_t>(ivlen);
        }
        if (s.kind == Kind::ccm) s.taglen = 4 + 2 * fdp.ConsumeIntegralInRange<size_t>(0, 6);
        if (s.kind == Kind::ocb) s.taglen = fdp.ConsumeIntegralInRange<size_t>(1, 16);
    }
    if (s.kind == Kind::cts) {
        static const char* const variants[] = {"CS1", "CS2", "CS3"};
        s.cts = variants[fdp.ConsumeIntegralInRange<int>(0, 2)];
    }
    s.key = fdp.ConsumeBytes<uint8_t>(static_cast<size_t>(keylen));
    s.key.resize(static_cast<size_t>(keylen), 0x5c);
    s.iv = fdp.ConsumeBytes<uint8_t>(static_cast<size_t>(ivlen));
    s.iv.resize(static_cast<size_t>(ivlen), 0x36);
    if (aead(s.kind)) s.aad = fdp.ConsumeBytes<uint8_t>(fdp.ConsumeIntegralInRange<size_t>(0, 48));
    const size_t nsplits = fdp.ConsumeIntegralInRange<size_t>(1, 4);
    std::vector<size_t> sizes;
    for (size_t i = 0; i + 1 < nsplits; ++i) sizes.push_back(fdp.ConsumeIntegralInRange<size_t>(0, 80));
    s.data = fdp.ConsumeRemainingBytes<uint8_t>();
    size_t left = s.data.size();
    for (size_t n : sizes) {
        const size_t take = n < left ? n : left;
        s.splits.push_back(take);
        left -= take;
    }
    s.splits.push_back(left);

    // Encrypt the data; then decrypt either the ciphertext just made (AEAD,
    // key wrap: with its tag, or a wrong one) or the data itself.
    const Result enc = differential(f, s, true, s.data, {});
    const bool from_ct = aead(s.kind) || s.kind == Kind::wrap;
    if (from_ct && !enc.ok) return 0;
    Bytes tag = enc.tag;
    if (!s.right_tag && !tag.empty()) tag[0] ^= 0x01;
    const Bytes& ct = from_ct ? enc.out : s.data;
    const Result dec = differential(f, s, false, ct, tag);
    // Round trip: what was encrypted comes back.
    if (from_ct && s.right_tag && !dec.ok) fail("decryption of a fresh ciphertext failed", describe(s, false));
    if (from_ct && dec.ok && dec.out != s.data) fail("round trip", describe(s, false));
    if (from_ct && !s.right_tag && !tag.empty() && dec.ok && aead(s.kind))
        fail("wrong tag accepted", describe(s, false));
    return 0;
}
