#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CLI (native only): after the provider is loaded, hwcipher makes no system call a sandbox refuses. The build's sandbox_workload (test/prog_sandbox_workload.cpp) loads hwcipher through OPENSSL_CONF, marks the point, then fetches, keys, updates and finishes every family (AES, SM4, Twofish) in the common modes, GCM with generated IVs, CMAC and GMAC, with HWCIPHER_TRACE on a regular file; then sets RLIMIT_FSIZE to 0 as OpenSSH's sandbox does, keys contexts again, and unloads hwcipher from a library context of its own (teardown). Under `strace -f`, every system call between the marks must be one OpenSSH's seccomp filter allows (so nothing opened or otherwise named by path, mapped from a file, started as a thread or process, no signal handler returning), and the process must survive the file-size limit.
# strace is a host binary and the workload must be the plain native one (an ASan runtime maps and opens files of its own), so test/CMakeLists.txt registers *.native.sh scripts only for native builds.
set -euo pipefail

: "${OPENSSL_MODULES:?OPENSSL_MODULES not set}" "${HWCIPHER_CNF_DIR:?HWCIPHER_CNF_DIR not set}"
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v strace >/dev/null || fail "strace not installed (scripts/deps.sh --native-tests installs it)"
build=${HWCIPHER_BUILD_DIR:-$PWD}
prog=$build/test/sandbox_workload   # test/prog_sandbox_workload.cpp
[ -x "$prog" ] || fail "$prog not built"
work=$(mktemp -d "$build/trace_sandbox.XXXXXX")
trap 'rm -rf "$work"' EXIT
start=$SECONDS

export OPENSSL_CONF=$HWCIPHER_CNF_DIR/prefer-hwcipher.cnf OPENSSL_MODULES
unset HWCIPHER_CORES

# Runs the workload under strace: every system call, and SIGXFSZ.
traced() { # <name> <workload args...>
  local name=$1; shift
  # Output through a pipe: under RLIMIT_FSIZE 0 the workload's own write
  # to a regular file would (rightly) end it with SIGXFSZ.
  HWCIPHER_TRACE=$work/$name.trace timeout 120 \
    strace -f -qq -o "$work/$name.strace" -e signal=SIGXFSZ "$prog" "$@" 2>&1 | cat >"$work/$name.out"
}

