// SPDX-License-Identifier: Apache-2.0
// The reliability workload (see workload.h).
#include "test/reliability/workload.h"

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/prov_ssl.h>
#include <openssl/provider.h>

#include <cstdlib>
#include <cstring>
#include <memory>

namespace hwc::rel {

void Output::add(const void* p, size_t n) {
    if (n > kCapacity - len) {
        overflow = true;
        return;
    }
    if (n != 0) std::memcpy(bytes + len, p, n);
    len += n;
}

bool Output::operator==(const Output& o) const {
    return !overflow && !o.overflow && len == o.len && std::memcmp(bytes, o.bytes, len) == 0;
}

namespace {

constexpr const char* kProps = "provider=hwcipher";

template <class T, void (*Free)(T*)>
struct Deleter {
    void operator()(T* p) const { Free(p); }
};
using Cipher = std::unique_ptr<EVP_CIPHER, Deleter<EVP_CIPHER, EVP_CIPHER_free>>;
using Ctx = std::unique_ptr<EVP_CIPHER_CTX, Deleter<EVP_CIPHER_CTX, EVP_CIPHER_CTX_free>>;
using Mac = std::unique_ptr<EVP_MAC, Deleter<EVP_MAC, EVP_MAC_free>>;
using MacCtx = std::unique_ptr<EVP_MAC_CTX, Deleter<EVP_MAC_CTX, EVP_MAC_CTX_free>>;

// Deterministic test data: byte i of stream `s`.
void fill(uint8_t* p, size_t n, unsigned s) {
    for (size_t i = 0; i < n; ++i) p[i] = static_cast<uint8_t>(i * 131 + s * 71 + 7);
}

// The step that failed first; the workload stops there.
struct Run {
    OSSL_LIB_CTX* lib;
    Output& out;
    const char* failed = nullptr;

    bool fail(const char* step) {
        if (failed == nullptr) failed = step;
        return false;
    }
};

Cipher fetch(Run& r, const char* name) {
    return Cipher(EVP_CIPHER_fetch(r.lib, name, kProps));
}

bool provider_params(Run& r, OSSL_PROVIDER* prov) {
    const char *name = nullptr, *version = nullptr, *build = nullptr, *cores = nullptr;
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_NAME, const_cast<char**>(&name), 0),
        OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_VERSION, const_cast<char**>(&version), 0),
        OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, const_cast<char**>(&build), 0),
        OSSL_PARAM_construct_utf8_ptr("hwcipher-cores", const_cast<char**>(&cores), 0),
        OSSL_PARAM_construct_end(),
    };
    if (OSSL_PROVIDER_get_params(prov, p) != 1) return r.fail("provider get_params");
    for (const char* s : {name, version, build, cores}) {
        if (s == nullptr) return r.fail("provider get_params: missing value");
        r.out.add(s, std::strlen(s));
    }
    return true;
}

