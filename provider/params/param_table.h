// SPDX-License-Identifier: Apache-2.0
// The parameter layer's machinery. A context family declares what it answers
// (get) and what it accepts (set) as constexpr tables of rows {key, type,
// handler}; the lists EVP reads (gettable/settable) are built from the same
// rows at compile time, so a list and its handlers cannot disagree, and one
// pass over the caller's OSSL_PARAM array finds the parameter of every row.
// The rows every cipher shares are in params/cipher_params.h.
//
// Why one pass: EVP calls get/set_ctx_params several times per AEAD message
// (the IV length at each nonce, the tag, the tag length), mostly with a
// one-entry array; searching it once per known key made parameters a good
// part of a short AEAD message's cost.
#pragma once

#include <openssl/core.h>
#include <openssl/params.h>

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace hwc {

// An OSSL_PARAM type as a list gives it: integers carry their size, which
// OSSL_PARAM_allocate_from_text and friends size their buffers by.
struct ParamType {
    unsigned data_type = 0;
    size_t size = 0;
};
inline constexpr ParamType kSizeT{OSSL_PARAM_UNSIGNED_INTEGER, sizeof(size_t)};
inline constexpr ParamType kUint{OSSL_PARAM_UNSIGNED_INTEGER, sizeof(unsigned)};
inline constexpr ParamType kUint64{OSSL_PARAM_UNSIGNED_INTEGER, sizeof(uint64_t)};
inline constexpr ParamType kInt{OSSL_PARAM_INTEGER, sizeof(int)};
inline constexpr ParamType kOctets{OSSL_PARAM_OCTET_STRING, 0};
inline constexpr ParamType kOctetPtr{OSSL_PARAM_OCTET_PTR, 0};
inline constexpr ParamType kUtf8{OSSL_PARAM_UTF8_STRING, 0};
inline constexpr ParamType kUtf8Ptr{OSSL_PARAM_UTF8_PTR, 0};

// One row. P is OSSL_PARAM for a getter, const OSSL_PARAM for a setter; the
// handler returns false with an error raised. A row without a handler is
// listed and accepted with no effect (where the default provider lists a key
// that means nothing here); an unlisted row is handled but not advertised
// (where the default provider answers a key it does not list).
template <class Ctx, class P>
struct Param {
    const char* key = nullptr;
    ParamType type{};
    bool (*handle)(Ctx&, P&) = nullptr;
    bool listed = true;
    // Filled in by ParamTable: the key's prefix (key_prefix) and the next row
    // (1-based, 0 for none) whose prefix lands in the same look-up slot.
    uint64_t prefix = 0;
    uint8_t next = 0;
    char first = 0; // key[0], for the scan (kParamScan)
};
template <class Ctx> using Getter = Param<Ctx, OSSL_PARAM>;
template <class Ctx> using Setter = Param<Ctx, const OSSL_PARAM>;

// OSSL_CIPHER_PARAM_AEAD_IV_GENERATED of OpenSSL 3.4+ headers, spelled out so
// that every supported release builds the same parameter lists (the default
// provider of 3.5 lists it for GCM and CCM).
inline constexpr const char* kParamIvGenerated = "iv-generated";
// OSSL_CIPHER_PARAM_ENCRYPT_THEN_MAC of OpenSSL 3.6+ (an algorithm flag the
// default provider lists for every cipher; 0 for all of hwcipher's).
inline constexpr const char* kParamEncryptThenMac = "encrypt-then-mac";

// Exact key equality. strcmp: GCC emits it inline on s390x (CLST), where the
// byte loop it replaces cost ~8 instructions per character on every
// parameter EVP asks per AEAD message.
inline bool param_key_is(const char* a, const char* b) { return std::strcmp(a, b) == 0; }

inline constexpr size_t kMaxParamRows = 16;

// How a key is found through a span (the provider's and the algorithms'
// parameters, the MAC contexts', arrays of several entries; a cipher
// context's one-entry arrays take apply_params below): its first eight bytes
// (fewer when it is shorter; never past its end) as one number pick one of
// kParamSlots slots through a multiplicative hash whose multiplier each table
// chooses at compile time so that no two of its prefixes share a slot. A key
// then costs one hash and, only when it is longer than its prefix, one strcmp
// of the rest, instead of a scan of the rows.
//
// Except on s390x: there GCC emits strcmp inline (CLST, a few instructions
// whatever the length), so a scan of the rows' first characters with a
// strcmp on each match is cheaper than the hash (measured under qemu-s390x:
// the hash cost 9-17 more instructions per CCM, XTS or CBC-CTS message); on
// x86_64 and aarch64 each strcmp is a call into the C library, and the hash
// (which needs none for keys of up to seven characters, EVP's usual ones)
// saves 6-8 instructions per 64-byte CBC/CTR/XTS message and 37-135 per
// AEAD message (callgrind, x86_64, against the scan).
#if defined(__s390x__)
inline constexpr bool kParamScan = true;
#else
inline constexpr bool kParamScan = false;
#endif
inline constexpr unsigned kParamSlotBits = 6;
inline constexpr size_t kParamSlots = size_t{1} << kParamSlotBits;

inline constexpr size_t kPrefixBytes = 8;
constexpr uint64_t key_prefix(const char* k) {
    uint64_t v = 0;
    for (size_t i = 0; i < kPrefixBytes && k[i] != '\0'; ++i)
        v |= uint64_t{static_cast<unsigned char>(k[i])} << (8 * i);
    return v;
}
constexpr unsigned param_slot(uint64_t prefix, uint64_t mult) {
    return static_cast<unsigned>((prefix * mult) >> (64 - kParamSlotBits));
}
// A key that ended inside its prefix: equal prefixes are then equal keys.
constexpr bool prefix_is_whole_key(uint64_t prefix) { return (prefix >> 56) == 0; }

inline constexpr std::array<uint8_t, kParamSlots> kNoParamSlots{};

// A table seen without its size: rows, their count and the OSSL_PARAM list.
template <class Ctx, class P>
struct ParamSpan {
    const Param<Ctx, P>* rows = nullptr;
    size_t count = 0;
    const OSSL_PARAM* list = nullptr;
    const uint8_t* slots = kNoParamSlots.data(); // 1-based first row per slot, 0 for none
    uint64_t mult = 1;

    // Takes each row's parameter from `params` in one pass (the first entry
    // with the row's key, as OSSL_PARAM_locate would find it), then runs the
    // handlers in row order, so the order of the caller's array changes
    // nothing. Keys no row knows are ignored, as OpenSSL's providers do.
    bool apply(Ctx& ctx, P* params) const {
        if (params == nullptr || params->key == nullptr) return true;
        if (params[1].key == nullptr) { // one entry, as EVP mostly asks: no order to keep
            const Param<Ctx, P>* r = find(params->key);
            return r == nullptr || r->handle == nullptr || r->handle(ctx, *params);
        }
        return apply_all(ctx, params);
    }

    // Several entries: out of line, so the one-entry path above needs none
    // of its stack array and registers.
    [[gnu::noinline]] bool apply_all(Ctx& ctx, P* params) const {
        P* found[kMaxParamRows];
        uint32_t seen = 0;
        for (P* p = params; p->key != nullptr; ++p) {
            const Param<Ctx, P>* r = find(p->key);
            if (r == nullptr) continue;
            const size_t i = static_cast<size_t>(r - rows);
            if ((seen >> i & 1) == 0) {
                found[i] = p;
                seen |= uint32_t{1} << i;
            }
        }
        for (; seen != 0; seen &= seen - 1) {
            const unsigned i = static_cast<unsigned>(std::countr_zero(seen));
            if (rows[i].handle != nullptr && !rows[i].handle(ctx, *found[i])) return false;
        }
        return true;
    }

    const Param<Ctx, P>* find(const char* key) const {
        if constexpr (kParamScan) {
            for (size_t i = 0; i < count; ++i) {
                const Param<Ctx, P>& r = rows[i];
                if (r.first == key[0] && param_key_is(key + 1, r.key + 1)) return &r;
            }
            return nullptr;
        }
        const uint64_t prefix = key_prefix(key);
        for (unsigned i = slots[param_slot(prefix, mult)]; i != 0; i = rows[i - 1].next) {
            const Param<Ctx, P>& r = rows[i - 1];
            if (r.prefix != prefix) continue;
            if (prefix_is_whole_key(prefix)) return &r;
            if (param_key_is(key + kPrefixBytes, r.key + kPrefixBytes)) return &r;
        }
        return nullptr;
    }
};

// The rows and, built from them at compile time, the list of the listed
// ones. Declared `static constexpr`; a malformed table does not compile.
template <class Ctx, class P, size_t N>
class ParamTable {
public:
    consteval explicit ParamTable(const std::array<Param<Ctx, P>, N>& rows) : rows_(rows) {
        static_assert(N <= kMaxParamRows, "more rows than apply() tracks");
        size_t n = 0;
        for (size_t i = 0; i < N; ++i) {
            Param<Ctx, P>& r = rows_[i];
            if (r.key == nullptr || r.key[0] == '\0') throw "a row without a key";
            r.prefix = key_prefix(r.key);
            r.first = r.key[0];
            for (size_t j = 0; j < i; ++j)
                if (std::string_view(rows_[j].key) == r.key) throw "two rows with one key";
            if (r.listed) list_[n++] = OSSL_PARAM{r.key, r.type.data_type, nullptr, r.type.size,
                                                  OSSL_PARAM_UNMODIFIED};
        }
        mult_ = choose_multiplier();
        // Chain the rows of each slot (only rows sharing a prefix share one),
        // in row order.
        for (size_t i = N; i-- > 0;) {
            uint8_t& head = slots_[param_slot(rows_[i].prefix, mult_)];
            rows_[i].next = head;
            head = static_cast<uint8_t>(i + 1);
        }
    }
    constexpr ParamSpan<Ctx, P> span() const {
        return {rows_.data(), N, list_.data(), slots_.data(), mult_};
    }
    static constexpr size_t size() { return N; }
    constexpr const Param<Ctx, P>& row(size_t i) const { return rows_[i]; }

private:
    // The first odd multiplier, counting from a golden-ratio constant, under
    // which rows with different prefixes land in different slots.
    consteval uint64_t choose_multiplier() const {
        for (uint64_t mult = 0x9E3779B97F4A7C15u, tries = 0; tries < 100000; mult += 2, ++tries) {
            bool clash = false;
            for (size_t i = 0; i < N && !clash; ++i)
                for (size_t j = 0; j < i && !clash; ++j)
                    clash = rows_[i].prefix != rows_[j].prefix &&
                            param_slot(rows_[i].prefix, mult) == param_slot(rows_[j].prefix, mult);
            if (!clash) return mult;
        }
        throw "no multiplier separates the rows' prefixes";
    }

    std::array<Param<Ctx, P>, N> rows_;
    std::array<OSSL_PARAM, N + 1> list_{}; // ends in OSSL_PARAM_END (all zero)
    std::array<uint8_t, kParamSlots> slots_{};
    uint64_t mult_ = 1;
};

// ---- look-up compiled for one table ---------------------------------------
// A context family's tables are constants, so for them the look-up of a
// one-entry array (EVP's usual call: the tag, its length, the IV length,
// one call each, several per AEAD message) compiles to comparisons of the
// key's characters with immediates, row by row, and a direct call of the
// matching row's handler. The hashed look-up above is a chain of dependent
// loads (key, slot, row, handler) ending in an indirect call: 64-byte
// AES-128-GCM encryption, which asks "taglen" and "tag" per message, took
// ~10 ns longer with it (124 against 114 ns, bench_evp in OpenSSL 3.6 on
// Zen 4; README, "Measured on their own").

// The table a family's ContextTables holds for gets (Get) or sets. The whole
// object and a flag are the template arguments because clang 14 takes no
// reference to a subobject as one.
template <const auto& Tables, bool Get>
constexpr const auto& table_of() {
    if constexpr (Get) return Tables.gets;
    else return Tables.sets;
}

// Whether key k is row I's: compared up to and including the row key's
// terminator, stopping at the first difference, so nothing past k's own
// terminator is read.
template <const auto& Tables, bool Get, size_t I>
[[gnu::always_inline]] inline bool key_is_row(const char* k) {
    constexpr const char* key = table_of<Tables, Get>().row(I).key;
    constexpr size_t n = std::char_traits<char>::length(key);
    return [&]<size_t... J>(std::index_sequence<J...>) {
        return ((k[J] == key[J]) && ...) && k[n] == '\0';
    }(std::make_index_sequence<n>{});
}

// Row I's handler, called directly (a row without one accepts the key with
// no effect). A plain `if`, not `if constexpr`: with -fsanitize=null (part of
// -fsanitize=undefined) GCC turns off -fdelete-null-pointer-checks, after
// which it does not take a function's address to be non-null in a constant
// expression ("call_member<...> == 0 is not a constant expression"). The
// condition is still a constant, which every optimised build folds away.
template <const auto& Tables, bool Get, size_t I, class Ctx, class P>
[[gnu::always_inline]] inline bool call_row(Ctx& ctx, P& p) {
    constexpr auto handle = table_of<Tables, Get>().row(I).handle;
    if (handle == nullptr) return true;
    return handle(ctx, p);
}

// ParamSpan::apply for a family's constant table; arrays of several entries
// (rare on the per-message path) go to the span's apply_all.
template <const auto& Tables, bool Get, class Ctx, class P>
bool apply_params(Ctx& ctx, P* params) {
    constexpr const auto& table = table_of<Tables, Get>();
    if (params == nullptr || params->key == nullptr) return true;
    if (params[1].key != nullptr) return table.span().apply_all(ctx, params);
    const char* k = params->key;
    return [&]<size_t... I>(std::index_sequence<I...>) {
        bool ok = true; // a key no row has is ignored
        (void)((key_is_row<Tables, Get, I>(k) &&
                (ok = call_row<Tables, Get, I>(ctx, *params), true)) ||
               ...);
        return ok;
    }(std::make_index_sequence<table.size()>{});
}

// A context family's two tables: what it answers and what it accepts.
template <class Ctx>
struct ContextParams {
    ParamSpan<Ctx, OSSL_PARAM> gets;
    ParamSpan<Ctx, const OSSL_PARAM> sets;
};

// The storage behind a family's ContextParams: the family class declares
// `static constexpr ContextTables kParams{gets, sets};`.
template <class Ctx, size_t G, size_t S>
struct ContextTables {
    consteval ContextTables(const std::array<Getter<Ctx>, G>& g,
                            const std::array<Setter<Ctx>, S>& s)
        : gets(g), sets(s), params{gets.span(), sets.span()} {}
    ParamTable<Ctx, OSSL_PARAM, G> gets;
    ParamTable<Ctx, const OSSL_PARAM, S> sets;
    ContextParams<Ctx> params;
};

// Groups of rows joined into one table's rows, in order.
template <class T, size_t... N>
constexpr std::array<T, (N + ... + 0)> join(const std::array<T, N>&... parts) {
    std::array<T, (N + ... + 0)> out{};
    size_t i = 0;
    auto append = [&](const auto& part) {
        for (const T& r : part) out[i++] = r;
    };
    (append(parts), ...);
    return out;
}

// `rows` with the rows of `keys` left out of the list: still handled, or
// with `handled` false inert (see without()).
template <class T, size_t N>
constexpr std::array<T, N> unlisted(std::array<T, N> rows, std::initializer_list<const char*> keys,
                                    bool handled = true) {
    for (T& r : rows) {
        for (const char* k : keys) {
            if (std::string_view(r.key) != k) continue;
            r.listed = false;
            if (!handled) r.handle = nullptr;
        }
    }
    return rows;
}

// `rows` with the rows of `keys` inert: neither handled nor listed.
template <class T, size_t N>
constexpr std::array<T, N> without(const std::array<T, N>& rows,
                                   std::initializer_list<const char*> keys) {
    return unlisted(rows, keys, false);
}

// A handler that calls member function M of a family class on the context
// type its tables are declared for (the family's `ParamContext`).
template <class M> struct MemberOf;
template <class C, class A> struct MemberOf<bool (C::*)(A&)> {
    using Class = C;
    using Arg = A;
};
template <class C, class A> struct MemberOf<bool (C::*)(A&) const> {
    using Class = C;
    using Arg = A;
};

template <auto M>
bool call_member(typename MemberOf<decltype(M)>::Class::ParamContext& ctx,
                 typename MemberOf<decltype(M)>::Arg& p) {
    return (static_cast<typename MemberOf<decltype(M)>::Class&>(ctx).*M)(p);
}
template <auto M> inline constexpr auto member = &call_member<M>;

} // namespace hwc
