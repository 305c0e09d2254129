// SPDX-License-Identifier: Apache-2.0
// The HWCIPHER_TRACE writer: one line per keyed cipher context, appended with
// a single write() so that lines from concurrent threads and processes sharing
// the file never interleave mid-line.
#include "provider/module/trace.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "provider/module/catalogue.h"
#include "provider/modes/cipher_ctx.h"
#include "provider/module/provider.h"

namespace hwc {

int trace_open_from_env(std::string& error) noexcept {
    // secure_getenv: a set-uid program must not be made to append to a file
    // of the caller's choosing.
    const char* path = secure_getenv("HWCIPHER_TRACE");
    if (path == nullptr || *path == '\0') return -1;
    // O_APPEND makes each write() land whole at the current end of the file,
    // whoever else appends; O_CLOEXEC keeps the fd out of child processes.
    const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) return fd;
    char text[512];
    std::snprintf(text, sizeof text, "HWCIPHER_TRACE=%s: cannot open (%s); tracing is off", path,
                  std::strerror(errno));
    try {
        error = text;
    } catch (...) {
    }
    // Once per process, however many library contexts load the provider.
    static std::atomic<bool> said{false};
    if (!said.exchange(true)) std::fprintf(stderr, "hwcipher: %s\n", text);
    return -1;
}

namespace {

// Appends "hwcipher-trace pid=N <text>\n" to `fd` in one unbuffered write();
// a short or failed write is ignored, since tracing must never make a cipher
// operation fail.
[[gnu::format(printf, 2, 3)]] void trace_line(int fd, const char* fmt, ...) noexcept {
    char line[768];
    const int n =
        std::snprintf(line, sizeof line, "hwcipher-trace pid=%ld ", static_cast<long>(::getpid()));
    va_list ap;
    va_start(ap, fmt);
    const int m = std::vsnprintf(line + n, sizeof line - static_cast<size_t>(n), fmt, ap);
    va_end(ap);
    if (m < 0) return;
    const size_t len = std::min(static_cast<size_t>(n + m) + 1, sizeof line - 1);
    line[len - 1] = '\n'; // a cut line still ends as a line
    ssize_t ignored = ::write(fd, line, len);
    (void)ignored;
}

} // namespace

void trace_config_problem(int fd, const std::string& text) noexcept {
    if (fd >= 0) trace_line(fd, "config-problem: %s", text.c_str());
}

void trace_close(int fd) noexcept {
    if (fd >= 0) ::close(fd);
}

void trace_key_init(const CipherCtx& ctx, bool encrypt) noexcept {
    const ProvCtx* prov = ctx.prov();
    if (prov->trace_fd < 0) return;
    const std::string_view name = primary_name(ctx.row());
    const BlockCore* core = prov->cores.for_family(ctx.row().family);
    trace_line(prov->trace_fd, "alg=%.*s core=%s op=%s", static_cast<int>(name.size()), name.data(),
               core != nullptr ? core->name : "?", encrypt ? "encrypt" : "decrypt");
}

} // namespace hwc
