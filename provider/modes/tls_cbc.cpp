// SPDX-License-Identifier: Apache-2.0
// TLS CBC record padding and its constant-time removal (Lucky Thirteen).
//
// How constant time is achieved in remove_padding_and_mac():
//  * The only inputs that steer control flow or addresses are public: the
//    record length, the block size, the MAC size and the protocol version.
//    The padding length byte (secret: it is attacker-chosen ciphertext
//    decrypted under our key) only ever enters arithmetic.
//  * Comparisons are computed as all-ones/all-zero masks with subtraction
//    and shifts (ct_lt/ct_eq below) instead of `<`/`==` in conditions, and a
//    compiler barrier keeps the verdict from being turned back into a branch.
//  * The padding check visits the last min(256, len) bytes, every time; a
//    mask selects the bytes that belong to the padding.
//  * The MAC's position depends on the padding length, so it is not read at
//    that position. Instead one pass over the last mac+256 bytes (every byte
//    that could hold MAC, whatever the padding) ORs each byte, masked by
//    "inside the MAC", into acc[i mod mac] -- a public index -- and records
//    where the MAC began the same masked way. The MAC then sits in acc
//    rotated by a secret amount, undone by log2(mac) conditional rotations by
//    1, 2, 4, ... bytes: every step reads all of acc at public indices and
//    keeps or takes the rotated copy by mask.
//  * Bad padding selects (by mask) a random MAC supplied by the caller and
//    drawn for every record, so the caller's MAC check fails exactly as for
//    a forged MAC and the call itself succeeds; the payload length is then
//    computed as if there were no padding. Nothing is branched on or
//    returned early.
// The one exception is encrypt-then-MAC (mac_size 0): there the MAC has
// already been verified before decryption, so bad padding is not an oracle,
// and the call fails as the default provider's does.
#include "provider/modes/tls_cbc.h"

#include <openssl/prov_ssl.h>

#include <climits>
#include <cstring>

#include "provider/modes/cipher_ctx.h"

namespace hwc::tls_cbc {

namespace {

constexpr unsigned kWordBits = sizeof(size_t) * CHAR_BIT;

// Keeps the optimiser from reasoning about the value of a mask (and so from
// re-introducing the branch the mask replaced).
inline size_t opaque(size_t x) {
#if defined(__GNUC__)
    __asm__("" : "+r"(x));
#endif
    return x;
}

inline size_t top_bit_mask(size_t x) { return 0 - (x >> (kWordBits - 1)); }

// All ones when a < b (unsigned, full range), else zero.
inline size_t ct_lt(size_t a, size_t b) { return top_bit_mask(a ^ ((a ^ b) | ((a - b) ^ b))); }
inline size_t ct_ge(size_t a, size_t b) { return ~ct_lt(a, b); }
inline size_t ct_is_zero(size_t x) { return top_bit_mask(~x & (x - 1)); }
inline size_t ct_eq(size_t a, size_t b) { return ct_is_zero(a ^ b); }

inline uint8_t ct_select8(uint8_t mask, uint8_t a, uint8_t b) {
    return static_cast<uint8_t>((mask & a) | (~mask & b));
}

// Copies the `mac` bytes at rec[mac_start..mac_start+mac) to out, reading
// rec only at public positions (see the file comment).
void extract_mac(const uint8_t* rec, size_t len, size_t mac, size_t mac_start, uint8_t* out) {
    uint8_t acc[kMaxTlsMacSize] = {};
    uint8_t rotated[kMaxTlsMacSize];
    const size_t mac_end = mac_start + mac;
    // The MAC ends at most 256 bytes (padding plus its length byte) before
    // the end of the record: nothing earlier can be MAC.
    const size_t first = len > mac + 256 ? len - (mac + 256) : 0;
    size_t shift = 0; // (mac_start - first) mod mac, accumulated by mask
    size_t slot = 0;  // (i - first) mod mac: depends on i only
    for (size_t i = first; i < len; ++i) {
        const size_t inside = ct_ge(i, mac_start) & ct_lt(i, mac_end);
        acc[slot] |= static_cast<uint8_t>(rec[i] & inside);
        shift |= slot & ct_eq(i, mac_start);
        if (++slot == mac) slot = 0;
    }
    // MAC byte k is now acc[(shift + k) mod mac]. Rotate left by `shift`
    // one set bit at a time; every rotation is computed, the mask decides
    // whether it is kept.
    shift = opaque(shift);
    for (unsigned bit = 0; (size_t{1} << bit) < mac; ++bit) {
        const size_t step = size_t{1} << bit;
        const uint8_t take = static_cast<uint8_t>(0 - ((shift >> bit) & 1));
        for (size_t k = 0; k < mac; ++k) {
            const size_t from = k + step < mac ? k + step : k + step - mac;
            rotated[k] = acc[from];
        }
        for (size_t k = 0; k < mac; ++k) acc[k] = ct_select8(take, rotated[k], acc[k]);
    }
    std::memcpy(out, acc, mac);
    wipe_all(acc, rotated);
}

} // namespace

bool has_explicit_iv(unsigned version) {
    switch (version) {
    case TLS1_1_VERSION:
    case TLS1_2_VERSION:
    case DTLS1_VERSION:
    case DTLS1_2_VERSION:
    case DTLS1_BAD_VER: return true;
    default: return false;
    }
}

bool is_known_version(unsigned version) {
    return version == SSL3_VERSION || version == TLS1_VERSION || has_explicit_iv(version);
}

void write_padding(unsigned version, uint8_t* p, size_t padlen) {
    const auto value = static_cast<uint8_t>(padlen - 1);
    if (version == kSsl3Version) {
        std::memset(p, 0, padlen - 1);
        p[padlen - 1] = value;
    } else {
        std::memset(p, value, padlen);
    }
}

bool remove_padding_and_mac(unsigned version, const uint8_t* rec, size_t len, size_t block,
                            size_t mac_size, const uint8_t* random_mac, uint8_t* mac_out,
                            size_t* payload_len) {
    const size_t pad = rec[len - 1]; // secret from here on
    // The padding, its length byte and the MAC must fit in the record.
    size_t good = ct_ge(len, mac_size + 1 + pad);
    if (version == kSsl3Version) {
        // SSL 3.0 padding is minimal and its contents are unspecified.
        good &= ct_ge(block, pad + 1);
    } else {
        // TLS: every padding byte repeats the length. Check the longest
        // possible padding's worth of bytes, masking out those that are not
        // padding for this record.
        const size_t span = len < 256 ? len : 256;
        size_t diff = 0;
        for (size_t i = 0; i < span; ++i) {
            const size_t in_padding = ct_ge(pad, i);
            diff |= in_padding & (rec[len - 1 - i] ^ pad);
        }
        good &= ct_is_zero(diff);
    }
    good = opaque(good);

    const size_t mac_start = len - (good & (pad + 1)) - mac_size;
    *payload_len = mac_start;
    if (mac_size == 0) return good != 0; // encrypt-then-MAC: see the file comment

    extract_mac(rec, len, mac_size, mac_start, mac_out);
    const auto keep = static_cast<uint8_t>(good);
    for (size_t k = 0; k < mac_size; ++k) mac_out[k] = ct_select8(keep, mac_out[k], random_mac[k]);
    return true;
}

} // namespace hwc::tls_cbc
