#!/usr/bin/env bash
# Run hwcipher's libFuzzer targets (test/fuzz), built by `scripts/build.sh
# clang` (clang, ASan + UBSan, coverage on the module itself).
#
#   scripts/fuzz.sh [--time S] [--runs N] [--jobs J] [--keep] [target ...]
#
#   --time S   seconds per target (default 60; e.g. 14400 for four hours)
#   --runs N   executions per target (shared by its processes): stop there,
#              or at --time, whichever comes first; or per target, as in
#              --runs fuzz_cipher=200000,fuzz_params=600000
#   --jobs J   fuzzing processes per target (default $HWCIPHER_JOBS or 2)
#   --min-execs N   fail unless the targets ran N executions in total
#   --keep     merge what the run found into build/fuzz/corpus/<target>,
#              which later runs start from (with the seeds)
#   target     fuzz_cipher, fuzz_params, fuzz_tls_cbc (default: all)
#
# Each run starts from the committed seed corpus (test/fuzz/corpus/<target>)
# in a scratch copy, so the tree is never written. A divergence, sanitizer
# report, crash, leak or timeout stops that target: the input is saved in
# build/fuzz/artifacts/ (reproduce with `build/clang/test/fuzz/<target>
# <file>`). The last line is
#   fuzz: <executions> executions, <N> targets passed, <N> failed
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
secs=60
jobs=${HWCIPHER_JOBS:-2}
keep=0
min_execs=0
runs=0
targets=()
while (( $# )); do
    case "$1" in
        --time) secs=$2; shift 2 ;;
        --jobs) jobs=$2; shift 2 ;;
        --keep) keep=1; shift ;;
        --min-execs) min_execs=$2; shift 2 ;;
        --runs) runs=$2; shift 2 ;;
        -*) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
        *) targets+=("$1"); shift ;;
    esac
done
(( ${#targets[@]} )) || targets=(fuzz_cipher fuzz_params fuzz_tls_cbc)

bin=build/clang/test/fuzz
if [[ ! -x $bin/${targets[0]} ]]; then
    echo "fuzz.sh: $bin/${targets[0]} missing (run scripts/build.sh clang first)" >&2
    exit 2
fi
export OPENSSL_MODULES=$repo/build/clang
# Leaks are errors; libcrypto's own one-time allocations are reachable.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:malloc_context_size=10}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p build/fuzz/artifacts build/fuzz/corpus

total_execs=0
passed=0
failed=0
for t in "${targets[@]}"; do
    work=$(mktemp -d build/fuzz/run-$t.XXXXXX)
    mkdir -p "$work/corpus" "build/fuzz/corpus/$t"
    cp -r "test/fuzz/corpus/$t/." "$work/corpus/" 2>/dev/null || true
    cp -r "build/fuzz/corpus/$t/." "$work/corpus/" 2>/dev/null || true
    start=$SECONDS
    pids=()
    n_runs=$runs
    if [[ "$runs" == *=* ]]; then
        n_runs=$(tr ',' '\n' <<< "$runs" | sed -n "s/^$t=//p")
        n_runs=${n_runs:-0}
    fi
    for (( j = 0; j < jobs; ++j )); do
        # One process per job, each with its own seed; they share the
        # scratch corpus (each adds what it finds).
        "$bin/$t" "$work/corpus" -max_total_time="$secs" -timeout=30 -rss_limit_mb=4096 \
            -seed=$(( 1000 + j + RANDOM )) -print_final_stats=1 \
            -runs=$(( n_runs > 0 ? (n_runs + jobs - 1) / jobs : -1 )) \
            -artifact_prefix="build/fuzz/artifacts/$t-" > "$work/log.$j" 2>&1 &
        pids+=($!)
    done
    rc=0
    for p in "${pids[@]}"; do wait "$p" || rc=1; done
    execs=0
    for (( j = 0; j < jobs; ++j )); do
        n=$(grep -E '^stat::number_of_executed_units:' "$work/log.$j" | awk '{print $2}' | tail -1)
        execs=$(( execs + ${n:-0} ))
    done
    total_execs=$(( total_execs + execs ))
    if (( rc != 0 )); then
        failed=$(( failed + 1 ))
        echo "fuzz: $t FAILED after $(( SECONDS - start ))s, $execs executions"
        for (( j = 0; j < jobs; ++j )); do
            if grep -qE 'ERROR|divergence|deadly signal|Test unit written' "$work/log.$j"; then
                grep -vE '^#[0-9]+|^INFO:|^Done ' "$work/log.$j" | tail -60
            fi
        done
        ls -1 build/fuzz/artifacts/"$t"-* 2>/dev/null | tail -3
    else
        passed=$(( passed + 1 ))
        cov=$(grep -hoE 'cov: [0-9]+' "$work"/log.* | awk '{print $2}' | sort -n | tail -1)
        echo "fuzz: $t ok, $execs executions in $(( SECONDS - start ))s ($jobs processes, coverage ${cov:-?} edges)"
    fi
    if (( keep )); then
        "$bin/$t" -merge=1 "build/fuzz/corpus/$t" "$work/corpus" > "$work/merge.log" 2>&1 || true
    fi
    rm -rf "$work"
done
if (( total_execs < min_execs )); then
    echo "fuzz: only $total_execs executions, fewer than the $min_execs required"
    failed=$(( failed + 1 ))
fi
echo "fuzz: $total_execs executions, $passed targets passed, $failed failed"
(( failed == 0 ))
