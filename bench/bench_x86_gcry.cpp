// SPDX-License-Identifier: Apache-2.0
// bench_x86's libgcrypt runner: one case (bench_x86.h) through libgcrypt's
// gcry_cipher API, the independent anchor, with the same key, IV/nonce, AAD
// and input as the EVP runners. Linked into the driver only.
#include <gcrypt.h>

#include "bench_x86.h"

namespace bench {

namespace {

const std::vector<unsigned char> kIv = iv_pattern();
const std::vector<unsigned char> kAad = aad_pattern();

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
                uint64_t lengths[3] = {c_.len, c_.aad, kTagLen};
                gcry_check(gcry_cipher_ctl(h_, GCRYCTL_SET_CCM_LENGTHS, lengths, sizeof lengths),
                           c_, "CCM lengths");
            }
            gcry_check(gcry_cipher_authenticate(h_, kAad.data(), c_.aad), c_, "AAD");
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
