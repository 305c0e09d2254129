#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CLI: the TLS suite matrix between `openssl s_server` and `s_client` on 127.0.0.1, both preferring hwcipher; each session echoes >= 1 MiB that must come back intact, and each end's HWCIPHER_TRACE must show hwcipher keying the suite's record cipher.
set -euo pipefail

: "${OPENSSL_BIN:?OPENSSL_BIN not set}" "${OPENSSL_MODULES:?OPENSSL_MODULES not set}"
: "${HWCIPHER_CNF_DIR:?HWCIPHER_CNF_DIR not set}"
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck disable=SC2086  # OPENSSL_BIN may be a command with arguments (qemu)
ossl() { $OPENSSL_BIN "$@"; }

wait_s=${HWCIPHER_TLS_WAIT:-120}   # bound on every wait below (QEMU is slow)
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
start=$SECONDS

# Throwaway identities, made now (no key material in the repository): RSA for
# the ECDHE-RSA suites (and TLS 1.3), ECDSA P-256 for the TLS 1.2 CCM suite.
ossl req -x509 -newkey rsa:2048 -nodes -keyout "$work/rsa.key" -out "$work/rsa.pem" \
    -subj /CN=localhost -days 1 2>/dev/null || fail "cannot make an RSA certificate"
ossl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/ec.key" \
    -out "$work/ec.pem" -subj /CN=localhost -days 1 2>/dev/null || fail "cannot make an ECDSA certificate"

# The data: 1 MiB of base64 in tagged lines, so the server's answers can be
# picked out of s_client's output. s_server -rev answers each line reversed
# and closes the connection on a line "CLOSE". Every line is a round trip
# (which under QEMU meets delayed ACKs), so lines are long: 8 KiB, half of
# s_server's 16 KiB line buffer.
line_len=${HWCIPHER_TLS_LINE:-8192}
head -c 786432 /dev/urandom | base64 -w "$line_len" | sed 's/^/DATA:/' >"$work/lines"
lines=$(wc -l <"$work/lines")
bytes=$(wc -c <"$work/lines")
(( bytes >= 1048576 )) || fail "test data is only $bytes bytes"
{ cat "$work/lines"; echo CLOSE; } >"$work/client.in"
awk '{ s = ""; for (i = length($0); i > 0; i--) s = s substr($0, i, 1); print s }' \
    "$work/lines" >"$work/expected"

export OPENSSL_CONF=$HWCIPHER_CNF_DIR/prefer-hwcipher.cnf

# Waits (bounded) for process $1 to exit; returns its status, 124 on timeout.
wait_bounded() {
  local pid=$1
  for _ in $(seq $((wait_s * 10))); do
    kill -0 "$pid" 2>/dev/null || { wait "$pid"; return; }
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  return 124
}

# Checks that trace file $1 has hwcipher keying $3 both ways in process $2.
check_trace() {
  local file=$1 pid=$2 alg=$3 side=$4 op
  [ -s "$file" ] || fail "$name: the $side's HWCIPHER_TRACE is empty (hwcipher not used)"
  for op in encrypt decrypt; do
    grep -Eq "^hwcipher-trace pid=$pid alg=$alg core=[^ ]+ op=$op\$" "$file" ||
      fail "$name: no '$alg $op' by pid $pid in the $side's trace: $(sort -u "$file" | tr '\n' ';')"
  done
}

