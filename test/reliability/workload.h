// SPDX-License-Identifier: Apache-2.0
// The representative workload of the reliability programs (threads.cpp:
// run on many threads at once; alloc_sweep.cpp: run with the N-th
// allocation failing): load the default provider and hwcipher into a
// library context, query the
// provider's parameters, fetch and run one cipher of every mode family
// (update splits, a context copy mid-stream, a refused tag), both MACs with
// a context copy, and a TLS 1.2 CBC record each way; then free everything
// and unload.
//
// It only calls libcrypto's public API and allocates nothing itself (the
// outputs go to a fixed buffer), so every allocation it causes is
// libcrypto's or hwcipher's. Every object is freed on every path, a failure
// included.
#pragma once

#include <openssl/types.h>

#include <cstddef>
#include <cstdint>

namespace hwc::rel {

// Everything the workload produced, in order (ciphertexts, tags, MACs,
// plaintexts recovered, parameter values), to compare between runs.
struct Output {
    static constexpr size_t kCapacity = 16384;
    uint8_t bytes[kCapacity];
    size_t len = 0;
    bool overflow = false;

    void add(const void* p, size_t n);
    bool operator==(const Output& o) const;
};

// Why a run stopped: `step` names the step that failed (nullptr on success).
struct Outcome {
    bool ok = false;
    const char* step = nullptr;
};

// Runs the workload. With `shared` null, it creates its own library
// context and loads the default provider and hwcipher into it (and unloads
// and frees them at the end); with `shared`, it loads both into that
// context (one more reference each) and unloads its references at the end.
Outcome run_workload(OSSL_LIB_CTX* shared, Output& out);

} // namespace hwc::rel
