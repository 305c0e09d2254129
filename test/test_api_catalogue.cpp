// SPDX-License-Identifier: Apache-2.0
// API contract: the catalogue (56 classic-mode names plus the authenticated,
// disk and key-wrap modes), aliases/OIDs, algorithm params, flags, param lists, descriptions, core report.
//
// The default provider is the reference for every constant: hwcipher's AES
// and SM4 must report exactly what the default reports, and Twofish (and the
// SM4 modes 3.0 lacks) must report what the same AES mode reports.
#include "test/support/ossl_env.h"

#include "cores/cpu.h"
#include "cores/registry.h"

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

namespace {

using namespace hwc::test;

using CipherPtr = std::unique_ptr<EVP_CIPHER, decltype(&EVP_CIPHER_free)>;
using CtxPtr = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

// The catalogue, spelled out rather than generated so that a missing or
// misspelled entry in the provider cannot be mirrored by the test.
const std::vector<std::string> kCatalogue = {
    "AES-128-ECB", "AES-128-CBC", "AES-128-CBC-CTS", "AES-128-CFB", "AES-128-CFB1", "AES-128-CFB8", "AES-128-OFB",
    "AES-128-CTR", "AES-192-ECB", "AES-192-CBC", "AES-192-CBC-CTS", "AES-192-CFB", "AES-192-CFB1", "AES-192-CFB8",
    "AES-192-OFB", "AES-192-CTR", "AES-256-ECB", "AES-256-CBC", "AES-256-CBC-CTS", "AES-256-CFB", "AES-256-CFB1",
    "AES-256-CFB8", "AES-256-OFB", "AES-256-CTR", "SM4-ECB", "SM4-CBC", "SM4-CBC-CTS", "SM4-CFB", "SM4-CFB1",
    "SM4-CFB8", "SM4-OFB", "SM4-CTR", "TWOFISH-128-ECB", "TWOFISH-128-CBC", "TWOFISH-128-CBC-CTS", "TWOFISH-128-CFB",
    "TWOFISH-128-CFB1", "TWOFISH-128-CFB8", "TWOFISH-128-OFB", "TWOFISH-128-CTR", "TWOFISH-192-ECB",
    "TWOFISH-192-CBC", "TWOFISH-192-CBC-CTS", "TWOFISH-192-CFB", "TWOFISH-192-CFB1", "TWOFISH-192-CFB8",
    "TWOFISH-192-OFB", "TWOFISH-192-CTR", "TWOFISH-256-ECB", "TWOFISH-256-CBC", "TWOFISH-256-CBC-CTS",
    "TWOFISH-256-CFB", "TWOFISH-256-CFB1", "TWOFISH-256-CFB8", "TWOFISH-256-OFB", "TWOFISH-256-CTR",
};

// The authenticated, disk and key-wrap modes (issue 3). Their behaviour is
// tested per mode (test_gcm_*, test_ccm_*, ...); here only their presence.
const std::vector<std::string> kOtherModes = {
    "AES-128-GCM", "AES-192-GCM", "AES-256-GCM", "AES-128-CCM", "AES-192-CCM", "AES-256-CCM",
    "AES-128-OCB", "AES-192-OCB", "AES-256-OCB", "AES-128-SIV", "AES-192-SIV", "AES-256-SIV",
    "AES-128-GCM-SIV", "AES-192-GCM-SIV", "AES-256-GCM-SIV", "AES-128-XTS", "AES-256-XTS",
    "AES-128-WRAP", "AES-192-WRAP", "AES-256-WRAP", "AES-128-WRAP-PAD", "AES-192-WRAP-PAD",
    "AES-256-WRAP-PAD", "AES-128-WRAP-INV", "AES-192-WRAP-INV", "AES-256-WRAP-INV",
    "AES-128-WRAP-PAD-INV", "AES-192-WRAP-PAD-INV", "AES-256-WRAP-PAD-INV",
    "SM4-GCM", "SM4-CCM", "SM4-OCB", "SM4-XTS",
    "TWOFISH-128-GCM", "TWOFISH-192-GCM", "TWOFISH-256-GCM", "TWOFISH-128-CCM", "TWOFISH-192-CCM",
    "TWOFISH-256-CCM", "TWOFISH-128-OCB", "TWOFISH-192-OCB", "TWOFISH-256-OCB",
    "TWOFISH-128-XTS", "TWOFISH-256-XTS",
};

// Alternative spellings → canonical name (default-provider alias strings,
// OIDs, and the Twofish CBC short aliases).
const std::map<std::string, std::string> kAliases = {
    {"AES128", "AES-128-CBC"}, {"AES192", "AES-192-CBC"}, {"AES256", "AES-256-CBC"},
    {"aes-128-cbc", "AES-128-CBC"}, {"aes128", "AES-128-CBC"},
    {"2.16.840.1.101.3.4.1.1", "AES-128-ECB"}, {"2.16.840.1.101.3.4.1.2", "AES-128-CBC"},
    {"2.16.840.1.101.3.4.1.3", "AES-128-OFB"}, {"2.16.840.1.101.3.4.1.4", "AES-128-CFB"},
    {"2.16.840.1.101.3.4.1.21", "AES-192-ECB"}, {"2.16.840.1.101.3.4.1.22", "AES-192-CBC"},
    {"2.16.840.1.101.3.4.1.23", "AES-192-OFB"}, {"2.16.840.1.101.3.4.1.24", "AES-192-CFB"},
    {"2.16.840.1.101.3.4.1.41", "AES-256-ECB"}, {"2.16.840.1.101.3.4.1.42", "AES-256-CBC"},
    {"2.16.840.1.101.3.4.1.43", "AES-256-OFB"}, {"2.16.840.1.101.3.4.1.44", "AES-256-CFB"},
    {"SM4", "SM4-CBC"}, {"SM4-OFB128", "SM4-OFB"}, {"SM4-CFB128", "SM4-CFB"},
    {"1.2.156.10197.1.104.1", "SM4-ECB"}, {"1.2.156.10197.1.104.2", "SM4-CBC"},
    {"1.2.156.10197.1.104.3", "SM4-OFB"}, {"1.2.156.10197.1.104.4", "SM4-CFB"},
    {"1.2.156.10197.1.104.7", "SM4-CTR"},
    {"TWOFISH128", "TWOFISH-128-CBC"}, {"TWOFISH192", "TWOFISH-192-CBC"}, {"TWOFISH256", "TWOFISH-256-CBC"},
    {"twofish-256-ctr", "TWOFISH-256-CTR"},
};

std::string family_of(const std::string& name) {
    if (name.rfind("AES", 0) == 0) return "aes";
    if (name.rfind("SM4", 0) == 0) return "sm4";
    return "twofish";
}

std::string mode_suffix(const std::string& name) {
    // "AES-128-CBC-CTS" → "CBC-CTS", "SM4-CFB8" → "CFB8"
    const size_t skip = name.rfind("SM4", 0) == 0 ? 4 : name.find('-', name.find('-') + 1) + 1;
    return name.substr(skip);
}

size_t key_bytes(const std::string& name) {
    if (name.find("-192-") != std::string::npos) return 24;
    if (name.find("-256-") != std::string::npos) return 32;
    return 16;
}

// Name whose default-provider constants hwcipher must reproduce: the name
// itself when the default provider has it, else the AES mode of equal key size.
std::string reference_name(const std::string& name) {
    CipherPtr d(fetch_default(name), EVP_CIPHER_free);
    if (d) return name;
    return "AES-" + std::to_string(8 * key_bytes(name)) + "-" + mode_suffix(name);
}

struct AlgParams {
    unsigned int mode = 0;
    size_t keylen = 0, ivlen = 0, blocksize = 0;
    int aead = -1, custom_iv = -1, cts = -1;
};

AlgParams get_alg_params(const EVP_CIPHER* c) {
    AlgParams p;
    OSSL_PARAM ps[] = {
        OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_MODE, &p.mode),
        OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_KEYLEN, &p.keylen),
        OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_IVLEN, &p.ivlen),
        OSSL_PARAM_construct_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, &p.blocksize),
        OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_AEAD, &p.aead),
        OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_CUSTOM_IV, &p.custom_iv),
        OSSL_PARAM_construct_int(OSSL_CIPHER_PARAM_CTS, &p.cts),
        OSSL_PARAM_construct_end(),
    };
    EVP_CIPHER_get_params(const_cast<EVP_CIPHER*>(c), ps);
    return p;
}