# The calls between the "provider-loaded" and "done" marks that OpenSSH's
# seccomp sandbox (sandbox-seccomp-filter.c, OpenSSH 9.2) would refuse or
# answer with EACCES: anything but the calls below, mmap/mprotect with
# other protections than read/write, mmap of a file. Prints them (empty:
# clean). Outside the sandbox's list but let through here: the marks
# (access), and tgkill/kill (none expected; listed so that a failure names
# them). After "done" the workload prints its results.
allowed='read|write|close|brk|futex|getpid|gettid|getuid|geteuid|getrandom|madvise|mremap|munmap|clock_gettime|gettimeofday|clock_nanosleep|nanosleep|poll|ppoll|rt_sigprocmask|exit|exit_group'
after_load() { # <strace output>
  awk -v allowed="^($allowed)\\(" '
    /hwcipher-sandbox-workload\/provider-loaded/ { on = 1; next }
    /hwcipher-sandbox-workload\/done/ { on = 0 }
    !on { next }
    /hwcipher-sandbox-workload\// { next }                      # the marks in between
    { line = $0; sub(/^[0-9]+ +/, "", line) }
    line ~ /^--- SIGXFSZ / { next }                             # the file-size limit (checked below)
    line ~ /^prlimit64\(0, RLIMIT_FSIZE, \{rlim_cur=0, / { next }  # the workload sets it, as sshd does
    line ~ /^<\.\.\. [a-z0-9_]+ resumed>/ { next }                # the end of a call shown before
    line ~ /^(mmap|mprotect)\(/ {
      # Anonymous memory with PROT_READ/PROT_WRITE/PROT_NONE only, as the
      # sandbox allows (mprotect: the same protections).
      if (line ~ /PROT_EXEC/) { print; next }
      if (line ~ /^mmap\(/ && line !~ /MAP_ANONYMOUS/) { print; next }
      next
    }
    line ~ allowed { next }
    { print }
  ' "$1"
}

# 1. The check sees an open: the workload opens /dev/null after the mark.
traced control --open-after-load || { cat "$work/control.out" >&2; fail "control run failed"; }
grep -q 'hwcipher-sandbox-workload/provider-loaded' "$work/control.strace" ||
  fail "control: strace did not record the mark (is ptrace allowed here?)"
bad=$(after_load "$work/control.strace")
grep -q '"/dev/null"' <<<"$bad" || { echo "$bad"; fail "control: the check missed an open of /dev/null after load"; }
echo "ok: the check sees an open after load: $(grep -m1 '/dev/null' <<<"$bad" | sed 's/^[0-9]* *//')"

# 2. The workload itself.
if ! traced workload --fsize-zero; then
  cat "$work/workload.out" >&2
  grep -E 'SIGXFSZ|killed by' "$work/workload.strace" >&2 || true
  fail "the workload failed or was killed (under RLIMIT_FSIZE 0?)"
fi
grep -q '^PASS: sandbox_workload' "$work/workload.out" || { cat "$work/workload.out" >&2; fail "no PASS line"; }
for m in provider-loaded workload-done fsize-zero-done "done"; do
  grep -q "hwcipher-sandbox-workload/$m" "$work/workload.strace" || fail "strace shows no '$m' mark"
done
bad=$(after_load "$work/workload.strace")
[ -z "$bad" ] || { echo "$bad" >&2; fail "system calls a sandbox refuses after the provider was loaded (above)"; }
calls=$(awk '/provider-loaded/ { on = 1; next } /workload\/done/ { on = 0 } on { sub(/^[0-9]+ +/, ""); sub(/\(.*/, ""); print }' \
        "$work/workload.strace" | sort | uniq -c | sort -rn | awk '{ printf "%s%s %s", sep, $2, $1; sep = ", " }')
echo "ok: between load and the end of teardown, only calls the sandbox allows: $calls"

# 3. Under RLIMIT_FSIZE 0 the trace's appends met the limit (SIGXFSZ) and
# the process went on (the fsize-zero-done mark and the PASS line above).
grep -Eq '^[0-9]+ +--- SIGXFSZ ' "$work/workload.strace" ||
  fail "no SIGXFSZ under RLIMIT_FSIZE 0: the trace did not write (is it on?)"
echo "ok: $(grep -Ec '^[0-9]+ +--- SIGXFSZ ' "$work/workload.strace") trace appends met RLIMIT_FSIZE 0; the process lived on"

# 4. The trace shows hwcipher keyed every family; no line is cut or mixed.
trace=$work/workload.trace
for alg in AES-128-ECB AES-256-CTR SM4-CBC SM4-GCM TWOFISH-128-CBC TWOFISH-256-CTR AES-128-GCM AES-256-XTS; do
  grep -Eq "^hwcipher-trace pid=[0-9]+ alg=$alg core=[a-z0-9-]+ op=encrypt\$" "$trace" ||
    fail "no '$alg' line in the trace: $(sort -u "$trace" | head -20 | tr '\n' ';')"
done
bad_lines=$(grep -Evc '^hwcipher-trace pid=[0-9]+ alg=[A-Z0-9-]+ core=[a-z0-9-]+ op=(en|de)crypt$' "$trace" || true)
[ "$bad_lines" = 0 ] || fail "$bad_lines malformed trace line(s)"
echo "ok: trace: $(wc -l <"$trace") lines, $(cut -d' ' -f3 "$trace" | sort -u | wc -l) algorithms"
echo "PASS: trace_sandbox ($((SECONDS - start)) s)"
