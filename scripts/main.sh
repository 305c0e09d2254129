#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# THE main job: build hwcipher natively and show it at work next to OpenSSL's
# default provider, in a few minutes and with figures a rerun confirms.
#   1. `openssl speed` per cipher, hwcipher (propquery provider=hwcipher) vs
#      default (provider=default), in the system's OpenSSL and in each newer
#      release scripts/openssl_release.sh can get (3.5, 3.6, 4.0; set
#      HWCIPHER_MAIN_OPENSSL to choose, empty for none), one table. Each
#      cell is the best of HWCIPHER_MAIN_RUNS (default 3) runs of
#      HWCIPHER_SPEED_SECONDS (default 1) each, the two providers taking
#      turns run by run: a busy host (a shared VM) only ever slows a run
#      down, so the best run is the steady figure, and alternating makes a
#      slow stretch hit both providers alike (scripts/bench_x86_speed.sh's
#      method). A single run per cell once printed 0.82x for a cipher that
#      reruns put at 1.18x.
#   2. what TLS gains: CPU seconds (both ends) per GiB of a TLS 1.3
#      AES-128-GCM transfer through the system's libssl, client and server
#      in one process (bench/bench_tls), with and without hwcipher
#      (scripts/bench_apps.sh --main: 1 GiB, best of 5 in turns). Through
#      real servers over the loopback (s_server, nginx), the kernel's copies
#      take most of the CPU and the ratio wanders by more than the cipher
#      changes it (0.79 to 1.06 in back-to-back runs of 256 MiB): those rows,
#      OpenSSH, openssl enc and small responses are scripts/bench_apps.sh.
#   3. a Twofish `openssl enc` round trip through the repository's config
#      test/openssl-cnf/prefer-hwcipher.cnf.
# The full x86_64 benchmark (every cipher, mode and direction, 16 KiB and
# 64 B, libgcrypt too) takes longer than this job may: it is its own command,
# scripts/bench_x86.sh. Each step that takes more than a few seconds says so
# first (on stderr); the logs of the builds and fetches, and the table as
# Markdown, go to build/main/. Nothing outside build/ is written.
# Exits non-zero if hwcipher could not serve a cipher or the round trip
# failed.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export DEBIAN_FRONTEND=noninteractive
start=$SECONDS
logs=$repo/build/main
mkdir -p "$logs"
step() { printf 'main.sh [%3ds]: %s\n' $(( SECONDS - start )) "$*" >&2; }
# Runs a command with its output in a log; on failure, the log's end.
logged() { # <log> <command...>
    local log=$1
    shift
    "$@" > "$log" 2>&1 || { tail -30 "$log" >&2; return 1; }
}

step "packages (scripts/deps.sh --native)"
logged "$logs/deps.log" bash scripts/deps.sh --native

# The newer releases are fetched while hwcipher builds (network vs CPU);
# 4.0 first, as it needs a build of its own afterwards.
wanted=${HWCIPHER_MAIN_OPENSSL-3.5 3.6 4.0}
fetch_order=$(tr ' ' '\n' <<< "$wanted" | sort -r | tr '\n' ' ')
(
    for rel in $fetch_order; do
        step "fetching OpenSSL $rel from Debian's newer suites (log: build/main/fetch-$rel.log)"
        if bash scripts/openssl_release.sh "$rel" > "$logs/fetch-$rel.log" 2>&1; then
            step "OpenSSL $rel fetched"
        else
            step "OpenSSL $rel could not be fetched (build/main/fetch-$rel.log)"
        fi
    done
) &
fetcher=$!

step "building hwcipher.so and bench_tls (scripts/build.sh native --target bench_tls; log: build/main/build-native.log)"
if ! logged "$logs/build-native.log" bash scripts/build.sh native --target bench_tls; then
    kill "$fetcher" 2> /dev/null || true
    echo "main.sh: the build failed" >&2
    exit 1
fi
mod=$repo/build/native
[[ -f "$mod/hwcipher.so" ]] || { echo "main.sh: $mod/hwcipher.so was not built" >&2; exit 1; }
wait "$fetcher" || true

OPENSSL=${OPENSSL:-openssl}
SECONDS_PER_RUN=${HWCIPHER_SPEED_SECONDS:-1}
RUNS=${HWCIPHER_MAIN_RUNS:-3}
BYTES=16384
status=0

# The releases to compare with (issue #14), each with the hwcipher.so that
# loads into it: "<release> <openssl command> <module dir>". A release that
# cannot be fetched or built against is left out, with a message.
releases=("$("$OPENSSL" version | awk '{ split($2, v, "."); print v[1] "." v[2] }') $OPENSSL $mod")
for rel in $wanted; do
    step "hwcipher for OpenSSL $rel (scripts/openssl_release.sh $rel --module build/native; a build of its own for 4.0; log: build/main/module-$rel.log)"
    if rmod=$(bash scripts/openssl_release.sh "$rel" --module "$mod" 2> "$logs/module-$rel.log"); then
        releases+=("$rel $repo/build/openssl-$rel-$(dpkg --print-architecture)/bin/openssl $rmod")
    else
        tail -5 "$logs/module-$rel.log" >&2
        echo "main.sh: OpenSSL $rel is not available here; left out" >&2
    fi
done

# Bytes per second of one `openssl speed` run, or nothing when it failed
# (e.g. the provider asked for has no such cipher).
speed() { # <openssl> <module dir> <propquery> <cipher>
    local out
    out=$(env -u OPENSSL_CONF -u HWCIPHER_CORES "$1" speed -mr -seconds "$SECONDS_PER_RUN" -bytes "$BYTES" \
              -provider-path "$2" -provider hwcipher -provider default \
              -propquery "$3" -evp "$4" 2>/dev/null) || return 0
    awk -F: '/^\+F:/ { print $4; exit }' <<< "$out"
}
best() { printf '%s\n' "$@" | awk 'NF && $1 > b { b = $1 } END { if (b > 0) print b }'; }
mbps() { [[ -n "$1" ]] && awk -v b="$1" 'BEGIN { printf "%.0f", b / 1e6 }' || echo "n/a"; }