std::map<std::string, unsigned> param_list(const OSSL_PARAM* p) {
    std::map<std::string, unsigned> out;
    for (; p && p->key; ++p) out[p->key] = p->data_type;
    return out;
}

class Catalogue : public ::testing::TestWithParam<std::string> {};

TEST(ApiCatalogue, ListHasExactly56Entries) {
    EXPECT_EQ(kCatalogue.size(), 56u);
    EXPECT_EQ(std::set<std::string>(kCatalogue.begin(), kCatalogue.end()).size(), 56u);
}

// Everything hwcipher offers for OSSL_OP_CIPHER is in the catalogue, and
// nothing else (the provider must not leak extra or duplicate algorithms).
// Names are matched with EVP_CIPHER_is_a: the name OpenSSL reports first may
// be a legacy spelling (id-aes128-GCM).
TEST(ApiCatalogue, ProviderOffersExactlyTheCatalogue) {
    EXPECT_EQ(kOtherModes.size(), 44u);
    std::vector<EVP_CIPHER*> offered;
    EVP_CIPHER_do_all_provided(
        libctx(),
        [](EVP_CIPHER* c, void* arg) {
            const OSSL_PROVIDER* p = EVP_CIPHER_get0_provider(c);
            if (p && std::string(OSSL_PROVIDER_get0_name(p)) == "hwcipher" && EVP_CIPHER_up_ref(c))
                static_cast<std::vector<EVP_CIPHER*>*>(arg)->push_back(c);
        },
        &offered);
    std::vector<std::string> expected = kCatalogue;
    expected.insert(expected.end(), kOtherModes.begin(), kOtherModes.end());
    EXPECT_EQ(offered.size(), expected.size());
    for (const auto& name : expected) {
        size_t matches = 0;
        for (EVP_CIPHER* c : offered) matches += EVP_CIPHER_is_a(c, name.c_str()) ? 1 : 0;
        EXPECT_EQ(matches, 1u) << name << " offered " << matches << " times";
    }
    for (EVP_CIPHER* c : offered) EVP_CIPHER_free(c);
}

