// SPDX-License-Identifier: Apache-2.0
// Catalogue look-ups by name (for MACs that take a "cipher" parameter).
#include "provider/module/catalogue.h"

#include <string_view>

namespace hwc {

bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i) {
        char x = a[i], y = b[i];
        if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
        if (x != y) return false;
    }
    return true;
}

const AlgorithmRow* find_algorithm(std::string_view name) {
    for (const AlgorithmRow& row : kCatalogue) {
        std::string_view names = row.names;
        while (!names.empty()) {
            const size_t colon = names.find(':');
            if (iequals(names.substr(0, colon), name)) return &row;
            if (colon == std::string_view::npos) break;
            names.remove_prefix(colon + 1);
        }
    }
    return nullptr;
}

} // namespace hwc
