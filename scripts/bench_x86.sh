#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The x86_64 benchmark (issue #6, item 7; newer releases: issue #14): in one
# run, every (cipher, mode, direction) hwcipher offers, at 16 KiB and at 64
# bytes, timed through
#   - hwcipher via EVP (fetched with provider=hwcipher, from build/native) and
#     OpenSSL's default provider via EVP (provider=default), both in the
#     system's libcrypto (Debian 12: 3.0) and in each newer release
#     scripts/openssl_release.sh can get (3.5, 3.6, 4.0), each release in a
#     peer process on its own loader (bench/bench_x86_peer.cpp);
#   - libgcrypt through its own gcry_cipher API (the independent anchor),
#   - for the 64-byte and TLS-shaped messages, the EVP floor in each
#     libcrypto: a built-in provider that does no cryptography
#     (bench/bench_x86_floor.cpp), so that EVP's own share of a message shows,
# as ns/B (and hwcipher's cycles/B), with hwcipher's speed over the best of
# the others per row, then a PNG bar chart of those ratios. A benchmark, not
# a test: it fails only when something could not run (a release that cannot
# be fetched is left out, with a message).
#
#   scripts/bench_x86.sh           # Markdown on stdout, progress on stderr
#
# The whole result also goes to docs/benchmarks/x86_64.md (HWCIPHER_BENCH_DOC
# names another file, empty for none), headed by the machine, date, commit
# and this command (scripts/bench_doc.sh): a rerun replaces it. Timing wants a
# quiet machine.
#
# Method (details at the top of bench/bench_x86.cpp): thread CPU time of
# calibrated batches (about HWCIPHER_BENCH_MS ms each), the fastest of 10 per
# repetition, median of 3 repetitions; all implementations take turns
# batch by batch so load changes hit them alike; cycles
# come from a clock estimated with a dependent-add chain, since VMs seldom
# expose a cycle counter. Before timing, every implementation of a case must
# give the same output and tag.
#
# Environment: HWCIPHER_BENCH_OPENSSL (the newer releases, default "3.5 3.6
# 4.0"; empty: only the system's), HWCIPHER_BENCH_MS (one batch, default 2),
# HWCIPHER_BENCH_ONLY (a
# substring of the EVP name, e.g. AES-128-GCM, to run a subset),
# HWCIPHER_BENCH_PNG (default bench/results/x86_64-ratios.png),
# HWCIPHER_BENCH_BUILD (build directory, default build/native, built with
# scripts/build.sh native; another directory gets the same configuration),
# HWCIPHER_BENCH_NO_BUILD=1 (run what is already built there),
# HWCIPHER_JOBS (build parallelism, default 2).
# Installs what it needs (scripts/deps.sh --native); tables and chart data
# also go to <build>/bench-x86/.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export DEBIAN_FRONTEND=noninteractive

if [[ "$(uname -m)" != x86_64 ]]; then
    echo "bench_x86.sh: this is the x86_64 benchmark; this machine is $(uname -m)" >&2
    exit 2
fi

# shellcheck source=scripts/bench_doc.sh
source scripts/bench_doc.sh
bench_doc_start bench_x86.sh HWCIPHER_BENCH_OPENSSL HWCIPHER_BENCH_MS HWCIPHER_BENCH_ONLY \
    HWCIPHER_BENCH_PNG HWCIPHER_BENCH_BUILD HWCIPHER_BENCH_NO_BUILD HWCIPHER_BENCH_DOC

bash scripts/deps.sh --native >&2
build=${HWCIPHER_BENCH_BUILD:-$repo/build/native}
if [[ "${HWCIPHER_BENCH_NO_BUILD:-0}" == 1 ]]; then
    [[ -x "$build/bench/bench_x86" && -f "$build/hwcipher.so" ]] ||
        { echo "bench_x86.sh: HWCIPHER_BENCH_NO_BUILD=1, but $build lacks a build" >&2; exit 1; }
elif [[ "$build" == "$repo/build/native" ]]; then
    bash scripts/build.sh native --target bench_x86 >&2