TEST(ApiCatalogue, AliasesAndOidsResolve) {
    for (const auto& [alias, canonical] : kAliases) {
        CipherPtr c(fetch_hwcipher(alias), EVP_CIPHER_free);
        ASSERT_NE(c, nullptr) << "hwcipher does not answer to " << alias << ": " << take_errors();
        EXPECT_TRUE(EVP_CIPHER_is_a(c.get(), canonical.c_str())) << alias << " should be " << canonical;
    }
}

TEST(ApiCatalogue, CoreReportNamesEveryFamily) {
    const std::string report = core_report();
    ASSERT_FALSE(report.empty()) << "provider param hwcipher-cores missing";
    for (const char* fam : {"aes=", "sm4=", "twofish="}) {
        const size_t at = report.find(fam);
        ASSERT_NE(at, std::string::npos) << fam << " missing in \"" << report << "\"";
        const size_t start = at + std::string(fam).size(), end = report.find(',', start);
        EXPECT_GT((end == std::string::npos ? report.size() : end) - start, 0u) << "empty core for " << fam;
    }
}

// Proves which cores the provider runs: the report equals the selection the
// registry makes for this CPU and HWCIPHER_CORES, and, when the test run
// states what it expects (scripts/test.sh sets HWCIPHER_EXPECT_CORES for each
// run: accelerated cores, forced portable, s390x under the CPACF shim), equals
// that exactly, so a run meant for hardware cores cannot pass on portable ones.
TEST(ApiCatalogue, CoreReportIsTheSelection) {
    const char* spec = std::getenv("HWCIPHER_CORES");
    hwc::CoreSelection sel{};
    std::string error;
    ASSERT_TRUE(hwc::select_cores(hwc::detect_cpu_features(), spec ? spec : "", sel, error)) << error;
    std::string want;
    for (hwc::Family f : {hwc::Family::aes, hwc::Family::sm4, hwc::Family::twofish})
        want += std::string(want.empty() ? "" : ",") + hwc::family_name(f) + "=" + sel.for_family(f)->name;
    want += std::string(",ghash=") + sel.ghash->name;
    EXPECT_EQ(core_report(), want);
    if (const char* expect = std::getenv("HWCIPHER_EXPECT_CORES"); expect != nullptr && *expect) {
        EXPECT_EQ(core_report(), std::string(expect)) << "this run was meant for other cores";
    }
}

