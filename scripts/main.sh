#!/usr/bin/env bash
# THE main job: build hwcipher natively and show it at work next to OpenSSL's
# default provider.
#   1. `openssl speed` per cipher, hwcipher (propquery provider=hwcipher) vs
#      default (provider=default), in the system's OpenSSL and in each newer
#      release scripts/openssl_release.sh can get (3.5, 3.6, 4.0; set
#      HWCIPHER_MAIN_OPENSSL to choose, empty for none), one table;
#   2. a Twofish `openssl enc` round trip through the repository's config
#      test/openssl-cnf/prefer-hwcipher.cnf;
#   3. on x86_64, scripts/bench_x86.sh: every cipher, mode and direction at
#      16 KiB and 64 B, hwcipher vs the default providers of the same
#      releases vs libgcrypt, with the ratio chart (skip with
#      HWCIPHER_MAIN_BENCH=0).
# Exits non-zero if hwcipher could not serve a cipher, the round trip failed
# or the benchmark could not run.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export DEBIAN_FRONTEND=noninteractive

bash scripts/deps.sh --native
bash scripts/build.sh native --target hwcipher
mod=$repo/build/native
[[ -f "$mod/hwcipher.so" ]] || { echo "main.sh: $mod/hwcipher.so was not built" >&2; exit 1; }

OPENSSL=${OPENSSL:-openssl}
SECONDS_PER_RUN=${HWCIPHER_SPEED_SECONDS:-1}
BYTES=16384
status=0

echo
echo "== $("$OPENSSL" version) | hwcipher $(sed -nE 's/^project\(hwcipher VERSION ([0-9.]+).*/\1/p' CMakeLists.txt) | $(uname -m)"

# The newer OpenSSL releases to compare with (issue #14), each with the
# hwcipher.so that loads into it: "<release> <openssl command> <module dir>".
# A release that cannot be fetched is left out.
releases=("$("$OPENSSL" version | awk '{ split($2, v, "."); print v[1] "." v[2] }') $OPENSSL $mod")
for rel in ${HWCIPHER_MAIN_OPENSSL-3.5 3.6 4.0}; do
    if rmod=$(bash scripts/openssl_module.sh "$rel" "$mod" 2> /dev/null); then
        releases+=("$rel $repo/build/openssl-$rel-$(dpkg --print-architecture)/bin/openssl $rmod")
    else
        echo "main.sh: OpenSSL $rel is not available here; left out" >&2
    fi
done

# Bytes per second of one `openssl speed` run, or nothing when it failed
# (e.g. the provider asked for has no such cipher).
speed() { # <openssl> <module dir> <propquery> <cipher>
    local out
    out=$(env -u OPENSSL_CONF "$1" speed -mr -seconds "$SECONDS_PER_RUN" -bytes "$BYTES" \
              -provider-path "$2" -provider hwcipher -provider default \
              -propquery "$3" -evp "$4" 2>/dev/null) || return 0
    awk -F: '/^\+F:/ { print $4; exit }' <<< "$out"
}
mbps() { [[ -n "$1" ]] && awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }' || echo "n/a"; }

# Per release R: hwcipher loaded into R's openssl speed, then R's default
# provider; "speedup" is hwcipher over the default provider in the same
# release, the smallest over the releases (so against the best of them).
echo
echo "== openssl speed -evp <cipher> -bytes $BYTES -seconds $SECONDS_PER_RUN (encrypt, MB/s; hw = hwcipher, def = default provider)"
printf '%-17s' cipher
for r in "${releases[@]}"; do printf ' %9s %9s' "hw ${r%% *}" "def ${r%% *}"; done
printf ' %9s\n' speedup
for cipher in aes-128-ctr aes-128-cbc aes-128-gcm sm4-cbc sm4-gcm twofish-256-cbc; do
    printf '%-17s' "$cipher"
    ratio=""
    for r in "${releases[@]}"; do
        read -r _ ossl rmod <<< "$r"
        hw=$(speed "$ossl" "$rmod" provider=hwcipher "$cipher")
        def=$(speed "$ossl" "$rmod" provider=default "$cipher")
        [[ -n "$def" ]] && def_txt=$(mbps "$def") || def_txt="(none)"
        printf ' %9s %9s' "$(mbps "$hw")" "$def_txt"
        [[ -n "$hw" ]] || { echo; echo "   ^ hwcipher did not serve $cipher in ${r%% *}" >&2; status=1; }
        if [[ -n "$hw" && -n "$def" ]]; then
            ratio=$(awk -v a="$hw" -v b="$def" -v r="$ratio" 'BEGIN { q = a / b; if (r != "" && r + 0 < q) q = r; printf "%.2f", q }')
        fi
    done
    printf ' %9s\n' "${ratio:+${ratio}x}"
done
echo
echo "== Twofish round trip with OPENSSL_CONF=test/openssl-cnf/prefer-hwcipher.cnf"
export OPENSSL_CONF=$repo/test/openssl-cnf/prefer-hwcipher.cnf
export OPENSSL_MODULES=$mod
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'Twofish through hwcipher: the quick brown fox jumps over the lazy dog.\n' > "$tmp/plain.txt"
run() { echo "+ ${*//$tmp\//}"; "$@"; }
if run "$OPENSSL" enc -e -twofish-256-cbc -pbkdf2 -pass pass:hwcipher-demo -in "$tmp/plain.txt" -out "$tmp/cipher.bin" &&
   run "$OPENSSL" enc -d -twofish-256-cbc -pbkdf2 -pass pass:hwcipher-demo -in "$tmp/cipher.bin" -out "$tmp/back.txt"; then
    echo "ciphertext ($(stat -c %s "$tmp/cipher.bin") bytes): $(od -An -tx1 -N32 "$tmp/cipher.bin" | tr -d ' \n')..."
    echo "decrypted : $(cat "$tmp/back.txt")"
    if cmp -s "$tmp/plain.txt" "$tmp/back.txt"; then
        echo "round trip: OK, plaintext recovered"
    else
        echo "round trip: FAILED, plaintext differs"; status=1
    fi
else
    echo "round trip: FAILED, openssl enc failed"; status=1
fi
echo
echo "providers loaded by the config:"
"$OPENSSL" list -providers | sed 's/^/  /'
echo "who serves TWOFISH-256-CBC (the provider after '@'):"
"$OPENSSL" list -cipher-algorithms -select TWOFISH-256-CBC 2>&1 | sed -n '/Provided:/,$p' | sed 's/^/  /'

if [[ "$(uname -m)" == x86_64 && "${HWCIPHER_MAIN_BENCH:-1}" != 0 ]]; then
    echo
    echo "== scripts/bench_x86.sh: hwcipher vs the default providers vs libgcrypt"
    unset OPENSSL_CONF OPENSSL_MODULES
    # The chart goes to the build directory: the main job leaves the tree
    # as it found it (bench/results/ holds the README's copy).
    HWCIPHER_BENCH_PNG=${HWCIPHER_BENCH_PNG:-$mod/bench-x86/x86_64-ratios.png} \
    HWCIPHER_BENCH_OPENSSL=${HWCIPHER_BENCH_OPENSSL-${HWCIPHER_MAIN_OPENSSL-3.5 3.6 4.0}} \
        bash scripts/bench_x86.sh || { echo "main.sh: the x86_64 benchmark failed" >&2; status=1; }
fi
exit $status
