#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CLI: `openssl speed -evp twofish-256-cbc` runs on hwcipher and prints a result line (timings not asserted).
set -euo pipefail

: "${OPENSSL_BIN:?OPENSSL_BIN not set}" "${OPENSSL_MODULES:?OPENSSL_MODULES not set}"
fail() { echo "FAIL: $*" >&2; exit 1; }
PROV=(-provider-path "$OPENSSL_MODULES" -provider hwcipher -provider default -propquery provider=hwcipher)

# 3.0 speed has -seconds and -bytes (checked with `openssl speed -help`).
for cipher in twofish-256-cbc sm4-ctr; do
  echo "== openssl speed -seconds 1 -bytes 1024 ${PROV[*]} -evp $cipher"
  # shellcheck disable=SC2086
  out=$($OPENSSL_BIN speed -seconds 1 -bytes 1024 "${PROV[@]}" -evp "$cipher" 2>&1) || {
    echo "$out"; fail "speed -evp $cipher exited non-zero"; }
  echo "$out"
  # Result table row: the cipher name followed by a throughput ending in "k".
  grep -qiE "^$cipher[[:space:]]+[0-9.]+k" <<<"$out" || fail "no result line for $cipher"
  # OpenSSL error lines look like "<hex>:error:<code>:..." (the build flags line mentions -Werror).
  if grep -qiE '^[0-9a-f]+:error:|unsupported' <<<"$out"; then fail "speed printed an error for $cipher"; fi
done
echo "PASS: speed"
