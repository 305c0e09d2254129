// SPDX-License-Identifier: Apache-2.0
// Big-endian 32- and 64-bit words at any byte address (counter fields, length
// fields, formatted blocks), for the cores and the provider alike; each one
// load or store (with a byte swap on little-endian machines). The 32-bit pair
// is written byte by byte, as the per-file copies it replaces were: a memcpy
// form changed GCC's register allocation around GCM's counter update (+7
// instructions per update on s390x). The 64-bit pair is a fixed-size memcpy,
// which gave CCM's block formatting 16 fewer instructions per message than
// the byte form. The little-endian 64-bit pair (GCM's partial blocks, GCM-SIV's
// lengths) is the same with the swap on big-endian machines.
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace hwc {

inline uint32_t load_be32(const uint8_t* p) {
    return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

inline void store_be32(uint8_t* p, uint32_t v) {
    p[0] = static_cast<uint8_t>(v >> 24);
    p[1] = static_cast<uint8_t>(v >> 16);
    p[2] = static_cast<uint8_t>(v >> 8);
    p[3] = static_cast<uint8_t>(v);
}

inline uint64_t load_be64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return std::endian::native == std::endian::little ? __builtin_bswap64(v) : v;
}

inline void store_be64(uint8_t* p, uint64_t v) {
    if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap64(v);
    std::memcpy(p, &v, sizeof v);
}

inline uint64_t load_le64(const uint8_t* p) {
    uint64_t v;
    std::memcpy(&v, p, sizeof v);
    return std::endian::native == std::endian::little ? v : __builtin_bswap64(v);
}

inline void store_le64(uint8_t* p, uint64_t v) {
    if constexpr (std::endian::native != std::endian::little) v = __builtin_bswap64(v);
    std::memcpy(p, &v, sizeof v);
}

} // namespace hwc
