// SPDX-License-Identifier: Apache-2.0
// bench_x86's runners: one case (bench_x86.h) driven through EVP or through
// libgcrypt, with the same key, IV/nonce, AAD and input everywhere, so the
// outputs of all runners of a case must agree (bench_x86.cpp checks that
// before timing them).
#include <gcrypt.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench_x86.h"

namespace bench {

void die(const std::string& what) {
    std::fprintf(stderr, "bench_x86: %s\n", what.c_str());
    ERR_print_errors_fp(stderr);
    std::exit(1);
}

std::vector<unsigned char> pattern(size_t n, unsigned seed) {
    std::vector<unsigned char> v(n);
    for (size_t i = 0; i < n; ++i) v[i] = static_cast<unsigned char>(i * 31 + seed);
    return v;
}

namespace {

// XTS keys are two different halves; a pattern never repeats within 64 bytes.
const std::vector<unsigned char> kIv = pattern(16, 3);
const std::vector<unsigned char> kAad = pattern(kAadLen, 5);

void ossl_check(int ok, const Case& c, const char* what) {
    if (ok != 1) die(c.evp_name + ": " + what + " failed");
}

class EvpRunner final : public Runner {
public:
    EvpRunner(const Case& c, EVP_CIPHER* cipher) : c_(c), ctx_(EVP_CIPHER_CTX_new()) {
        if (ctx_ == nullptr) die("EVP_CIPHER_CTX_new");
        const int enc = c.enc ? 1 : 0;
        const auto key = pattern(static_cast<size_t>(EVP_CIPHER_get_key_length(cipher)), 1);
        in_ = pattern(c.len, 7);
        out_.resize(c.len + 32);
        if (c.shape == Shape::aead) {
            ossl_check(EVP_CipherInit_ex(ctx_, cipher, nullptr, nullptr, nullptr, enc), c, "init");
            ossl_check(EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_AEAD_SET_IVLEN, kNonceLen, nullptr), c,
                       "set ivlen");
            if (c.ccm || c.ocb)  // GCM's tag length is chosen when it is read
                ossl_check(EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_AEAD_SET_TAG, kTagLen, nullptr), c,
                           "set tag length");
            ossl_check(EVP_CipherInit_ex(ctx_, nullptr, nullptr, key.data(), nullptr, enc), c,
                       "init key");
            if (!c.enc) {
                // Something that verifies: this case's message, encrypted.
                Case e = c;
                e.enc = true;
                EvpRunner twin(e, cipher);
                twin.once();
                in_.assign(twin.out_.begin(), twin.out_.begin() + static_cast<long>(c.len));
                tag_ = twin.tag_;
            }
            return;
        }
        ossl_check(EVP_CipherInit_ex(ctx_, cipher, nullptr, key.data(), kIv.data(), enc), c,
                   "init");
        const int mode = EVP_CIPHER_get_mode(cipher);
        if (mode == EVP_CIPH_ECB_MODE || mode == EVP_CIPH_CBC_MODE)
            ossl_check(EVP_CIPHER_CTX_set_padding(ctx_, 0), c, "set padding");
        if (c.evp_name == "SM4-XTS") {  // libgcrypt's SM4-XTS is the IEEE one
            char standard[] = "IEEE";
            OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_string("xts_standard", standard, 0),
                              OSSL_PARAM_construct_end()};
            ossl_check(EVP_CIPHER_CTX_set_params(ctx_, p), c, "xts_standard=IEEE");
        }
    }
    ~EvpRunner() override { EVP_CIPHER_CTX_free(ctx_); }
    EvpRunner(const EvpRunner&) = delete;
    EvpRunner& operator=(const EvpRunner&) = delete;

    void once() override {
        int n = 0;
        const int len = static_cast<int>(c_.len);
        if (c_.shape == Shape::xts)
            ossl_check(EVP_CipherInit_ex(ctx_, nullptr, nullptr, nullptr, kIv.data(), -1), c_,
                       "XTS tweak");
        if (c_.shape != Shape::aead) {
            ossl_check(EVP_CipherUpdate(ctx_, out_.data(), &n, in_.data(), len), c_, "update");
            return;
        }
        ossl_check(EVP_CipherInit_ex(ctx_, nullptr, nullptr, nullptr, kIv.data(), -1), c_,
                   "nonce");
        if (!c_.enc)
            ossl_check(EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_AEAD_SET_TAG, kTagLen, tag_.data()), c_,
                       "set tag");
        if (c_.ccm)
            ossl_check(EVP_CipherUpdate(ctx_, nullptr, &n, nullptr, len), c_, "CCM length");
        ossl_check(EVP_CipherUpdate(ctx_, nullptr, &n, kAad.data(), kAadLen), c_, "AAD");
        ossl_check(EVP_CipherUpdate(ctx_, out_.data(), &n, in_.data(), len), c_, "update");
        int fin = 0;
        ossl_check(EVP_CipherFinal_ex(ctx_, out_.data() + n, &fin), c_,
                   c_.enc ? "final" : "final (tag check)");
        if (c_.enc) {
            tag_.resize(kTagLen);
            ossl_check(EVP_CIPHER_CTX_ctrl(ctx_, EVP_CTRL_AEAD_GET_TAG, kTagLen, tag_.data()), c_,
                       "get tag");
        }
    }

