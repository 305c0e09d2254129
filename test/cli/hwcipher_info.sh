#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CLI: hwcipher-info reports every misconfiguration that leaves an application
# silently on the default provider, with a non-zero exit: a wrong module
# path, a missing `activate`, a bad `cores =` value, a bad HWCIPHER_CORES,
# an unwritable HWCIPHER_TRACE; it exits 0 for a working set-up (also with
# HWCIPHER_CORES naming a core) and 2 where hwcipher is not configured.
set -euo pipefail

: "${HWCIPHER_BUILD_DIR:?}" "${HWCIPHER_CNF_DIR:?}" "${OPENSSL_MODULES:?}" "${OPENSSL_BIN:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unset HWCIPHER_CORES HWCIPHER_TRACE

# HWCIPHER_RUN: how this build runs its programs (QEMU, another OpenSSL's loader).
info() { # hwcipher-info under the current environment; sets out, rc
  set +e
  # shellcheck disable=SC2086
  out=$(${HWCIPHER_RUN:-} "$HWCIPHER_BUILD_DIR/hwcipher-info" 2>&1)
  rc=$?
  set -e
}
expect() { # <label> <exit code> <regex that must appear>...
  local label=$1 want=$2; shift 2
  info
  [ "$rc" = "$want" ] || { echo "$out"; fail "$label: exit $rc, expected $want"; }
  local re
  for re in "$@"; do
    grep -qE -- "$re" <<<"$out" || { echo "$out"; fail "$label: no line matching '$re'"; }
  done
  echo "ok: $label: exit $rc; $(grep -m1 -E '^  problem:' <<<"$out" | sed 's/^  //' || echo "no problem reported")"
}

good=$HWCIPHER_CNF_DIR/prefer-hwcipher.cnf
# The same configuration with one mistake each.
sed 's|^\[hwcipher_sect\]$|[hwcipher_sect]\nmodule = /nonexistent/hwcipher.so|' "$good" >"$work/bad-module.cnf"
awk '/^\[hwcipher_sect\]$/ { s = 1 } /^\[/ && !/hwcipher_sect/ { s = 0 } !(s && /^activate/)' "$good" >"$work/no-activate.cnf"
sed 's|^\[hwcipher_sect\]$|[hwcipher_sect]\ncores = aes=no-such-core|' "$good" >"$work/bad-cores.cnf"
grep -q '^module = /nonexistent' "$work/bad-module.cnf" || fail "bad-module.cnf not made"
grep -q '^cores = aes=no-such-core' "$work/bad-cores.cnf" || fail "bad-cores.cnf not made"
[ "$(grep -c '^activate' "$work/no-activate.cnf")" = 1 ] || fail "no-activate.cnf not made"

export OPENSSL_CONF=$good
expect "working configuration" 0 '^hwcipher in this configuration: loaded and active' \
  '^  cores: +aes=[a-z0-9-]+,sm4=' '^  CPU features seen: ' '^  TWOFISH-256-CBC +hwcipher' '^OK: '
export HWCIPHER_CORES=aes-portable
expect "HWCIPHER_CORES=aes-portable (a core name alone)" 0 '^  cores: +aes=aes-portable,' '^  AES-128-GCM +hwcipher +AES-128-GCM \(aes-portable core\)'
export HWCIPHER_CORES=no-such-core
expect "bad HWCIPHER_CORES" 1 '^hwcipher in this configuration: loaded and active' \
  "problem: hwcipher reports: HWCIPHER_CORES=no-such-core: .*no-such-core.*automatic selection"
unset HWCIPHER_CORES

export OPENSSL_CONF=$work/bad-module.cnf
expect "wrong module path" 1 '^hwcipher in this configuration: NOT loaded' \
  'problem: \[hwcipher_sect\] module /nonexistent/hwcipher.so does not exist' \
  'problem: hwcipher is configured but OpenSSL did not load it'
# ... while the application itself runs on without a word (what the report is for):
# shellcheck disable=SC2086
$OPENSSL_BIN list -providers >"$work/list.out" 2>&1 || true
if grep -q hwcipher "$work/list.out"; then cat "$work/list.out"; fail "bad module path: hwcipher listed"; fi

export OPENSSL_CONF=$work/no-activate.cnf
expect "missing activate" 1 "problem: \[hwcipher_sect\] has no 'activate = 1'" \
  '^hwcipher in this configuration: NOT loaded'

export OPENSSL_CONF=$work/bad-cores.cnf HWCIPHER_TRACE=$work/trace
expect "bad cores value in openssl.cnf" 1 '^hwcipher in this configuration: loaded and active' \
  "problem: hwcipher reports: cores = aes=no-such-core \(openssl.cnf\): .*unknown core 'no-such-core'.*automatic selection" \
  '^  AES-128-GCM +hwcipher'
grep -q "^hwcipher-trace pid=[0-9]* config-problem: cores = aes=no-such-core (openssl.cnf)" "$work/trace" ||
  { cat "$work/trace"; fail "bad cores: the trace does not report it"; }
echo "ok: bad cores value: the trace reports it too: $(grep -m1 config-problem "$work/trace")"
unset HWCIPHER_TRACE

export OPENSSL_CONF=$good HWCIPHER_TRACE=/nonexistent-dir/hwcipher.trace
expect "unwritable HWCIPHER_TRACE" 1 \
  'problem: hwcipher reports: HWCIPHER_TRACE=/nonexistent-dir/hwcipher.trace: cannot open .*tracing is off'
n=$(grep -c '^hwcipher: HWCIPHER_TRACE=/nonexistent-dir/hwcipher.trace: cannot open' <<<"$out" || true)
[ "$n" = 1 ] || { echo "$out"; fail "unwritable trace: stderr reports it $n times, expected once"; }
echo "ok: unwritable HWCIPHER_TRACE: reported once on stderr"
unset HWCIPHER_TRACE

export OPENSSL_CONF=/dev/null
expect "hwcipher not configured" 2 'hwcipher is not in this configuration' '^  cores: '
echo "PASS: hwcipher_info"
