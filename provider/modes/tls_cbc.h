// SPDX-License-Identifier: Apache-2.0
// TLS 1.0-1.2 (and SSL 3.0) CBC record layout: padding a record before
// encryption, and the constant-time removal of padding and MAC after
// decryption. Pure functions over byte buffers; mode_block.cpp drives them.
#pragma once

#include <cstddef>
#include <cstdint>

namespace hwc {

// The largest MAC a TLS CBC suite carries (HMAC-SHA512 would be 64 bytes).
inline constexpr size_t kMaxTlsMacSize = 64;

namespace tls_cbc {

inline constexpr unsigned kSsl3Version = 0x0300;

// Whether records of `version` start with an explicit IV block (TLS 1.1,
// TLS 1.2 and every DTLS version).
bool has_explicit_iv(unsigned version);

// Whether `version` is one whose records this code can take apart.
bool is_known_version(unsigned version);

// Bytes of padding (1..block) that bring `len` to a multiple of `block`.
inline size_t padding_length(size_t len, size_t block) { return block - len % block; }

// Writes `padlen` padding bytes at `p`: TLS repeats the value padlen-1 in
// every byte; SSL 3.0 writes zeros followed by the length byte.
void write_padding(unsigned version, uint8_t* p, size_t padlen);

// Smallest record length (explicit IV included) that is not publicly invalid.
inline size_t min_record_length(unsigned version, size_t block, size_t mac_size) {
    return (has_explicit_iv(version) ? block : 0) + mac_size + 1;
}

// Takes apart a decrypted record `rec` of `len` bytes (explicit IV already
// skipped; len >= mac_size + 1 and a multiple of `block`, both public):
// checks the padding, and writes the payload length to *payload_len and the
// MAC to mac_out[0..mac_size). With bad padding the payload length still
// excludes the MAC and mac_out receives `random_mac` instead, so the caller's
// MAC check fails like for a forged record. Runs in time independent of the
// padding and MAC contents. Returns false only when there is no MAC to
// stand in for a verdict (mac_size 0, i.e. encrypt-then-MAC, where the MAC
// was already checked) and the padding is bad.
bool remove_padding_and_mac(unsigned version, const uint8_t* rec, size_t len, size_t block,
                            size_t mac_size, const uint8_t* random_mac, uint8_t* mac_out,
                            size_t* payload_len);

} // namespace tls_cbc
} // namespace hwc
