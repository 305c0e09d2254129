// SPDX-License-Identifier: Apache-2.0
// huge_inputs: hwcipher's update called once with more than 4 GiB (EVP's
// int lengths cannot say that, so through the provider's own dispatch
// table, as libcrypto would with a size_t), for AES-CTR, AES-GCM and
// AES-CCM on the cores the CPU selects, each checked against processing of
// the same data in pieces:
//   CTR  hwcipher again, in updates of 256 MiB + 5 bytes (partial blocks
//        carried across updates), the counter starting 2^27 blocks before
//        its low 64 bits wrap, so the carry into the upper half happens
//        inside the single call;
//   GCM  hwcipher again, in the same pieces, with AAD: ciphertext and tag;
//   CCM  rebuilt from OpenSSL's default provider (SP 800-38C: CBC-MAC over
//        B0, the AAD and the data with AES-CBC, the data with AES-CTR from
//        counter block 1, the tag masked with E(A0)), in pieces.
// Then the GCM per-IV limit at exactly 2^36 - 32 bytes, through the test
// seam HWCIPHER_TEST_GCM_PRESET (provider/gcm_engine.cpp, built with
// HWCIPHER_TEST_SEAMS): a message preset to 2^36 - 32 - 4096 bytes takes
// 4096 more bytes (the last 256 counter values, checked against AES-ECB of
// the counter blocks), then refuses one more byte; a fresh message refuses
// 4097 bytes in one call, writing nothing.
//
//   huge_inputs [--bytes N]      (default 4 GiB + 4097)
//
// Memory: one buffer of N bytes (mmap, in place) plus pieces of 256 MiB.
// The last line is "huge_inputs: <P> passed, <F> failed".
#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include <sys/mman.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

using Bytes = std::vector<uint8_t>;

int g_passed = 0, g_failed = 0;

bool check(bool ok, const std::string& what) {
    std::printf("  %s %s\n", ok ? "ok  " : "FAIL", what.c_str());
    std::fflush(stdout);
    (ok ? g_passed : g_failed)++;
    if (!ok) ERR_print_errors_fp(stdout);
    return ok;
}

// ---- the test data: byte i of the stream depends only on i ----------------

