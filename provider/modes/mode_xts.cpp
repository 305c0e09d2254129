// SPDX-License-Identifier: Apache-2.0
// XTS (IEEE 1619, NIST SP 800-38E) for AES-128/256, SM4 and Twofish-128/256.
//
// OpenSSL's data-unit semantics: every update is one whole data unit of 16
// bytes to 2^20 blocks, enciphered under the tweak given as the IV; the tweak
// is not advanced between updates (two updates with the same IV give the same
// output), and final emits nothing. A partial last block uses ciphertext
// stealing. The key is data key || tweak key; identical halves are refused
// when encrypting (OpenSSL 3's default provider allows them for decryption,
// so existing data stays readable, and so does hwcipher).
// SM4-XTS has OpenSSL 3.2's "xts_standard" parameter: "GB" (GB/T 17964-2021,
// OpenSSL's default for SM4-XTS) or "IEEE". The bulk work is the XTS kernel
// of cores/modes.h: one call per data unit over all its whole blocks.
#include <openssl/crypto.h>
#include <openssl/params.h>

#include <cstring>

#include "cores/modes.h"
#include "provider/modes/mode_contexts.h"
#include "provider/module/errors.h"
#include "provider/params/cipher_params.h"

namespace hwc {

namespace {

// IEEE Std 1619-2018 and SP 800-38E: at most 2^20 blocks per data unit.
constexpr size_t kMaxDataUnitBlocks = size_t(1) << 20;

// OSSL_CIPHER_PARAM_XTS_STANDARD arrived in OpenSSL 3.2; its name is fixed.
constexpr const char* kParamXtsStandard = "xts_standard";

// The key schedule of KeyedCtx is key 1 (the data key).
class XtsCtx final : public FamilyCtx<XtsCtx, KeyedCtx> {
public:
    XtsCtx(const ProvCtx* prov, const AlgorithmRow& row)
        // OpenSSL's SM4-XTS starts in GB mode; everything else is IEEE only.
        : FamilyCtx(prov, row), gb_(row.family == Family::sm4),
          tweak_at_init_(core_->xts_unit_encrypt == nullptr &&
                         core_->xts_unit_decrypt == nullptr &&
                         core_->xts_unit_any_encrypt == nullptr &&
                         core_->xts_unit_any_decrypt == nullptr) {}
    ~XtsCtx() override { wipe_all(tweak_ks_, tweak0_); }

    int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override;
    // EVP_Cipher() is the same one-data-unit operation (CipherCtx's default):
    // a NULL input (the "final" call of EVP_Cipher) fails, as with the
    // default provider.
    // The default provider's generic answer: the IV is unchanged by
    // processing (each update restarts from it), and so is "updated-iv".
    bool set_standard(const OSSL_PARAM& p);

private:
    bool schedule_key(const uint8_t* key, size_t keylen) override;
    bool keep_key() override;
    // Both out of line, so that keep_key() makes tail calls only and needs no
    // stack frame on the per-message path. prepare_tweak() returns true.
    [[gnu::noinline]] bool prepare_tweak();
    [[gnu::cold, gnu::noinline]] bool refuse_equal_halves();
    void crypt(const uint8_t* in, uint8_t* out, size_t len);

