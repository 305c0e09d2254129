#!/usr/bin/env bash
# x86_64 tiers under QEMU user mode: runs the unit-test executable of a
# native x86_64 build under `qemu-x86_64 -cpu <model>` for CPU models the
# build machine is not, so that each tier of core selection is executed and
# asserted (HWCIPHER_EXPECT_CORES, checked by
# ApiCatalogue.CoreReportIsTheSelection):
#
#   max            AES-NI, PCLMULQDQ, AVX2, VAES (QEMU 7.2 TCG emulates VAES on
#                  YMM, not AVX-512, VPCLMULQDQ or GFNI): aes-vaes-avx2 with
#                  the AES-NI SM4 and PCLMULQDQ GHASH cores
#   Haswell-noTSX  AES-NI, PCLMULQDQ, AVX2, no VAES: aes-aesni and the AVX2
#                  SM4 and Twofish cores
#   Westmere       AES-NI, PCLMULQDQ, no AVX: aes-aesni, no AVX2 core
#   Nehalem        no AES-NI, no PCLMULQDQ: the portable cores
#
# QEMU 7.2 (Debian 12) computes the upper lane of VAESENC/VAESDEC on YMM from
# the lower lane's state, so aes-vaes-avx2 gives wrong results there. A
# probe (compiled here, run under -cpu max) checks the emulator first: with a
# correct one the max runs use -cpu max, otherwise -cpu max,-vaes (then
# aes-aesni is selected). The kernels of the cores needing VAES, VPCLMULQDQ
# or GFNI are checked by the optional second build dir, built with
# scripts/build.sh isa-emu (each such operation done with older instructions
# and dropped from the cores' needs), whose tests run natively with each of
# those cores forced (aes-vaes-avx512 and sm4-gfni-avx512 only where the CPU
# has AVX-512).
#
#   scripts/test_x86_qemu.sh <native build dir> [<isa-emu build dir>]
#
# The last line of output is always
#   x86-qemu: <N> passed, <M> failed
# counting GoogleTest cases over all runs (a run that crashes or prints no
# GoogleTest summary counts as one failure). Exits non-zero if anything
# failed. Takes a few minutes on 2 loaded cores: the mode tests on `max` and
# the emulated build, a short subset on the other models.
#
# Expected cores per model are in `runs` below: when an x86_64 core is
# registered, its family's entry changes there. Each can be overridden from
# the environment as X86_QEMU_EXPECT_<label> (e.g. X86_QEMU_EXPECT_haswell).
set -uo pipefail

build=${1:?usage: test_x86_qemu.sh <native x86_64 build dir> [<isa-emu build dir>]}
emu=${2:-}
qemu=${HWCIPHER_QEMU_X86:-qemu-x86_64}
total_pass=0 total_fail=0

fail_setup() { echo "test_x86_qemu.sh: $*"; echo "x86-qemu: 0 passed, 1 failed"; exit 1; }
[[ "$(uname -m)" == x86_64 ]] || fail_setup "needs an x86_64 host and build"
command -v "$qemu" > /dev/null || fail_setup "$qemu not found (apt-get install qemu-user)"

