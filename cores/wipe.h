// SPDX-License-Identifier: Apache-2.0
// Clearing secrets (key schedules, parameter blocks, keystream) in the cores.
#pragma once

#include <cstddef>
#include <cstring>

namespace hwc {

// memset, then an empty asm statement that takes the pointer and clobbers
// memory: the compiler must assume the zeros are read, so it cannot drop the
// stores to a buffer that is dead afterwards. memset runs at full vector
// width; the volatile byte loop this replaces cost about three instructions
// per byte, which showed up in per-call costs (s390x parameter blocks, key
// set-up per message).
inline void secure_wipe(void* p, size_t n) {
    std::memset(p, 0, n);
    __asm__ __volatile__("" : : "r"(p) : "memory");
}

} // namespace hwc
