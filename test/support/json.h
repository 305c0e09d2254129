// SPDX-License-Identifier: Apache-2.0
// Test support: a small JSON reader, enough for the Wycheproof vector files.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace hwc::test::json {

class Value {
public:
    enum class Kind { null, boolean, number, string, array, object };

    Kind kind() const { return kind_; }
    bool is_null() const { return kind_ == Kind::null; }

    // Object member by key, or a null Value when absent (so lookups chain).
    const Value& operator[](const std::string& key) const;
    // Array element; a null Value when out of range.
    const Value& operator[](size_t index) const;
    bool has(const std::string& key) const;
    // Elements of an array or members of an object; 0 otherwise.
    size_t size() const;

    const std::string& str() const { return str_; }   // string value ("" otherwise)
    double num() const { return num_; }               // number value (0 otherwise)
    bool boolean() const { return bool_; }
    const std::vector<Value>& items() const { return items_; }
    const std::vector<std::pair<std::string, Value>>& members() const { return members_; }

private:
    friend class Parser;
    Kind kind_ = Kind::null;
    bool bool_ = false;
    double num_ = 0;
    std::string str_;
    std::vector<Value> items_;
    std::vector<std::pair<std::string, Value>> members_;
};

// Throws std::runtime_error (with the byte offset) on malformed input.
Value parse(const std::string& text);
Value load_file(const std::string& path);

} // namespace hwc::test::json
