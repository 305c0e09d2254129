#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CLI: the openssl command the CLI tests drive is the release the run is for
# (HWCIPHER_OPENSSL_VERSION: the module's headers' OPENSSL_VERSION_STR, or in
# scripts/test.sh's matrix the release of the same ABI it runs on), and its
# own library is too.
set -euo pipefail

: "${OPENSSL_BIN:?OPENSSL_BIN not set}" "${HWCIPHER_OPENSSL_VERSION:?HWCIPHER_OPENSSL_VERSION not set}"
fail() { echo "FAIL: $*" >&2; exit 1; }
# shellcheck disable=SC2086  # OPENSSL_BIN may be a command with arguments (qemu, a loader)
out=$($OPENSSL_BIN version) || fail "openssl version failed"
echo "openssl version: $out; run for $HWCIPHER_OPENSSL_VERSION"
# "OpenSSL 3.5.9 29 Sep 2026" (and, when the library differs from the
# command's build: "(Library: OpenSSL ...)").
[[ "$out" =~ ^OpenSSL\ ([0-9]+\.[0-9]+\.[0-9]+) ]] || fail "unexpected output: $out"
[ "${BASH_REMATCH[1]}" = "$HWCIPHER_OPENSSL_VERSION" ] ||
  fail "openssl is ${BASH_REMATCH[1]}, the run is for $HWCIPHER_OPENSSL_VERSION"
if [[ "$out" =~ Library:\ OpenSSL\ ([0-9]+\.[0-9]+\.[0-9]+) ]]; then
  [ "${BASH_REMATCH[1]}" = "$HWCIPHER_OPENSSL_VERSION" ] ||
    fail "openssl runs on library ${BASH_REMATCH[1]}, the run is for $HWCIPHER_OPENSSL_VERSION"
fi
echo "PASS: openssl_version"