// A classic mode: encrypt `len` bytes in three updates (or one, for the
// one-shot modes), copying the context after the first; both copies must
// finish with the same output. Then decrypt in place (bytes buffered first
// where the mode buffers, so the block modes' overlapping-input path runs)
// and compare with the plaintext.
bool classic(Run& r, const char* name, size_t len, bool one_shot) {
    Cipher c = fetch(r, name);
    if (!c) return r.fail("cipher fetch");
    const int keylen = EVP_CIPHER_get_key_length(c.get());
    uint8_t key[64], iv[16], pt[256], ct[2][300], back[300];
    if (keylen <= 0 || keylen > 64 || len > sizeof pt) return r.fail("classic: sizes");
    fill(key, sizeof key, 1);
    if (keylen == 64 || keylen == 32) fill(key + keylen / 2, keylen / 2, 2); // XTS halves differ
    fill(iv, sizeof iv, 3);
    fill(pt, len, 4);
    Ctx e(EVP_CIPHER_CTX_new());
    if (!e || EVP_EncryptInit_ex2(e.get(), c.get(), key, iv, nullptr) != 1)
        return r.fail("classic: encrypt init");
    int n = 0, total[2] = {0, 0};
    const size_t first = one_shot ? len : len / 3;
    if (EVP_EncryptUpdate(e.get(), ct[0], &n, pt, static_cast<int>(first)) != 1)
        return r.fail("classic: update");
    total[0] = total[1] = n;
    std::memcpy(ct[1], ct[0], static_cast<size_t>(n));
    Ctx copy(EVP_CIPHER_CTX_new());
    if (!copy || EVP_CIPHER_CTX_copy(copy.get(), e.get()) != 1) return r.fail("classic: copy");
    EVP_CIPHER_CTX* both[2] = {e.get(), copy.get()};
    for (int k = 0; k < 2; ++k) {
        if (!one_shot) {
            const size_t second = (len - first) / 2;
            if (EVP_EncryptUpdate(both[k], ct[k] + total[k], &n, pt + first,
                                  static_cast<int>(second)) != 1)
                return r.fail("classic: update");
            total[k] += n;
            if (EVP_EncryptUpdate(both[k], ct[k] + total[k], &n, pt + first + second,
                                  static_cast<int>(len - first - second)) != 1)
                return r.fail("classic: update");
            total[k] += n;
        }
        if (EVP_EncryptFinal_ex(both[k], ct[k] + total[k], &n) != 1)
            return r.fail("classic: final");
        total[k] += n;
    }
    r.out.add(ct[0], static_cast<size_t>(total[0]));
    r.out.add(ct[1], static_cast<size_t>(total[1]));

    Ctx d(EVP_CIPHER_CTX_new());
    if (!d || EVP_DecryptInit_ex2(d.get(), c.get(), key, iv, nullptr) != 1)
        return r.fail("classic: decrypt init");
    std::memcpy(back, ct[0], static_cast<size_t>(total[0]));
    int got = 0;
    const size_t head = one_shot ? static_cast<size_t>(total[0]) : 5;
    if (EVP_DecryptUpdate(d.get(), back, &n, back, static_cast<int>(head)) != 1)
        return r.fail("classic: decrypt update");
    got = n;
    if (!one_shot) {
        // In place with 5 bytes buffered: output runs ahead of the input.
        if (EVP_DecryptUpdate(d.get(), back + got, &n, back + head,
                              total[0] - static_cast<int>(head)) != 1)
            return r.fail("classic: decrypt update (overlapping)");
        got += n;
    }
    if (EVP_DecryptFinal_ex(d.get(), back + got, &n) != 1) return r.fail("classic: decrypt final");
    got += n;
    r.out.add(back, static_cast<size_t>(got));
    return true;
}

enum class Aead { gcm, ocb, ccm, siv, gcm_siv };

