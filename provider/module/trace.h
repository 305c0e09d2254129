// SPDX-License-Identifier: Apache-2.0
// Opt-in trace of keyed cipher contexts (HWCIPHER_TRACE=<file>): a debugging
// aid that shows which processes had hwcipher serve which cipher, e.g. both
// ends of a TLS connection.
#pragma once

namespace hwc {

class CipherCtx;

// Opens the file named by HWCIPHER_TRACE for appending; -1 when the variable
// is unset or empty, or the file cannot be opened (tracing is then off).
int trace_open_from_env() noexcept;

void trace_close(int fd) noexcept;

// Appends one line for a context that was just initialised with a key:
//   hwcipher-trace pid=1234 alg=AES-128-GCM core=aes-portable op=encrypt
// Does nothing when the context's provider has tracing off. Never fails.
void trace_key_init(const CipherCtx& ctx, bool encrypt) noexcept;

} // namespace hwc
