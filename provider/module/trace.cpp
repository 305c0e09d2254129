// SPDX-License-Identifier: Apache-2.0
// The HWCIPHER_TRACE writer: one line per keyed cipher context, appended with
// a single write() so that lines from concurrent threads and processes sharing
// the file never interleave mid-line.
//
// Sandboxes. The file is opened once, at provider init; afterwards the trace
// only calls getpid() and write(), which sandboxes let through (OpenSSH's
// pre-authentication child refuses open() but must write to its monitor).
// What killed that child was the write itself: before its seccomp filter,
// OpenSSH sets RLIMIT_FSIZE to 0, and a write that would grow a regular file
// past the limit raises SIGXFSZ, whose default action ends the process. So
// while a regular file is traced, the process's SIGXFSZ is guarded (below):
// a trace line that meets the limit is lost and the process lives on.
#include "provider/module/trace.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "provider/module/catalogue.h"
#include "provider/modes/cipher_ctx.h"
#include "provider/module/provider.h"

namespace hwc {

namespace {

// ---- the SIGXFSZ guard ---------------------------------------------------------
//
// A handler, installed at the first init that traces into a regular file,
// where the process left SIGXFSZ at its default action. Not SIG_IGN: an
// ignored signal stays ignored across exec, into every program the process
// starts (sshd's login shells), while a handler is reset there. The kernel
// sends SIGXFSZ to the thread whose write met the limit; when that thread is
// in a trace append, the handler jumps back into the append (the line is
// lost), otherwise it gives the signal its default action, as if there were
// no handler.
//
// The handler leaves by siglongjmp, not by returning: OpenSSH's seccomp
// filter refuses rt_sigreturn (and rt_sigaction), but allows rt_sigprocmask,
// with which the append unblocks SIGXFSZ again afterwards.
//
// It is never removed: teardown runs inside sandboxes too (at the sandboxed
// child's exit), where rt_sigaction would kill the process. Instead the
// module is pinned in memory (RTLD_NODELETE) before the handler goes in, so
// that the handler never outlives its code; after the last teardown it only
// ever takes the default action.

// The current thread's append in progress, else null. Initial-exec TLS: the
// handler reads it, and a dynamic TLS access may allocate. Volatile: the
// handler reads it between the stores around the write.
[[gnu::tls_model("initial-exec")]] thread_local sigjmp_buf* volatile t_append = nullptr;

void on_sigxfsz(int sig) {
    if (sigjmp_buf* append = t_append) siglongjmp(*append, 1);
    // Not a trace append: the default action. The signal is blocked while
    // its handler runs, so raise() leaves it pending; it is delivered, with
    // SIG_DFL, as the handler returns.
    const int saved = errno;
    struct sigaction dfl{};
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, nullptr);
    raise(sig);
    errno = saved;
}

// Keeps this module mapped for the rest of the process: a dlopen of the
// already loaded object (RTLD_NOLOAD: found by its name, nothing opened)
// with RTLD_NODELETE. The handle is deliberately never closed.
bool pin_module() noexcept {
    Dl_info self{};
    if (dladdr(reinterpret_cast<void*>(&on_sigxfsz), &self) == 0 || self.dli_fname == nullptr)
        return false;
    return dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE) != nullptr;
}

void guard_sigxfsz() noexcept {
    static std::mutex m; // provider inits may run concurrently
    std::lock_guard<std::mutex> lock(m);
    struct sigaction current{};
    if (sigaction(SIGXFSZ, nullptr, &current) != 0) return;
    // Ours already, or the application's own choice (a handler, SIG_IGN),
    // which stands.
    if ((current.sa_flags & SA_SIGINFO) != 0 || current.sa_handler != SIG_DFL) return;
    if (!pin_module()) return; // without the pin, no handler
    struct sigaction ours{};
    ours.sa_handler = &on_sigxfsz;
    sigemptyset(&ours.sa_mask);
    sigaction(SIGXFSZ, &ours, nullptr);
}

} // namespace

int trace_open_from_env(std::string& error) noexcept {
    // secure_getenv: a set-uid program must not be made to append to a file
    // of the caller's choosing.
    const char* path = secure_getenv("HWCIPHER_TRACE");
    if (path == nullptr || *path == '\0') return -1;
    // O_APPEND makes each write() land whole at the current end of the file,
    // whoever else appends. A child made by fork() keeps the descriptor and
    // goes on tracing into the same file (sshd's per-connection children,
    // nginx's workers); O_CLOEXEC keeps it out of exec'd programs, which
    // open the file again themselves if they load hwcipher.
    const int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        // Only appends to a regular file are bound by RLIMIT_FSIZE: a pipe,
        // a terminal or /dev/null leaves the process's signals alone.
        struct stat st{};
        if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) guard_sigxfsz();
        return fd;
    }
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

// One write(2) of a whole line. A write that meets the file-size limit
// comes back through on_sigxfsz's jump: SIGXFSZ, blocked by the handler's
// entry, is unblocked again. Called through syscall(), not write(): glibc's
// write() is a cancellation point whose bookkeeping a jump out of it would
// skip. Nothing here changes between sigsetjmp and the jump.
void append(int fd, const char* line, size_t len) noexcept {
    sigjmp_buf env;
    if (sigsetjmp(env, 0) != 0) {
        t_append = nullptr;
        sigset_t xfsz;
        sigemptyset(&xfsz);
        sigaddset(&xfsz, SIGXFSZ);
        pthread_sigmask(SIG_UNBLOCK, &xfsz, nullptr);
        return;
    }
    t_append = &env;
    (void)::syscall(SYS_write, fd, line, len);
    t_append = nullptr;
}

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
    append(fd, line, len);
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
