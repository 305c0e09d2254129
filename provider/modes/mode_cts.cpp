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
#include <algorithm>
#include <cstring>
#include <new>
#include <string_view>

#include <openssl/params.h>

#include "cores/modes.h"
#include "provider/modes/classic_ctx.h"
#include "provider/modes/mode_contexts.h"
#include "provider/module/errors.h"

namespace hwc {

namespace {

enum class CtsVariant { cs1, cs2, cs3 };
constexpr const char* kVariantNames[] = {"CS1", "CS2", "CS3"}; // "cts_mode", by CtsVariant

class CtsModeCtx final : public FamilyCtx<CtsModeCtx, ClassicCtx> {
public:
    using FamilyCtx::FamilyCtx;

    int update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
               size_t inl) override;
    bool get_cts_mode(OSSL_PARAM& p);
    bool set_cts_mode(const OSSL_PARAM& p);

private:
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

public:
    // The classic rows, but neither the TLS MAC nor the TLS record parameters
    // are listed (as for the default provider's CTS ciphers; they are handled).
    static constexpr ContextTables kParams{
        join(unlisted(kClassicGets, {OSSL_CIPHER_PARAM_TLS_MAC}),
             std::array{CipherGetter{OSSL_CIPHER_PARAM_CTS_MODE, kUtf8,
                                     member<&CtsModeCtx::get_cts_mode>}}),
        join(unlisted(kClassicSets,
                      {OSSL_CIPHER_PARAM_TLS_VERSION, OSSL_CIPHER_PARAM_TLS_MAC_SIZE}),
             std::array{CipherSetter{OSSL_CIPHER_PARAM_CTS_MODE, kUtf8,
                                     member<&CtsModeCtx::set_cts_mode>}})};
};

int CtsModeCtx::update(uint8_t* out, size_t* outl, size_t outsize, const uint8_t* in,
                       size_t inl) {
    *outl = 0;
    if (!ready()) return 0;
    if (updated_) return HWC_FAIL(prov_, kErrCtsOneShot);
    // The one update is the whole message, so an empty one is a message
    // shorter than a block: refused, as by OpenSSL's default provider.
    if (inl < kBlockSize) return HWC_FAIL(prov_, kErrCtsTooShort, "got %zu bytes", inl);
    if (!need_output(inl, outsize)) return 0;
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
        if (swapped(len)) { // the last two blocks trade places
            uint8_t* a = out + len - 2 * kBlockSize;
            std::swap_ranges(a, a + kBlockSize, a + kBlockSize);
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
    wipe_all(z, pn);
}

bool CtsModeCtx::get_cts_mode(OSSL_PARAM& p) {
    return OSSL_PARAM_set_utf8_string(&p, kVariantNames[static_cast<int>(variant_)]) ||
           HWC_FAIL(prov_, kErrInvalidParam, "cts_mode");
}

bool CtsModeCtx::set_cts_mode(const OSSL_PARAM& p) {
    const char* name = nullptr;
    // A UTF-8 parameter with NULL data reads as a null pointer.
    if (!OSSL_PARAM_get_utf8_string_ptr(&p, &name) || name == nullptr)
        return HWC_FAIL(prov_, kErrInvalidCtsMode);
    for (int v = 0; v < 3; ++v) {
        if (std::string_view(name) != kVariantNames[v]) continue;
        variant_ = static_cast<CtsVariant>(v);
        return true;
    }
    return HWC_FAIL(prov_, kErrInvalidCtsMode, "got '%s'", name);
}

} // namespace

const ModeOps kCtsModeOps = mode_ops_for<CtsModeCtx>();

} // namespace hwc
