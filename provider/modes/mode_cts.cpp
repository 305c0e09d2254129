// SPDX-License-Identifier: Apache-2.0
// CBC with ciphertext stealing (NIST SP 800-38A addendum): CS1, CS2 and CS3,
// chosen by the "cts_mode" parameter as in OpenSSL's AES-128-CBC-CTS.
//
// The message is CBC-encrypted with its last partial block zero-padded; the
// penultimate ciphertext block is then truncated to the partial length. The
// variants differ only in the order of the last two pieces: CS1 keeps CBC
// order, CS3 always swaps them (RFC 3962, Kerberos), CS2 swaps them only when
// the message is not a whole number of blocks. Like OpenSSL's, a context takes
// one update per message (at least one block); final emits nothing.
#include <cstring>
#include <new>
#include <string_view>

#include <openssl/core_names.h>
#include <openssl/params.h>

#include "cores/modes.h"
#include "provider/modes/classic_ctx.h"
#include "provider/module/errors.h"
#include "provider/modes/mode_contexts.h"
#include "provider/params/param_table.h"

namespace hwc {

namespace {

enum class CtsVariant { cs1, cs2, cs3 };

class CtsModeCtx final : public ClassicCtx {
public:
    CtsModeCtx(const ProvCtx* prov, const AlgorithmRow& row) : ClassicCtx(prov, row) {}

    CipherCtx* clone() const override { return new (std::nothrow) CtsModeCtx(*this); }

    int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override;
    int final(uint8_t*, size_t* outl, size_t) override {
        *outl = 0;
        return ready() ? 1 : 0;
    }
    int get_ctx_params(OSSL_PARAM params[]) override;
    int set_ctx_params(const OSSL_PARAM params[]) override;

private:
    CtsModeCtx(const CtsModeCtx&) = default;
    void reset_stream() override { updated_ = false; }

    void encrypt(const uint8_t* in, uint8_t* out, size_t len);
    void decrypt(const uint8_t* in, uint8_t* out, size_t len);
    // Whether the last two pieces are stored swapped for a message of `len`.
    bool swapped(size_t len) const {
        if (len <= kBlockSize) return false;
        if (variant_ == CtsVariant::cs3) return true;
        return variant_ == CtsVariant::cs2 && len % kBlockSize != 0;
    }