// One AEAD message each way: AAD, data (two updates where the mode streams,
// with a context copy in between for GCM and OCB), tag; decryption with the
// right tag succeeds, with a wrong one fails.
bool aead(Run& r, const char* name, Aead kind) {
    Cipher c = fetch(r, name);
    if (!c) return r.fail("aead fetch");
    const int keylen = EVP_CIPHER_get_key_length(c.get());
    if (keylen <= 0 || keylen > 64) return r.fail("aead: sizes");
    uint8_t key[64], iv[12], aad[20], pt[100], ct[2][100], tag[2][16], back[100];
    fill(key, sizeof key, 5);
    fill(iv, sizeof iv, 6);
    fill(aad, sizeof aad, 7);
    fill(pt, sizeof pt, 8);
    const bool streams = kind == Aead::gcm || kind == Aead::ocb;
    const bool has_iv = kind != Aead::siv;
    const size_t len = sizeof pt;
    auto init = [&](EVP_CIPHER_CTX* x, bool enc, const uint8_t* t) {
        if (EVP_CipherInit_ex2(x, c.get(), nullptr, nullptr, enc ? 1 : 0, nullptr) != 1)
            return false;
        if (kind == Aead::ccm) {
            if (EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_IVLEN, 12, nullptr) != 1) return false;
            if (EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, 16,
                                    enc ? nullptr : const_cast<uint8_t*>(t)) != 1)
                return false;
        } else if (!enc && EVP_CIPHER_CTX_ctrl(x, EVP_CTRL_AEAD_SET_TAG, 16,
                                               const_cast<uint8_t*>(t)) != 1) {
            return false;
        }
        if (EVP_CipherInit_ex2(x, nullptr, key, has_iv ? iv : nullptr, -1, nullptr) != 1)
            return false;
        int n = 0;
        if (kind == Aead::ccm && EVP_CipherUpdate(x, nullptr, &n, nullptr, static_cast<int>(len)) != 1)
            return false;
        return EVP_CipherUpdate(x, nullptr, &n, aad, sizeof aad) == 1;
    };

    Ctx e(EVP_CIPHER_CTX_new());
    if (!e || !init(e.get(), true, nullptr)) return r.fail("aead: encrypt init");
    int n = 0, total[2] = {0, 0};
    const size_t first = streams ? 37 : len;
    if (EVP_EncryptUpdate(e.get(), ct[0], &n, pt, static_cast<int>(first)) != 1)
        return r.fail("aead: update");
    total[0] = total[1] = n;
    std::memcpy(ct[1], ct[0], static_cast<size_t>(n));
    Ctx copy;
    int copies = 1;
    if (streams) {
        copy.reset(EVP_CIPHER_CTX_new());
        if (!copy || EVP_CIPHER_CTX_copy(copy.get(), e.get()) != 1) return r.fail("aead: copy");
        copies = 2;
    }
    EVP_CIPHER_CTX* both[2] = {e.get(), copy.get()};
    for (int k = 0; k < copies; ++k) {
        if (streams && EVP_EncryptUpdate(both[k], ct[k] + total[k], &n, pt + first,
                                         static_cast<int>(len - first)) != 1)
            return r.fail("aead: update");
        if (streams) total[k] += n;
        if (EVP_EncryptFinal_ex(both[k], ct[k] + total[k], &n) != 1) return r.fail("aead: final");
        total[k] += n;
        if (EVP_CIPHER_CTX_ctrl(both[k], EVP_CTRL_AEAD_GET_TAG, 16, tag[k]) != 1)
            return r.fail("aead: get tag");
        r.out.add(ct[k], static_cast<size_t>(total[k]));
        r.out.add(tag[k], 16);
    }

    for (bool good : {true, false}) {
        uint8_t t[16];
        std::memcpy(t, tag[0], 16);
        if (!good) t[3] ^= 0x20;
        Ctx d(EVP_CIPHER_CTX_new());
        if (!d || !init(d.get(), false, t)) return r.fail("aead: decrypt init");
        std::memcpy(back, ct[0], len);
        int m = 0;
        const bool ok = EVP_DecryptUpdate(d.get(), back, &n, back, static_cast<int>(len)) == 1 &&
                        EVP_DecryptFinal_ex(d.get(), back + n, &m) == 1;
        if (good) {
            if (!ok) return r.fail("aead: decrypt");
            r.out.add(back, static_cast<size_t>(n + m));
        } else {
            // Refused (the tag check), or an allocation failed on the way:
            // either way nothing may succeed.
            const uint8_t refused = ok ? 0 : 1;
            r.out.add(&refused, 1);
            ERR_clear_error();
        }
    }
    return true;
}

