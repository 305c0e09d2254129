#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CLI: `openssl enc` round trips and known answers through hwcipher, by -provider flags and by OPENSSL_CONF.
set -euo pipefail

: "${OPENSSL_BIN:?OPENSSL_BIN not set}" "${OPENSSL_MODULES:?OPENSSL_MODULES not set}"
: "${HWCIPHER_CNF_DIR:?HWCIPHER_CNF_DIR not set}"
fail() { echo "FAIL: $*" >&2; exit 1; }
HW=(-provider-path "$OPENSSL_MODULES" -provider hwcipher -provider default -propquery provider=hwcipher)
DEF=(-provider-path "$OPENSSL_MODULES" -provider hwcipher -provider default -propquery provider=default)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
unhex() { printf '%b' "$(sed 's/../\\x&/g' <<<"$1")"; }
tohex() { od -An -v -tx1 | tr -d ' \n'; }
# shellcheck disable=SC2086  # OPENSSL_BIN may be a command with arguments (qemu)
ossl() { $OPENSSL_BIN "$@"; }

# --- round trips on a random file, odd length so padding is exercised --------
head -c 100003 /dev/urandom >"$work/plain"
key128=000102030405060708090a0b0c0d0e0f
key256=${key128}101112131415161718191a1b1c1d1e1f
iv=f0e0d0c0b0a090807060504030201000
for spec in aes-128-cbc:$key128 aes-256-ctr:$key256 sm4-cbc:$key128 sm4-cfb:$key128 \
            twofish-128-cbc:$key128 twofish-256-ofb:$key256 twofish-192-cfb8:${key128}0001020304050607; do
  cipher=${spec%%:*} key=${spec#*:}
  echo "== round trip $cipher (hwcipher)"
  ossl enc -"$cipher" -K "$key" -iv "$iv" "${HW[@]}" -in "$work/plain" -out "$work/ct"
  ossl enc -d -"$cipher" -K "$key" -iv "$iv" "${HW[@]}" -in "$work/ct" -out "$work/back"
  cmp -s "$work/plain" "$work/back" || fail "$cipher round trip differs"
  case $cipher in
    aes-*|sm4-cbc|sm4-cfb)
      # The default provider has these: its ciphertext must be identical.
      ossl enc -"$cipher" -K "$key" -iv "$iv" "${DEF[@]}" -in "$work/plain" -out "$work/ct.def"
      cmp -s "$work/ct" "$work/ct.def" || fail "$cipher: hwcipher and default ciphertexts differ"
      echo "   identical to the default provider";;
  esac
done

# --- known answers (-nopad, hex in/out) ---------------------------------------
kat() { # label cipher key iv pt ct [env...]
  local label=$1 cipher=$2 key=$3 iv=$4 pt=$5 ct=$6; shift 6
  local ivopt=(); [ -n "$iv" ] && ivopt=(-iv "$iv")
  unhex "$pt" >"$work/kat.in"
  got=$(ossl enc -"$cipher" -nopad -K "$key" "${ivopt[@]}" "$@" -in "$work/kat.in" | tohex)
  [ "$got" = "$ct" ] || fail "$label: got $got want $ct"
  unhex "$ct" >"$work/kat.ct"
  back=$(ossl enc -d -"$cipher" -nopad -K "$key" "${ivopt[@]}" "$@" -in "$work/kat.ct" | tohex)
  [ "$back" = "$pt" ] || fail "$label decrypt: got $back want $pt"
  echo "ok: $label"
}
# SP 800-38A F.2.1 CBC-AES128.Encrypt, blocks 1-2.
kat "AES-128-CBC SP 800-38A F.2.1" aes-128-cbc 2b7e151628aed2a6abf7158809cf4f3c 000102030405060708090a0b0c0d0e0f \
    6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51 \
    7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2 "${HW[@]}"
# GB/T 32907-2016 Example 1.
kat "SM4-ECB GB/T 32907-2016 A.1" sm4-ecb 0123456789abcdeffedcba9876543210 "" \
    0123456789abcdeffedcba9876543210 681edf34d206965e86b3e94f536e4246 "${HW[@]}"