# session NAME VERSION SUITE ALG CERT [extra s_client options...]
#   VERSION tls1_3 | tls1_2; ALG = hwcipher's primary name of the record cipher.
session() {
  local name=$1 version=$2 suite=$3 alg=$4 cert=$5
  shift 5
  local sel=(-cipher "$suite")
  [ "$version" = tls1_3 ] && sel=(-ciphersuites "$suite")
  # OpenSSL 3.5 enables the 8-byte-tag CCM_8 suite only at security level 0
  # (3.0 at any level): ask for level 0 on both ends for that one.
  [[ "$suite" == *CCM_8* ]] && sel+=(-cipher 'DEFAULT:@SECLEVEL=0')
  local s=$work/$name
  # Created before the server starts: the redirection below happens in the
  # background child, which the port loop may overtake.
  : >"$s.server.out"
  # -no_ticket: session tickets are sealed with AES-256-CBC, which would blur
  # the trace check for a CBC suite.
  # shellcheck disable=SC2086
  HWCIPHER_TRACE=$s.server.trace $OPENSSL_BIN s_server -accept 127.0.0.1:0 -naccept 1 -rev \
      -no_ticket "-$version" "${sel[@]}" -cert "$work/$cert.pem" -key "$work/$cert.key" \
      >"$s.server.out" 2>"$s.server.err" &
  local server_pid=$!
  pids+=("$server_pid")
  # Port 0: the kernel picks a free port, which s_server prints as "ACCEPT host:port".
  local port=
  for _ in $(seq $((wait_s * 10))); do
    port=$(sed -n 's/^ACCEPT 127\.0\.0\.1:\([0-9][0-9]*\).*/\1/p' "$s.server.out")
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$s.server.err" >&2; fail "$name: s_server exited"; }
    sleep 0.1
  done
  [ -n "$port" ] || fail "$name: s_server did not start within ${wait_s}s"

  # -ign_eof: keep reading after the input ends, until the server closes.
  # shellcheck disable=SC2086
  HWCIPHER_TRACE=$s.client.trace $OPENSSL_BIN s_client -connect "127.0.0.1:$port" "-$version" \
      "${sel[@]}" -ign_eof -tlsextdebug "$@" <"$work/client.in" >"$s.client.out" 2>"$s.client.err" &
  local client_pid=$!
  pids+=("$client_pid")
  wait_bounded "$client_pid" || { cat "$s.client.err" >&2; fail "$name: s_client failed or timed out"; }
  wait_bounded "$server_pid" || { cat "$s.server.err" >&2; fail "$name: s_server failed or did not exit"; }

  local proto=TLSv1.2
  [ "$version" = tls1_3 ] && proto=TLSv1.3
  grep -q "^New, $proto, Cipher is $suite\$" "$s.client.out" ||
    fail "$name: not a $proto $suite session: $(grep -m1 '^New,' "$s.client.out" || true)"
  grep ':ATAD$' "$s.client.out" >"$s.answers" || true
  cmp -s "$s.answers" "$work/expected" ||
    fail "$name: data differs: $(wc -l <"$s.answers") of $lines lines came back, or with other contents"
  # For the CBC suites: which MAC order was negotiated (the caller checks it).
  etm=
  if [ "$version" = tls1_2 ] && [[ "$alg" == *-CBC ]]; then
    if grep -q 'TLS server extension "encrypt-then-mac"' "$s.client.out"; then etm=" (encrypt-then-MAC)"; else etm=" (MAC-then-encrypt)"; fi
  fi
  check_trace "$s.server.trace" "$server_pid" "$alg" server
  check_trace "$s.client.trace" "$client_pid" "$alg" client
  echo "ok: $name: $proto $suite$etm, $bytes bytes each way; trace: server $(grep -c "alg=$alg " "$s.server.trace") and client $(grep -c "alg=$alg " "$s.client.trace") keyed $alg contexts ($(grep -m1 -o 'core=[^ ]*' "$s.server.trace"))"
}
etm=

session t13-aes128gcm tls1_3 TLS_AES_128_GCM_SHA256 AES-128-GCM rsa
session t13-aes256gcm tls1_3 TLS_AES_256_GCM_SHA384 AES-256-GCM rsa
session t13-aes128ccm tls1_3 TLS_AES_128_CCM_SHA256 AES-128-CCM rsa
session t13-aes128ccm8 tls1_3 TLS_AES_128_CCM_8_SHA256 AES-128-CCM rsa
session t12-aes128gcm tls1_2 ECDHE-RSA-AES128-GCM-SHA256 AES-128-GCM rsa
session t12-aes256gcm tls1_2 ECDHE-RSA-AES256-GCM-SHA384 AES-256-GCM rsa
session t12-aes128ccm tls1_2 ECDHE-ECDSA-AES128-CCM AES-128-CCM ec
session t12-cbc-etm tls1_2 ECDHE-RSA-AES128-SHA256 AES-128-CBC rsa
[ "$etm" = " (encrypt-then-MAC)" ] || fail "t12-cbc-etm: encrypt-then-MAC was not negotiated"

# MAC-then-encrypt: libssl prefers a stitched CBC-HMAC cipher when some
# provider has one (the default provider does on x86 with AES-NI), and then
# hwcipher never sees the records. No stitched SHA-384 cipher exists, so
# there the SHA-384 suite is the one that reaches hwcipher's CBC record mode.
mte_suite=ECDHE-RSA-AES128-SHA256 mte_alg=AES-128-CBC
if ossl list -cipher-algorithms 2>/dev/null | grep -q 'AES-128-CBC-HMAC-SHA256 @ default'; then
  mte_suite=ECDHE-RSA-AES256-SHA384 mte_alg=AES-256-CBC
  echo "note: the default provider has stitched AES-128-CBC-HMAC-SHA256; MAC-then-encrypt runs $mte_suite"
fi
session t12-cbc-mte tls1_2 "$mte_suite" "$mte_alg" rsa -no_etm
[ "$etm" = " (MAC-then-encrypt)" ] || fail "t12-cbc-mte: encrypt-then-MAC was negotiated despite -no_etm"

echo "PASS: tls_matrix ($((SECONDS - start)) s)"