uint64_t mix(uint64_t x) { // splitmix64
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

// Bytes [off, off + len) of the stream into p.
void pattern(uint8_t* p, uint64_t off, size_t len) {
    size_t i = 0;
    while (i < len && (off + i) % 8 != 0) {
        const uint64_t w = mix((off + i) / 8);
        p[i] = static_cast<uint8_t>(w >> (8 * ((off + i) % 8)));
        ++i;
    }
    for (; i + 8 <= len; i += 8) {
        const uint64_t w = mix((off + i) / 8);
        std::memcpy(p + i, &w, 8); // little-endian hosts: byte k = bits 8k..8k+7
    }
    for (; i < len; ++i) {
        const uint64_t w = mix((off + i) / 8);
        p[i] = static_cast<uint8_t>(w >> (8 * ((off + i) % 8)));
    }
}

// ---- the provider's dispatch table ----------------------------------------

struct Impl {
    void* provctx = nullptr;
    OSSL_FUNC_cipher_newctx_fn* newctx = nullptr;
    OSSL_FUNC_cipher_freectx_fn* freectx = nullptr;
    OSSL_FUNC_cipher_encrypt_init_fn* encrypt_init = nullptr;
    OSSL_FUNC_cipher_update_fn* update = nullptr;
    OSSL_FUNC_cipher_final_fn* final = nullptr;
    OSSL_FUNC_cipher_get_ctx_params_fn* get_ctx_params = nullptr;
    OSSL_FUNC_cipher_set_ctx_params_fn* set_ctx_params = nullptr;
};

Impl find_impl(OSSL_PROVIDER* prov, const std::string& name) {
    Impl im;
    im.provctx = OSSL_PROVIDER_get0_provider_ctx(prov);
    int no_cache = 0;
    const OSSL_ALGORITHM* alg = OSSL_PROVIDER_query_operation(prov, OSSL_OP_CIPHER, &no_cache);
    for (; alg != nullptr && alg->algorithm_names != nullptr; ++alg) {
        const std::string names = std::string(":") + alg->algorithm_names + ":";
        if (names.find(":" + name + ":") == std::string::npos) continue;
        for (const OSSL_DISPATCH* d = alg->implementation; d->function_id != 0; ++d) {
            switch (d->function_id) {
            case OSSL_FUNC_CIPHER_NEWCTX: im.newctx = OSSL_FUNC_cipher_newctx(d); break;
            case OSSL_FUNC_CIPHER_FREECTX: im.freectx = OSSL_FUNC_cipher_freectx(d); break;
            case OSSL_FUNC_CIPHER_ENCRYPT_INIT: im.encrypt_init = OSSL_FUNC_cipher_encrypt_init(d); break;
            case OSSL_FUNC_CIPHER_UPDATE: im.update = OSSL_FUNC_cipher_update(d); break;
            case OSSL_FUNC_CIPHER_FINAL: im.final = OSSL_FUNC_cipher_final(d); break;
            case OSSL_FUNC_CIPHER_GET_CTX_PARAMS: im.get_ctx_params = OSSL_FUNC_cipher_get_ctx_params(d); break;
            case OSSL_FUNC_CIPHER_SET_CTX_PARAMS: im.set_ctx_params = OSSL_FUNC_cipher_set_ctx_params(d); break;
            default: break;
            }
        }
        break;
    }
    OSSL_PROVIDER_unquery_operation(prov, OSSL_OP_CIPHER, alg);
    if (im.newctx == nullptr || im.update == nullptr) {
        std::fprintf(stderr, "huge_inputs: hwcipher has no %s\n", name.c_str());
        std::exit(1);
    }
    return im;
}

// One message on a provider context: init, optional CCM length/AAD, then
// update() over the pieces the caller feeds, final and tag.
struct Msg {
    const Impl& im;
    void* ctx;
    Msg(const Impl& i, const Bytes& key, const Bytes& iv, const OSSL_PARAM* params) : im(i) {
        ctx = im.newctx(im.provctx);
        if (im.set_ctx_params != nullptr && params != nullptr) im.set_ctx_params(ctx, params);
        if (ctx == nullptr || im.encrypt_init(ctx, key.data(), key.size(), iv.data(), iv.size(), nullptr) != 1) {
            std::fprintf(stderr, "huge_inputs: init failed\n");
            ERR_print_errors_fp(stderr);
            std::exit(1);
        }
    }
    ~Msg() { im.freectx(ctx); }
    bool update(uint8_t* out, const uint8_t* in, size_t len, size_t* outl) {
        return im.update(ctx, out, outl, len, in, len) == 1;
    }
    // AAD, or with `in` null CCM's message length; out is null and the
    // output size is `len`, as EVP passes them.
    bool aad(const uint8_t* in, size_t len) {
        size_t outl = 0;
        return im.update(ctx, nullptr, &outl, len, in, len) == 1;
    }
    bool final(Bytes* tag) {
        uint8_t dummy[32];
        size_t outl = 0;
        if (im.final(ctx, dummy, &outl, sizeof dummy) != 1 || outl != 0) return false;
        if (tag == nullptr) return true;
        OSSL_PARAM p[] = {OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag->data(), tag->size()),
                          OSSL_PARAM_construct_end()};
        return im.get_ctx_params(ctx, p) == 1;
    }
};

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

constexpr size_t kPiece = (size_t{256} << 20) + 5;

// The single call over the whole buffer (in place); returns false on failure.
bool one_call(Msg& m, uint8_t* buf, size_t n, const char* what) {
    const auto t0 = std::chrono::steady_clock::now();
    size_t outl = 0;
    const bool ok = m.update(buf, buf, n, &outl) && outl == n;
    std::printf("  %s: one update of %zu bytes in %.1f s\n", what, n, seconds_since(t0));
    return ok;
}

// Compares the single call's output with the same cipher over the pattern
// in pieces (a second provider context).
bool matches_in_pieces(Msg& m, const uint8_t* buf, size_t n) {
    Bytes piece(kPiece);
    for (size_t off = 0; off < n; off += kPiece) {
        const size_t len = n - off < kPiece ? n - off : kPiece;
        pattern(piece.data(), off, len);
        size_t outl = 0;
        if (!m.update(piece.data(), piece.data(), len, &outl) || outl != len) return false;
        if (std::memcmp(piece.data(), buf + off, len) != 0) {
            std::printf("  differs in the piece at %zu\n", off);
            return false;
        }
    }
    return true;
}

