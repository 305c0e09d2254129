// SPDX-License-Identifier: Apache-2.0
// Test support: parsers for CAVP, pyca, Twofish KAT/MCT and simple block files.
#include "test/support/vectors.h"

#include <gtest/gtest.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace hwc::test::vec {

namespace {

struct Line {
    size_t no;
    std::string text; // trailing CR and surrounding blanks removed
};

std::string trim(const std::string& s) {
    size_t b = 0, e = s.size();
    while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
    while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
    return s.substr(b, e - b);
}

std::string upper(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

std::string base_name(const std::string& p) {
    size_t slash = p.find_last_of('/');
    return slash == std::string::npos ? p : p.substr(slash + 1);
}

// Reads the whole file; a missing file yields no lines (and a test failure),
// so the record-count assertions in the tests catch it as well.
std::vector<Line> read_lines(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::vector<Line> out;
    if (!in) {
        ADD_FAILURE() << "cannot open vector file " << p;
        return out;
    }
    // std::getline has no fixed line limit, which matters for the 131,000
    // character CMAC lines; trim() strips the CR of the CRLF files.
    std::string s;
    size_t no = 0;
    while (std::getline(in, s)) out.push_back({++no, trim(s)});
    return out;
}

// "Name = value" or "Name=value"; a line without '=' is a bare flag.
void split_field(const std::string& text, std::string& name, std::string& value) {
    size_t eq = text.find('=');
    if (eq == std::string::npos) {
        name = upper(trim(text));
        value.clear();
    } else {
        name = upper(trim(text.substr(0, eq)));
        value = trim(text.substr(eq + 1));
    }
}

// Collects field groups into records or section parameters. `key` names the
// field that marks a group as a record ("" = every group is a record); a
// repeated key inside one group starts a new record.
class Builder {
public:
    Builder(const std::string& p, std::string key) : file_(base_name(p)), key_(std::move(key)) {}

    void field(size_t no, const std::string& name, const std::string& value) {
        if (!key_.empty() && name == key_ && cur_.count(key_)) flush();
        if (cur_.empty()) line_ = no;
        cur_[name] = value;
    }
    void flush() {
        if (cur_.empty()) return;
        if (key_.empty() || cur_.count(key_)) {
            Record r;
            r.file = file_;
            r.line = line_;
            r.section = section_;
            r.params = params_;
            r.fields = std::move(cur_);
            out_.push_back(std::move(r));
        } else {
            for (auto& kv : cur_) params_[kv.first] = kv.second;
        }
        cur_.clear();
    }
    void set_section(const std::string& s) { flush(); section_ = s; params_.clear(); }
    void set_param(const std::string& n, const std::string& v) { flush(); params_[n] = v; }
    void clear_params() { flush(); params_.clear(); }
    std::vector<Record> take() { flush(); return std::move(out_); }

private:
    std::string file_, key_, section_;
    std::map<std::string, std::string> params_, cur_;
    std::vector<Record> out_;
    size_t line_ = 0;
};

// "[ENCRYPT]", "[Keylen = 128]", "[Alen = 0, Plen = 0, Nlen = 7, Tlen = 4]".
void bracket(Builder& b, const std::string& text) {
    std::string inner = text.substr(1, text.size() - 2);
    std::stringstream ss(inner);
    std::string part;
    while (std::getline(ss, part, ',')) {
        std::string name, value;
        split_field(part, name, value);
        if (part.find('=') == std::string::npos) b.set_section(name);
        else b.set_param(name, value);
    }
}

} // namespace

bool Record::has(const std::string& name) const {
    return fields.count(name) != 0 || params.count(name) != 0;
}

const std::string& Record::get(const std::string& name) const {
    static const std::string empty;
    if (auto it = fields.find(name); it != fields.end()) return it->second;
    if (auto it = params.find(name); it != params.end()) return it->second;
    return empty;
}

Bytes Record::hex(const std::string& name) const {
    if (!has(name)) ADD_FAILURE() << where() << ": no field " << name;
    return from_hex(get(name));
}

std::string Record::where() const {
    std::string w = file + ":" + std::to_string(line);
    if (!section.empty()) w += " [" + section + "]";
    for (const char* k : {"COUNT", "I", "KEYSIZE", "LENGTH", "EXAMPLE"})
        if (has(k)) w += std::string(" ") + k + "=" + get(k);
    return w;
}

std::vector<Record> parse_rsp(const std::string& p) {
    Builder b(p, "COUNT");
    for (const Line& l : read_lines(p)) {
        if (l.text.empty()) { b.flush(); continue; }
        if (l.text[0] == '#') continue; // comments never end a record
        if (l.text.front() == '[' && l.text.back() == ']') { bracket(b, l.text); continue; }
        std::string name, value;
        split_field(l.text, name, value);
        b.field(l.no, name, value);
    }
    return b.take();
}

std::vector<Record> parse_twofish(const std::string& p) {
    Builder b(p, "I");
    bool body = false; // the free-text header ends where the first section starts
    for (const Line& l : read_lines(p)) {
        if (l.text.rfind("KEYSIZE=", 0) == 0) {
            body = true;
            b.clear_params(); // PT/KEY given once apply to one section only
            b.set_param("KEYSIZE", trim(l.text.substr(8)));
            continue;
        }
        if (!body) continue;
        if (l.text.empty() || l.text.find_first_not_of('=') == std::string::npos) {
            b.flush(); // blank and "==========" lines both end a group
            continue;
        }
        std::string name, value;
        split_field(l.text, name, value);
        b.field(l.no, name, value);
    }
    return b.take();
}

std::vector<Record> parse_blocks(const std::string& p) {
    Builder b(p, "");
    for (const Line& l : read_lines(p)) {
        if (l.text.empty()) { b.flush(); continue; }
        if (l.text[0] == '#') continue;
        std::string name, value;
        split_field(l.text, name, value);
        b.field(l.no, name, value);
    }
    return b.take();
}

Bytes bits_to_bytes(const std::string& bits, size_t& nbits) {
    Bytes out((bits.size() + 7) / 8, 0);
    nbits = 0;
    for (char c : bits) {
        if (c != '0' && c != '1') {
            ADD_FAILURE() << "not a bit string: " << bits;
            continue;
        }
        if (c == '1') out[nbits / 8] |= static_cast<uint8_t>(0x80u >> (nbits % 8));
        ++nbits;
    }
    out.resize((nbits + 7) / 8);
    return out;
}

std::string bytes_to_bits(const Bytes& b, size_t nbits) {
    std::string s;
    for (size_t i = 0; i < nbits && i / 8 < b.size(); ++i)
        s.push_back((b[i / 8] >> (7 - i % 8)) & 1 ? '1' : '0');
    return s;
}

std::string path(const std::string& rel) { return vectors_dir() + "/" + rel; }

namespace {
bool env_flag(const char* name) {
    const char* e = std::getenv(name);
    return e != nullptr && *e != '\0' && std::string(e) != "0";
}
}  // namespace

bool emulated() { return env_flag("HWCIPHER_EMULATED"); }

bool sampled() { return emulated() || env_flag("HWCIPHER_TEST_SAMPLED"); }

size_t record_stride() { return sampled() ? 7 : 1; }

size_t count_section(const std::vector<Record>& recs, const std::string& section) {
    return static_cast<size_t>(std::count_if(recs.begin(), recs.end(),
        [&](const Record& r) { return r.section == section; }));
}

} // namespace hwc::test::vec