    CtsVariant variant_ = CtsVariant::cs1;
    bool updated_ = false;
};

int CtsModeCtx::update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
                       size_t inl) {
    *outl = 0;
    if (!ready()) return 0;
    if (updated_) {
        HWC_RAISE(prov_, kErrCtsOneShot);
        return 0;
    }
    // The one update is the whole message, so an empty one is a message
    // shorter than a block: refused, as by OpenSSL's default provider.
    if (inl < kBlockSize) {
        HWC_RAISE(prov_, kErrCtsTooShort, "got %zu bytes", inl);
        return 0;
    }
    if (outsize < inl) {
        HWC_RAISE(prov_, kErrOutputBufferTooSmall, "need %zu bytes, have %zu", inl, outsize);
        return 0;
    }
    if (encrypt_) encrypt(in, out, inl);
    else decrypt(in, out, inl);
    updated_ = true;
    *outl = inl;
    return 1;
}

void CtsModeCtx::encrypt(const uint8_t* in, uint8_t* out, size_t len) {
    const size_t tail = len % kBlockSize;
    if (tail == 0) {
        cbc_encrypt(*core_, ks_, iv_, in, out, len / kBlockSize);
        if (swapped(len)) {
            uint8_t t[kBlockSize];
            uint8_t* a = out + len - 2 * kBlockSize;
            std::memcpy(t, a, kBlockSize);
            std::memmove(a, a + kBlockSize, kBlockSize);
            std::memcpy(a + kBlockSize, t, kBlockSize);
        }
        return;
    }
    // full >= 1 whole blocks, then `tail` bytes.
    const size_t full = len / kBlockSize;
    cbc_encrypt(*core_, ks_, iv_, in, out, full);
    uint8_t penult[kBlockSize]; // C(n-1), the last whole CBC block
    std::memcpy(penult, out + (full - 1) * kBlockSize, kBlockSize);
    uint8_t last[kBlockSize] = {}; // P(n) zero-padded, then C(n)
    std::memcpy(last, in + full * kBlockSize, tail);
    cbc_encrypt(*core_, ks_, iv_, last, last, 1);

    uint8_t* a = out + (full - 1) * kBlockSize; // where the last two pieces go
    if (swapped(len)) {
        std::memcpy(a, last, kBlockSize);
        std::memcpy(a + kBlockSize, penult, tail);
    } else {
        std::memcpy(a, penult, tail);
        std::memcpy(a + tail, last, kBlockSize);
    }
    wipe(last, sizeof last);
}

void CtsModeCtx::decrypt(const uint8_t* in, uint8_t* out, size_t len) {
    if (!swapped(len) && len % kBlockSize == 0) {
        cbc_decrypt(*core_, ks_, iv_, in, out, len / kBlockSize);
        return;
    }
    // The stolen piece is `k` bytes (a whole block in the aligned CS3 case);
    // before the last two pieces come `lead` ordinary CBC blocks.
    const size_t k = len % kBlockSize == 0 ? kBlockSize : len % kBlockSize;
    const size_t lead = (len - k - kBlockSize) / kBlockSize;
    const uint8_t* pieces = in + lead * kBlockSize;
    uint8_t stolen[kBlockSize] = {}; // C(n-1) truncated to k bytes
    uint8_t cn[kBlockSize];          // C(n), a whole block
    if (swapped(len)) {
        std::memcpy(cn, pieces, kBlockSize);
        std::memcpy(stolen, pieces + kBlockSize, k);
    } else {
        std::memcpy(stolen, pieces, k);
        std::memcpy(cn, pieces + k, kBlockSize);
    }
    cbc_decrypt(*core_, ks_, iv_, in, out, lead); // iv_ is now C(n-2)

    // D(C(n)) = C(n-1) xor (P(n) || 0): its tail restores the stolen bytes.
    uint8_t z[kBlockSize];
    ecb_decrypt(*core_, ks_, cn, z, 1);
    uint8_t prev[kBlockSize]; // the whole C(n-1)
    std::memcpy(prev, stolen, k);
    std::memcpy(prev + k, z + k, kBlockSize - k);
    uint8_t pn[kBlockSize];
    for (size_t i = 0; i < k; ++i) pn[i] = z[i] ^ stolen[i];

    uint8_t* o = out + lead * kBlockSize;
    cbc_decrypt(*core_, ks_, iv_, prev, o, 1); // P(n-1); iv_ becomes C(n-1)
    std::memcpy(o + kBlockSize, pn, k);
    std::memcpy(iv_, cn, kBlockSize);          // the chain continues from C(n)
    wipe(z, sizeof z);
    wipe(pn, sizeof pn);
}

int CtsModeCtx::get_ctx_params(OSSL_PARAM params[]) {
    if (!ClassicCtx::get_ctx_params(params)) return 0;
    OSSL_PARAM* p = param_locate(params, OSSL_CIPHER_PARAM_CTS_MODE);
    if (p != nullptr) {
        const char* name = variant_ == CtsVariant::cs1 ? "CS1"
                         : variant_ == CtsVariant::cs2 ? "CS2" : "CS3";
        if (!OSSL_PARAM_set_utf8_string(p, name)) {
            HWC_RAISE(prov_, kErrInvalidParam, "cts_mode");
            return 0;
        }
    }
    return 1;
}

int CtsModeCtx::set_ctx_params(const OSSL_PARAM params[]) {
    if (!ClassicCtx::set_ctx_params(params)) return 0;
    const OSSL_PARAM* p = param_locate(params, OSSL_CIPHER_PARAM_CTS_MODE);
    if (p != nullptr) {
        const char* name = nullptr;
        if (!OSSL_PARAM_get_utf8_string_ptr(p, &name)) {
            HWC_RAISE(prov_, kErrInvalidCtsMode);
            return 0;
        }
        const std::string_view v(name);
        if (v == "CS1") variant_ = CtsVariant::cs1;
        else if (v == "CS2") variant_ = CtsVariant::cs2;
        else if (v == "CS3") variant_ = CtsVariant::cs3;
        else {
            HWC_RAISE(prov_, kErrInvalidCtsMode, "got '%s'", name);
            return 0;
        }
    }
    return 1;
}

} // namespace

const ModeOps kCtsModeOps = {
    [](const ProvCtx* prov, const AlgorithmRow& row) -> CipherCtx* {
        return new (std::nothrow) CtsModeCtx(prov, row);
    },
    &ClassicCtx::cts_gettable_params,
    &ClassicCtx::cts_settable_params,
};

} // namespace hwc