# ECB_TBL.TXT KEYSIZE=128 I=1 and I=2 (zero key): with a zero IV and two zero
# blocks, CBC gives CT(I=1) || CT(I=2), since block 2 encrypts CT(I=1).
tf_cbc_ct=9f589f5cf6122c32b6bfec2f2ae8c35ad491db16e7b1c39e86cb086b789f5419
kat "TWOFISH-128-CBC from ECB_TBL I=1,2" twofish-128-cbc 00000000000000000000000000000000 \
    00000000000000000000000000000000 $(printf '0%.0s' {1..64}) $tf_cbc_ct "${HW[@]}"
# ECB_TBL.TXT KEYSIZE=256 I=1.
kat "TWOFISH-256-ECB ECB_TBL I=1" twofish-256-ecb $(printf '0%.0s' {1..64}) "" \
    00000000000000000000000000000000 57ff739d4dc92c1bd7fc01700cc8216f "${HW[@]}"

# --- once through the configuration file only ---------------------------------
echo "== OPENSSL_CONF=$HWCIPHER_CNF_DIR/prefer-hwcipher.cnf (no -provider flags)"
export OPENSSL_CONF=$HWCIPHER_CNF_DIR/prefer-hwcipher.cnf
# The trace proves hwcipher, not the default provider, served AES below.
export HWCIPHER_TRACE=$work/conf.trace
# Twofish exists only in hwcipher, so success proves the config loaded it.
kat "TWOFISH-128-CBC via OPENSSL_CONF" twofish-128-cbc 00000000000000000000000000000000 \
    00000000000000000000000000000000 $(printf '0%.0s' {1..64}) $tf_cbc_ct
kat "AES-128-CBC via OPENSSL_CONF" aes-128-cbc 2b7e151628aed2a6abf7158809cf4f3c 000102030405060708090a0b0c0d0e0f \
    6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51 \
    7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2
for op in encrypt decrypt; do
  grep -q "alg=AES-128-CBC core=[^ ]* op=$op\$" "$work/conf.trace" ||
    fail "AES-128-CBC via OPENSSL_CONF: hwcipher's trace has no $op (another provider served it)"
done
echo "ok: the trace shows hwcipher keyed AES-128-CBC both ways"
unset OPENSSL_CONF HWCIPHER_TRACE

# --- bad input must fail with a message ----------------------------------------
expect_fail() { # label pattern cmd...
  local label=$1 pattern=$2; shift 2
  if out=$("$@" 2>&1); then echo "$out"; fail "$label: succeeded"; fi
  grep -qiE "$pattern" <<<"$out" || { echo "$out"; fail "$label: no matching error message"; }
  echo "ok: $label fails: $(grep -iE "$pattern" <<<"$out" | head -1)"
}
# enc pads a short/odd -K with zeros (warning only) and never hands the
# provider a wrong key length; a non-hex -K is the key error it rejects.
out=$(ossl enc -aes-128-cbc -K abc -iv "$iv" "${HW[@]}" -in "$work/kat.in" 2>&1 >/dev/null) || true
grep -qi 'too short' <<<"$out" || fail "odd-size -K: expected the 'hex string is too short' warning, got: $out"
echo "ok: odd-size -K warns: $out"
expect_fail "non-hex -K" 'non-hex|invalid hex key' ossl enc -twofish-128-cbc -K 0g -iv "$iv" "${HW[@]}" \
    -in "$work/kat.in" -out "$work/x"
# Bad padding: 32 zero bytes encrypted without padding decrypt (with padding
# on) to a last byte of 0, which is never valid PKCS#7 -- deterministic.
head -c 32 /dev/zero >"$work/zeros"
for spec in sm4-cbc:$key128 twofish-256-cbc:$key256 aes-192-ecb:${key128}0001020304050607; do
  cipher=${spec%%:*} key=${spec#*:}
  ossl enc -"$cipher" -nopad -K "$key" -iv "$iv" "${HW[@]}" -in "$work/zeros" -out "$work/ct"
  expect_fail "$cipher bad padding" 'bad decrypt' ossl enc -d -"$cipher" -K "$key" -iv "$iv" "${HW[@]}" \
      -in "$work/ct" -out "$work/x"
done
echo "PASS: enc"