void test_ctr(const Impl& im, uint8_t* buf, size_t n) {
    std::printf("AES-128-CTR, %zu bytes\n", n);
    const Bytes key(16, 0x2b);
    Bytes iv(16, 0);
    // Low 64 bits 2^27 blocks before they wrap.
    for (int i = 0; i < 8; ++i) iv[i] = static_cast<uint8_t>(0x10 + i);
    const uint64_t lo = ~uint64_t{0} - (uint64_t{1} << 27) + 1;
    for (int i = 0; i < 8; ++i) iv[15 - i] = static_cast<uint8_t>(lo >> (8 * i));
    pattern(buf, 0, n);
    Msg one(im, key, iv, nullptr), pieces(im, key, iv, nullptr);
    if (!check(one_call(one, buf, n, "CTR"), "CTR: one update of more than 4 GiB")) return;
    check(matches_in_pieces(pieces, buf, n), "CTR: equals the same data in pieces of 256 MiB + 5");
    check(one.final(nullptr) && pieces.final(nullptr), "CTR: final");
}

void test_gcm(const Impl& im, uint8_t* buf, size_t n) {
    std::printf("AES-256-GCM, %zu bytes\n", n);
    const Bytes key(32, 0x4c), iv(12, 0x71), aad(13, 0x5e);
    pattern(buf, 0, n);
    Msg one(im, key, iv, nullptr), pieces(im, key, iv, nullptr);
    if (!check(one.aad(aad.data(), aad.size()) && pieces.aad(aad.data(), aad.size()), "GCM: AAD")) return;
    if (!check(one_call(one, buf, n, "GCM"), "GCM: one update of more than 4 GiB")) return;
    check(matches_in_pieces(pieces, buf, n), "GCM: ciphertext equals the same data in pieces");
    Bytes t1(16), t2(16);
    check(one.final(&t1) && pieces.final(&t2) && t1 == t2, "GCM: the tags agree");
}

// ---- CCM rebuilt from the default provider's AES-CBC and AES-CTR ----------

struct Evp {
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    Evp(OSSL_LIB_CTX* lib, const char* name, const Bytes& key, const uint8_t* iv) {
        EVP_CIPHER* c = EVP_CIPHER_fetch(lib, name, "provider=default");
        if (c == nullptr || EVP_EncryptInit_ex2(ctx, c, key.data(), iv, nullptr) != 1) {
            std::fprintf(stderr, "huge_inputs: default provider's %s\n", name);
            std::exit(1);
        }
        EVP_CIPHER_free(c);
        EVP_CIPHER_CTX_set_padding(ctx, 0);
    }
    ~Evp() { EVP_CIPHER_CTX_free(ctx); }
    // Any length (chunks below 2 GiB).
    void run(uint8_t* out, const uint8_t* in, size_t len) {
        int n = 0;
        if (EVP_EncryptUpdate(ctx, out, &n, in, static_cast<int>(len)) != 1 || static_cast<size_t>(n) != len) {
            std::fprintf(stderr, "huge_inputs: default provider update\n");
            std::exit(1);
        }
    }
};

