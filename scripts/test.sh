#!/usr/bin/env bash
# THE test command (CI runs exactly `bash scripts/test.sh`).
#
#   scripts/test.sh                    # all stages
#   scripts/test.sh native s390x       # a subset
#
# Stages, each one build in build/<stage>, tested by one or more runs:
#   native    Release, -Werror: every ctest (unit cases one process each, CLI
#             tests with Debian's nginx, curl and OpenSSH, programs) with the
#             best x86_64 tier; the unit suite again in GoogleTest shards
#             with each lower tier forced (VAES on YMM, AES-NI/AVX2), with
#             the portable cores and with Twofish's gather engine; other
#             x86_64 CPUs under qemu-x86_64 and the VAES/VPCLMULQDQ/GFNI
#             kernels in an emulating build (scripts/test_x86_qemu.sh)
#   clang     clang 14, -Werror, ASan + UBSan + libFuzzer coverage, test
#             seams: every ctest (unforced; the unit suite in GoogleTest
#             shards), the fuzz targets (scripts/fuzz.sh: 525,000 executions), single updates over 4 GiB and the GCM per-IV limit
#             (huge_inputs), the allocation-failure sweep (alloc_sweep: every
#             N whose allocation has hwcipher.so on the stack and every 8th
#             other N fails cleanly or succeeds, no leak)
#   tsan      ThreadSanitizer build of the module: test/reliability/threads,
#             threads sharing a library context and threads each loading
#             hwcipher into their own, a fresh process per round
#   aarch64   cross build under qemu-aarch64: -cpu max with the Crypto
#             Extension / assembly cores, again with the portable cores
#             forced; on neoverse-n1 (no SM4 instructions: sm4-neon-aes)
#             the suite, on cortex-a72 the SM4 test files with the plain
#             NEON core forced (CoreEquivalence, which tests every core the
#             CPU has whatever is selected, runs on max and cortex-a72)
#   s390x     cross build under qemu-s390x -cpu max with the test-only CPACF
#             shim (test/s390x): the suite with partial completion never;
#             with partial completion after one block and after an odd size
#             in turn, and with the portable cores forced, the suite without
#             its SM4 and Twofish tests
#   matrix    the suite on OpenSSL 3.5, 3.6 and 4.0 from Debian's newer
#             suites, each on its own loader and libraries: the native
#             build on the 3.x releases (libcrypto.so.3), a build of its own
#             on 4.0; see stage_matrix
#   package   every command of README.md and docs/ (scripts/test_readme.sh),
#             then install/uninstall with --prefix and DESTDIR, the Debian
#             package (scripts/package.sh) and the package in a scratch root
#             with an unmodified Debian openssl.cnf (scripts/test_package.sh)
# On demand, not in the default list:
#   sanitize  GCC ASan + UBSan, the suite with the best cores (the clang stage
#             runs the same suite under ASan + UBSan in CI)
#   full      what CI samples, complete: the allocation sweep over every N,
#             ten times CI's fuzzing, and the unit suite's long repetitions
#             whole (in the clang build)
# Each run states the cores it expects (HWCIPHER_EXPECT_CORES, checked by
# ApiCatalogue.CoreReportIsTheSelection), so a run cannot silently test the
# wrong core.
# Installs what is missing first (scripts/deps.sh). Keeps going after a failed
# stage; exits non-zero if any stage failed. The log ends with a table of the
# stages (wall time, tests passed and failed), then always
#   <N> passed, <N> failed
# (test totals over all stages; a stage that fails to configure or build
# counts as one failure).
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export DEBIAN_FRONTEND=noninteractive
export HWCIPHER_JOBS=${HWCIPHER_JOBS:-2}
export CTEST_OUTPUT_ON_FAILURE=1
export CLICOLOR=0   # plain logs