bool key_wrap(Run& r) {
    Cipher c = fetch(r, "AES-128-WRAP-PAD");
    if (!c) return r.fail("wrap fetch");
    uint8_t key[16], pt[20], ct[40], back[40];
    fill(key, sizeof key, 9);
    fill(pt, sizeof pt, 10);
    int n = 0, m = 0;
    Ctx e(EVP_CIPHER_CTX_new());
    if (!e) return r.fail("wrap: ctx");
    EVP_CIPHER_CTX_set_flags(e.get(), EVP_CIPHER_CTX_FLAG_WRAP_ALLOW);
    if (EVP_EncryptInit_ex2(e.get(), c.get(), key, nullptr, nullptr) != 1 ||
        EVP_EncryptUpdate(e.get(), ct, &n, pt, sizeof pt) != 1 ||
        EVP_EncryptFinal_ex(e.get(), ct + n, &m) != 1)
        return r.fail("wrap: encrypt");
    r.out.add(ct, static_cast<size_t>(n + m));
    Ctx d(EVP_CIPHER_CTX_new());
    if (!d) return r.fail("wrap: ctx");
    EVP_CIPHER_CTX_set_flags(d.get(), EVP_CIPHER_CTX_FLAG_WRAP_ALLOW);
    const int clen = n + m;
    if (EVP_DecryptInit_ex2(d.get(), c.get(), key, nullptr, nullptr) != 1 ||
        EVP_DecryptUpdate(d.get(), back, &n, ct, clen) != 1 ||
        EVP_DecryptFinal_ex(d.get(), back + n, &m) != 1)
        return r.fail("wrap: decrypt");
    r.out.add(back, static_cast<size_t>(n + m));
    return true;
}

// A MAC over 100 bytes in two updates, the context duplicated in between.
bool mac(Run& r, const char* alg, const char* cipher, size_t keylen, bool with_iv) {
    Mac m(EVP_MAC_fetch(r.lib, alg, kProps));
    if (!m) return r.fail("mac fetch");
    uint8_t key[32], iv[12], msg[100], out[2][16];
    fill(key, sizeof key, 11);
    fill(iv, sizeof iv, 12);
    fill(msg, sizeof msg, 13);
    OSSL_PARAM p[] = {
        OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_CIPHER, const_cast<char*>(cipher), 0),
        with_iv ? OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_IV, iv, sizeof iv)
                : OSSL_PARAM_construct_end(),
        OSSL_PARAM_construct_end(),
    };
    MacCtx x(EVP_MAC_CTX_new(m.get()));
    if (!x || EVP_MAC_init(x.get(), key, keylen, p) != 1) return r.fail("mac: init");
    if (EVP_MAC_update(x.get(), msg, 41) != 1) return r.fail("mac: update");
    MacCtx dup(EVP_MAC_CTX_dup(x.get()));
    if (!dup) return r.fail("mac: dup");
    for (EVP_MAC_CTX* c : {x.get(), dup.get()}) {
        size_t outl = 0;
        if (EVP_MAC_update(c, msg + 41, sizeof msg - 41) != 1) return r.fail("mac: update");
        if (EVP_MAC_final(c, out[0], &outl, sizeof out[0]) != 1) return r.fail("mac: final");
        r.out.add(out[0], outl);
    }
    return true;
}

