// SPDX-License-Identifier: Apache-2.0
// The catalogue: one declarative row per algorithm hwcipher offers.
//
// Provider init turns these rows into OSSL_ALGORITHM records (adding the
// property string and a description naming the selected core), and
// provider/dispatch/ generates one dispatch table per row. Adding an algorithm
// is adding a row. AES and SM4 names, aliases and OIDs are exactly those of
// OpenSSL's default provider; Twofish follows the same ALG-BITS-MODE scheme
// (no OIDs exist for it, none are invented).
#pragma once

#include <cstddef>
#include <cstdint>

#include <openssl/evp.h>

#include "cores/core.h"

namespace hwc {

// Modes as the provider implements them.
enum class Mode : uint8_t { ecb, cbc, cbc_cts, cfb, cfb1, cfb8, ofb, ctr };

// What OpenSSL is told about a mode (algorithm parameters and the EVP flags
// derived from them). CBC-CTS reports CBC and CFB1/CFB8 report CFB, as the
// default provider does; stream-like modes have a block size of 1.
struct ModeTraits {
    unsigned evp_mode;
    uint8_t key_factor; // keys per algorithm key (XTS and SIV take two)
    uint8_t ivlen;      // default IV length in bytes
    uint8_t blocksize;
    bool aead;
    bool custom_iv;
    bool cts;
};

constexpr ModeTraits mode_traits(Mode m) {
    switch (m) {
    case Mode::ecb: return {EVP_CIPH_ECB_MODE, 1, 0, 16, false, false, false};
    case Mode::cbc: return {EVP_CIPH_CBC_MODE, 1, 16, 16, false, false, false};
    case Mode::cbc_cts: return {EVP_CIPH_CBC_MODE, 1, 16, 16, false, false, true};
    case Mode::cfb:
    case Mode::cfb1:
    case Mode::cfb8: return {EVP_CIPH_CFB_MODE, 1, 16, 1, false, false, false};
    case Mode::ofb: return {EVP_CIPH_OFB_MODE, 1, 16, 1, false, false, false};
    case Mode::ctr: return {EVP_CIPH_CTR_MODE, 1, 16, 1, false, false, false};
    }
    return {};
}

struct AlgorithmRow {
    const char* names;   // "PRIMARY:alias:oid", OpenSSL's colon-separated form
    Family family;
    uint16_t key_bits;
    Mode mode;
};

inline constexpr AlgorithmRow kCatalogue[] = {
    {"AES-128-ECB:2.16.840.1.101.3.4.1.1", Family::aes, 128, Mode::ecb},
    {"AES-128-CBC:AES128:2.16.840.1.101.3.4.1.2", Family::aes, 128, Mode::cbc},
    {"AES-128-CBC-CTS", Family::aes, 128, Mode::cbc_cts},
    {"AES-128-OFB:2.16.840.1.101.3.4.1.3", Family::aes, 128, Mode::ofb},
    {"AES-128-CFB:2.16.840.1.101.3.4.1.4", Family::aes, 128, Mode::cfb},
    {"AES-128-CFB1", Family::aes, 128, Mode::cfb1},
    {"AES-128-CFB8", Family::aes, 128, Mode::cfb8},
    {"AES-128-CTR", Family::aes, 128, Mode::ctr},

    {"AES-192-ECB:2.16.840.1.101.3.4.1.21", Family::aes, 192, Mode::ecb},
    {"AES-192-CBC:AES192:2.16.840.1.101.3.4.1.22", Family::aes, 192, Mode::cbc},
    {"AES-192-CBC-CTS", Family::aes, 192, Mode::cbc_cts},
    {"AES-192-OFB:2.16.840.1.101.3.4.1.23", Family::aes, 192, Mode::ofb},
    {"AES-192-CFB:2.16.840.1.101.3.4.1.24", Family::aes, 192, Mode::cfb},
    {"AES-192-CFB1", Family::aes, 192, Mode::cfb1},
    {"AES-192-CFB8", Family::aes, 192, Mode::cfb8},
    {"AES-192-CTR", Family::aes, 192, Mode::ctr},

    {"AES-256-ECB:2.16.840.1.101.3.4.1.41", Family::aes, 256, Mode::ecb},
    {"AES-256-CBC:AES256:2.16.840.1.101.3.4.1.42", Family::aes, 256, Mode::cbc},
    {"AES-256-CBC-CTS", Family::aes, 256, Mode::cbc_cts},
    {"AES-256-OFB:2.16.840.1.101.3.4.1.43", Family::aes, 256, Mode::ofb},
    {"AES-256-CFB:2.16.840.1.101.3.4.1.44", Family::aes, 256, Mode::cfb},
    {"AES-256-CFB1", Family::aes, 256, Mode::cfb1},
    {"AES-256-CFB8", Family::aes, 256, Mode::cfb8},
    {"AES-256-CTR", Family::aes, 256, Mode::ctr},

    {"SM4-ECB:1.2.156.10197.1.104.1", Family::sm4, 128, Mode::ecb},
    {"SM4-CBC:SM4:1.2.156.10197.1.104.2", Family::sm4, 128, Mode::cbc},
    {"SM4-CBC-CTS", Family::sm4, 128, Mode::cbc_cts},
    {"SM4-OFB:SM4-OFB128:1.2.156.10197.1.104.3", Family::sm4, 128, Mode::ofb},
    {"SM4-CFB:SM4-CFB128:1.2.156.10197.1.104.4", Family::sm4, 128, Mode::cfb},
    {"SM4-CFB1", Family::sm4, 128, Mode::cfb1},
    {"SM4-CFB8", Family::sm4, 128, Mode::cfb8},
    {"SM4-CTR:1.2.156.10197.1.104.7", Family::sm4, 128, Mode::ctr},

    {"TWOFISH-128-ECB", Family::twofish, 128, Mode::ecb},
    {"TWOFISH-128-CBC:TWOFISH128", Family::twofish, 128, Mode::cbc},
    {"TWOFISH-128-CBC-CTS", Family::twofish, 128, Mode::cbc_cts},
    {"TWOFISH-128-OFB", Family::twofish, 128, Mode::ofb},
    {"TWOFISH-128-CFB", Family::twofish, 128, Mode::cfb},
    {"TWOFISH-128-CFB1", Family::twofish, 128, Mode::cfb1},
    {"TWOFISH-128-CFB8", Family::twofish, 128, Mode::cfb8},
    {"TWOFISH-128-CTR", Family::twofish, 128, Mode::ctr},

    {"TWOFISH-192-ECB", Family::twofish, 192, Mode::ecb},
    {"TWOFISH-192-CBC:TWOFISH192", Family::twofish, 192, Mode::cbc},
    {"TWOFISH-192-CBC-CTS", Family::twofish, 192, Mode::cbc_cts},
    {"TWOFISH-192-OFB", Family::twofish, 192, Mode::ofb},
    {"TWOFISH-192-CFB", Family::twofish, 192, Mode::cfb},
    {"TWOFISH-192-CFB1", Family::twofish, 192, Mode::cfb1},
    {"TWOFISH-192-CFB8", Family::twofish, 192, Mode::cfb8},
    {"TWOFISH-192-CTR", Family::twofish, 192, Mode::ctr},

    {"TWOFISH-256-ECB", Family::twofish, 256, Mode::ecb},
    {"TWOFISH-256-CBC:TWOFISH256", Family::twofish, 256, Mode::cbc},
    {"TWOFISH-256-CBC-CTS", Family::twofish, 256, Mode::cbc_cts},
    {"TWOFISH-256-OFB", Family::twofish, 256, Mode::ofb},
    {"TWOFISH-256-CFB", Family::twofish, 256, Mode::cfb},
    {"TWOFISH-256-CFB1", Family::twofish, 256, Mode::cfb1},
    {"TWOFISH-256-CFB8", Family::twofish, 256, Mode::cfb8},
    {"TWOFISH-256-CTR", Family::twofish, 256, Mode::ctr},
};

inline constexpr size_t kCatalogueSize = sizeof(kCatalogue) / sizeof(kCatalogue[0]);

// Key length in bytes as OpenSSL sees it (both halves for XTS and SIV).
constexpr size_t key_bytes(const AlgorithmRow& row) {
    return row.key_bits / 8 * mode_traits(row.mode).key_factor;
}

} // namespace hwc