void test_ccm(OSSL_LIB_CTX* lib, const Impl& im, uint8_t* buf, size_t n) {
    std::printf("AES-128-CCM, %zu bytes (nonce 8 bytes: L = 7)\n", n);
    const Bytes key(16, 0x3d), nonce(8, 0x6a), aad(21, 0x19);
    constexpr size_t kTag = 16, kL = 7;
    size_t taglen = kTag, ivlen = nonce.size();
    OSSL_PARAM params[] = {OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &ivlen),
                           OSSL_PARAM_construct_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, nullptr, taglen),
                           OSSL_PARAM_construct_end()};
    pattern(buf, 0, n);
    Msg one(im, key, nonce, params);
    if (!check(one.aad(nullptr, n), "CCM: message length declared")) return;
    if (!check(one.aad(aad.data(), aad.size()), "CCM: AAD")) return;
    if (!check(one_call(one, buf, n, "CCM"), "CCM: one update of more than 4 GiB")) return;
    Bytes tag(kTag);
    if (!check(one.final(&tag), "CCM: final and tag")) return;

    // The reference, SP 800-38C A.2: B0 = flags || nonce || Q; the AAD with
    // its 2-byte length, zero-padded; the data zero-padded; CBC-MAC = the
    // last block of AES-CBC (IV 0) over all of that.
    Bytes head(16, 0);
    head[0] = static_cast<uint8_t>(0x40 | ((kTag - 2) / 2) << 3 | (kL - 1));
    std::memcpy(head.data() + 1, nonce.data(), nonce.size());
    for (size_t i = 0; i < kL; ++i) head[15 - i] = static_cast<uint8_t>(static_cast<uint64_t>(n) >> (8 * i));
    head.push_back(static_cast<uint8_t>(aad.size() >> 8));
    head.push_back(static_cast<uint8_t>(aad.size()));
    head.insert(head.end(), aad.begin(), aad.end());
    head.resize((head.size() + 15) / 16 * 16, 0);
    const Bytes zero_iv(16, 0);
    Evp mac(lib, "AES-128-CBC", key, zero_iv.data());
    Bytes scratch(kPiece + 16), piece(kPiece + 16);
    mac.run(scratch.data(), head.data(), head.size());
    // Counter blocks: A_i = (L - 1) || nonce || i.
    Bytes a0(16, 0);
    a0[0] = static_cast<uint8_t>(kL - 1);
    std::memcpy(a0.data() + 1, nonce.data(), nonce.size());
    Bytes a1 = a0;
    a1[15] = 1;
    Evp ctr(lib, "AES-128-CTR", key, a1.data());
    uint8_t last[16] = {};
    bool same = true;
    // Pieces of a multiple of 16 bytes, so the CBC-MAC chain stays aligned.
    const size_t step = kPiece / 16 * 16;
    for (size_t off = 0; off < n && same; off += step) {
        const size_t len = n - off < step ? n - off : step;
        pattern(piece.data(), off, len);
        const size_t padded = (len + 15) / 16 * 16;
        std::memset(piece.data() + len, 0, padded - len);
        mac.run(scratch.data(), piece.data(), padded);
        std::memcpy(last, scratch.data() + padded - 16, 16);
        ctr.run(piece.data(), piece.data(), len);
        same = std::memcmp(piece.data(), buf + off, len) == 0;
    }
    check(same, "CCM: ciphertext equals AES-CTR from A1 (default provider), in pieces");
    Bytes s0(16);
    Evp ecb(lib, "AES-128-ECB", key, nullptr);
    ecb.run(s0.data(), a0.data(), 16);
    for (size_t i = 0; i < kTag; ++i) last[i] ^= s0[i];
    check(std::memcmp(last, tag.data(), kTag) == 0, "CCM: tag equals CBC-MAC (default provider) ^ E(A0)");
}

// ---- the GCM per-IV limit through the test seam ---------------------------

