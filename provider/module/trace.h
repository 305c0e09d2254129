// SPDX-License-Identifier: Apache-2.0
// Opt-in trace of keyed cipher contexts (HWCIPHER_TRACE=<file>): a debugging
// aid that shows which processes had hwcipher serve which cipher, e.g. both
// ends of a TLS connection.
#pragma once

#include <string>

namespace hwc {

class CipherCtx;

// Opens the file named by HWCIPHER_TRACE for appending; -1 when the variable
// is unset or empty, or the file cannot be opened (tracing is then off).
// Called at provider init only: every later use of the trace is a write(2)
// to this descriptor, which sandboxes allow (OpenSSH's seccomp filter
// refuses open(2)). An open that fails is described in `error` (left alone
// otherwise) and reported once per process on stderr: the user asked for
// the trace.
//
// When the file is a regular file, the process's SIGXFSZ is guarded
// (trace.cpp says why and how).
int trace_open_from_env(std::string& error) noexcept;

// Appends "hwcipher-trace pid=N config-problem: <text>" (tracing on only).
void trace_config_problem(int fd, const std::string& text) noexcept;

// Closes the trace (fd -1: nothing); close(2) only, since teardown may run
// inside a sandbox too (sshd's pre-authentication child, at its exit).
void trace_close(int fd) noexcept;

// Appends one line for a context that was just initialised with a key:
//   hwcipher-trace pid=1234 alg=AES-128-GCM core=aes-portable op=encrypt
// Does nothing when the context's provider has tracing off. Never fails.
void trace_key_init(const CipherCtx& ctx, bool encrypt) noexcept;

} // namespace hwc