# Rows: AES in the three modes most traffic uses, SM4 in two, Twofish (which
# OpenSSL does not have). AES-128-CBC encryption is one block after the
# other in any implementation: hwcipher and the default provider run the
# same AES-NI instructions there, so that row sits at parity (about 1.0x,
# either side of it from run to run).
ciphers=(aes-128-ctr aes-128-cbc aes-128-gcm sm4-cbc sm4-gcm twofish-256-cbc)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
declare -A cell=()
row_seconds=$(( ${#releases[@]} * 2 * RUNS * SECONDS_PER_RUN ))
for cipher in "${ciphers[@]}"; do
    step "openssl speed -evp $cipher in OpenSSL $(printf '%s\n' "${releases[@]}" | cut -d' ' -f1 | paste -sd' ' | sed 's/ /, /g'): 2 providers x $RUNS runs of $SECONDS_PER_RUN s CPU each (about $row_seconds s)"
    declare -A runs=()
    for ((i = 0; i < RUNS; ++i)); do
        for r in "${releases[@]}"; do
            read -r rel ossl rmod <<< "$r"
            runs[hw $rel]+=" $(speed "$ossl" "$rmod" provider=hwcipher "$cipher")"
            # No default provider has it (Twofish): asked once, not again.
            if (( i == 0 )) || [[ -n "${runs[def $rel]// /}" ]]; then
                runs[def $rel]+=" $(speed "$ossl" "$rmod" provider=default "$cipher")"
            fi
        done
    done
    for r in "${releases[@]}"; do
        rel=${r%% *}
        # shellcheck disable=SC2086  # the runs are words
        cell[$cipher hw $rel]=$(best ${runs[hw $rel]})
        # shellcheck disable=SC2086
        cell[$cipher def $rel]=$(best ${runs[def $rel]})
    done
    unset runs
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# The table: per release hwcipher and the default provider; the ratio is
# hwcipher's best over the best default provider of all the releases.
table=$logs/openssl-speed.md
{
    rev=$(git rev-parse --short HEAD 2> /dev/null || echo "?")
    [[ -z "$(git status --porcelain --untracked-files=no 2> /dev/null)" ]] || rev+="+dirty"
    echo "== openssl speed -evp <cipher> -bytes $BYTES -seconds $SECONDS_PER_RUN, encryption, MB/s (hw = hwcipher,"
    echo "   def = default provider, in OpenSSL $(for r in "${releases[@]}"; do
        read -r _ o _ <<< "$r"; "$o" version | cut -d' ' -f2; done | paste -sd' ' | sed 's/ /, /g'));"
    echo "   each cell the best of $RUNS runs, the two providers alternating run by run;"
    echo "   ratio: hwcipher's best / the best default provider's, over all releases."
    echo "   hwcipher $(sed -nE 's/^project\(hwcipher VERSION ([0-9.]+).*/\1/p' CMakeLists.txt) ($rev) on $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1),"
    echo "   $(nproc) CPUs, load average $load_before before the runs, $load_after after."
    echo
    printf '%-16s' cipher
    for r in "${releases[@]}"; do printf ' %7s %7s' "hw ${r%% *}" "def ${r%% *}"; done
    printf ' %7s\n' ratio
    for cipher in "${ciphers[@]}"; do
        printf '%-16s' "$cipher"
        hw_best="" def_best=""
        for r in "${releases[@]}"; do
            rel=${r%% *}
            hw=${cell[$cipher hw $rel]} def=${cell[$cipher def $rel]}
            if [[ -n "$def" ]]; then def_txt=$(mbps "$def"); else def_txt="(none)"; fi
            printf ' %7s %7s' "$(mbps "$hw")" "$def_txt"
            hw_best=$(best "$hw_best" "$hw") def_best=$(best "$def_best" "$def")
        done
        ratio="—"
        if [[ -n "$hw_best" && -n "$def_best" ]]; then
            ratio=$(awk -v a="$hw_best" -v b="$def_best" 'BEGIN { printf "%.2fx", a / b }')
            [[ "$cipher" == aes-128-cbc ]] && ratio+=" (parity: the same AES-NI instructions)"
        fi
        printf ' %7s\n' "$ratio"
    done
} > "$table"
echo
cat "$table"
for cipher in "${ciphers[@]}"; do
    for r in "${releases[@]}"; do
        [[ -n "${cell[$cipher hw ${r%% *}]}" ]] && continue
        echo "main.sh: hwcipher did not serve $cipher in OpenSSL ${r%% *}" >&2
        status=1
    done
done

# What a TLS server gains (issue #31): one bulk row of scripts/bench_apps.sh.
step "TLS 1.3 AES-128-GCM bulk through libssl 3.0, 1 GiB, with and without hwcipher, best of 5 (scripts/bench_apps.sh --main; about 15 s)"
echo
echo "== What TLS gains (scripts/bench_apps.sh --main; real servers, OpenSSH, enc: bash scripts/bench_apps.sh)"
bash scripts/bench_apps.sh --main 2> "$logs/bench-apps.log" || { tail -5 "$logs/bench-apps.log" >&2; status=1; }

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
if [[ "$(uname -m)" == x86_64 ]]; then
    echo
    echo "The full x86_64 benchmark (every cipher, mode and direction; libgcrypt too): bash scripts/bench_x86.sh"
fi
step "done in $(( SECONDS - start )) s"
exit $status
