// SPDX-License-Identifier: Apache-2.0
// Test support: a small recursive-descent JSON reader (RFC 8259), enough for
// the Wycheproof files: objects, arrays, strings with escapes, numbers,
// true/false/null.
#include "test/support/json.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace hwc::test::json {

namespace {
const Value kNull;
}

const Value& Value::operator[](const std::string& key) const {
    for (const auto& m : members_)
        if (m.first == key) return m.second;
    return kNull;
}

const Value& Value::operator[](size_t index) const {
    return index < items_.size() ? items_[index] : kNull;
}

bool Value::has(const std::string& key) const {
    for (const auto& m : members_)
        if (m.first == key) return true;
    return false;
}

size_t Value::size() const {
    if (kind_ == Kind::array) return items_.size();
    if (kind_ == Kind::object) return members_.size();
    return 0;
}

class Parser {
public:
    explicit Parser(const std::string& t) : t_(t) {}

    Value document() {
        Value v = value();
        skip_ws();
        if (i_ != t_.size()) fail("trailing characters");
        return v;
    }

private:
    [[noreturn]] void fail(const char* what) const {
        throw std::runtime_error(std::string("json: ") + what + " at offset " + std::to_string(i_));
    }
    void skip_ws() {
        while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t'))
            ++i_;
    }
    bool eat(char c) {
        skip_ws();
        if (i_ < t_.size() && t_[i_] == c) {
            ++i_;
            return true;
        }
        return false;
    }
    void expect(char c) {
        if (!eat(c)) fail("unexpected character");
    }
    bool literal(const char* word) {
        const std::string w(word);
        if (t_.compare(i_, w.size(), w) != 0) return false;
        i_ += w.size();
        return true;
    }

    Value value() {
        skip_ws();
        if (i_ >= t_.size()) fail("unexpected end");
        Value v;
        const char c = t_[i_];
        if (c == '{') {
            ++i_;
            v.kind_ = Value::Kind::object;
            if (eat('}')) return v;
            do {
                skip_ws();
                std::string key = string();
                expect(':');
                v.members_.emplace_back(std::move(key), value());
            } while (eat(','));
            expect('}');
        } else if (c == '[') {
            ++i_;
            v.kind_ = Value::Kind::array;
            if (eat(']')) return v;
            do v.items_.push_back(value());
            while (eat(','));
            expect(']');
        } else if (c == '"') {
            v.kind_ = Value::Kind::string;
            v.str_ = string();
        } else if (literal("true")) {
            v.kind_ = Value::Kind::boolean;
            v.bool_ = true;
        } else if (literal("false")) {
            v.kind_ = Value::Kind::boolean;
        } else if (literal("null")) {
            v.kind_ = Value::Kind::null;
        } else {
            const char* start = t_.c_str() + i_;
            char* end = nullptr;
            v.num_ = std::strtod(start, &end);
            if (end == start) fail("bad value");
            v.kind_ = Value::Kind::number;
            i_ += static_cast<size_t>(end - start);
        }
        return v;
    }

    std::string string() {
        if (i_ >= t_.size() || t_[i_] != '"') fail("expected string");
        ++i_;
        std::string out;
        while (true) {
            if (i_ >= t_.size()) fail("unterminated string");
            char c = t_[i_++];
            if (c == '"') break;
            if (c != '\\') {
                out.push_back(c);
                continue;
            }
            if (i_ >= t_.size()) fail("bad escape");
            c = t_[i_++];
            switch (c) {
            case '"': case '\\': case '/': out.push_back(c); break;
            case 'b': out.push_back('\b'); break;
            case 'f': out.push_back('\f'); break;
            case 'n': out.push_back('\n'); break;
            case 'r': out.push_back('\r'); break;
            case 't': out.push_back('\t'); break;
            case 'u': {
                if (i_ + 4 > t_.size()) fail("bad \\u escape");
                const unsigned cp = static_cast<unsigned>(std::stoul(t_.substr(i_, 4), nullptr, 16));
                i_ += 4;
                // Vector files only escape ASCII; encode the BMP as UTF-8.
                if (cp < 0x80) out.push_back(static_cast<char>(cp));
                else if (cp < 0x800) {
                    out.push_back(static_cast<char>(0xc0 | cp >> 6));
                    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
                } else {
                    out.push_back(static_cast<char>(0xe0 | cp >> 12));
                    out.push_back(static_cast<char>(0x80 | (cp >> 6 & 0x3f)));
                    out.push_back(static_cast<char>(0x80 | (cp & 0x3f)));
                }
                break;
            }
            default: fail("bad escape");
            }
        }
        return out;
    }

    const std::string& t_;
    size_t i_ = 0;
};

Value parse(const std::string& text) { return Parser(text).document(); }

Value load_file(const std::string& path) {
    std::ifstream f(path, std::ios::binary);
    if (!f) throw std::runtime_error("json: cannot open " + path);
    std::stringstream ss;
    ss << f.rdbuf();
    return parse(ss.str());
}

} // namespace hwc::test::json