all_stages=(native clang tsan aarch64 s390x matrix package sanitize full)
default_stages=(native clang tsan aarch64 s390x matrix package)
stages=("$@")
(( ${#stages[@]} )) || stages=("${default_stages[@]}")
for s in "${stages[@]}"; do
    [[ " ${all_stages[*]} " == *" $s "* ]] ||
        { echo "test.sh: unknown stage '$s' (${all_stages[*]})" >&2; exit 2; }
done

deps_args=(--native-tests)
for s in "${stages[@]}"; do
    [[ "$s" == aarch64 || "$s" == s390x ]] && deps_args=()
done
if ! bash scripts/deps.sh "${deps_args[@]}"; then
    echo "test.sh: installing dependencies failed"
    echo "0 passed, 1 failed"
    exit 1
fi

# One compiler cache for every build of the run (build/ccache, empty in a
# fresh clone): a file compiled again with the same flags and headers in
# another build folder is taken from it. The package stage's builds and the
# builds README's commands make repeat the native stage's module objects,
# and the isa-emu build its provider and test objects (only the x86_64
# cores differ there). CMake takes the launcher from the environment when it
# first configures a build folder; test_readme.sh points CCACHE_BASEDIR at
# its copy of the tree. -Werror is left out of the hash, so README's release
# build (without it) reuses the native objects too: it decides whether a
# compilation fails, not what it produces, and only compilations that
# succeeded are kept. The native build (-Werror) is the run's first.
if command -v ccache > /dev/null; then
    export CCACHE_DIR=$repo/build/ccache CCACHE_BASEDIR=$repo CCACHE_IGNOREOPTIONS=-Werror
    export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
    ccache --zero-stats > /dev/null
fi
# "<hits> of <compilations> compilations from the cache" since the start.
ccache_line() {
    command -v ccache > /dev/null || { echo "no ccache"; return; }
    ccache --print-stats 2> /dev/null | awk -F'\t' '
        { v[$1] = $2 }
        END { h = v["direct_cache_hit"] + v["preprocessed_cache_hit"]
              printf "%d of %d compilations from the cache (ccache)\n", h, h + v["cache_miss"] }'
}

# The runs of a stage, one per line:
#   "<label>|<VAR=value ...>|<ctest filter>", the filter one ctest -R regex
# (it may hold '|': the rest of the line), "!<regex>" for ctest -E,
# "label!<label>" for ctest -LE (every test without that label), or empty;
#   "<label>|gtest <VAR=value ...>|<GoogleTest filter>": the unit suite in
# GoogleTest shards (run_gtest);
#   "<label>|script[:<name>]|": a run of its own (run_<name> below).
portable_cores="aes=aes-portable,sm4=sm4-portable,twofish=twofish-portable,ghash=ghash-portable"
# The test files that run SM4 (every file that names it: its vectors, the
# differential runs against OpenSSL and libgcrypt, the mode engines, the
# core checks), for runs that test an SM4 core on its own.
sm4_groups="api_catalogue|api_semantics|config_preference|kat_sm4|core_equivalence|diff_openssl|diff_gcrypt|gcm_vectors|gcm_diff|gcm_api|gmac_tests|ccm_vectors|ccm_diff|ccm_api|xts_vectors|xts_diff|ocb_diff|cmac_diff|tls_cbc"
# The tests that run only SM4 or Twofish (GoogleTest filter patterns): the
# suites of their own, the family-parameterised cases (".../sm4",
# ".../SM4_CBC"), the cases named for them. For runs that repeat the suite for
# AES and GHASH only (HWCIPHER_TEST_EXCLUDE).
sm4_twofish_tests="Sm4GbtCores.*:Providers/Sm4Gbt.*:Files/Sm4Draft.*:XtsSm4.*:Files/TwofishKat.*"
sm4_twofish_tests+=":Files/TwofishMct.*:TwofishSm4/DiffGcrypt.*:*/sm4:*/twofish:*/SM4_*:*/TWOFISH_*"
sm4_twofish_tests+=":*.Sm4*:*.Twofish*:*.WycheproofSm4:*.Rfc8998Sm4Gcm"
runs_of() {
    case "$1" in
        native)
            # Every x86_64 tier this CPU has, forced through HWCIPHER_CORES,
            # then the portable cores (the expected cores follow the CPU's
            # flags, so the runs hold on any x86_64 CI machine).
            # The best tier runs every ctest (unit cases one process each,
            # CLI tests, programs); the other tiers, the portable cores and
            # the gather engine repeat the unit suite with other cores, in
            # GoogleTest shards (run_gtest: a third of the CPU time).
            local tier first=1
            while read -r tier; do
                if (( first )); then echo "$tier"; first=0
                else echo "${tier/|/|gtest }"; fi
            done < <(x86_tiers)
            echo "native-portable|gtest HWCIPHER_CORES=portable HWCIPHER_EXPECT_CORES=$portable_cores|"
            # twofish-avx2 runs its scalar lookups unless gathers are asked
            # for: the runs above test the scalar engine, this one the other.
            local tf="*twofish*:*Twofish*:*TWOFISH*:*CoreEquivalence*"
            echo "native-twofish-gather|gtest HWCIPHER_TWOFISH_GATHER=1|$tf"
            # Other x86_64 CPUs under qemu-x86_64, and the VAES, VPCLMULQDQ
            # and GFNI cores' kernels in the build that emulates those
            # instructions with older ones
            # (scripts/test_x86_qemu.sh; not a ctest run).
            [[ "$(uname -m)" == x86_64 ]] && echo "x86-qemu|script|"
            ;;
        sanitize)
            # Unforced: the automatic selection must pick the best tier.
            local best
            best=$(x86_tiers | head -1 | sed -E 's/.*HWCIPHER_EXPECT_CORES=([^|]*)\|.*/\1/')
            echo "sanitize|${best:+HWCIPHER_EXPECT_CORES=$best}|"
            ;;
        clang)
            # Unforced, like sanitize: the unit suite in GoogleTest shards
            # (a third of the CPU of one process per case; LeakSanitizer
            # checks each shard process at its exit, and a leak fails it),
            # then every other ctest (CLI tests, programs) one process each;
            # then the reliability runs of this build (run_fuzz, run_huge,
            # run_sweep). The unit suite's long repetitions (Monte-Carlo
            # chains, whole CAVP files, the million-iteration SM4 example)
            # run sampled, as under QEMU (HWCIPHER_TEST_SAMPLED=1,
            # test/support/vectors.h): the native runs take them whole, and
            # the full stage does here.
            local best
            best=$(x86_tiers | head -1 | sed -E 's/.*HWCIPHER_EXPECT_CORES=([^|]*)\|.*/\1/')
            echo "clang|gtest HWCIPHER_TEST_SAMPLED=1 ${best:+HWCIPHER_EXPECT_CORES=$best}|"
            echo "clang-cli|${best:+HWCIPHER_EXPECT_CORES=$best}|label!unit"
            echo "fuzz|script:fuzz|"
            echo "huge-inputs|script:huge|"
            echo "alloc-sweep|script:sweep|"
            ;;
        tsan)
            echo "tsan-threads|script:tsan|"
            ;;
        aarch64)
            # max has the SHA3 extension: aes-armv8-ce-eor3; the CPU models
            # below have not, so they run aes-armv8-ce's plain kernels.
            local ce="aes=aes-armv8-ce-eor3,sm4=sm4-armv8-ce,twofish=twofish-arm64-asm,ghash=ghash-pmull"
            local n1="aes=aes-armv8-ce,sm4=sm4-neon-aes,twofish=twofish-arm64-asm,ghash=ghash-pmull"
            local a72="aes=aes-armv8-ce,sm4=sm4-neon,twofish=twofish-arm64-asm,ghash=ghash-pmull"
            # CoreEquivalence checks every core the CPU can run against the
            # portable one directly, whatever HWCIPHER_CORES selects, and
            # QEMU's CPU models differ only in the features they report:
            # -cpu max, which has them all, runs it for every core; the
            # portable and N1 runs would repeat it exactly and leave it out.
            echo "aarch64|HWCIPHER_EXPECT_CORES=$ce|"
            echo "aarch64-portable|HWCIPHER_CORES=portable HWCIPHER_EXPECT_CORES=$portable_cores|!core_equivalence"
            # CPUs without the SM4 instructions: on Neoverse N1 the whole
            # suite with the core picked there (SM4 through AESE); on
            # Cortex-A72 the plain NEON core forced (the one CPUs without
            # AES get), on the test files that run SM4 (CoreEquivalence
            # among them), to keep the added cost near 8 minutes.
            echo "aarch64-n1|HWCIPHER_QEMU_CPU=neoverse-n1 HWCIPHER_EXPECT_CORES=$n1|!core_equivalence"
            echo "aarch64-a72|HWCIPHER_QEMU_CPU=cortex-a72 HWCIPHER_CORES=sm4=sm4-neon HWCIPHER_EXPECT_CORES=$a72|$sm4_groups"
            ;;
        s390x)
            local cpacf="aes=aes-cpacf,sm4=sm4-portable,twofish=twofish-portable,ghash=ghash-kimd"
            echo "s390x|HWCIPHER_SHIM_PARTIAL=never HWCIPHER_EXPECT_CORES=$cpacf|"
            # The suite again with partial completion (cc 3), successive
            # executions stopping after one block and after an odd 208
            # bytes in turn (so every message longer than a block is
            # resumed at both), and with the portable AES and GHASH cores on
            # big-endian: without the SM4 and Twofish tests, whose cores use
            # no CPACF and run portable in the first run already
            # (HWCIPHER_TEST_EXCLUDE, test/support/main.cpp). The shim's own
            # tests force never, every block, 48, 80 and 24 bytes on every
            # instruction besides.
            local aes_only="HWCIPHER_TEST_EXCLUDE=$sm4_twofish_tests"
            # (The CLI tests, whose calls reach the kernels as the unit
            # tests' do, run with partial completion never only.)
            echo "s390x-cc3|HWCIPHER_SHIM_PARTIAL=block,208 HWCIPHER_EXPECT_CORES=$cpacf $aes_only|!^cli\."
            # CoreEquivalence compares every core the CPU has with the
            # portable one whatever is forced: the portable run would repeat
            # the first run's exactly (as on aarch64) and leaves it out.
            echo "s390x-portable|HWCIPHER_CORES=portable HWCIPHER_EXPECT_CORES=$portable_cores $aes_only|!core_equivalence"
            ;;
    esac
}

