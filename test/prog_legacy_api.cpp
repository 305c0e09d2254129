// SPDX-License-Identifier: Apache-2.0
// Legacy-API program: EVP_aes_128_cbc() & co. must be served by hwcipher when OPENSSL_CONF prefers it.
//
// Uses only what pre-3.0 applications use (no fetch, no libctx, no params):
// the configuration file alone must route these calls to hwcipher. ctest
// sets OPENSSL_CONF=test/openssl-cnf/prefer-hwcipher.cnf and OPENSSL_MODULES.
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

int failures = 0;

std::vector<unsigned char> hex(const char* s) {
    std::vector<unsigned char> out;
    for (size_t i = 0; s[i] && s[i + 1]; i += 2)
        out.push_back(static_cast<unsigned char>(std::strtoul(std::string(s + i, 2).c_str(), nullptr, 16)));
    return out;
}

std::string to_hex(const unsigned char* p, size_t n) {
    std::string s;
    char b[3];
    for (size_t i = 0; i < n; ++i) {
        std::snprintf(b, sizeof b, "%02x", p[i]);
        s += b;
    }
    return s;
}

void check(bool ok, const std::string& what) {
    std::printf("%s: %s\n", ok ? "ok  " : "FAIL", what.c_str());
    if (!ok) {
        ++failures;
        ERR_print_errors_fp(stdout);
    }
}

const char* provider_name(const EVP_CIPHER_CTX* ctx) {
    // Legacy EVP_CIPHER objects have no provider until a ctx is initialised;
    // the ctx's cipher is the implicitly fetched one.
    const EVP_CIPHER* used = EVP_CIPHER_CTX_get0_cipher(ctx);
    const OSSL_PROVIDER* p = used ? EVP_CIPHER_get0_provider(used) : nullptr;
    return p ? OSSL_PROVIDER_get0_name(p) : "(none)";
}

// Encrypt then decrypt one known answer through the legacy entry points.
void known_answer(const char* label, const EVP_CIPHER* cipher, const char* key_hex, const char* iv_hex,
                  const char* pt_hex, const char* ct_hex, bool pad) {
    const auto key = hex(key_hex), iv = hex(iv_hex), pt = hex(pt_hex), ct = hex(ct_hex);
    EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
    std::vector<unsigned char> out(pt.size() + 32);
    int l1 = 0, l2 = 0;
    bool ok = EVP_EncryptInit_ex(ctx, cipher, nullptr, key.data(), iv.empty() ? nullptr : iv.data()) == 1;
    check(ok, std::string(label) + " EVP_EncryptInit_ex");
    const std::string prov = provider_name(ctx);
    check(prov == "hwcipher", std::string(label) + " served by provider \"" + prov + "\" (want hwcipher)");
    EVP_CIPHER_CTX_set_padding(ctx, pad ? 1 : 0);
    ok = EVP_EncryptUpdate(ctx, out.data(), &l1, pt.data(), static_cast<int>(pt.size())) == 1 &&
         EVP_EncryptFinal_ex(ctx, out.data() + l1, &l2) == 1;
    const std::string got = to_hex(out.data(), static_cast<size_t>(l1 + l2));
    check(ok && got == ct_hex, std::string(label) + " encrypt = " + got);

    // Legacy decrypt, re-using the ctx (EVP_DecryptInit_ex with the same legacy cipher).
    ok = EVP_DecryptInit_ex(ctx, cipher, nullptr, key.data(), iv.empty() ? nullptr : iv.data()) == 1;
    EVP_CIPHER_CTX_set_padding(ctx, pad ? 1 : 0);
    ok = ok && EVP_DecryptUpdate(ctx, out.data(), &l1, ct.data(), static_cast<int>(ct.size())) == 1 &&
         EVP_DecryptFinal_ex(ctx, out.data() + l1, &l2) == 1;
    check(ok && to_hex(out.data(), static_cast<size_t>(l1 + l2)) == pt_hex,
          std::string(label) + " decrypt back to plaintext, provider \"" + provider_name(ctx) + "\"");
    EVP_CIPHER_CTX_free(ctx);
}

} // namespace

int main() {
    std::printf("OPENSSL_CONF=%s\n", std::getenv("OPENSSL_CONF") ? std::getenv("OPENSSL_CONF") : "(unset)");
    std::printf("OPENSSL_MODULES=%s\n", std::getenv("OPENSSL_MODULES") ? std::getenv("OPENSSL_MODULES") : "(unset)");
    check(OSSL_PROVIDER_available(nullptr, "hwcipher") == 1, "hwcipher provider loaded by the config file");
    check(OSSL_PROVIDER_available(nullptr, "default") == 1, "default provider loaded by the config file");

    // SP 800-38A F.2.1 (CBC-AES128.Encrypt), first two blocks, padding off.
    known_answer("AES-128-CBC (SP 800-38A F.2.1)", EVP_aes_128_cbc(), "2b7e151628aed2a6abf7158809cf4f3c",
                 "000102030405060708090a0b0c0d0e0f",
                 "6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51",
                 "7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2", false);
    // SP 800-38A F.5.1 (CTR-AES128.Encrypt), first block.
    known_answer("AES-128-CTR (SP 800-38A F.5.1)", EVP_aes_128_ctr(), "2b7e151628aed2a6abf7158809cf4f3c",
                 "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff", "6bc1bee22e409f96e93d7e117393172a",
                 "874d6191b620e3261bef6864990db6ce", false);
    // GB/T 32907-2016 Example 1 through the legacy SM4-ECB object.
    known_answer("SM4-ECB (GB/T 32907-2016 A.1)", EVP_sm4_ecb(), "0123456789abcdeffedcba9876543210", "",
                 "0123456789abcdeffedcba9876543210", "681edf34d206965e86b3e94f536e4246", false);

    // EVP_get_cipherbyname (what configurable legacy apps use) resolves to the same thing.
    const EVP_CIPHER* byname = EVP_get_cipherbyname("aes-256-cbc");
    check(byname != nullptr, "EVP_get_cipherbyname(\"aes-256-cbc\") found");
    if (byname) {
        EVP_CIPHER_CTX* ctx = EVP_CIPHER_CTX_new();
        unsigned char key[32] = {0}, iv[16] = {0};
        const bool init = EVP_EncryptInit_ex(ctx, byname, nullptr, key, iv) == 1;
        const std::string prov = provider_name(ctx);
        check(init && prov == "hwcipher", "aes-256-cbc by name served by \"" + prov + "\"");
        EVP_CIPHER_CTX_free(ctx);
    }

    std::printf("%s: %d failure(s)\n", failures ? "FAILED" : "PASSED", failures);
    return failures ? 1 : 0;
}
