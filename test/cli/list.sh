#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CLI: `openssl list` shows exactly the 100 hwcipher ciphers (56 classic-mode,
# 44 authenticated/disk/key-wrap) and the provider's name/version/status.
set -euo pipefail

: "${OPENSSL_BIN:?OPENSSL_BIN not set}" "${OPENSSL_MODULES:?OPENSSL_MODULES not set}"
fail() { echo "FAIL: $*" >&2; exit 1; }
# -provider hwcipher alone would load nothing else; list must still show ours.
PROV=(-provider-path "$OPENSSL_MODULES" -provider hwcipher)

echo "== openssl list -cipher-algorithms -verbose ${PROV[*]}"
# shellcheck disable=SC2086  # OPENSSL_BIN may be "qemu-<arch> -cpu max .../openssl"
out=$($OPENSSL_BIN list -cipher-algorithms -verbose "${PROV[@]}" 2>&1) || { echo "$out"; fail "list failed"; }

# Provided entries look like "  { 2.16..., AES-128-CBC, AES128 } @ hwcipher" (or
# a bare name without braces); the Legacy: section never carries "@ provider".
hw_lines=$(grep -E '@ hwcipher[[:space:]]*$' <<<"$out" || true)
count=$(grep -c . <<<"$hw_lines" || true)
echo "hwcipher entries: $count"
[ "$count" -eq 100 ] || { echo "$hw_lines"; fail "expected 100 hwcipher algorithms, got $count"; }

expected=()
for fam in AES-128 AES-192 AES-256 SM4 TWOFISH-128 TWOFISH-192 TWOFISH-256; do
  for mode in ECB CBC CBC-CTS CFB CFB1 CFB8 OFB CTR; do expected+=("$fam-$mode"); done
done
for fam in AES-128 AES-192 AES-256; do
  for mode in GCM CCM OCB SIV GCM-SIV WRAP WRAP-PAD WRAP-INV WRAP-PAD-INV; do expected+=("$fam-$mode"); done
done
expected+=(AES-128-XTS AES-256-XTS SM4-GCM SM4-CCM SM4-OCB SM4-XTS TWOFISH-128-XTS TWOFISH-256-XTS)
for fam in TWOFISH-128 TWOFISH-192 TWOFISH-256; do
  for mode in GCM CCM OCB; do expected+=("$fam-$mode"); done
done
upper=$(tr '[:lower:]' '[:upper:]' <<<"$hw_lines")
missing=0
for name in "${expected[@]}"; do
  # Whole-name match inside the comma/brace separated list (AES-128-CBC must
  # not be satisfied by AES-128-CBC-CTS).
  if ! grep -qE "(^|[{ ,])$name([ ,}]|$)" <<<"$upper"; then
    echo "missing: $name"; missing=1
  fi
done
[ "$missing" -eq 0 ] || fail "some catalogue names are not listed"
echo "all ${#expected[@]} catalogue names listed"
# Aliases from the default-provider strings and the Twofish short names.
for alias in AES128 AES256 SM4 TWOFISH128 TWOFISH192 TWOFISH256; do
  grep -qE "(^|[{ ,])$alias([ ,}]|$)" <<<"$upper" || fail "alias $alias not listed"
done
echo "aliases listed"
# Descriptions name the core (e.g. "AES-128-CBC (aes-portable core)").
grep -qiE 'description:.*core' <<<"$out" || fail "no description mentions a core"
echo "descriptions mention a core"

echo "== openssl list -providers -verbose ${PROV[*]}"
# shellcheck disable=SC2086
prov=$($OPENSSL_BIN list -providers -verbose "${PROV[@]}" 2>&1) || { echo "$prov"; fail "list -providers failed"; }
echo "$prov"
grep -qE '^[[:space:]]*hwcipher[[:space:]]*$' <<<"$prov" || fail "provider hwcipher not listed"
grep -qiE 'name:.*hwcipher' <<<"$prov" || fail "no name: line for hwcipher"
grep -qiE 'version:[[:space:]]*[0-9]' <<<"$prov" || fail "no version: line"
grep -qiE 'status:[[:space:]]*active' <<<"$prov" || fail "status is not active"
# -verbose prints the build info: version, commit, the OpenSSL built against, the cores.
grep -qE 'build info: hwcipher [0-9.]+ \(git [0-9a-f+dirtyunknown]+, built against OpenSSL [0-9.]+, C\+\+[0-9]+\); cores aes=[a-z0-9-]+,sm4=[a-z0-9-]+,twofish=[a-z0-9-]+,ghash=[a-z0-9-]+$' <<<"$prov" ||
  fail "no build info line naming the cores"
echo "PASS: list"
