// SPDX-License-Identifier: Apache-2.0
// Big-endian 32- and 64-bit words at any byte address (counter fields, length
// fields, formatted blocks), for the cores and the provider alike. A fixed-size
// memcpy and, on a little-endian machine, a byte swap: one load or store
// instruction (x86-64 MOVBE or MOV + BSWAP, s390x L/ST, aarch64 LDR + REV).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>

namespace hwc {

inline uint32_t load_be32(const uint8_t* p) {
    uint32_t v;
    std::memcpy(&v, p, sizeof v);
    return std::endian::native == std::endian::little ? __builtin_bswap32(v) : v;
}

inline void store_be32(uint8_t* p, uint32_t v) {
    if constexpr (std::endian::native == std::endian::little) v = __builtin_bswap32(v);
    std::memcpy(p, &v, sizeof v);
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

} // namespace hwc