TEST(ApiCatalogue, ProviderParamsNameVersionStatus) {
    const char *name = nullptr, *version = nullptr, *buildinfo = nullptr;
    int status = -1;
    OSSL_PARAM ps[] = {
        OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_NAME, const_cast<char**>(&name), 0),
        OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_VERSION, const_cast<char**>(&version), 0),
        OSSL_PARAM_construct_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, const_cast<char**>(&buildinfo), 0),
        OSSL_PARAM_construct_int(OSSL_PROV_PARAM_STATUS, &status),
        OSSL_PARAM_construct_end(),
    };
    ASSERT_TRUE(OSSL_PROVIDER_get_params(hwcipher_provider(), ps));
    ASSERT_NE(name, nullptr);
    ASSERT_NE(version, nullptr);
    EXPECT_NE(std::string(name).find("hwcipher"), std::string::npos) << name;
    EXPECT_FALSE(std::string(version).empty());
    EXPECT_EQ(status, 1);
}

TEST_P(Catalogue, FetchableAndServedByHwcipher) {
    const std::string name = GetParam();
    CipherPtr c(fetch_hwcipher(name), EVP_CIPHER_free);
    ASSERT_NE(c, nullptr) << name << ": " << take_errors();
    EXPECT_TRUE(EVP_CIPHER_is_a(c.get(), name.c_str()));
    CtxPtr ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    const Bytes key = random_bytes(key_bytes(name)), iv = random_bytes(16);
    ASSERT_TRUE(EVP_EncryptInit_ex2(ctx.get(), c.get(), key.data(), iv.data(), nullptr)) << take_errors();
    EXPECT_EQ(provider_of(ctx.get()), "hwcipher");
}

TEST_P(Catalogue, AcceleratedPropertyIsDeclared) {
    const std::string name = GetParam();
    CipherPtr yes(EVP_CIPHER_fetch(libctx(), name.c_str(), "provider=hwcipher,hwcipher.accel=yes"), EVP_CIPHER_free);
    CipherPtr no(EVP_CIPHER_fetch(libctx(), name.c_str(), "provider=hwcipher,hwcipher.accel=no"), EVP_CIPHER_free);
    take_errors();
    EXPECT_NE(yes == nullptr, no == nullptr) << name << ": exactly one of hwcipher.accel=yes|no must match";
}

TEST_P(Catalogue, DescriptionNamesTheCore) {
    const std::string name = GetParam();
    CipherPtr c(fetch_hwcipher(name), EVP_CIPHER_free);
    ASSERT_NE(c, nullptr);
    const char* desc = EVP_CIPHER_get0_description(c.get());
    ASSERT_NE(desc, nullptr) << name;
    const std::string report = core_report(), fam = family_of(name) + "=";
    const size_t at = report.find(fam);
    ASSERT_NE(at, std::string::npos) << report;
    const size_t start = at + fam.size(), end = report.find(',', start);
    const std::string core = report.substr(start, end == std::string::npos ? std::string::npos : end - start);
    EXPECT_NE(std::string(desc).find(core), std::string::npos)
        << name << ": description \"" << desc << "\" does not mention core " << core;
}

