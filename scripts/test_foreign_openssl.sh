#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Programs that carry their own OpenSSL (README "Programs with their own
# OpenSSL"): checks, with whatever is installed on this machine, that
#   - a Python `cryptography` wheel (static OpenSSL) uses hwcipher with
#     OPENSSL_CONF + OPENSSL_MODULES, and not with OPENSSL_CONF alone;
#   - Node.js uses it with --openssl-shared-config + OPENSSL_MODULES, and not
#     without the flag.
# "used" = hwcipher's trace shows the AES-128-CBC context the program keyed.
# A program that is not installed is reported as not checked (not as passed).
# On demand, not in CI (neither program is a dependency of the project).
#
#   scripts/test_foreign_openssl.sh [build dir, default build/native]
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mod=$(cd "${1:-$repo/build/native}" && pwd)
cnf=$repo/test/openssl-cnf/prefer-hwcipher.cnf
[[ -f "$mod/hwcipher.so" ]] || { echo "no $mod/hwcipher.so (scripts/build.sh native)"; exit 1; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
passed=0 failed=0 unchecked=0

# used <label> <expect yes|no> <command...>: runs it with the trace on
used() {
    local label=$1 want=$2; shift 2
    rm -f "$t/trace"
    if ! HWCIPHER_TRACE=$t/trace OPENSSL_CONF=$cnf "$@" > "$t/out" 2>&1; then
        cat "$t/out"; echo "FAIL: $label: the program failed"; failed=$((failed + 1)); return
    fi
    local got=no
    grep -q 'alg=AES-128-CBC ' "$t/trace" 2> /dev/null && got=yes
    if [[ $got == "$want" ]]; then echo "ok: $label: hwcipher used: $got"; passed=$((passed + 1))
    else echo "FAIL: $label: hwcipher used: $got, expected $want"; failed=$((failed + 1)); fi
}

py='from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes
e = Cipher(algorithms.AES(bytes(16)), modes.CBC(bytes(16))).encryptor(); e.update(bytes(32)); e.finalize()'
if python3 -c 'import cryptography' 2> /dev/null; then
    echo "== Python cryptography $(python3 -c 'import cryptography; print(cryptography.__version__)'), $(python3 -c 'from cryptography.hazmat.backends.openssl import backend; print(backend.openssl_version_text())')"
    used "python, OPENSSL_CONF only" no env -u OPENSSL_MODULES python3 -c "$py"
    used "python, OPENSSL_CONF + OPENSSL_MODULES" yes env OPENSSL_MODULES="$mod" python3 -c "$py"
else
    echo "not checked: no Python cryptography module"; unchecked=$((unchecked + 1))
fi

js='const c = require("crypto"); const x = c.createCipheriv("aes-128-cbc", Buffer.alloc(16), Buffer.alloc(16)); x.update("hi"); x.final();'
if command -v node > /dev/null; then
    echo "== Node.js $(node -v), OpenSSL $(node -p process.versions.openssl)"
    used "node, OPENSSL_MODULES without --openssl-shared-config" no env OPENSSL_MODULES="$mod" node -e "$js"
    used "node --openssl-shared-config, no OPENSSL_MODULES" no env -u OPENSSL_MODULES node --openssl-shared-config -e "$js"
    used "node --openssl-shared-config + OPENSSL_MODULES" yes env OPENSSL_MODULES="$mod" node --openssl-shared-config -e "$js"
else
    echo "not checked: no node"; unchecked=$((unchecked + 1))
fi
echo "foreign-openssl: $passed passed, $failed failed, $unchecked not checked"
exit $(( failed > 0 ))
