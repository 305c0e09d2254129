// SPDX-License-Identifier: Apache-2.0
// TLS CBC record fuzzing: an arbitrary record decrypted in place by a
// record-mode context ("tls-version", "tls-mac-size"), on hwcipher's best
// and portable cores and, for AES, the default provider; and an arbitrary
// payload encrypted into a record and decrypted back.
//
// All must agree on the call's result and length and on the payload. Where
// the record's padding is valid (checked here on the raw CBC decryption)
// the MAC handed out ("tls-mac") must be the bytes before the padding;
// where it is not, a call with a MAC must still succeed (the failure shows
// only as a MAC that cannot verify: no padding oracle) and one without a
// MAC (encrypt-then-MAC) must fail.
#include <fuzzer/FuzzedDataProvider.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>
#include <openssl/prov_ssl.h>

#include <algorithm>
#include <cstring>
#include <iterator>
#include <string>

#include "test/fuzz/fuzz_env.h"

namespace {

using hwc::fuzz::Bytes;
using hwc::fuzz::fail;
using hwc::fuzz::hex;

const char* const kCiphers[] = {"AES-128-CBC", "AES-256-CBC", "SM4-CBC", "TWOFISH-128-CBC",
                                "TWOFISH-256-CBC"};
const unsigned kVersions[] = {SSL3_VERSION, TLS1_VERSION, TLS1_1_VERSION, TLS1_2_VERSION,
                              DTLS1_VERSION, DTLS1_2_VERSION};
const size_t kMacSizes[] = {0, 16, 20, 32, 48};

bool explicit_iv(unsigned v) { return v != SSL3_VERSION && v != TLS1_VERSION; }

struct Outcome {
    int ok = 0, outl = -1;
    Bytes buf, mac;
};

EVP_CIPHER_CTX* record_ctx(EVP_CIPHER* c, bool enc, const Bytes& key, const Bytes& iv, unsigned version,
                           size_t mac) {
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    unsigned v = version;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &v),
                      OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &mac),
                      OSSL_PARAM_construct_end()};
    if (ctx == nullptr || EVP_CipherInit_ex2(ctx, c, key.data(), iv.data(), enc ? 1 : 0, p) != 1)
        fail("record context", std::string(EVP_CIPHER_get0_name(c)));
    return ctx;
}

Outcome run(EVP_CIPHER* c, bool enc, const Bytes& key, const Bytes& iv, unsigned version, size_t mac,
            const Bytes& rec) {
    Outcome o;
    EVP_CIPHER_CTX* ctx = record_ctx(c, enc, key, iv, version, mac);
    o.buf = rec;
    o.buf.resize(rec.size() + (enc ? 16 : 0));
    o.ok = EVP_CipherUpdate(ctx, o.buf.data(), &o.outl, o.buf.data(), static_cast<int>(rec.size()));
    if (o.ok && !enc && mac != 0) {
        void* p = nullptr;
        OSSL_PARAM g[] = {OSSL_PARAM_construct_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, &p, mac),
                          OSSL_PARAM_construct_end()};
        if (EVP_CIPHER_CTX_get_params(ctx, g) != 1 || p == nullptr) fail("tls-mac", "not returned");
        o.mac.assign(static_cast<uint8_t*>(p), static_cast<uint8_t*>(p) + mac);
    }
    EVP_CIPHER_CTX_free(ctx);
    ERR_clear_error();
    return o;
}