# The x86_64 tiers of this CPU (from the kernel's view of its flags, which
# already drops what the OS does not enable) as runs, the one automatic
# selection picks first: each names its cores explicitly and expects exactly
# them. Below the best tier: VAES on YMM (a CPU with VAES but without
# AVX-512), then AES-NI with the AVX2 SM4 core and PCLMULQDQ GHASH (a CPU
# without VAES, VPCLMULQDQ or GFNI), each only where it differs from the one
# above.
x86_tiers() {
    [[ "$(uname -m)" == x86_64 ]] || return 0
    local flags
    flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
    has() { local f; for f; do [[ "$flags" == *" $f "* ]] || return 1; done; }
    local aes=aes-portable sm4=sm4-portable twofish=twofish-portable ghash=ghash-portable
    has pclmulqdq && ghash=ghash-clmul
    has avx2 && twofish=twofish-avx2
    has aes && aes=aes-aesni
    has aes avx2 && sm4=sm4-aesni-avx2
    local ni_tier="aes=$aes,sm4=$sm4,twofish=$twofish,ghash=$ghash"
    has avx2 gfni && sm4=sm4-gfni-avx2
    has avx2 pclmulqdq vpclmulqdq && ghash=ghash-vpclmul-avx2
    local ymm_tier=""
    if has aes avx2 vaes; then
        aes=aes-vaes-avx2
        ymm_tier="aes=$aes,sm4=$sm4,twofish=$twofish,ghash=$ghash"
        has avx512f avx512bw avx512vl && aes=aes-vaes-avx512
    fi
    has avx2 pclmulqdq vpclmulqdq avx512f avx512bw avx512vl && ghash=ghash-vpclmul-avx512
    has avx2 gfni avx512f avx512bw avx512vl && sm4=sm4-gfni-avx512
    local best="aes=$aes,sm4=$sm4,twofish=$twofish,ghash=$ghash" tier
    echo "native|HWCIPHER_CORES=$best HWCIPHER_EXPECT_CORES=$best|"
    local last=$best
    for tier in "$ymm_tier" "$ni_tier"; do
        [[ -n "$tier" && "$tier" != "$last" ]] || continue
        local label=native-${tier%%,*}
        echo "${label/aes=aes-/}|HWCIPHER_CORES=$tier HWCIPHER_EXPECT_CORES=$tier|"
        last=$tier
    done
}