TEST_P(Catalogue, AlgorithmParamsMatchReference) {
    const std::string name = GetParam(), ref_name = reference_name(name);
    CipherPtr hw(fetch_hwcipher(name), EVP_CIPHER_free), ref(fetch_default(ref_name), EVP_CIPHER_free);
    ASSERT_NE(hw, nullptr);
    ASSERT_NE(ref, nullptr) << ref_name;
    const AlgParams h = get_alg_params(hw.get()), d = get_alg_params(ref.get());
    const std::string w = name + " vs default " + ref_name;
    EXPECT_EQ(h.mode, d.mode) << w;
    EXPECT_EQ(h.keylen, d.keylen) << w;
    EXPECT_EQ(h.keylen, key_bytes(name)) << w;
    EXPECT_EQ(h.ivlen, d.ivlen) << w;
    EXPECT_EQ(h.blocksize, d.blocksize) << w;
    EXPECT_EQ(h.aead, d.aead) << w;
    EXPECT_EQ(h.custom_iv, d.custom_iv) << w;
    EXPECT_EQ(h.cts, d.cts) << w;
    // The EVP view derived from those params (and from the presence of cipher()).
    EXPECT_EQ(EVP_CIPHER_get_mode(hw.get()), EVP_CIPHER_get_mode(ref.get())) << w;
    EXPECT_EQ(EVP_CIPHER_get_key_length(hw.get()), EVP_CIPHER_get_key_length(ref.get())) << w;
    EXPECT_EQ(EVP_CIPHER_get_iv_length(hw.get()), EVP_CIPHER_get_iv_length(ref.get())) << w;
    EXPECT_EQ(EVP_CIPHER_get_block_size(hw.get()), EVP_CIPHER_get_block_size(ref.get())) << w;
    EXPECT_EQ(EVP_CIPHER_get_flags(hw.get()), EVP_CIPHER_get_flags(ref.get()))
        << w << std::hex << " flags 0x" << EVP_CIPHER_get_flags(hw.get()) << " vs 0x"
        << EVP_CIPHER_get_flags(ref.get());
    if (ref_name == name) {
        EXPECT_EQ(EVP_CIPHER_get_nid(hw.get()), EVP_CIPHER_get_nid(ref.get())) << w;
    }
}

// hwcipher must list every key (with the same type) the default provider
// lists for the same mode; extra keys are reported, not failed.
TEST_P(Catalogue, ParamListsCoverReference) {
    const std::string name = GetParam(), ref_name = reference_name(name);
    CipherPtr hw(fetch_hwcipher(name), EVP_CIPHER_free), ref(fetch_default(ref_name), EVP_CIPHER_free);
    ASSERT_NE(hw, nullptr);
    ASSERT_NE(ref, nullptr);
    struct Which {
        const char* what;
        const OSSL_PARAM* (*get)(const EVP_CIPHER*);
    } lists[] = {{"gettable", EVP_CIPHER_gettable_params},
                 {"gettable_ctx", EVP_CIPHER_gettable_ctx_params},
                 {"settable_ctx", EVP_CIPHER_settable_ctx_params}};
    for (const auto& l : lists) {
        const auto h = param_list(l.get(hw.get())), d = param_list(l.get(ref.get()));
        for (const auto& [key, type] : d) {
            const auto it = h.find(key);
            if (it == h.end()) {
                ADD_FAILURE() << name << " " << l.what << " lacks \"" << key << "\" (default " << ref_name << " has it)";
                continue;
            }
            // 3.6 declares "tls-mac" an octet string; 3.0-3.5 and hwcipher an
            // octet pointer, which is what it is (libssl asks for a pointer).
            if (key == OSSL_CIPHER_PARAM_TLS_MAC && openssl_at_least(3, 6) &&
                type == OSSL_PARAM_OCTET_STRING && it->second == OSSL_PARAM_OCTET_PTR)
                continue;
            EXPECT_EQ(it->second, type) << name << " " << l.what << " \"" << key << "\" data type";
        }
        for (const auto& [key, type] : h)
            if (!d.count(key)) std::printf("note: %s %s also lists \"%s\"\n", name.c_str(), l.what, key.c_str());
    }
}