void test_gcm_limit(OSSL_LIB_CTX* lib, const Impl& im) {
    std::printf("AES-128-GCM per-IV limit (2^36 - 32 bytes), preset through HWCIPHER_TEST_GCM_PRESET\n");
#ifndef HWCIPHER_TEST_SEAMS
    (void)lib;
    (void)im;
    check(false, "GCM limit: this build has no test seams (configure with -DHWCIPHER_TEST_SEAMS=ON)");
#else
    constexpr uint64_t kLimit = (uint64_t{1} << 36) - 32, kTail = 4096;
    setenv("HWCIPHER_TEST_GCM_PRESET", std::to_string(kLimit - kTail).c_str(), 1);
    const Bytes key(16, 0x07), iv(12, 0xc3);
    Bytes data(kTail + 1), out(kTail + 1, 0xee);
    pattern(data.data(), 0, data.size());
    {
        Msg m(im, key, iv, nullptr);
        size_t outl = 0;
        check(m.update(out.data(), data.data(), kTail, &outl) && outl == kTail,
              "GCM limit: the last 4096 bytes up to exactly 2^36 - 32 are taken");
        // They are the keystream of counters 2^32 - 256 .. 2^32 - 1 (the
        // data counter starts at 2 and advanced 2^32 - 258 blocks).
        Bytes ctrs(kTail), ks(kTail);
        for (size_t b = 0; b < kTail / 16; ++b) {
            std::memcpy(ctrs.data() + 16 * b, iv.data(), 12);
            const uint32_t c = static_cast<uint32_t>(0xffffff00u + b);
            for (int i = 0; i < 4; ++i) ctrs[16 * b + 12 + static_cast<size_t>(i)] = static_cast<uint8_t>(c >> (24 - 8 * i));
        }
        Evp ecb(lib, "AES-128-ECB", key, nullptr);
        ecb.run(ks.data(), ctrs.data(), kTail);
        bool same = true;
        for (size_t i = 0; i < kTail; ++i) same &= out[i] == static_cast<uint8_t>(data[i] ^ ks[i]);
        check(same, "GCM limit: they are encrypted with counters 0xffffff00..0xffffffff");
        ERR_clear_error();
        out[kTail] = 0xee;
        check(!m.update(out.data() + kTail, data.data() + kTail, 1, &outl) && ERR_peek_error() != 0 &&
                  out[kTail] == 0xee,
              "GCM limit: one byte more is refused, with an error queued, nothing written");
        ERR_clear_error();
    }
    {
        Msg m(im, key, iv, nullptr);
        Bytes fresh(kTail + 1, 0xee);
        size_t outl = 0;
        check(!m.update(fresh.data(), data.data(), kTail + 1, &outl) && ERR_peek_error() != 0 &&
                  fresh == Bytes(kTail + 1, 0xee),
              "GCM limit: 4097 bytes in one call past the limit are refused, nothing written");
        ERR_clear_error();
        check(m.update(fresh.data(), data.data(), kTail - 1, &outl) &&
                  m.update(fresh.data() + kTail - 1, data.data() + kTail - 1, 1, &outl) &&
                  !m.update(fresh.data() + kTail, data.data() + kTail, 1, &outl),
              "GCM limit: 4095 + 1 bytes are taken, the next byte is not");
        ERR_clear_error();
    }
    unsetenv("HWCIPHER_TEST_GCM_PRESET");
#endif
}

} // namespace

int main(int argc, char** argv) {
    size_t n = (size_t{4} << 30) + 4097;
    for (int i = 1; i + 1 < argc; i += 2)
        if (std::string(argv[i]) == "--bytes") n = std::strtoull(argv[i + 1], nullptr, 0);
    OSSL_LIB_CTX* lib = OSSL_LIB_CTX_new();
    OSSL_PROVIDER* hw = OSSL_PROVIDER_load(lib, "hwcipher");
    OSSL_PROVIDER* def = OSSL_PROVIDER_load(lib, "default");
    if (hw == nullptr || def == nullptr) {
        std::fprintf(stderr, "huge_inputs: cannot load the providers (OPENSSL_MODULES)\n");
        ERR_print_errors_fp(stderr);
        return 1;
    }
    const char* cores = nullptr;
    OSSL_PARAM p[] = {OSSL_PARAM_construct_utf8_ptr("hwcipher-cores", const_cast<char**>(&cores), 0),
                      OSSL_PARAM_construct_end()};
    OSSL_PROVIDER_get_params(hw, p);
    std::printf("huge_inputs: cores %s\n", cores ? cores : "?");
    void* mem = mmap(nullptr, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) {
        std::perror("mmap");
        return 1;
    }
    auto* buf = static_cast<uint8_t*>(mem);
    test_ctr(find_impl(hw, "AES-128-CTR"), buf, n);
    test_gcm(find_impl(hw, "AES-256-GCM"), buf, n);
    test_ccm(lib, find_impl(hw, "AES-128-CCM"), buf, n);
    munmap(mem, n);
    test_gcm_limit(lib, find_impl(hw, "AES-128-GCM"));
    OSSL_PROVIDER_unload(hw);
    OSSL_PROVIDER_unload(def);
    OSSL_LIB_CTX_free(lib);
    std::printf("huge_inputs: %d passed, %d failed\n", g_passed, g_failed);
    return g_failed == 0 ? 0 : 1;
}
