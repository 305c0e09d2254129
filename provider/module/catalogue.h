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
#include <string_view>

#include <openssl/evp.h>

#include "cores/core.h"

namespace hwc {

// Modes as the provider implements them.
enum class Mode : uint8_t {
    ecb, cbc, cbc_cts, cfb, cfb1, cfb8, ofb, ctr,            // classic
    gcm, ccm, ocb, siv, gcm_siv,                             // AEAD
    xts,                                                     // disk
    wrap, wrap_pad, wrap_inv, wrap_pad_inv,                  // key wrap (RFC 3394 / 5649)
};

// EVP_CIPH_GCM_SIV_MODE arrived in OpenSSL 3.2; its value is fixed.
inline constexpr unsigned kEvpGcmSivMode = 0x10005;

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
    bool raw_cipher; // offers OSSL_FUNC_CIPHER_CIPHER (EVP_CIPH_FLAG_CUSTOM_CIPHER)
};

constexpr ModeTraits mode_traits(Mode m) {
    switch (m) {
    //                              keys iv  blk  aead   cust.iv cts    raw
    case Mode::ecb: return {EVP_CIPH_ECB_MODE, 1, 0, 16, false, false, false, true};
    case Mode::cbc: return {EVP_CIPH_CBC_MODE, 1, 16, 16, false, false, false, true};
    case Mode::cbc_cts: return {EVP_CIPH_CBC_MODE, 1, 16, 16, false, false, true, true};
    case Mode::cfb:
    case Mode::cfb1:
    case Mode::cfb8: return {EVP_CIPH_CFB_MODE, 1, 16, 1, false, false, false, true};
    case Mode::ofb: return {EVP_CIPH_OFB_MODE, 1, 16, 1, false, false, false, true};
    case Mode::ctr: return {EVP_CIPH_CTR_MODE, 1, 16, 1, false, false, false, true};
    case Mode::gcm: return {EVP_CIPH_GCM_MODE, 1, 12, 1, true, true, false, true};
    case Mode::ccm: return {EVP_CIPH_CCM_MODE, 1, 12, 1, true, true, false, true};
    case Mode::ocb: return {EVP_CIPH_OCB_MODE, 1, 12, 16, true, true, false, true};
    case Mode::siv: return {EVP_CIPH_SIV_MODE, 2, 0, 1, true, true, false, true};
    case Mode::gcm_siv: return {kEvpGcmSivMode, 1, 12, 1, true, true, false, true};
    case Mode::xts: return {EVP_CIPH_XTS_MODE, 2, 16, 1, false, true, false, true};
    case Mode::wrap:
    case Mode::wrap_inv: return {EVP_CIPH_WRAP_MODE, 1, 8, 8, false, true, false, false};
    case Mode::wrap_pad:
    case Mode::wrap_pad_inv: return {EVP_CIPH_WRAP_MODE, 1, 4, 8, false, true, false, false};
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

    // Authenticated, disk and key-wrap modes (AES-192-XTS does not exist).
    {"AES-128-GCM:id-aes128-GCM:2.16.840.1.101.3.4.1.6", Family::aes, 128, Mode::gcm},
    {"AES-128-CCM:id-aes128-CCM:2.16.840.1.101.3.4.1.7", Family::aes, 128, Mode::ccm},
    {"AES-128-OCB", Family::aes, 128, Mode::ocb},
    {"AES-128-SIV", Family::aes, 128, Mode::siv},
    {"AES-128-GCM-SIV", Family::aes, 128, Mode::gcm_siv},
    {"AES-128-WRAP:id-aes128-wrap:AES128-WRAP:2.16.840.1.101.3.4.1.5", Family::aes, 128, Mode::wrap},
    {"AES-128-WRAP-PAD:id-aes128-wrap-pad:AES128-WRAP-PAD:2.16.840.1.101.3.4.1.8", Family::aes, 128, Mode::wrap_pad},
    {"AES-128-WRAP-INV:AES128-WRAP-INV", Family::aes, 128, Mode::wrap_inv},
    {"AES-128-WRAP-PAD-INV:AES128-WRAP-PAD-INV", Family::aes, 128, Mode::wrap_pad_inv},

    {"AES-192-GCM:id-aes192-GCM:2.16.840.1.101.3.4.1.26", Family::aes, 192, Mode::gcm},
    {"AES-192-CCM:id-aes192-CCM:2.16.840.1.101.3.4.1.27", Family::aes, 192, Mode::ccm},
    {"AES-192-OCB", Family::aes, 192, Mode::ocb},
    {"AES-192-SIV", Family::aes, 192, Mode::siv},
    {"AES-192-GCM-SIV", Family::aes, 192, Mode::gcm_siv},
    {"AES-192-WRAP:id-aes192-wrap:AES192-WRAP:2.16.840.1.101.3.4.1.25", Family::aes, 192, Mode::wrap},
    {"AES-192-WRAP-PAD:id-aes192-wrap-pad:AES192-WRAP-PAD:2.16.840.1.101.3.4.1.28", Family::aes, 192, Mode::wrap_pad},
    {"AES-192-WRAP-INV:AES192-WRAP-INV", Family::aes, 192, Mode::wrap_inv},
    {"AES-192-WRAP-PAD-INV:AES192-WRAP-PAD-INV", Family::aes, 192, Mode::wrap_pad_inv},

    {"AES-256-GCM:id-aes256-GCM:2.16.840.1.101.3.4.1.46", Family::aes, 256, Mode::gcm},
    {"AES-256-CCM:id-aes256-CCM:2.16.840.1.101.3.4.1.47", Family::aes, 256, Mode::ccm},
    {"AES-256-OCB", Family::aes, 256, Mode::ocb},
    {"AES-256-SIV", Family::aes, 256, Mode::siv},
    {"AES-256-GCM-SIV", Family::aes, 256, Mode::gcm_siv},
    {"AES-256-WRAP:id-aes256-wrap:AES256-WRAP:2.16.840.1.101.3.4.1.45", Family::aes, 256, Mode::wrap},
    {"AES-256-WRAP-PAD:id-aes256-wrap-pad:AES256-WRAP-PAD:2.16.840.1.101.3.4.1.48", Family::aes, 256, Mode::wrap_pad},
    {"AES-256-WRAP-INV:AES256-WRAP-INV", Family::aes, 256, Mode::wrap_inv},
    {"AES-256-WRAP-PAD-INV:AES256-WRAP-PAD-INV", Family::aes, 256, Mode::wrap_pad_inv},

    {"AES-128-XTS:1.3.111.2.1619.0.1.1", Family::aes, 128, Mode::xts},
    {"AES-256-XTS:1.3.111.2.1619.0.1.2", Family::aes, 256, Mode::xts},

    {"SM4-GCM:1.2.156.10197.1.104.8", Family::sm4, 128, Mode::gcm},
    {"SM4-CCM:1.2.156.10197.1.104.9", Family::sm4, 128, Mode::ccm},
    {"SM4-OCB", Family::sm4, 128, Mode::ocb},
    {"SM4-XTS:1.2.156.10197.1.104.10", Family::sm4, 128, Mode::xts},

    {"TWOFISH-128-GCM", Family::twofish, 128, Mode::gcm},
    {"TWOFISH-128-CCM", Family::twofish, 128, Mode::ccm},
    {"TWOFISH-128-OCB", Family::twofish, 128, Mode::ocb},

    {"TWOFISH-192-GCM", Family::twofish, 192, Mode::gcm},
    {"TWOFISH-192-CCM", Family::twofish, 192, Mode::ccm},
    {"TWOFISH-192-OCB", Family::twofish, 192, Mode::ocb},

    {"TWOFISH-256-GCM", Family::twofish, 256, Mode::gcm},
    {"TWOFISH-256-CCM", Family::twofish, 256, Mode::ccm},
    {"TWOFISH-256-OCB", Family::twofish, 256, Mode::ocb},

    {"TWOFISH-128-XTS", Family::twofish, 128, Mode::xts},
    {"TWOFISH-256-XTS", Family::twofish, 256, Mode::xts},
};

inline constexpr size_t kCatalogueSize = sizeof(kCatalogue) / sizeof(kCatalogue[0]);

// The row any of whose names (primary, alias or OID) equals `name`, ignoring
// ASCII case; nullptr when none does.
const AlgorithmRow* find_algorithm(std::string_view name);

// ASCII case-insensitive equality (OPENSSL_strcasecmp is not in every 3.0.x).
bool iequals(std::string_view a, std::string_view b);

// The primary name: the first of the row's colon-separated names.
constexpr std::string_view primary_name(const AlgorithmRow& row) {
    const std::string_view names = row.names;
    return names.substr(0, names.find(':'));
}

// Key length in bytes as OpenSSL sees it (both halves for XTS and SIV).
constexpr size_t key_bytes(const AlgorithmRow& row) {
    return row.key_bits / 8 * mode_traits(row.mode).key_factor;
}

} // namespace hwc