// Context-level params right after init must equal the default's.
TEST_P(Catalogue, CtxParamsAfterInitMatchReference) {
    const std::string name = GetParam(), ref_name = reference_name(name);
    CipherPtr hw(fetch_hwcipher(name), EVP_CIPHER_free), ref(fetch_default(ref_name), EVP_CIPHER_free);
    ASSERT_NE(hw, nullptr);
    ASSERT_NE(ref, nullptr);
    const Bytes key = random_bytes(key_bytes(name)), iv = random_bytes(16);
    CtxPtr a(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free), b(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
    ASSERT_TRUE(EVP_EncryptInit_ex2(a.get(), hw.get(), key.data(), iv.data(), nullptr)) << take_errors();
    ASSERT_TRUE(EVP_EncryptInit_ex2(b.get(), ref.get(), key.data(), iv.data(), nullptr));
    EXPECT_EQ(EVP_CIPHER_CTX_get_key_length(a.get()), EVP_CIPHER_CTX_get_key_length(b.get()));
    EXPECT_EQ(EVP_CIPHER_CTX_get_iv_length(a.get()), EVP_CIPHER_CTX_get_iv_length(b.get()));
    EXPECT_EQ(EVP_CIPHER_CTX_get_block_size(a.get()), EVP_CIPHER_CTX_get_block_size(b.get()));
    EXPECT_EQ(EVP_CIPHER_CTX_get_num(a.get()), EVP_CIPHER_CTX_get_num(b.get()));
    unsigned int pa = 7, pb = 7;
    OSSL_PARAM qa[] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_PADDING, &pa), OSSL_PARAM_construct_end()};
    OSSL_PARAM qb[] = {OSSL_PARAM_construct_uint(OSSL_CIPHER_PARAM_PADDING, &pb), OSSL_PARAM_construct_end()};
    EXPECT_EQ(EVP_CIPHER_CTX_get_params(a.get(), qa), EVP_CIPHER_CTX_get_params(b.get(), qb));
    EXPECT_EQ(pa, pb) << "padding";
    uint8_t ia[16] = {}, ib[16] = {};
    EXPECT_EQ(EVP_CIPHER_CTX_get_original_iv(a.get(), ia, sizeof ia),
              EVP_CIPHER_CTX_get_original_iv(b.get(), ib, sizeof ib));
    EXPECT_EQ(to_hex(ia, sizeof ia), to_hex(ib, sizeof ib));
    if (mode_suffix(name) == "CBC-CTS") {
        char ma[8] = {}, mb[8] = {};
        OSSL_PARAM ca[] = {OSSL_PARAM_construct_utf8_string(OSSL_CIPHER_PARAM_CTS_MODE, ma, sizeof ma),
                           OSSL_PARAM_construct_end()};
        OSSL_PARAM cb[] = {OSSL_PARAM_construct_utf8_string(OSSL_CIPHER_PARAM_CTS_MODE, mb, sizeof mb),
                           OSSL_PARAM_construct_end()};
        ASSERT_TRUE(EVP_CIPHER_CTX_get_params(a.get(), ca));
        ASSERT_TRUE(EVP_CIPHER_CTX_get_params(b.get(), cb));
        EXPECT_STREQ(ma, mb);
    }
    take_errors();
}

