// SPDX-License-Identifier: Apache-2.0
// bench_x86's EVP runner: one case (bench_x86.h) driven through EVP, with
// the same key, IV/nonce, AAD and input as every other runner, so the
// outputs of all runners of a case must agree (the driver checks that before
// timing them). Linked into the driver and into the peer processes.
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "bench_x86.h"

namespace bench {

namespace {

const std::vector<unsigned char> kIv = iv_pattern();
const std::vector<unsigned char> kAad = aad_pattern();

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
        ossl_check(EVP_CipherUpdate(ctx_, nullptr, &n, kAad.data(), static_cast<int>(c_.aad)),
                   c_, "AAD");
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

} // namespace

std::unique_ptr<Runner> make_evp_runner(const Case& c, EVP_CIPHER* cipher) {
    return std::make_unique<EvpRunner>(c, cipher);
}

std::unique_ptr<Runner> open_evp(const Case& c, const std::string& provider) {
    EVP_CIPHER* cipher = EVP_CIPHER_fetch(nullptr, c.evp_name.c_str(),
                                          ("provider=" + provider).c_str());
    if (cipher == nullptr) {
        ERR_clear_error(); // a failed fetch only means "not offered"
        return nullptr;
    }
    const char* from = OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(cipher));
    if (from == nullptr || provider != from)
        die(c.evp_name + " came from provider " + (from ? from : "?") + ", not " + provider);
    auto r = make_evp_runner(c, cipher);
    EVP_CIPHER_free(cipher); // the context keeps its own reference
    return r;
}

} // namespace bench