// Padding check on the plain CBC decryption of the record (after the
// explicit IV), independent of the provider: returns the padding length
// including the length byte, or 0 when invalid.
size_t valid_padding(const Bytes& plain, unsigned version, size_t mac) {
    if (plain.empty()) return 0;
    const size_t pad = static_cast<size_t>(plain.back()) + 1;
    if (pad + mac > plain.size()) return 0;
    if (version == SSL3_VERSION) return pad <= 16 ? pad : 0;
    for (size_t i = plain.size() - pad; i < plain.size(); ++i)
        if (plain[i] != plain.back()) return 0;
    return pad;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    FuzzedDataProvider fdp(data, size);
    const hwc::fuzz::Env& e = hwc::fuzz::env();
    const char* name = kCiphers[fdp.ConsumeIntegralInRange<size_t>(0, std::size(kCiphers) - 1)];
    static EVP_CIPHER* cache[std::size(kCiphers)][3] = {};
    const size_t ci = static_cast<size_t>(std::find_if(std::begin(kCiphers), std::end(kCiphers),
                                                       [&](const char* n) { return n == name; }) -
                                          std::begin(kCiphers));
    if (cache[ci][0] == nullptr) {
        cache[ci][0] = EVP_CIPHER_fetch(e.best, name, "provider=hwcipher");
        cache[ci][1] = EVP_CIPHER_fetch(e.portable, name, "provider=hwcipher");
        cache[ci][2] = EVP_CIPHER_fetch(e.deflt, name, "provider=default");
        ERR_clear_error();
    }
    EVP_CIPHER* best = cache[ci][0];
    EVP_CIPHER* portable = cache[ci][1];
    EVP_CIPHER* deflt = cache[ci][2];
    const unsigned version = kVersions[fdp.ConsumeIntegralInRange<size_t>(0, std::size(kVersions) - 1)];
    const size_t mac = kMacSizes[fdp.ConsumeIntegralInRange<size_t>(0, std::size(kMacSizes) - 1)];
    const bool encrypt_first = fdp.ConsumeBool();
    Bytes key = fdp.ConsumeBytes<uint8_t>(static_cast<size_t>(EVP_CIPHER_get_key_length(best)));
    key.resize(static_cast<size_t>(EVP_CIPHER_get_key_length(best)), 0x5a);
    Bytes iv = fdp.ConsumeBytes<uint8_t>(16);
    iv.resize(16, 0xa5);
    Bytes rec = fdp.ConsumeRemainingBytes<uint8_t>();
    const std::string what = std::string(name) + " version " + std::to_string(version) + " mac " +
                             std::to_string(mac) + " key " + hex(key) + " iv " + hex(iv) + " record " + hex(rec);

    if (encrypt_first) {
        // rec is [explicit IV] payload MAC: encrypt it into a record.
        const Outcome h = run(best, true, key, iv, version, mac, rec);
        const Outcome p = run(portable, true, key, iv, version, mac, rec);
        if (h.ok != p.ok || h.outl != p.outl || (h.ok && h.buf != p.buf)) fail("encrypt: best vs portable", what);
        if (deflt != nullptr) {
            const Outcome d = run(deflt, true, key, iv, version, mac, rec);
            if (h.ok != d.ok || (h.ok && (h.outl != d.outl || h.buf != d.buf)))
                fail("encrypt: hwcipher vs default", what);
        }
        if (!h.ok) return 0;
        rec.assign(h.buf.begin(), h.buf.begin() + h.outl);
        // Decrypting it must give the payload and MAC back (when what was
        // encrypted had room for the explicit IV and the MAC).
        const size_t skip = explicit_iv(version) ? 16 : 0;
        const size_t inl = h.buf.size() - 16;
        if (inl >= skip + mac) {
            const Outcome back = run(best, false, key, iv, version, mac, rec);
            if (back.ok != 1 || static_cast<size_t>(back.outl) + skip + mac != inl)
                fail("encrypt-decrypt round trip", what);
        }
    }

    const Outcome h = run(best, false, key, iv, version, mac, rec);
    const Outcome p = run(portable, false, key, iv, version, mac, rec);
    if (h.ok != p.ok || h.outl != p.outl) fail("decrypt: best vs portable result", what);
    const size_t skip = explicit_iv(version) ? 16 : 0;
    if (h.ok && (std::memcmp(h.buf.data() + skip, p.buf.data() + skip, static_cast<size_t>(h.outl)) != 0))
        fail("decrypt: best vs portable payload", what);

    // The independent view: raw CBC of the record.
    bool shape_ok = rec.size() % 16 == 0 && rec.size() >= skip + mac + 1 && !rec.empty();
    size_t pad = 0;
    Bytes plain;
    if (shape_ok) {
        EVP_CIPHER_CTX* raw = EVP_CIPHER_CTX_new();
        plain.resize(rec.size());
        int n = 0;
        if (EVP_DecryptInit_ex2(raw, deflt != nullptr ? deflt : best, key.data(), iv.data(), nullptr) != 1 ||
            EVP_CIPHER_CTX_set_padding(raw, 0) != 1 ||
            EVP_DecryptUpdate(raw, plain.data(), &n, rec.data(), static_cast<int>(rec.size())) != 1)
            fail("raw CBC", what);
        EVP_CIPHER_CTX_free(raw);
        plain.erase(plain.begin(), plain.begin() + static_cast<long>(skip));
        pad = valid_padding(plain, version, mac);
    }
    if (!shape_ok) {
        if (h.ok) fail("a record of impossible shape was accepted", what);
    } else if (pad != 0) {
        if (!h.ok) fail("a record with valid padding was refused", what);
        const size_t payload = plain.size() - pad - mac;
        if (static_cast<size_t>(h.outl) != payload) fail("payload length", what);
        if (std::memcmp(h.buf.data() + skip, plain.data(), payload) != 0) fail("payload", what);
        if (mac != 0 && std::memcmp(h.mac.data(), plain.data() + payload, mac) != 0) fail("tls-mac", what);
        if (h.mac != p.mac) fail("decrypt: best vs portable tls-mac", what);
    } else if (mac == 0) {
        if (h.ok) fail("bad padding accepted with encrypt-then-MAC", what);
    } else {
        if (!h.ok) fail("bad padding failed the call (a padding oracle)", what);
        if (static_cast<size_t>(h.outl) != plain.size() - mac) fail("bad padding: length", what);
    }
    if (deflt != nullptr && shape_ok) {
        const Outcome d = run(deflt, false, key, iv, version, mac, rec);
        if (d.ok != h.ok || (h.ok && d.outl != h.outl)) fail("decrypt: hwcipher vs default", what);
        if (h.ok && std::memcmp(d.buf.data() + skip, h.buf.data() + skip, static_cast<size_t>(h.outl)) != 0)
            fail("decrypt: hwcipher vs default payload", what);
        if (pad != 0 && d.mac != h.mac) fail("decrypt: hwcipher vs default tls-mac", what);
    }
    return 0;
}