// The parameter look-up (provider/params/param_table.h finds a key through a
// hash of its first bytes): on every hwcipher cipher, after init, each listed
// context key is found (answered, or refused with an error; never ignored),
// alone and all in one array, and keys that differ from a listed one by a
// last character added or removed or by their first character are ignored
// as unknown (get and set succeed and touch nothing).
TEST(ParamLookup, ListedKeysFoundNearMissesIgnored) {
    std::vector<std::string> names;
    EVP_CIPHER_do_all_provided(
        libctx(),
        [](EVP_CIPHER* c, void* arg) {
            if (std::string(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c))) == "hwcipher")
                static_cast<std::vector<std::string>*>(arg)->push_back(EVP_CIPHER_get0_name(c));
        },
        &names);
    ASSERT_GE(names.size(), 100u);
    for (const std::string& name : names) {
        CipherPtr c(fetch_hwcipher(name), EVP_CIPHER_free);
        ASSERT_NE(c, nullptr) << name;
        CtxPtr ctx(EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_free);
        const Bytes key = random_bytes(EVP_CIPHER_get_key_length(c.get()));
        const Bytes iv = random_bytes(EVP_CIPHER_get_iv_length(c.get()) + 1);
        ASSERT_TRUE(EVP_EncryptInit_ex2(ctx.get(), c.get(), key.data(),
                                        EVP_CIPHER_get_iv_length(c.get()) ? iv.data() : nullptr, nullptr))
            << name << take_errors();
        const auto gets = param_list(EVP_CIPHER_gettable_ctx_params(c.get()));
        const auto sets = param_list(EVP_CIPHER_settable_ctx_params(c.get()));
        ASSERT_FALSE(gets.empty()) << name;

        // An entry for `k` of `type` over a 64-byte buffer, sized as EVP sizes
        // that type (integers as size_t, pointers with no data of their own).
        auto entry = [](const std::string& k, unsigned type, unsigned char* buf) {
            OSSL_PARAM p{k.c_str(), type, buf, 64, OSSL_PARAM_UNMODIFIED};
            if (type == OSSL_PARAM_INTEGER || type == OSSL_PARAM_UNSIGNED_INTEGER) p.data_size = sizeof(size_t);
            if (type == OSSL_PARAM_OCTET_PTR || type == OSSL_PARAM_UTF8_PTR) p.data_size = 0;
            return p;
        };
        // One get of `key` into a fresh buffer of `type`: 1 if answered,
        // 0 if refused (with an error), -1 if ignored.
        auto get_one = [&](const std::string& k, unsigned type) {
            alignas(16) unsigned char buf[64] = {};
            OSSL_PARAM p[2] = {entry(k, type, buf), OSSL_PARAM_construct_end()};
            const int ok = EVP_CIPHER_CTX_get_params(ctx.get(), p);
            const bool has_error = !take_errors().empty();
            if (ok == 0) return has_error ? 0 : -2; // refused without saying why
            return p[0].return_size == OSSL_PARAM_UNMODIFIED ? -1 : 1;
        };
        // CCM lists "tlsivgen" as the default provider of 3.0-3.5 does,
        // which never serves it for CCM either (test_ccm_api.cpp).
        const bool ccm = name.size() > 4 && name.compare(name.size() - 4, 4, "-CCM") == 0;
        auto unserved = [&](const std::string& k) { return ccm && k == OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN; };
        std::vector<OSSL_PARAM> all;
        std::vector<std::array<unsigned char, 64>> bufs(gets.size() + 1);
        bool every_one_answered = true;
        for (const auto& [k, type] : gets) {
            const int r = get_one(k, type);
            const bool listed_unserved = unserved(k);
            if (listed_unserved)
                EXPECT_EQ(r, -1) << name << " \"" << k << "\" is answered now: drop the exception";
            else
                EXPECT_GE(r, 0) << name << " get \"" << k << "\": " << (r == -1 ? "ignored" : "refused without an error");
            every_one_answered &= r == 1 || listed_unserved;
            std::vector<std::string> misses = {k + "x", std::string(1, static_cast<char>(k[0] ^ 0x20)) + k.substr(1)};
            if (k.size() > 1) misses.push_back(k.substr(0, k.size() - 1));
            for (const std::string& m : misses) {
                if (gets.count(m) || sets.count(m)) continue;
                EXPECT_EQ(get_one(m, type), -1) << name << " get \"" << m << "\" (near \"" << k << "\")";
                const size_t v = 0;
                const OSSL_PARAM sp[2] = {OSSL_PARAM_construct_size_t(m.c_str(), const_cast<size_t*>(&v)),
                                          OSSL_PARAM_construct_end()};
                EXPECT_EQ(EVP_CIPHER_CTX_set_params(ctx.get(), sp), 1)
                    << name << " set \"" << m << "\" (near \"" << k << "\")" << take_errors();
            }
        }
        // All keys in one array (the several-entry path), plus one unknown.
        if (every_one_answered) {
            size_t i = 0;
            for (const auto& [k, type] : gets) {
                all.push_back(entry(k, type, bufs[i++].data()));
            }
            all.push_back(OSSL_PARAM_construct_size_t("no-such-key", reinterpret_cast<size_t*>(bufs[i].data())));
            all.push_back(OSSL_PARAM_construct_end());
            EXPECT_EQ(EVP_CIPHER_CTX_get_params(ctx.get(), all.data()), 1) << name << take_errors();
            for (size_t j = 0; j + 2 < all.size(); ++j) {
                if (unserved(all[j].key)) continue;
                EXPECT_NE(all[j].return_size, OSSL_PARAM_UNMODIFIED) << name << " \"" << all[j].key << "\" in one array";
            }
            EXPECT_EQ(all[all.size() - 2].return_size, OSSL_PARAM_UNMODIFIED) << name;
        }
    }
}

std::string param_name(const ::testing::TestParamInfo<std::string>& info) {
    std::string s = info.param;
    std::replace(s.begin(), s.end(), '-', '_');
    return s;
}

INSTANTIATE_TEST_SUITE_P(Classic56, Catalogue, ::testing::ValuesIn(kCatalogue), param_name);

} // namespace
