// SPDX-License-Identifier: Apache-2.0
// Test support: parsers for the known-answer files under test/vectors.
//
// Every parser returns the same shape: a list of records, each a map of
// field name -> raw value string, plus the section parameters in force where
// the record appeared. Values are not decoded here (hex, CFB1 bit strings and
// decimal counts need different decoding, which the tests choose per field).
// Field and parameter names are upper-cased so that "Key" and "KEY" (both
// occur in the pyca files) are the same field.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "test/support/ossl_env.h"

namespace hwc::test::vec {

struct Record {
    std::string file;                          // base name, for failure messages
    size_t line = 0;                           // 1-based line of the first field
    std::string section;                       // "ENCRYPT", "DECRYPT" or "" (none)
    std::map<std::string, std::string> params; // section parameters ("KEYSIZE", "PT", ...)
    std::map<std::string, std::string> fields; // record fields (file order is not kept)

    // A field of the record, or else a section parameter of that name (the
    // Twofish VK/VT files give PT/KEY once per section). Empty when absent.
    bool has(const std::string& name) const;
    const std::string& get(const std::string& name) const;
    // get(name) decoded as hex; fails the current test when absent.
    Bytes hex(const std::string& name) const;
    // "file:line" plus COUNT/I, for SCOPED_TRACE.
    std::string where() const;
};

// NIST CAVP .rsp files and pyca "NIST loader" files. Bracket lines open a
// section ("[ENCRYPT]", "[Keylen = 128]", "[Alen = 0, Plen = 0]"); a run of
// "Name = value" lines ending at a blank line is a record when it contains
// COUNT (any case), otherwise its fields become section parameters (the CCM
// files give Key once per section that way). A line with no '=' (the bare
// "FAIL" of GCM decrypt files) becomes a field with an empty value.
std::vector<Record> parse_rsp(const std::string& path);

// Twofish AES-submission files: header up to the first "====" line, sections
// opened by "KEYSIZE=n" (stored as parameter KEYSIZE), records start at
// "I=n". Field groups without I= (PT= in ecb_vk, KEY= in ecb_vt) become
// section parameters.
std::vector<Record> parse_twofish(const std::string& path);

// Simple "Name = value" files whose records are separated by blank lines
// (sm4/gbt32907-2016-examples.txt, rfc3962/aes-128-cbc-cs3.txt): every
// non-empty group is a record.
std::vector<Record> parse_blocks(const std::string& path);

// CFB1 values in CAVP files are strings of '0'/'1', one character per bit.
// Packs them most significant bit first; `nbits` receives the length.
Bytes bits_to_bytes(const std::string& bits, size_t& nbits);
std::string bytes_to_bits(const Bytes& b, size_t nbits);

// Full path of a file below vectors_dir().
std::string path(const std::string& rel);

// True when the build runs the tests under QEMU (HWCIPHER_EMULATED=1, set by
// cmake/CrossDebian.cmake).
bool emulated();

// True when the long repetitions (Monte-Carlo chains, whole CAVP files, the
// million-iteration SM4 example) run a sample only: under QEMU, and in the
// sanitizer build's CI run (HWCIPHER_TEST_SAMPLED=1, from scripts/test.sh),
// where they repeat one code path thousands of times at 10-30x the cost and
// show a sanitizer nothing the first repetitions did not. Every native run
// runs them whole, and so does `scripts/test.sh full` under the sanitizers.
bool sampled();

// Which records of a long vector file run: every record, or every 7th by
// position (deterministic) when sampled().
size_t record_stride();

// Records of `recs` whose section is `section`.
size_t count_section(const std::vector<Record>& recs, const std::string& section);

// ---- Running a cipher through EVP (shared by the test_kat_* files) ----

using Fetcher = EVP_CIPHER* (*)(const std::string&);

// Owns one EVP_CIPHER_CTX for a streamed computation. Every init() starts a
// fresh context, because EVP only forwards EVP_CIPH_FLAG_LENGTH_BITS to the
// provider when the flag changes, so re-initialising an old context could
// lose it.
class Stream {
public:
    Stream() = default;
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    ~Stream();

    // Padding is always off. `bits` selects CFB1 bit lengths (use-bits);
    // `cts_mode` ("CS1".."CS3") is set when non-null. Returns false with
    // the OpenSSL errors in error().
    bool init(const EVP_CIPHER* c, const Bytes& key, const Bytes& iv, bool enc,
              bool bits = false, const char* cts_mode = nullptr);
    // Processes `n` bytes (or bits in bit mode) of `in` into `out` (sized by
    // the caller to at least the input length in bytes). Returns false on error.
    bool update(const uint8_t* in, uint8_t* out, size_t n);
    bool final();
    const std::string& error() const { return err_; }
    EVP_CIPHER_CTX* ctx() { return ctx_; }

private:
    EVP_CIPHER_CTX* ctx_ = nullptr;
    std::string err_;
};

// One-shot: init, one update over all of `in`, final. `nbits` != 0 means bit
// mode with that many bits (CFB1). Sets `ok` false and fills `err` on failure.
Bytes crypt(const EVP_CIPHER* c, const Bytes& key, const Bytes& iv, const Bytes& in,
            bool enc, bool& ok, std::string& err, size_t nbits = 0,
            const char* cts_mode = nullptr);

// An EVP_CIPHER fetched through `f` and freed on scope exit.
struct Cipher {
    EVP_CIPHER* c = nullptr;
    Cipher() = default;
    Cipher(Fetcher f, const std::string& name) : c(f(name)) {}
    ~Cipher() { EVP_CIPHER_free(c); }
    Cipher(const Cipher&) = delete;
    Cipher& operator=(const Cipher&) = delete;
    explicit operator bool() const { return c != nullptr; }
};

} // namespace hwc::test::vec
