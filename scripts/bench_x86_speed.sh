#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Issue #14's measurement, reproduced: hwcipher against the default provider
# inside a newer OpenSSL's own `openssl speed` (a release unpacked by
# scripts/openssl_release.sh, run on its own loader), AES-128-GCM and
# AES-256-GCM encryption:
#   - TLS-like: one whole message per buffer (-aead: IV set, AAD, update,
#     final, tag) at 64 B, 1 KiB and 16 KiB, and at 65 B and 1025 B, the
#     sizes of TLS 1.3 records of 64 B and 1 KiB (the content-type byte
#     follows the content), whose last block is partial;
#   - streaming: 16 KiB updates on one running context;
# each the median of N runs per provider, the two providers alternating run by
# run, and hwcipher ÷ default per row (> 1: hwcipher faster). Beside it, each
# provider's best run and the ratio of the bests: a busy host (a shared VM)
# only ever slows a run down, so the best of N is the steadier estimate of
# what each provider does undisturbed; the median is the issue's own method.
#
#   scripts/bench_x86_speed.sh [release]     # default 3.5
#
# The module is loaded with -provider-path (scripts/openssl_release.sh
# --module: the native build's hwcipher.so for 3.x, a build against the
# release for 4.0)
# and chosen with -propquery provider=hwcipher or provider=default; -evp comes
# last, as `openssl speed` reads the property query before it fetches.
# openssl speed counts user CPU time unless -elapsed is given.
# Environment: HWCIPHER_SPEED_SECONDS (one run, default 2), HWCIPHER_SPEED_RUNS
# (runs per provider, default 5), HWCIPHER_BENCH_NO_BUILD=1 (use build/native
# as it is), HWCIPHER_SPEED_BUILD=<dir> (take hwcipher.so from another native
# build directory, e.g. to compare two versions). Markdown on stdout.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
release=${1:-3.5}
seconds=${HWCIPHER_SPEED_SECONDS:-2}
runs=${HWCIPHER_SPEED_RUNS:-5}

if [[ "${HWCIPHER_BENCH_NO_BUILD:-0}" != 1 ]]; then
    bash scripts/build.sh native --target hwcipher >&2
fi
mod=$(bash scripts/openssl_release.sh "$release" --module "${HWCIPHER_SPEED_BUILD:-$repo/build/native}")
openssl=$repo/build/openssl-$release-amd64/bin/openssl
version=$("$openssl" version | sed 's/ (Library:.*//')

# Bytes per second of one run.
speed() { # <provider> <cipher> <bytes> [-aead]
    local out
    out=$(env -u OPENSSL_CONF -u HWCIPHER_CORES "$openssl" speed -mr -seconds "$seconds" \
              -bytes "$3" ${4:+"$4"} -provider-path "$mod" -provider hwcipher \
              -provider default -propquery "provider=$1" -evp "$2" 2> /dev/null) ||
        { echo "bench_x86_speed.sh: openssl speed failed for $1 $2 $3 ${4:-}" >&2; exit 1; }
    awk -F: '/^\+F:/ { print $4; exit }' <<< "$out"
}
median() { printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
best() { printf '%s\n' "$@" | sort -g | tail -1; }

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench_x86_speed.sh: $version, $runs runs of $seconds s per provider and row" >&2
rows=()
for cipher in aes-128-gcm aes-256-gcm; do
    for shape in "64 -aead" "65 -aead" "1024 -aead" "1025 -aead" "16384 -aead" "16384"; do
        read -r bytes aead <<< "$shape"
        hw=() def=()
        for ((i = 0; i < runs; ++i)); do
            hw+=("$(speed hwcipher "$cipher" "$bytes" "$aead")")
            def+=("$(speed default "$cipher" "$bytes" "$aead")")
        done
        h=$(median "${hw[@]}") d=$(median "${def[@]}")
        hb=$(best "${hw[@]}") db=$(best "${def[@]}")
        label=$([[ -n "$aead" ]] && echo "message per buffer (-aead)" || echo "streaming")
        rows+=("$(awk -v c="${cipher^^}" -v l="$label" -v b="$bytes" -v h="$h" -v d="$d" \
            -v hb="$hb" -v db="$db" 'BEGIN {
                printf "| %s | %s | %d | %.1f | %.1f | %.2f | %.1f | %.1f | %.2f |",
                       c, l, b, h / 1e6, d / 1e6, h / d, hb / 1e6, db / 1e6, hb / db }')")
        echo "  ${rows[-1]}" >&2
    done
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

echo "Inside $version's own \`openssl speed -mr -seconds $seconds -bytes N [-aead]"
echo "-provider-path <module> -provider hwcipher -provider default -propquery provider=P"
echo "-evp <cipher>\`, encryption; median and best of $runs runs per provider, the"
echo "providers alternating run by run; MB/s = 10^6 bytes per second of user CPU time."
echo "hwcipher: $("$openssl" list -cipher-algorithms -verbose -select AES-128-GCM -provider-path "$mod" \
    -provider hwcipher 2> /dev/null | sed -n 's/^ *description: *//p' | head -1)."
echo
echo "| cipher | shape | bytes | hwcipher MB/s (median) | default MB/s (median) | hwcipher ÷ default (medians) | hwcipher MB/s (best) | default MB/s (best) | hwcipher ÷ default (bests) |"
echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
printf '%s\n' "${rows[@]}"
echo
echo "CPU: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), $(nproc) logical CPUs;"
echo "load average $load_before before and $load_after after the run."