// ---- EVP runner ----

namespace hwc::test::vec {

Stream::~Stream() { EVP_CIPHER_CTX_free(ctx_); }

bool Stream::init(const EVP_CIPHER* c, const Bytes& key, const Bytes& iv, bool enc, bool bits,
                  const char* cts_mode) {
    EVP_CIPHER_CTX_free(ctx_);
    ctx_ = EVP_CIPHER_CTX_new();
    err_.clear();
    OSSL_PARAM params[2] = {OSSL_PARAM_construct_end(), OSSL_PARAM_construct_end()};
    if (cts_mode != nullptr)
        params[0] = OSSL_PARAM_construct_utf8_string("cts_mode", const_cast<char*>(cts_mode), 0);
    bool ok = ctx_ != nullptr && c != nullptr &&
              EVP_CipherInit_ex2(ctx_, c, key.data(), iv.empty() ? nullptr : iv.data(),
                                 enc ? 1 : 0, params) == 1 &&
              EVP_CIPHER_CTX_set_padding(ctx_, 0) == 1;
    if (ok && key.size() != static_cast<size_t>(EVP_CIPHER_CTX_get_key_length(ctx_))) {
        err_ = "key length " + std::to_string(key.size()) + " != cipher's " +
               std::to_string(EVP_CIPHER_CTX_get_key_length(ctx_));
        return false;
    }
    // After init so the algorithm context exists to receive "use-bits".
    if (ok && bits) EVP_CIPHER_CTX_set_flags(ctx_, EVP_CIPH_FLAG_LENGTH_BITS);
    if (!ok) err_ = "init failed: " + take_errors();
    return ok;
}

bool Stream::update(const uint8_t* in, uint8_t* out, size_t n) {
    int outl = 0;
    if (EVP_CipherUpdate(ctx_, out, &outl, in, static_cast<int>(n)) != 1) {
        err_ = "update failed: " + take_errors();
        return false;
    }
    if (static_cast<size_t>(outl) != n) {
        err_ = "update returned " + std::to_string(outl) + " for " + std::to_string(n);
        return false;
    }
    return true;
}

bool Stream::final() {
    uint8_t tail[32];
    int outl = -1;
    if (EVP_CipherFinal_ex(ctx_, tail, &outl) != 1 || outl != 0) {
        err_ = "final failed (outl " + std::to_string(outl) + "): " + take_errors();
        return false;
    }
    return true;
}

Bytes crypt(const EVP_CIPHER* c, const Bytes& key, const Bytes& iv, const Bytes& in, bool enc,
            bool& ok, std::string& err, size_t nbits, const char* cts_mode) {
    Stream s;
    Bytes out(in.size() + 32, 0);
    ok = s.init(c, key, iv, enc, nbits != 0, cts_mode) &&
         s.update(in.data(), out.data(), nbits != 0 ? nbits : in.size()) && s.final();
    err = s.error();
    out.resize(in.size());
    return out;
}

} // namespace hwc::test::vec
