// SPDX-License-Identifier: Apache-2.0
// The HWCIPHER_TRACE writer: one line per keyed cipher context, appended with
// a single write() so that lines from concurrent threads and processes sharing
// the file never interleave mid-line.
#include "provider/module/trace.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "provider/module/catalogue.h"
#include "provider/modes/cipher_ctx.h"
#include "provider/module/provider.h"

namespace hwc {

int trace_open_from_env() noexcept {
    // secure_getenv: a set-uid program must not be made to append to a file
    // of the caller's choosing.
    const char* path = secure_getenv("HWCIPHER_TRACE");
    if (path == nullptr || *path == '\0') return -1;
    // O_APPEND makes each write() land whole at the current end of the file,
    // whoever else appends; O_CLOEXEC keeps the fd out of child processes.
    return ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
}

void trace_close(int fd) noexcept {
    if (fd >= 0) ::close(fd);
}

void trace_key_init(const CipherCtx& ctx, bool encrypt) noexcept {
    const ProvCtx* prov = ctx.created_prov();
    const AlgorithmRow* row = ctx.created_row();
    if (prov == nullptr || row == nullptr || prov->trace_fd < 0) return;

    // The primary name is the first of the row's colon-separated names.
    const char* colon = std::strchr(row->names, ':');
    const int name_len = static_cast<int>(colon != nullptr ? colon - row->names
                                                           : std::strlen(row->names));
    const BlockCore* core = prov->cores.for_family(row->family);
    char line[256];
    const int n = std::snprintf(line, sizeof line, "hwcipher-trace pid=%ld alg=%.*s core=%s op=%s\n",
                                static_cast<long>(::getpid()), name_len, row->names,
                                core != nullptr ? core->name : "?",
                                encrypt ? "encrypt" : "decrypt");
    if (n <= 0 || static_cast<size_t>(n) >= sizeof line) return; // cannot happen: names are short
    // Unbuffered, one call; a short or failed write is ignored, since tracing
    // must never make a cipher operation fail.
    ssize_t ignored = ::write(prov->trace_fd, line, static_cast<size_t>(n));
    (void)ignored;
}

} // namespace hwc
