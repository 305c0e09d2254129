// SPDX-License-Identifier: Apache-2.0
// Core lists per cipher family and core selection (features + HWCIPHER_CORES).
//
// Adding an accelerated core is one line in its family's list below, inside
// the `#if` for its architecture and ahead of the portable core (lists are
// best first). Selection itself never needs to change.
#include "cores/registry.h"

#include <string_view>

#include "cores/cpu.h"
#include "cores/portable/portable.h"
#if defined(__aarch64__)
#include "cores/aarch64/aarch64.h"
#endif
#if defined(__x86_64__)
#include "cores/x86_64/x86_64.h"
#endif
#if defined(__s390x__) && defined(HWCIPHER_S390X_MSA)
#include "cores/s390x/s390x.h"
#endif

namespace hwc {
namespace {

// Best first, portable last. An accelerated core goes in as
//     #if defined(__aarch64__)
//         &aarch64::aes_ce,
//     #endif
// ahead of the portable entry, its header included above.
constexpr const BlockCore* kAesCores[] = {
#if defined(__aarch64__)
    &aarch64::aes_ce_eor3,  // with the SHA3 extension
    &aarch64::aes_ce,
#endif
#if defined(__x86_64__)
    &x86_64::aes_vaes_avx512,
    &x86_64::aes_vaes_avx2,
    &x86_64::aes_ni,
#endif
#if defined(__s390x__) && defined(HWCIPHER_S390X_MSA)
    &s390x::aes_cpacf,
#endif
    &portable::aes,
};

constexpr const BlockCore* kSm4Cores[] = {
#if defined(__aarch64__)
    &aarch64::sm4_ce,
    &aarch64::sm4_neon_aes,  // no SM4E: the S-box through AESE
    &aarch64::sm4_neon,      // neither: plain NEON (needs nothing)
#endif
#if defined(__x86_64__)
    &x86_64::sm4_gfni_avx512,
    &x86_64::sm4_gfni_avx2,
    &x86_64::sm4_aesni_avx2,
#endif
    &portable::sm4,
};

constexpr const BlockCore* kTwofishCores[] = {
#if defined(__aarch64__)
    &aarch64::twofish_asm,
#endif
#if defined(__x86_64__)
    &x86_64::twofish_avx2,
#endif
    &portable::twofish,
};

// GHASH cores, best first, portable last (same rule as the block families).
constexpr const GhashCore* kGhashCores[] = {
#if defined(__aarch64__)
    &aarch64::ghash_pmull,
#endif
#if defined(__x86_64__)
    &x86_64::ghash_vpclmul_avx2,
    &x86_64::ghash_clmul,
#endif
#if defined(__s390x__) && defined(HWCIPHER_S390X_MSA4)
    &s390x::ghash_kimd,
#endif
    &portable::ghash,
};

constexpr Family kFamilies[] = {Family::aes, Family::sm4, Family::twofish};

// HWCIPHER_CORES family names: the block families, then "ghash" (index 3).
constexpr int kGhashIndex = 3;
constexpr int kSpecFamilies = 4;
constexpr const char* kFamilyList = "(families: aes, sm4, twofish, ghash)";

// ---- parsing helpers -------------------------------------------------------

bool is_space(char ch) {
    return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
    while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
    return s;
}

// ASCII-only case folding: environment values are not localised text, and
// <cctype> would make the result depend on the process locale.
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

bool usable(const BlockCore& c, uint32_t features) { return (c.needs & ~features) == 0; }

const BlockCore* best(Family f, uint32_t features) {
    for (const BlockCore* c : cores_for(f))
        if (usable(*c, features)) return c;
    return cores_for(f).back(); // unreachable: the portable core needs nothing
}

const BlockCore* portable_core(Family f) { return cores_for(f).back(); }

std::string quoted(std::string_view s) { return "'" + std::string(s) + "'"; }

bool usable(const GhashCore& c, uint32_t features) { return (c.needs & ~features) == 0; }

const GhashCore* best_ghash(uint32_t features) {
    for (const GhashCore* c : ghash_cores())
        if (usable(*c, features)) return c;
    return ghash_cores().back(); // unreachable: the portable core needs nothing
}

std::string missing_features(uint32_t missing) {
    std::string out;
    for (unsigned i = 0; i < kCpuFeatureCount; ++i)
        if (missing & kCpuFeatureNames[i].bit) {
            if (!out.empty()) out += ", ";
            out += kCpuFeatureNames[i].name;
        }
    return out;
}

// Resolves one choice ("portable", "best" or a core name) for family f.
const BlockCore* resolve(Family f, std::string_view choice, uint32_t features,
                         std::string& error) {
    if (iequals(choice, "portable")) return portable_core(f);
    if (iequals(choice, "best")) return best(f, features);
    for (const BlockCore* c : cores_for(f)) {
        if (!iequals(choice, c->name)) continue;
        if (!usable(*c, features)) {
            error = "HWCIPHER_CORES: core " + quoted(c->name) +
                    " cannot run on this CPU: missing " + missing_features(c->needs & ~features);
            return nullptr;
        }
        return c;
    }
    // Name a core of another family explicitly: the likeliest slip.
    for (Family other : kFamilies)
        for (const BlockCore* c : cores_for(other))
            if (other != f && iequals(choice, c->name)) {
                error = std::string("HWCIPHER_CORES: core ") + quoted(c->name) + " is a " +
                        family_name(other) + " core, not " + family_name(f);
                return nullptr;
            }
    for (const GhashCore* c : ghash_cores())
        if (iequals(choice, c->name)) {
            error = std::string("HWCIPHER_CORES: core ") + quoted(c->name) +
                    " is a ghash core, not " + family_name(f);
            return nullptr;
        }
    error = "HWCIPHER_CORES: unknown core " + quoted(choice) + " for " + family_name(f) +
            " (known: portable, best";
    for (const BlockCore* c : cores_for(f)) error += std::string(", ") + c->name;
    error += ")";
    return nullptr;
}

// The same for the GHASH family.
const GhashCore* resolve_ghash(std::string_view choice, uint32_t features, std::string& error) {
    if (iequals(choice, "portable")) return ghash_cores().back();
    if (iequals(choice, "best")) return best_ghash(features);
    for (const GhashCore* c : ghash_cores()) {
        if (!iequals(choice, c->name)) continue;
        if (!usable(*c, features)) {
            error = "HWCIPHER_CORES: core " + quoted(c->name) +
                    " cannot run on this CPU: missing " + missing_features(c->needs & ~features);
            return nullptr;
        }
        return c;
    }
    for (Family other : kFamilies)
        for (const BlockCore* c : cores_for(other))
            if (iequals(choice, c->name)) {
                error = std::string("HWCIPHER_CORES: core ") + quoted(c->name) + " is a " +
                        family_name(other) + " core, not ghash";
                return nullptr;
            }
    error = "HWCIPHER_CORES: unknown core " + quoted(choice) + " for ghash (known: portable, best";
    for (const GhashCore* c : ghash_cores()) error += std::string(", ") + c->name;
    error += ")";
    return nullptr;
}

} // namespace

std::span<const GhashCore* const> ghash_cores() { return kGhashCores; }

std::span<const BlockCore* const> cores_for(Family f) {
    switch (f) {
    case Family::aes: return kAesCores;
    case Family::sm4: return kSm4Cores;
    case Family::twofish: return kTwofishCores;
    }
    return kAesCores; // not reached for valid enumerators
}

const char* family_name(Family f) {
    switch (f) {
    case Family::aes: return "aes";
    case Family::sm4: return "sm4";
    case Family::twofish: return "twofish";
    }
    return "unknown";
}

// Syntax: comma-separated items, each either a bare "portable"/"best" (every
// family) or FAMILY=CHOICE. Whitespace around items, names and '=' is
// ignored, empty items are skipped, keywords and names match case-
// insensitively. A bare item sets every family; FAMILY= items override it
// whatever their order, and naming one family twice is an error (the two
// would silently contradict each other).
bool select_cores(uint32_t features, const char* override_spec, CoreSelection& out,
                  std::string& error) {
    CoreSelection sel{};
    for (Family f : kFamilies) sel.core[static_cast<int>(f)] = best(f, features);
    sel.ghash = best_ghash(features);

    std::string_view spec = override_spec ? override_spec : "";
    bool explicit_set[kSpecFamilies] = {false, false, false, false};
    const BlockCore* bare[3] = {nullptr, nullptr, nullptr};
    const GhashCore* bare_ghash = nullptr;
    std::string_view bare_item;

    while (true) {
        const size_t comma = spec.find(',');
        const std::string_view item = trim(spec.substr(0, comma));
        if (!item.empty()) {
            const size_t eq = item.find('=');
            if (eq == std::string_view::npos) {
                if (!iequals(item, "portable") && !iequals(item, "best")) {
                    error = "HWCIPHER_CORES: " + quoted(item) +
                            " is neither 'portable', 'best' nor FAMILY=CORE " +
                            kFamilyList;
                    return false;
                }
                if (!bare_item.empty() && !iequals(bare_item, item)) {
                    error = "HWCIPHER_CORES: both " + quoted(bare_item) + " and " + quoted(item) +
                            " given for all families";
                    return false;
                }
                bare_item = item;
                for (Family f : kFamilies)
                    bare[static_cast<int>(f)] = resolve(f, item, features, error);
                bare_ghash = resolve_ghash(item, features, error);
            } else {
                const std::string_view fam = trim(item.substr(0, eq));
                const std::string_view choice = trim(item.substr(eq + 1));
                if (fam.empty()) {
                    error = "HWCIPHER_CORES: " + quoted(item) + " has no family before '='";
                    return false;
                }
                int idx = -1;
                for (Family f : kFamilies)
                    if (iequals(fam, family_name(f))) idx = static_cast<int>(f);
                if (iequals(fam, "ghash")) idx = kGhashIndex;
                if (idx < 0) {
                    error = "HWCIPHER_CORES: unknown family " + quoted(fam) + " " + kFamilyList;
                    return false;
                }
                if (idx == kGhashIndex) {
                    if (choice.empty()) {
                        error = "HWCIPHER_CORES: no core given after 'ghash='";
                        return false;
                    }
                    if (choice.find('=') != std::string_view::npos) {
                        error = "HWCIPHER_CORES: " + quoted(item) + " has more than one '='";
                        return false;
                    }
                    if (explicit_set[idx]) {
                        error = "HWCIPHER_CORES: family 'ghash' given more than once";
                        return false;
                    }
                    const GhashCore* g = resolve_ghash(choice, features, error);
                    if (!g) return false;
                    sel.ghash = g;
                    explicit_set[idx] = true;
                    if (comma == std::string_view::npos) break;
                    spec.remove_prefix(comma + 1);
                    continue;
                }
                const Family f = kFamilies[idx];
                if (choice.empty()) {
                    error = std::string("HWCIPHER_CORES: no core given after '") + family_name(f) +
                            "='";
                    return false;
                }
                if (choice.find('=') != std::string_view::npos) {
                    error = "HWCIPHER_CORES: " + quoted(item) + " has more than one '='";
                    return false;
                }
                if (explicit_set[idx]) {
                    error = std::string("HWCIPHER_CORES: family '") + family_name(f) +
                            "' given more than once";
                    return false;
                }
                const BlockCore* c = resolve(f, choice, features, error);
                if (!c) return false;
                sel.core[idx] = c;
                explicit_set[idx] = true;
            }
        }
        if (comma == std::string_view::npos) break;
        spec.remove_prefix(comma + 1);
    }

    for (int i = 0; i < 3; ++i)
        if (!explicit_set[i] && bare[i]) sel.core[i] = bare[i];
    if (!explicit_set[kGhashIndex] && bare_ghash) sel.ghash = bare_ghash;
    out = sel;
    error.clear();
    return true;
}

} // namespace hwc