else  # the same configuration in a build directory of the caller's choice
    cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHWCIPHER_WERROR=ON >&2
    cmake --build "$build" -j"${HWCIPHER_JOBS:-2}" --target bench_x86 >&2
fi
out=$build/bench-x86
mkdir -p "$out"
png=${HWCIPHER_BENCH_PNG:-$repo/bench/results/x86_64-ratios.png}
mkdir -p "$(dirname "$png")"

args=(--modules "$build" --ms "${HWCIPHER_BENCH_MS:-2}" --chart "$out/ratios.dat")
[[ -n "${HWCIPHER_BENCH_ONLY:-}" ]] && args+=(--only "$HWCIPHER_BENCH_ONLY")

# One peer per newer release: a wrapper that runs bench_x86_peer (with the
# hwcipher.so that loads there: scripts/openssl_release.sh --module) on that
# release's loader and libraries.
for rel in ${HWCIPHER_BENCH_OPENSSL-3.5 3.6 4.0}; do
    echo "bench_x86.sh: OpenSSL $rel: fetching, and building what runs against it" >&2
    if ! mod=$(bash scripts/openssl_release.sh "$rel" --module "$build" --target bench_x86_peer); then
        echo "bench_x86.sh: OpenSSL $rel is not available here; left out" >&2
        continue
    fi
    peer=$out/peer-$rel.sh
    cat > "$peer" <<EOF
#!/usr/bin/env bash
source "$repo/build/openssl-$rel-amd64/env.sh"
exec "\${OSSL_RUN[@]}" "$mod/bench/bench_x86_peer" --modules "$mod"
EOF
    chmod +x "$peer"
    args+=(--peer "$peer")
done

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "bench_x86.sh: running (2-5 minutes; load average: $load_before)" >&2
# No configuration file, no inherited core override: exactly what the
# module picks on this CPU.
env -u OPENSSL_CONF -u HWCIPHER_CORES "$build/bench/bench_x86" "${args[@]}" > "$out/bench-x86.md"
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
{
    echo
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
    echo "CPU: $cpu, $(nproc) logical CPUs;"
    echo "load average $load_before before and $load_after after the run."
} >> "$out/bench-x86.md"
cat "$out/bench-x86.md"

# ---- the chart: one bar per row and size, log scale, 1.0 marked ----------------
rows=$(wc -l < "$out/ratios.dat")
width=$(( rows * 22 + 200 ))
(( width < 800 )) && width=800
gnuplot <<EOF
set terminal pngcairo size $width,720 font ",9"
set output "$png"
set title "hwcipher speed / best of (OpenSSL default providers, libgcrypt), same run;\
 > 1 = hwcipher faster"
set datafile missing "?"
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border -1
set boxwidth 0.9
set logscale y 2
set yrange [0.125:16]
set ytics ("1/8" 0.125, "1/4" 0.25, "1/2" 0.5, "1" 1, "2" 2, "4" 4, "8" 8, "16" 16)
set grid ytics
set xtics rotate by 90 right nomirror
set key top left
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 lc rgb "black"
set lmargin 8
set bmargin 14
plot "$out/ratios.dat" using 2:xtic(1) title "16 KiB" lc rgb "#1f77b4", \
     "" using 3 title "64 B" lc rgb "#ff7f0e"
EOF
echo "bench_x86.sh: tables in ${out#"$repo"/}/bench-x86.md, chart in ${png#"$repo"/}" >&2
{
    cat "$out/bench-x86.md"
    doc=${HWCIPHER_BENCH_DOC-docs/benchmarks/x86_64.md}
    if [[ -n "$doc" ]]; then
        [[ "$doc" == /* ]] || doc=$repo/$doc
        echo
        echo "![hwcipher ÷ best other, per row]($(realpath -m --relative-to="$(dirname "$doc")" "$png"))"
    fi
} | bench_doc_write docs/benchmarks/x86_64.md "hwcipher on x86_64: time per byte" "$(bench_doc_host_cpu)"