    bool gb_;
    bool equal_halves_ = false; // the key in use has identical halves (decrypt only)
    KeySchedule tweak_ks_{};    // key 2: enciphers the tweak
    // E(key 2, IV), computed at the end of every init that leaves a key set
    // (schedule_key, keep_key), where the core has no whole-unit kernel
    // (tweak_at_init_): its chain then runs while the init returns and the
    // update is called, not ahead of the data's own chain in the update.
    // (A unit kernel keeps E(key 2, IV) in a register instead, which is
    // shorter still: the x86 AES cores, 64-byte units, ~4 ns of ~30.) Used
    // while iv_ still holds tweak0_iv_ (a legacy caller may rewrite the IV
    // through the "iv" octet pointer).
    bool tweak_at_init_;
    uint8_t tweak0_[kBlockSize] = {};
    uint8_t tweak0_iv_[kBlockSize] = {};
    bool tweak0_ok_ = false;

public:
    // AES-XTS lists keylen; SM4-XTS lists xts_standard. The lists are per mode
    // family, so both are here (xts_standard accepts only "IEEE" outside SM4).
    static constexpr ContextTables kParams{
        join(kCipherGets, kBlockGets),
        join(kCipherSets,
             std::array{CipherSetter{kParamXtsStandard, kUtf8, member<&XtsCtx::set_standard>}})};
};

// Equal halves turn XTS into a mode with known weaknesses (the tweak
// encryption and data encryption share a key); CRYPTO_memcmp because the
// comparison must not reveal how much of the key matches.
bool XtsCtx::schedule_key(const uint8_t* key, size_t keylen) {
    wipe_all(tweak_ks_, tweak0_);
    tweak0_ok_ = false;
    const size_t half = keylen / 2;
    equal_halves_ = CRYPTO_memcmp(key, key + half, half) == 0;
    if (equal_halves_ && encrypt_) return HWC_FAIL(prov_, kErrXtsDuplicatedKeys);
    if (core_->set_key(ks_, key, half) && core_->set_key(tweak_ks_, key + half, half)) {
        if (tweak_at_init_) prepare_tweak();
        return true;
    }
    wipe_all(ks_, tweak_ks_);
    return refused();
}

// A context keyed for decryption with equal halves must not become an
// encryptor through a key-less re-init: the refused init leaves it a
// decryptor (init has set the new direction already).
bool XtsCtx::keep_key() {
    if (encrypt_ && key_set_ && equal_halves_) return refuse_equal_halves();
    // Tail calls only: no stack frame on the per-message path.
    return key_set_ && tweak_at_init_ ? prepare_tweak() : true;
}

bool XtsCtx::refuse_equal_halves() {
    encrypt_ = false;
    return HWC_FAIL(prov_, kErrXtsDuplicatedKeys);
}

bool XtsCtx::prepare_tweak() {
    tweak0_ok_ = iv_set_;
    if (!iv_set_) {
        wipe(tweak0_, sizeof tweak0_); // a previous key's
        return true;
    }
    xts_tweak(*core_, tweak_ks_, iv_, tweak0_);
    std::memcpy(tweak0_iv_, iv_, kBlockSize);
    return true;
}

// One data unit of `len` >= 16 bytes.
void XtsCtx::crypt(const uint8_t* in, uint8_t* out, size_t len) {
    // A core with a unit kernel (CPACF derives the tweak itself; the x86 AES
    // cores keep it in a register, stealing included) takes the unit in one
    // call.
    if (!gb_ && xts_unit_bytes(*core_, ks_, tweak_ks_, iv_, in, out, len, encrypt_)) return;

    uint8_t tweak[kBlockSize];
    if (tweak0_ok_ && std::memcmp(tweak0_iv_, iv_, kBlockSize) == 0)
        std::memcpy(tweak, tweak0_, kBlockSize);
    else
        xts_tweak(*core_, tweak_ks_, iv_, tweak);
    // The whole blocks in one kernel call, then the stolen pair from the
    // tweak that call leaves (cores/modes.h).
    xts_steal(*core_, ks_, tweak, in, out, len, encrypt_, gb_);
    wipe(tweak, sizeof tweak);
}

int XtsCtx::update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in, size_t inl) {
    *outl = 0;
    if (!need_output(inl, outsize) || !need_key() || !need_iv()) return 0;
    // Zero bytes is not a data unit either: the default provider fails it too.
    if (in == nullptr || out == nullptr || inl < kBlockSize)
        return HWC_FAIL(prov_, kErrInvalidInputLength,
                        "an xts data unit is at least %zu bytes, got %zu", kBlockSize,
                        in == nullptr ? size_t(0) : inl);
    if (inl > kMaxDataUnitBlocks * kBlockSize)
        return HWC_FAIL(prov_, kErrXtsDataUnitTooLarge, "%zu bytes", inl);
    crypt(in, out, inl);
    *outl = inl;
    return 1;
}

bool XtsCtx::set_standard(const OSSL_PARAM& p) {
    const char* s = nullptr;
    // A UTF-8 parameter with NULL data reads as a null pointer.
    if (p.data_type != OSSL_PARAM_UTF8_STRING || !OSSL_PARAM_get_utf8_string_ptr(&p, &s) ||
        s == nullptr)
        return HWC_FAIL(prov_, kErrInvalidParam, "xts_standard must be a string");
    if (iequals(s, "IEEE")) {
        gb_ = false;
    } else if (iequals(s, "GB") && row_->family == Family::sm4) {
        gb_ = true;
    } else {
        return HWC_FAIL(prov_, kErrInvalidParam, "xts_standard \"%s\" (want %s)", s,
                        row_->family == Family::sm4 ? "\"GB\" or \"IEEE\""
                                                    : "\"IEEE\"; GB is for SM4-XTS");
    }
    return true;
}

} // namespace

const ModeOps kXtsModeOps = mode_ops_for<XtsCtx>();

} // namespace hwc