# Extra configure arguments per stage: the s390x build carries the test seam
# through which the CPACF shim reports the functions it emulates.
build_args_of() {
    case "$1" in
        s390x) echo "-DHWCIPHER_TEST_SEAMS=ON" ;;
        tsan) echo "--target threads" ;;   # the module and the threads program only
    esac
}

# Runs ctest once; sets pass/fail/skip and prints the run's summary line.
run_ctest() { # <build dir> <log> <filter: regex, !regex or empty> [VAR=value ...]
    local dir=$1 log=$2 regex=$3
    shift 3
    local filter=()
    if [[ "$regex" == 'label!'* ]]; then filter=(-LE "${regex#label!}")
    elif [[ "$regex" == '!'* ]]; then filter=(-E "${regex#!}")
    elif [[ -n "$regex" ]]; then filter=(-R "$regex"); fi
    env "$@" ctest --test-dir "$dir" -j"$HWCIPHER_JOBS" --output-on-failure \
          --timeout 900 "${filter[@]}" 2>&1 | tee "$log"
    local ctest_rc=${PIPESTATUS[0]} line total
    pass=0 fail=0
    # "100% tests passed, 0 tests failed out of 9" (ctest counts skipped
    # tests as passed there; they are taken out below and reported apart)
    line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$log" | tail -1)
    skip=$(grep -c -E '\*\*\*Skipped|Not Run' "$log" || true)
    if [[ -n "$line" ]]; then
        fail=$(sed -E 's/.* ([0-9]+) tests? failed out of ([0-9]+).*/\1/' <<< "$line")
        total=$(sed -E 's/.* failed out of ([0-9]+).*/\1/' <<< "$line")
        pass=$(( total - fail - skip ))
    elif grep -q "No tests were found" "$log"; then
        line="no tests"
        fail=1
    fi
    if (( ctest_rc != 0 )) && (( fail == 0 )); then
        fail=1      # ctest itself failed (e.g. test discovery)
        line="${line:-ctest failed (rc=$ctest_rc)}"
    fi
    local skipped=""
    (( skip == 0 )) || skipped=", $skip skipped (not counted as passed)"
    echo "---- ${log}: ${line:-no ctest summary}$skipped"
    sed -n '/The following tests FAILED:/,/^Errors while running CTest/p' "$log" | grep -v '^Errors'
}

# Runs the unit suite of a build as GoogleTest processes, $HWCIPHER_JOBS
# shards at once (GTEST_SHARD_INDEX), instead of one ctest per test case: for
# the runs that repeat the suite with other cores forced, where a process
# start and provider load per case would cost more than the case. Each shard
# sees the environment ctest gives the unit tests (the build's
# test/hwcipher_tests_env.cmake, written by test/CMakeLists.txt), then the
# VAR=value arguments.
# Sets pass/fail like run_ctest (a shard that crashes or prints no summary
# counts as one failure) and prints the run's summary line.
# Sets test_env to the environment ctest gives a native build's tests
# (VAR=value words; empty if the build has none).
read_test_env() { # <absolute build dir>
    test_env=()
    mapfile -t test_env < <(sed -n 's/.*ENVIRONMENT \[==\[\(.*\)\]==\].*/\1/p' \
                                "$1/test/hwcipher_tests_env.cmake" 2> /dev/null | tr ';' '\n')
}