private:
    const Case c_;
    EVP_CIPHER_CTX* ctx_;
};

void gcry_check(gcry_error_t err, const Case& c, const char* what) {
    if (err != 0) die(c.evp_name + " (libgcrypt): " + what + ": " + gcry_strerror(err));
}

class GcryRunner final : public Runner {
public:
    explicit GcryRunner(const Case& c) : c_(c) {
        gcry_check(gcry_cipher_open(&h_, c.gcry_algo, c.gcry_mode, 0), c, "open");
        size_t keylen = gcry_cipher_get_algo_keylen(c.gcry_algo);
        if (c.shape == Shape::xts) keylen *= 2;
        const auto key = pattern(keylen, 1);
        gcry_check(gcry_cipher_setkey(h_, key.data(), key.size()), c, "setkey");
        in_ = pattern(c.len, 7);
        out_.resize(c.len);
        if (c.shape == Shape::stream && c.gcry_mode == GCRY_CIPHER_MODE_CTR)
            gcry_check(gcry_cipher_setctr(h_, kIv.data(), 16), c, "setctr");
        else if (c.shape == Shape::stream && c.gcry_mode != GCRY_CIPHER_MODE_ECB)
            gcry_check(gcry_cipher_setiv(h_, kIv.data(), 16), c, "setiv");
        if (c.shape == Shape::aead && !c.enc) {
            Case e = c;
            e.enc = true;
            GcryRunner twin(e);
            twin.once();
            in_ = twin.out_;
            tag_ = twin.tag_;
        }
    }
    ~GcryRunner() override { gcry_cipher_close(h_); }
    GcryRunner(const GcryRunner&) = delete;
    GcryRunner& operator=(const GcryRunner&) = delete;

    void once() override {
        if (c_.shape == Shape::xts)
            gcry_check(gcry_cipher_setiv(h_, kIv.data(), 16), c_, "XTS tweak");
        if (c_.shape == Shape::aead) {
            gcry_check(gcry_cipher_setiv(h_, kIv.data(), kNonceLen), c_, "nonce");
            if (c_.ccm) {
                uint64_t lengths[3] = {c_.len, kAadLen, kTagLen};
                gcry_check(gcry_cipher_ctl(h_, GCRYCTL_SET_CCM_LENGTHS, lengths, sizeof lengths),
                           c_, "CCM lengths");
            }
            gcry_check(gcry_cipher_authenticate(h_, kAad.data(), kAadLen), c_, "AAD");
            if (c_.ocb) gcry_check(gcry_cipher_final(h_), c_, "final");
        }
        if (c_.enc)
            gcry_check(gcry_cipher_encrypt(h_, out_.data(), c_.len, in_.data(), c_.len), c_,
                       "encrypt");
        else
            gcry_check(gcry_cipher_decrypt(h_, out_.data(), c_.len, in_.data(), c_.len), c_,
                       "decrypt");
        if (c_.shape != Shape::aead) return;
        if (c_.enc) {
            tag_.resize(kTagLen);
            gcry_check(gcry_cipher_gettag(h_, tag_.data(), kTagLen), c_, "gettag");
        } else {
            gcry_check(gcry_cipher_checktag(h_, tag_.data(), kTagLen), c_, "checktag");
        }
    }

private:
    const Case c_;
    gcry_cipher_hd_t h_ = nullptr;
};

} // namespace

std::unique_ptr<Runner> make_evp_runner(const Case& c, EVP_CIPHER* cipher) {
    return std::make_unique<EvpRunner>(c, cipher);
}

std::unique_ptr<Runner> make_gcry_runner(const Case& c) {
    return std::make_unique<GcryRunner>(c);
}

std::string gcry_setup() {
    const char* version = gcry_check_version(nullptr);
    if (version == nullptr) die("gcry_check_version");
    gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
    gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
    std::string s = std::string("libgcrypt ") + version;
    if (char* hw = gcry_get_config(0, "hwflist")) {
        std::string flags = hw;
        gcry_free(hw);
        while (!flags.empty() && (flags.back() == '\n' || flags.back() == ':')) flags.pop_back();
        if (flags.rfind("hwflist:", 0) == 0) flags.erase(0, 8);
        s += " (hw: " + flags + ")";
    }
    return s;
}

} // namespace bench