# Sets the environment ctest gives the unit tests (test/CMakeLists.txt) for
# build dir $1, and `exe` to its test executable (not in a subshell: the
# exports must stay).
setup_build() {
    local dir module src
    dir=$(cd "$1" && pwd) || return 1
    module=$(find "$dir" -maxdepth 2 -name hwcipher.so -print -quit)
    [[ -x "$dir/test/hwcipher_tests" && -n "$module" ]] || return 1
    src=$(sed -n 's/^hwcipher_SOURCE_DIR:STATIC=//p' "$dir/CMakeCache.txt")
    export OPENSSL_MODULES=${module%/*}
    export HWCIPHER_VECTORS="$src/test/vectors"
    export HWCIPHER_CNF_DIR="$src/test/openssl-cnf"
    export HWCIPHER_BUILD_DIR="$dir"
    export HWCIPHER_SOURCE_DIR="$src"
    export OPENSSL_BIN=${OPENSSL_BIN:-openssl}
    exe="$dir/test/hwcipher_tests"
}

logdir=$(mktemp -d "${TMPDIR:-/tmp}/x86-qemu.XXXXXX")

failed_tests() { # <log>: the distinct failed test names
    sed -nE 's/^\[  FAILED  \] ([A-Za-z][^ ,]*).*/\1/p' "$1" | sort -u
}

# One run: <label> <expected cores> <gtest filter> [<emulator command...>],
# as $HWCIPHER_JOBS GoogleTest shards at once (GTEST_SHARD_INDEX), one
# process each: a run in one process would leave the other cores idle.
shards=${HWCIPHER_JOBS:-2}
run() {
    local label=$1 expect=$2 filter=$3
    shift 3
    local override="X86_QEMU_EXPECT_${label//-/_}"
    expect=${!override:-$expect}
    local log="$logdir/$label.log" start=$SECONDS pass=0 fail=0 i n rc
    for ((i = 0; i < shards; ++i)); do
        (env HWCIPHER_EXPECT_CORES="$expect" GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i \
            "$@" "$exe" --gtest_filter="$filter" --gtest_brief=1 > "$log.$i" 2>&1
         echo "exit $?" >> "$log.$i") &
    done
    wait
    : > "$log"
    for ((i = 0; i < shards; ++i)); do
        cat "$log.$i" >> "$log"
        # --gtest_brief prints "[  PASSED  ] N tests." and one "[  FAILED  ]
        # <test>" line per failed test (no "listed below" summary).
        n=$(sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?.*/\1/p' "$log.$i" | tail -1)
        rc=$(sed -nE 's/^exit ([0-9]+)$/\1/p' "$log.$i" | tail -1)
        pass=$(( pass + ${n:-0} ))
        if [[ "$rc" != 0 ]] && [[ -z "$(failed_tests "$log.$i")" ]]; then
            fail=$(( fail + 1 )) # crashed (SIGILL, abort) or failed outside any test
            echo "x86-qemu $label shard $i: exit status ${rc:-?} without a failed test; last lines:"
            tail -5 "$log.$i"
        fi
        rm -f "$log.$i"
    done
    fail=$(( fail + $(failed_tests "$log" | wc -l) ))
    (( pass + fail > 0 )) || fail=1
    printf 'x86-qemu %-13s %5d passed %4d failed %5ds  (%s)\n' \
        "$label" "$pass" "$fail" $(( SECONDS - start )) "$expect"
    failed_tests "$log" | head -20
    total_pass=$(( total_pass + pass )) total_fail=$(( total_fail + fail ))
}

# Does the emulator's VAESENC/VAESDEC on YMM agree with AES-NI per lane?
vaes_probe_ok() {
    local cxx=${CXX:-c++}
    cat > "$logdir/probe.cpp" << 'EOF'
#include <immintrin.h>
#include <cstring>
int main() {
    alignas(32) unsigned char d[32], k[32], v[32], x[32];
    for (int i = 0; i < 32; ++i) d[i] = static_cast<unsigned char>(i * 7 + 1), k[i] = static_cast<unsigned char>(i * 13 + 5);
    const __m256i D = _mm256_load_si256(reinterpret_cast<__m256i*>(d)), K = _mm256_load_si256(reinterpret_cast<__m256i*>(k));
    _mm256_store_si256(reinterpret_cast<__m256i*>(v), _mm256_aesdec_epi128(_mm256_aesenc_epi128(D, K), K));
    for (int l = 0; l < 2; ++l) {
        const __m128i dl = _mm_load_si128(reinterpret_cast<__m128i*>(d + 16 * l)), kl = _mm_load_si128(reinterpret_cast<__m128i*>(k + 16 * l));
        _mm_store_si128(reinterpret_cast<__m128i*>(x + 16 * l), _mm_aesdec_si128(_mm_aesenc_si128(dl, kl), kl));
    }
    return std::memcmp(v, x, 32) != 0;
}
EOF
    "$cxx" -O1 -maes -mvaes -mavx2 "$logdir/probe.cpp" -o "$logdir/probe" 2> "$logdir/probe.log" &&
        "$qemu" -cpu max "$logdir/probe"
}

setup_build "$build" || fail_setup "no hwcipher_tests or hwcipher.so in $build"

full="ApiCatalogue.*:*Catalogue.*:*CoreEquivalence.*:AesKat*:AesCtr*:AesMct*:AesCavpFiles*"
full+=":*XtsCavp*:*XtsWycheproof*:XtsDiff*:OcbDiff*:OcbApi*:*GcmVectors*:GcmDiff*"
# Other models: selection, the kernel equivalence of every family (AVX2 SM4
# and Twofish cores) or of AES only (no AVX2), and a few vector files.
short_aes="ApiCatalogue.*:*Catalogue.*:*CoreEquivalence.BlockKernels/aes:*CoreEquivalence.Stitched*/aes"
short_aes+=":AesKat*:*XtsCavp*:*GcmVectors*"
short="$short_aes:*CoreEquivalence.BlockKernels/*"
select="ApiCatalogue.*:*Catalogue.*"
# TCG lacks a few system features of the named models (pcid, x2apic, ...);
# they are switched off so QEMU does not warn about each one.
quiet="-pcid,-x2apic,-tsc-deadline,-invpcid"
avx2_cores="aes=aes-aesni,sm4=sm4-aesni-avx2,twofish=twofish-avx2,ghash=ghash-clmul"
vaes_cores="aes=aes-vaes-avx2,sm4=sm4-aesni-avx2,twofish=twofish-avx2,ghash=ghash-clmul"

if vaes_probe_ok; then
    run max-select "$vaes_cores" "$select" "$qemu" -cpu max
    run max "$vaes_cores" "$full" "$qemu" -cpu max
else
    echo "x86-qemu: $("$qemu" --version | head -1): VAESENC/VAESDEC on YMM are wrong in this" \
         "emulator; the max runs use -cpu max,-vaes, aes-vaes-avx2 runs in the emulated build"
    run max "$avx2_cores" "$full" "$qemu" -cpu max,-vaes
fi
run haswell "$avx2_cores" "$short" "$qemu" -cpu "Haswell-noTSX,$quiet"
run westmere "aes=aes-aesni,sm4=sm4-portable,twofish=twofish-portable,ghash=ghash-clmul" \
    "$short_aes" "$qemu" -cpu Westmere
run nehalem "aes=aes-portable,sm4=sm4-portable,twofish=twofish-portable,ghash=ghash-portable" \
    "$short_aes" "$qemu" -cpu Nehalem

if [[ -n "$emu" ]]; then
    # Natively, the whole unit suite with each emulated core forced: VAES,
    # VPCLMULQDQ and GFNI are not in their needs there, so this runs on any
    # AVX2 CPU (the ZMM core needs AVX-512 itself).
    if setup_build "$emu"; then
        flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
        sm4_ghash="sm4=sm4-gfni-avx2,twofish=twofish-avx2,ghash=ghash-vpclmul-avx2"
        emu_runs=("aes=aes-vaes-avx2,$sm4_ghash")
        zmm_ghash=${sm4_ghash/sm4-gfni-avx2/sm4-gfni-avx512}
        [[ "$flags" == *" avx512f "* && "$flags" == *" avx512bw "* && "$flags" == *" avx512vl "* ]] &&
            emu_runs+=("aes=aes-vaes-avx512,${zmm_ghash/ghash-vpclmul-avx2/ghash-vpclmul-avx512}")
        for cores in "${emu_runs[@]}"; do
            label=${cores%%,*}
            run "emulated-${label#aes=aes-}" "$cores" "*" env HWCIPHER_CORES="$cores"
        done
    else
        echo "x86-qemu: no hwcipher_tests or hwcipher.so in $emu"
        total_fail=$(( total_fail + 1 ))
    fi
fi

(( total_fail == 0 )) && rm -rf "$logdir" || echo "x86-qemu: logs in $logdir"
echo "x86-qemu: $total_pass passed, $total_fail failed"
(( total_fail == 0 ))
