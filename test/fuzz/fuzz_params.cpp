// SPDX-License-Identifier: Apache-2.0
// Parameter fuzzing: arbitrary OSSL_PARAM arrays (any key a context lists
// or a made-up one, any data type, any size, NULL data: see build()) given to every
// hwcipher context's set_ctx_params and get_ctx_params, to the algorithm's
// get_params, and to the MACs' contexts; then the context is used (init
// with a key and IV of the lengths it now reports, update, final). Every
// buffer is a heap allocation of exactly the size the parameter claims, so
// AddressSanitizer sees any read or write past it. The invariants are
// those of the sanitizers (no out-of-bounds access, no undefined
// behaviour, no leak; a get writing past a buffer is an ASan report: every
// buffer is exactly as large as its data_size says) plus lengths that stay
// within what the call may produce.
#include <fuzzer/FuzzedDataProvider.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>

#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "test/fuzz/fuzz_env.h"

namespace {

using hwc::fuzz::Bytes;
using hwc::fuzz::fail;

const unsigned int kTypes[] = {OSSL_PARAM_INTEGER,     OSSL_PARAM_UNSIGNED_INTEGER, OSSL_PARAM_REAL,
                               OSSL_PARAM_UTF8_STRING, OSSL_PARAM_OCTET_STRING,     OSSL_PARAM_UTF8_PTR,
                               OSSL_PARAM_OCTET_PTR};

// Names a context might be given: those it lists, a few it does not, and
// the ones other contexts use.
const char* const kExtraNames[] = {
    OSSL_CIPHER_PARAM_KEYLEN,        OSSL_CIPHER_PARAM_IVLEN,         OSSL_CIPHER_PARAM_PADDING,
    OSSL_CIPHER_PARAM_NUM,           OSSL_CIPHER_PARAM_IV,            OSSL_CIPHER_PARAM_UPDATED_IV,
    OSSL_CIPHER_PARAM_AEAD_TAG,      OSSL_CIPHER_PARAM_AEAD_TAGLEN,   OSSL_CIPHER_PARAM_AEAD_IVLEN,
    OSSL_CIPHER_PARAM_AEAD_TLS1_AAD, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED,
    OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN, OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV,
    OSSL_CIPHER_PARAM_TLS_VERSION,   OSSL_CIPHER_PARAM_TLS_MAC_SIZE,  OSSL_CIPHER_PARAM_TLS_MAC,
    OSSL_CIPHER_PARAM_CTS_MODE,      OSSL_CIPHER_PARAM_USE_BITS,      OSSL_CIPHER_PARAM_SPEED,
    OSSL_CIPHER_PARAM_MODE,          OSSL_CIPHER_PARAM_BLOCK_SIZE,    OSSL_CIPHER_PARAM_RANDOM_KEY,
    OSSL_MAC_PARAM_CIPHER,           OSSL_MAC_PARAM_KEY,              OSSL_MAC_PARAM_IV,
    OSSL_MAC_PARAM_SIZE,             OSSL_MAC_PARAM_BLOCK_SIZE,       OSSL_MAC_PARAM_PROPERTIES,
    "xts_standard",                  "hwcipher-cores",                "",
    "no-such-parameter",
};

// One parameter array built from the input; owns every buffer it points to.
struct Params {
    std::vector<OSSL_PARAM> params;
    std::vector<std::unique_ptr<uint8_t[]>> buffers;
    std::vector<std::unique_ptr<void*>> pointers; // the *_PTR types' pointer cells
    std::vector<std::string> keys;
};

bool unterminated_strings() {
    static const bool on = [] {
        const char* e = std::getenv("HWCIPHER_FUZZ_UNTERMINATED");
        return e != nullptr && std::string(e) == "1";
    }();
    return on;
}

void collect_names(const OSSL_PARAM* p, std::vector<std::string>& out) {
    for (; p != nullptr && p->key != nullptr; ++p) out.emplace_back(p->key);
}

Params build(FuzzedDataProvider& fdp, const std::vector<std::string>& names, bool for_get) {
    Params ps;
    const size_t count = fdp.ConsumeIntegralInRange<size_t>(0, 5);
    ps.keys.reserve(count);
    for (size_t i = 0; i < count; ++i) {
        std::string key;
        if (!names.empty() && fdp.ConsumeIntegralInRange<int>(0, 3) != 0)
            key = names[fdp.ConsumeIntegralInRange<size_t>(0, names.size() - 1)];
        else
            key = kExtraNames[fdp.ConsumeIntegralInRange<size_t>(0, std::size(kExtraNames) - 1)];
        ps.keys.push_back(key);
        OSSL_PARAM p{};
        p.key = ps.keys.back().c_str();
        p.data_type = fdp.ConsumeBool() ? kTypes[fdp.ConsumeIntegralInRange<size_t>(0, std::size(kTypes) - 1)]
                                        : fdp.ConsumeIntegral<uint8_t>();
        // Sizes around the ones the types use (0, 1, 4, 8, 16, ...), up to 72.
        p.data_size = fdp.ConsumeIntegralInRange<size_t>(0, 72);
        p.return_size = OSSL_PARAM_UNMODIFIED;
        // NULL data: in a get, a size query (not for REAL: OpenSSL 3.0's
        // OSSL_PARAM_set_* write a double through it); in a set, only for
        // the string types (a length without a value, e.g. an AEAD tag
        // length): 3.0's OSSL_PARAM_get_* read NULL numeric data (3.2
        // refuses it). A provider calling those cannot do better than
        // libcrypto, and the default provider calls the same ones.
        const bool string_type = p.data_type == OSSL_PARAM_OCTET_STRING || p.data_type == OSSL_PARAM_UTF8_STRING;
        const bool null_ok = for_get ? p.data_type != OSSL_PARAM_REAL : string_type;
        const bool null_data = null_ok && fdp.ConsumeIntegralInRange<int>(0, 7) == 0;
        if (!null_data) {
            // UTF-8 data is NUL-terminated just past data_size (the OSSL_PARAM
            // convention), unless HWCIPHER_FUZZ_UNTERMINATED=1: hwcipher,
            // like the default provider, reads "cipher" and other strings
            // through OSSL_PARAM_get_utf8_string_ptr up to their NUL, past
            // data_size when there is none (issue #15 follow-up).
            const bool utf8 = p.data_type == OSSL_PARAM_UTF8_STRING || p.data_type == OSSL_PARAM_UTF8_PTR;
            const size_t room = p.data_size + (utf8 && !unterminated_strings() ? 1 : 0);
            auto buf = std::make_unique<uint8_t[]>(room == 0 ? 1 : room);
            const Bytes fill = fdp.ConsumeBytes<uint8_t>(p.data_size);
            std::memset(buf.get(), 0, room == 0 ? 1 : room);
            if (!fill.empty()) std::memcpy(buf.get(), fill.data(), fill.size());
            if (p.data_type == OSSL_PARAM_UTF8_PTR || p.data_type == OSSL_PARAM_OCTET_PTR) {
                // data points to a pointer cell; data_size is what it points to.
                auto cell = std::make_unique<void*>(buf.get());
                p.data = cell.get();
                ps.pointers.push_back(std::move(cell));
            } else {
                p.data = buf.get();
            }
            ps.buffers.push_back(std::move(buf));
        }
        ps.params.push_back(p);
    }
    ps.params.push_back(OSSL_PARAM_construct_end());
    return ps;
}

// Init with key and IV as long as the context now says, then a little data.
void use(EVP_CIPHER_CTX* ctx, FuzzedDataProvider& fdp) {
    const int kl = EVP_CIPHER_CTX_get_key_length(ctx), il = EVP_CIPHER_CTX_get_iv_length(ctx);
    if (kl <= 0 || kl > 1024 || il < 0 || il > 4096) return;
    Bytes key(static_cast<size_t>(kl), 0x11), iv(static_cast<size_t>(il == 0 ? 1 : il), 0x22);
    if (EVP_CipherInit_ex2(ctx, nullptr, key.data(), iv.data(), -1, nullptr) != 1) return;
    Bytes in = fdp.ConsumeBytes<uint8_t>(fdp.ConsumeIntegralInRange<size_t>(0, 64));
    Bytes out(in.size() + 64);
    int n = 0;
    if (EVP_CipherUpdate(ctx, out.data(), &n, in.data(), static_cast<int>(in.size())) != 1) return;
    if (n < 0 || static_cast<size_t>(n) > in.size() + 32) fail("update length", std::to_string(n));
    int m = 0;
    EVP_CipherFinal_ex(ctx, out.data() + n, &m);
}

void fuzz_cipher(FuzzedDataProvider& fdp) {
    const hwc::fuzz::Env& e = hwc::fuzz::env();
    const size_t index = fdp.ConsumeIntegralInRange<size_t>(0, e.ciphers.size() - 1);
    EVP_CIPHER* c = hwc::fuzz::cipher(index).best;
    const std::string where = e.ciphers[index];
    std::vector<std::string> names;
    collect_names(EVP_CIPHER_settable_ctx_params(c), names);
    collect_names(EVP_CIPHER_gettable_ctx_params(c), names);
    collect_names(EVP_CIPHER_gettable_params(c), names);

    Params alg = build(fdp, names, true);
    EVP_CIPHER_get_params(c, alg.params.data());

    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    if (ctx == nullptr) return;
    const bool enc = fdp.ConsumeBool();
    if (fdp.ConsumeBool()) {
        // Keyed first, or only the cipher chosen.
        const int kl = EVP_CIPHER_get_key_length(c), il = EVP_CIPHER_get_iv_length(c);
        Bytes key(static_cast<size_t>(kl), 0x33), iv(static_cast<size_t>(il > 0 ? il : 1), 0x44);
        for (size_t i = 0; i + 1 < key.size(); i += 2) key[i] = static_cast<uint8_t>(i); // XTS halves differ
        if (kl >= 0 && il >= 0 && EVP_CipherInit_ex2(ctx, c, key.data(), iv.data(), enc, nullptr) != 1) {
            EVP_CIPHER_CTX_free(ctx);
            ERR_clear_error();
            return;
        }
    } else if (EVP_CipherInit_ex2(ctx, c, nullptr, nullptr, enc, nullptr) != 1) {
        EVP_CIPHER_CTX_free(ctx);
        ERR_clear_error();
        return;
    }
    const int rounds = fdp.ConsumeIntegralInRange<int>(1, 3);
    for (int r = 0; r < rounds; ++r) {
        Params set = build(fdp, names, false);
        EVP_CIPHER_CTX_set_params(ctx, set.params.data());
        Params get = build(fdp, names, true);
        EVP_CIPHER_CTX_get_params(ctx, get.params.data());
    }
    if (fdp.ConsumeBool()) {
        EVP_CIPHER_CTX* copy = EVP_CIPHER_CTX_new();
        if (copy != nullptr && EVP_CIPHER_CTX_copy(copy, ctx) == 1) use(copy, fdp);
        EVP_CIPHER_CTX_free(copy);
    }
    use(ctx, fdp);
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
}

void fuzz_mac(FuzzedDataProvider& fdp) {
    const hwc::fuzz::Env& e = hwc::fuzz::env();
    static EVP_MAC* macs[2] = {EVP_MAC_fetch(e.best, "CMAC", "provider=hwcipher"),
                               EVP_MAC_fetch(e.best, "GMAC", "provider=hwcipher")};
    EVP_MAC* mac = macs[fdp.ConsumeIntegralInRange<int>(0, 1)];
    if (mac == nullptr) fail("setup", "hwcipher's MACs cannot be fetched");
    std::vector<std::string> names;
    collect_names(EVP_MAC_settable_ctx_params(mac), names);
    collect_names(EVP_MAC_gettable_ctx_params(mac), names);
    collect_names(EVP_MAC_gettable_params(mac), names);
    Params alg = build(fdp, names, true);
    EVP_MAC_get_params(mac, alg.params.data());
    EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
    if (ctx == nullptr) return;
    const int rounds = fdp.ConsumeIntegralInRange<int>(1, 3);
    for (int r = 0; r < rounds; ++r) {
        Params set = build(fdp, names, false);
        EVP_MAC_CTX_set_params(ctx, set.params.data());
        Params get = build(fdp, names, true);
        EVP_MAC_CTX_get_params(ctx, get.params.data());
    }
    Bytes key = fdp.ConsumeBytes<uint8_t>(fdp.ConsumeIntegralInRange<size_t>(0, 40));
    Params init = build(fdp, names, false);
    if (EVP_MAC_init(ctx, key.empty() ? nullptr : key.data(), key.size(), init.params.data()) == 1) {
        const Bytes msg = fdp.ConsumeRemainingBytes<uint8_t>();
        uint8_t out[64];
        size_t outl = 0;
        if (EVP_MAC_update(ctx, msg.data(), msg.size()) == 1) {
            EVP_MAC_CTX* dup = EVP_MAC_CTX_dup(ctx);
            if (EVP_MAC_final(ctx, out, &outl, sizeof out) == 1 && outl > sizeof out)
                fail("MAC final length", std::to_string(outl));
            EVP_MAC_CTX_free(dup);
        }
    }
    EVP_MAC_CTX_free(ctx);
    ERR_clear_error();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FuzzedDataProvider fdp(data, size);
    if (fdp.ConsumeIntegralInRange<int>(0, 7) == 0) fuzz_mac(fdp);
    else fuzz_cipher(fdp);
    return 0;
}