// One TLS 1.2 CBC record with a 20-byte MAC, encrypted and decrypted in
// place; the payload and the MAC ("tls-mac") come back.
bool tls_record(Run& r) {
    Cipher c = fetch(r, "AES-128-CBC");
    if (!c) return r.fail("tls fetch");
    uint8_t key[16], iv[16], rec[16 + 50 + 20 + 16];
    fill(key, sizeof key, 14);
    fill(iv, sizeof iv, 15);
    const size_t inl = 16 + 50 + 20;
    fill(rec, inl, 16);
    unsigned version = TLS1_2_VERSION;
    size_t macsize = 20;
    OSSL_PARAM tls[] = {
        OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &version),
        OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &macsize),
        OSSL_PARAM_construct_end(),
    };
    int n = 0;
    Ctx e(EVP_CIPHER_CTX_new());
    if (!e || EVP_EncryptInit_ex2(e.get(), c.get(), key, iv, tls) != 1)
        return r.fail("tls: encrypt init");
    if (EVP_EncryptUpdate(e.get(), rec, &n, rec, static_cast<int>(inl)) != 1 || n != 96)
        return r.fail("tls: encrypt record");
    r.out.add(rec, 96);
    Ctx d(EVP_CIPHER_CTX_new());
    if (!d || EVP_DecryptInit_ex2(d.get(), c.get(), key, iv, tls) != 1)
        return r.fail("tls: decrypt init");
    if (EVP_DecryptUpdate(d.get(), rec, &n, rec, 96) != 1 || n != 50)
        return r.fail("tls: decrypt record");
    void* macp = nullptr;
    OSSL_PARAM g[] = {
        OSSL_PARAM_construct_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, &macp, macsize),
        OSSL_PARAM_construct_end(),
    };
    if (EVP_CIPHER_CTX_get_params(d.get(), g) != 1 || macp == nullptr)
        return r.fail("tls: get tls-mac");
    r.out.add(rec + 16, 50);
    r.out.add(macp, macsize);
    return true;
}

bool all_steps(Run& r, OSSL_PROVIDER* prov) {
    return provider_params(r, prov) &&
           classic(r, "AES-256-CBC", 100, false) && classic(r, "AES-128-ECB", 64, false) &&
           classic(r, "SM4-CTR", 100, false) && classic(r, "TWOFISH-128-CFB", 77, false) &&
           classic(r, "AES-192-OFB", 50, false) && classic(r, "AES-128-CFB1", 30, false) &&
           classic(r, "AES-128-CBC-CTS", 70, true) && classic(r, "AES-256-XTS", 70, true) &&
           aead(r, "AES-128-GCM", Aead::gcm) && aead(r, "TWOFISH-256-OCB", Aead::ocb) &&
           aead(r, "AES-128-CCM", Aead::ccm) && aead(r, "AES-128-SIV", Aead::siv) &&
           aead(r, "AES-256-GCM-SIV", Aead::gcm_siv) && aead(r, "SM4-GCM", Aead::gcm) &&
           key_wrap(r) && mac(r, "CMAC", "AES-128-CBC", 16, false) &&
           mac(r, "GMAC", "AES-256-GCM", 32, true) && tls_record(r);
}

} // namespace

Outcome run_workload(OSSL_LIB_CTX* shared, Output& out) {
    out.len = 0;
    out.overflow = false;
    OSSL_LIB_CTX* own = nullptr;
    if (shared == nullptr) {
        own = OSSL_LIB_CTX_new();
        if (own == nullptr) return {false, "OSSL_LIB_CTX_new"};
    }
    OSSL_LIB_CTX* lib = shared != nullptr ? shared : own;
    Outcome result;
    // The default provider too, as in any application: hwcipher takes its
    // randomness (TLS CBC records) from the loading context's providers.
    // hwcipher.so is found through OPENSSL_MODULES.
    OSSL_PROVIDER* deflt = OSSL_PROVIDER_load(lib, "default");
    OSSL_PROVIDER* prov = deflt != nullptr ? OSSL_PROVIDER_load(lib, "hwcipher") : nullptr;
    if (deflt == nullptr) {
        result.step = "OSSL_PROVIDER_load(default)";
    } else if (prov == nullptr) {
        result.step = "OSSL_PROVIDER_load(hwcipher)";
    } else {
        Run r{lib, out};
        result.ok = all_steps(r, prov);
        result.step = r.failed;
        if (!OSSL_PROVIDER_unload(prov) && result.ok) result = {false, "OSSL_PROVIDER_unload"};
    }
    if (deflt != nullptr && !OSSL_PROVIDER_unload(deflt) && result.ok)
        result = {false, "OSSL_PROVIDER_unload(default)"};
    OSSL_LIB_CTX_free(own);
    if (result.ok && out.overflow) result = {false, "output buffer overflow"};
    return result;
}

} // namespace hwc::rel