# gtest_runner: a command prefix for the test program (a release's loader).
gtest_runner=()
run_gtest() { # <build dir> <log> <gtest filter or empty> [VAR=value ...]
    local dir=$1 log filter=${3:-*}
    log=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")   # the shards run in the build dir
    shift 3
    local abs shards=$HWCIPHER_JOBS i
    abs=$(cd "$dir" && pwd)
    read_test_env "$abs"
    : > "$log"
    if (( ${#test_env[@]} == 0 )); then
        echo "---- ${log}: no test environment in $abs/test/hwcipher_tests_env.cmake"
        pass=0 fail=1 skip=0
        return
    fi
    for ((i = 0; i < shards; ++i)); do
        (cd "$abs" && env "${test_env[@]}" \
            GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i "$@" \
            "${gtest_runner[@]}" test/hwcipher_tests --gtest_filter="$filter" --gtest_brief=1 \
            > "$log.$i" 2>&1; echo "exit $?" >> "$log.$i") &
    done
    wait
    pass=0 fail=0 skip=0
    local n rc failed
    for ((i = 0; i < shards; ++i)); do
        cat "$log.$i" >> "$log"
        n=$(sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?.*/\1/p' "$log.$i" | tail -1)
        failed=$(sed -nE 's/^\[  FAILED  \] ([A-Za-z][^ ,]*).*/\1/p' "$log.$i" | sort -u | wc -l)
        skip=$(( skip + $(sed -nE 's/^\[  SKIPPED \] ([0-9]+) tests?.*/\1/p' "$log.$i" | tail -1 | grep . || echo 0) ))
        rc=$(sed -nE 's/^exit ([0-9]+)$/\1/p' "$log.$i" | tail -1)
        pass=$(( pass + ${n:-0} ))
        if (( failed > 0 )); then
            fail=$(( fail + failed ))
        elif [[ "$rc" != 0 || -z "$n" ]]; then
            fail=$(( fail + 1 ))   # crashed, or ran no test
            echo "shard $i of $label: exit ${rc:-?} without a failed test; last lines:"
            tail -5 "$log.$i"
        fi
        rm -f "$log.$i"
    done
    local skipped=""
    (( skip == 0 )) || skipped=", $skip skipped (not counted as passed)"
    echo "---- ${log}: $pass passed, $fail failed in $shards GoogleTest shards$skipped"
    sed -nE 's/^\[  FAILED  \] ([A-Za-z][^ ,]*).*/  FAILED: \1/p' "$log" | sort -u | head -30
}

# The x86-qemu run: builds build/isa-emu (VAES, VPCLMULQDQ and GFNI emulated
# with older instructions, so those cores' kernels run on any AVX2 CPU), then runs
# scripts/test_x86_qemu.sh; sets pass/fail like run_ctest.
run_x86_qemu() { # <log>
    local log=$1
    pass=0 fail=0
    if ! bash scripts/build.sh isa-emu --target hwcipher_tests > "$log" 2>&1; then
        tail -30 "$log"
        echo "---- ${log}: build of build/isa-emu failed"
        fail=1
        return
    fi
    bash scripts/test_x86_qemu.sh build/native build/isa-emu 2>&1 | tee -a "$log"
    read_summary x86-qemu "$log"
}

# Sets pass/fail from a script's last "<label>: N passed, N failed" line in
# <log> (fail=1 when there is none) and prints it.
read_summary() { # <label> <log>
    local line
    line=$(grep -E "^$1: [0-9]+ passed, [0-9]+ failed" "$2" | tail -1)
    if [[ -n "$line" ]]; then
        pass=$(sed -E 's/^[^:]+: ([0-9]+) passed.*/\1/' <<< "$line")
        fail=$(sed -E 's/^[^:]+: [0-9]+ passed, ([0-9]+) failed.*/\1/' <<< "$line")
    else
        pass=0 fail=1
    fi
    echo "---- ${2}: ${line:-no summary}"
}

# ---- stage matrix: the suite on newer OpenSSL releases ---------------------
# The suite is built once per OpenSSL ABI and run on every release of it,
# each on that release's own loader and libraries (scripts/openssl_release.sh
# unpacks them from Debian's newer suites):
#   - libcrypto.so.3 (3.x): the native stage's build (3.0's headers: what a
#     distribution's hwcipher built on 3.0 meets after an upgrade) runs on
#     3.5 and 3.6: the unit suite in GoogleTest shards, every CLI test but
#     the nginx one (the TLS matrix and an s_server session included) with
#     that release's openssl, and the legacy-API program (run_on_release);
#   - libcrypto.so.4 (4.0): a build of its own against 4.0's headers
#     (scripts/build.sh openssl-4.0, tests only: no benchmark programs), its
#     ctest suite.
# The system's 3.0 is the native stage. HWCIPHER_MATRIX="3.5 4.0" picks
# releases.
stage_matrix() {
    local rel best root
    best=$(x86_tiers | head -1 | sed -E 's/.*HWCIPHER_EXPECT_CORES=([^|]*)\|.*/\1/')
    for rel in ${HWCIPHER_MATRIX:-3.5 3.6 4.0}; do
        local label=openssl-$rel rstart=$SECONDS status=ok log=build/test-openssl-$rel.log
        echo
        echo "------------------- run: $label -------------------"
        pass=0 fail=0 skip=0
        if ! root=$(bash scripts/openssl_release.sh "$rel" 2> "$log"); then
            tail -5 "$log"
            status="no OpenSSL" fail=1
        elif [[ "$(libcrypto_soname "$root")" == libcrypto.so.3 ]]; then
            if [[ ! -x build/native/test/hwcipher_tests ]] &&
               ! bash scripts/build.sh native >> "$log" 2>&1; then
                tail -30 "$log"
                status="build FAILED" fail=1
            else
                run_on_release build/native "$root" "$log" ${best:+HWCIPHER_EXPECT_CORES=$best}
                (( fail == 0 )) || status="tests FAILED"
            fi
        elif ! bash scripts/build.sh "$label" -DHWCIPHER_BUILD_BENCH=OFF >> "$log" 2>&1; then
            tail -30 "$log"
            status="build FAILED" fail=1
        else
            grep -E '^-- hwcipher: (OpenSSL|programs)' "$log"
            # shellcheck disable=SC2086
            run_ctest "build/$label" "$log" "" ${best:+HWCIPHER_EXPECT_CORES=$best}
            (( fail == 0 )) || status="tests FAILED"
        fi
        (( fail == 0 )) || rc=1
        total_pass=$(( total_pass + pass ))
        total_fail=$(( total_fail + fail ))
        summary+=("$(printf '%-17s %-13s %5d passed %4d failed %5ds' "$label" "$status" "$pass" "$fail" $(( SECONDS - rstart )))")
    done
}

# The soname of a release root's libcrypto (libcrypto.so.3 for 3.x).
libcrypto_soname() { # <release root>
    (source "$1/env.sh" && basename "$(readlink "$OSSL_LIBDIR/libcrypto.so")")
}

# A build's tests on another release of the OpenSSL ABI it was built for:
# the unit suite (run_gtest), the CLI tests but the .native ones, and the
# programs, each with that release's loader, libraries and openssl command.
# HWCIPHER_OPENSSL_VERSION names the release the run is for (the CLI and
# unit tests check that it is the one running). Sets pass/fail.
run_on_release() { # <build dir> <release root> <log> [VAR=value ...]
    local dir=$1 root log=$3
    root=$(cd "$2" && pwd)
    shift 3
    local abs
    abs=$(cd "$dir" && pwd)
    # shellcheck source=/dev/null
    source "$root/env.sh"
    local envs=(OPENSSL_BIN="$root/bin/openssl" HWCIPHER_OPENSSL_VERSION="$OSSL_VERSION"
                HWCIPHER_RUN="${OSSL_RUN[*]}" "$@")
    echo "${dir}'s tests on OpenSSL $OSSL_VERSION ($OSSL_LIBDIR)"
    gtest_runner=("${OSSL_RUN[@]}")
    run_gtest "$dir" "$log.unit" "" "${envs[@]}"
    gtest_runner=()
    local p=$pass f=$fail t name
    cat "$log.unit" >> "$log"
    rm -f "$log.unit"
    local src
    src=$(sed -n 's/^hwcipher_SOURCE_DIR:STATIC=//p' "$abs/CMakeCache.txt")
    read_test_env "$abs"
    # one <name> <command...>: runs a test in the build dir, counts it.
    one() {
        local name=$1 out
        shift
        if out=$(cd "$abs" && timeout 900 env "${test_env[@]}" "${envs[@]}" "$@" 2>&1); then
            p=$(( p + 1 )); echo "  ok    $name" | tee -a "$log"
        else
            f=$(( f + 1 )); echo "$out" | tail -20; echo "  FAIL  $name" | tee -a "$log"
        fi
    }
    for t in "$src"/test/cli/*.sh; do
        [[ "$t" == *.native.sh ]] || one "cli.$(basename "$t" .sh)" bash "$t"
    done
    # The programs (test/prog_<name>.cpp: the legacy-API program), with
    # hwcipher preferred through the test config, as ctest runs them.
    for t in "$src"/test/prog_*.cpp; do
        name=$(basename "$t" .cpp)
        one "${name#prog_}" OPENSSL_CONF="$src/test/openssl-cnf/prefer-hwcipher.cnf" \
            "${OSSL_RUN[@]}" "test/${name#prog_}"
    done
    pass=$p fail=$f
    echo "---- ${log}: $pass passed, $fail failed"
}

# ---- stage package: README's commands, install, uninstall, the package ----
# scripts/test_readme.sh (every command of README's sh blocks, in a copy of
# the tree, installs in a private mount namespace), then
# scripts/test_package.sh (install/uninstall with --prefix and DESTDIR, the
# .deb, the .deb in a scratch root with Debian's unmodified openssl.cnf).
stage_package() {
    local script label log
    for script in test_readme test_package; do
        label=${script#test_}
        log=build/test-$label.log
        local rstart=$SECONDS status=ok
        echo
        echo "------------------- run: $label (scripts/$script.sh) -------------------"
        pass=0 fail=0
        bash "scripts/$script.sh" 2>&1 | tee "$log"
        read_summary "$label" "$log"
        (( fail == 0 )) || { status="tests FAILED"; rc=1; }
        total_pass=$(( total_pass + pass ))
        total_fail=$(( total_fail + fail ))
        summary+=("$(printf '%-17s %-13s %5d passed %4d failed %5ds' "$label" "$status" "$pass" "$fail" $(( SECONDS - rstart )))")
    done
}

# ---- the clang and tsan stages' runs (not ctest): each sets pass/fail
# from the program's last line; nothing is skipped. Budgets: a fixed number
# of executions per fuzz target (2 processes each, at most
# HWCIPHER_FUZZ_SECONDS), HWCIPHER_TSAN_ROUNDS fresh processes.

# Sets pass/fail from "<name>: ... <P> passed, <F> failed" at the end of a log.
summary_counts() { # <log> <regex of the summary line>
    local line
    line=$(grep -E "$2" "$1" | tail -1)
    if [[ -z "$line" ]]; then
        fail=1
        return
    fi
    pass=$(sed -E 's/.* ([0-9]+) passed.*/\1/' <<< "$line")
    fail=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<< "$line")
}

# How much of the long runs CI takes; the full stage sets the complete ones.
fuzz_scale=1      # multiplies every fuzz target's executions
sweep_sample=${HWCIPHER_SWEEP_SAMPLE:-8}   # alloc_sweep --sample (1: every N)

run_fuzz() { # <log>
    pass=0 fail=0
    # A fixed number of executions per target (525,000 in all in CI, shared
    # in proportion to their cost: ~3 CPU-minutes; the full stage 10 times
    # as many), each target capped at HWCIPHER_FUZZ_SECONDS.
    local f=$fuzz_scale
    bash scripts/fuzz.sh --runs "fuzz_cipher=$((100000 * f)),fuzz_params=$((300000 * f)),fuzz_tls_cbc=$((125000 * f))" \
        --time "${HWCIPHER_FUZZ_SECONDS:-$((600 * f))}" \
        --min-execs $((500000 * f)) 2>&1 | tee "$1"
    local line
    line=$(grep -E '^fuzz: [0-9]+ executions' "$1" | tail -1)
    if [[ -n "$line" ]]; then
        pass=$(sed -E 's/.* ([0-9]+) targets passed.*/\1/' <<< "$line")
        fail=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<< "$line")
    else
        fail=1
    fi
    echo "---- $1: ${line:-no summary}"
}

run_huge() { # <log>
    pass=0 fail=0
    OPENSSL_MODULES="$repo/build/clang" ASAN_OPTIONS=detect_leaks=1 \
        build/clang/test/reliability/huge_inputs 2>&1 | tee "$1"
    summary_counts "$1" '^huge_inputs: [0-9]+ passed, [0-9]+ failed$'
    echo "---- $1: $(grep -E '^huge_inputs: [0-9]+ passed' "$1" | tail -1)"
}

# Every N run is a pass (success with the right output, or failure with an
# error queued, no leak) or a failure; nothing is expected to fail. CI runs
# every N whose allocation has hwcipher.so on the stack and every
# $sweep_sample-th other (alloc_sweep --sample); the full stage every N.
run_sweep() { # <log>
    pass=0 fail=0
    (cd build/clang && OPENSSL_MODULES="$repo/build/clang" \
        ASAN_OPTIONS=detect_leaks=1:handle_abort=1:allocator_may_return_null=1 \
        test/reliability/alloc_sweep --jobs "$HWCIPHER_JOBS" --sample "$sweep_sample" \
            --report alloc_sweep-report.txt) \
        > "$1" 2>&1
    tail -40 "$1"
    summary_counts "$1" '^alloc_sweep: [0-9]+ allocations, [0-9]+ passed, [0-9]+ failed'
    local line
    line=$(grep -E '^alloc_sweep: [0-9]+ allocations' "$1" | tail -1)
    echo "---- $1: ${line:-no summary} (report: build/clang/alloc_sweep-report.txt)"
}

run_tsan() { # <log>
    pass=0 fail=0
    OPENSSL_MODULES="$repo/build/tsan" TSAN_OPTIONS="halt_on_error=0 second_deadlock_stack=1" \
        build/tsan/test/reliability/threads --rounds "${HWCIPHER_TSAN_ROUNDS:-20}" 2>&1 | tee "$1"
    local line rounds bad
    line=$(grep -E '^threads: [0-9]+ rounds' "$1" | tail -1)
    if [[ -n "$line" ]]; then
        rounds=$(sed -E 's/^threads: ([0-9]+) rounds.*/\1/' <<< "$line")
        bad=$(sed -E 's/.* ([0-9]+) failed rounds$/\1/' <<< "$line")
        pass=$(( rounds - bad ))
        fail=$bad
    else
        fail=1
    fi
    echo "---- $1: ${line:-no summary}"
}

# The clang build's unit suite unsampled (no HWCIPHER_TEST_SAMPLED).
run_unit() { # <log>
    run_gtest build/clang "$1" ""
}

# ---- stage full (on demand): the long runs CI samples, complete ----------
# The allocation-failure sweep over every N, ten times CI's fuzzing, and the
# unit suite unsampled (every CAVP record, whole Monte-Carlo chains), in the
# clang build (built here if the clang stage has not).
stage_full() {
    fuzz_scale=10 sweep_sample=1
    local run rstart status
    if ! bash scripts/build.sh clang $(build_args_of clang); then
        summary+=("$(printf '%-17s %-13s %5d passed %4d failed %5ds' full "build FAILED" 0 1 0)")
        total_fail=$(( total_fail + 1 )) rc=1
        return
    fi
    for run in sweep fuzz unit; do
        echo
        echo "------------------- run: full-$run -------------------"
        rstart=$SECONDS status=ok
        "run_$run" "build/test-full-$run.log"
        (( fail == 0 )) || { status="tests FAILED"; rc=1; }
        total_pass=$(( total_pass + pass ))
        total_fail=$(( total_fail + fail ))
        summary+=("$(printf '%-17s %-13s %5d passed %4d failed %5ds' "full-$run" "$status" "$pass" "$fail" $(( SECONDS - rstart )))")
    done
}

total_pass=0
total_fail=0
summary=()
rc=0
mkdir -p build

# One row per stage for the closing table: wall time and test counts.
stage_rows=()
stage_done() { # <stage> <start SECONDS> <passed before> <failed before>
    local took=$(( SECONDS - $2 ))
    echo "stage $1 took ${took}s"
    stage_rows+=("$(printf '%-10s %6ds %7d %7d' "$1" "$took" $(( total_pass - $3 )) $(( total_fail - $4 )))")
}

for stage in "${stages[@]}"; do
    echo
    echo "=================== stage: $stage ==================="
    start=$SECONDS
    stage_pass0=$total_pass stage_fail0=$total_fail
    # Stages with builds and runs of their own (stage_<name> above).
    if declare -F "stage_$stage" > /dev/null; then
        "stage_$stage"
        stage_done "$stage" "$start" "$stage_pass0" "$stage_fail0"
        continue
    fi
    # shellcheck disable=SC2046  # build args are single words
    if ! bash scripts/build.sh "$stage" $(build_args_of "$stage"); then
        summary+=("$(printf '%-17s %-13s %5d passed %4d failed %5ds' "$stage" "build FAILED" 0 1 $(( SECONDS - start )))")
        total_fail=$(( total_fail + 1 ))
        rc=1
        stage_done "$stage" "$start" "$stage_pass0" "$stage_fail0"
        continue
    fi
    # The runs are read first: a test that reads standard input (ssh does)
    # must not eat the list; the runs get /dev/null.
    mapfile -t runs < <(runs_of "$stage")
    for run in "${runs[@]}"; do
        IFS='|' read -r label envs regex <<< "$run"
        [[ -n "$label" ]] || continue
        echo
        echo "------------------- run: $label ${envs:+($envs)} -------------------"
        rstart=$SECONDS
        pass=0 fail=0 skip=0
        if [[ "$envs" == script ]]; then
            run_x86_qemu "build/test-$label.log"
        elif [[ "$envs" == script:* ]]; then
            "run_${envs#script:}" "build/test-$label.log"
        elif [[ "$envs" == gtest || "$envs" == "gtest "* ]]; then
            # shellcheck disable=SC2086  # envs is a list of VAR=value words
            run_gtest "build/$stage" "build/test-$label.log" "$regex" ${envs#gtest}
        else
            # shellcheck disable=SC2086  # envs is a list of VAR=value words
            run_ctest "build/$stage" "build/test-$label.log" "$regex" $envs
        fi
        status=ok
        (( fail == 0 )) || { status="tests FAILED"; rc=1; }
        total_pass=$(( total_pass + pass ))
        total_fail=$(( total_fail + fail ))
        summary+=("$(printf '%-17s %-13s %5d passed %4d failed %5ds' "$label" "$status" "$pass" "$fail" $(( SECONDS - rstart )))")
    done < /dev/null
    stage_done "$stage" "$start" "$stage_pass0" "$stage_fail0"
done

echo
echo "=================== summary ==================="
printf '%s\n' "${summary[@]}"
echo
echo "=================== stages ==================="
printf '%-10s %7s %7s %7s\n' stage wall passed failed
printf '%s\n' "${stage_rows[@]}"
printf '%-10s %6ds %7d %7d\n' total "$SECONDS" "$total_pass" "$total_fail"
echo "builds: $(ccache_line)"
echo "$total_pass passed, $total_fail failed"
exit $rc
