#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CLI: a TLS 1.2 CBC encrypt-then-MAC session between `openssl s_server` and `s_client` on 127.0.0.1, both preferring hwcipher through OPENSSL_CONF; the data must come back intact.
set -euo pipefail

: "${OPENSSL_BIN:?OPENSSL_BIN not set}" "${OPENSSL_MODULES:?OPENSSL_MODULES not set}"
: "${HWCIPHER_CNF_DIR:?HWCIPHER_CNF_DIR not set}"
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck disable=SC2086  # OPENSSL_BIN may be a command with arguments (qemu)
ossl() { $OPENSSL_BIN "$@"; }

suite=ECDHE-RSA-AES128-SHA256
wait_s=${HWCIPHER_TLS_WAIT:-120}   # bound on every wait below (QEMU is slow)
work=$(mktemp -d)
server_pid=
cleanup() {
  if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then kill "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

# A throwaway RSA identity, made now (no key material in the repository).
ossl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
    -subj /CN=localhost -days 1 2>/dev/null || fail "cannot make a test certificate"

# The data: base64 lines tagged so the server's answers can be picked out of
# s_client's output. s_server -rev answers each line reversed and closes the
# connection on a line "CLOSE".
head -c 196608 /dev/urandom | base64 -w 76 | sed 's/^/DATA:/' >"$work/lines"
lines=$(wc -l <"$work/lines")
{ cat "$work/lines"; echo CLOSE; } >"$work/client.in"
awk '{ s = ""; for (i = length($0); i > 0; i--) s = s substr($0, i, 1); print s }' \
    "$work/lines" >"$work/expected"

export OPENSSL_CONF=$HWCIPHER_CNF_DIR/prefer-hwcipher.cnf

# Port 0: the kernel picks a free port, which s_server prints as "ACCEPT host:port".
# server.out exists before the server starts: the redirection happens in the
# background child, which the port loop below may overtake.
: >"$work/server.out"
ossl s_server -accept 127.0.0.1:0 -naccept 1 -rev -tls1_2 -cipher "$suite" \
    -cert "$work/cert.pem" -key "$work/key.pem" >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
port=
for _ in $(seq $((wait_s * 10))); do
  port=$(sed -n 's/^ACCEPT 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$work/server.out")
  [ -n "$port" ] && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.err" >&2; fail "s_server exited"; }
  sleep 0.1
done
[ -n "$port" ] || { cat "$work/server.err" >&2; fail "s_server did not start within ${wait_s}s"; }
echo "s_server listening on 127.0.0.1:$port"

# -ign_eof: keep reading after the input ends, until the server closes.
timeout "$wait_s" $OPENSSL_BIN s_client -connect "127.0.0.1:$port" -tls1_2 -cipher "$suite" \
    -ign_eof -tlsextdebug <"$work/client.in" >"$work/client.out" 2>"$work/client.err" ||
  { cat "$work/client.err" >&2; fail "s_client failed"; }
for _ in $(seq $((wait_s * 10))); do
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 0.1
done
if kill -0 "$server_pid" 2>/dev/null; then fail "s_server still running after the session"; fi
wait "$server_pid" || fail "s_server exited with an error: $(cat "$work/server.err")"
server_pid=

grep -q "New, TLSv1.2, Cipher is $suite" "$work/client.out" ||
  fail "not a TLS 1.2 $suite session: $(grep -m1 '^New,' "$work/client.out" || true)"
grep -q 'TLS server extension "encrypt-then-mac"' "$work/client.out" ||
  fail "encrypt-then-MAC was not negotiated"
grep -q "Ciphersuite: $suite" "$work/server.out" "$work/server.err" || fail "server reports another suite"
grep ':ATAD$' "$work/client.out" >"$work/answers" || true
got=$(wc -l <"$work/answers")
cmp -s "$work/answers" "$work/expected" ||
  fail "data differs: $got of $lines lines came back, or with other contents"
echo "ok: $lines lines ($(wc -c <"$work/lines") bytes) each way over TLS 1.2 $suite with encrypt-then-MAC"
echo "PASS: tls_s_server"
