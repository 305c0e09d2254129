#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The s390x CPACF benchmark (issue #5, item 6): per EVP update call, under
# `qemu-s390x -cpu max`, the CPACF instructions issued and the other guest
# instructions executed, for 16 B, 64 B, 1 KiB and 16 KiB updates in every
# AES mode, encryption and (where it differs) decryption, for
#   - hwcipher on its CPACF cores (aes-cpacf, ghash-kimd),
#   - Debian 12's s390x OpenSSL default provider on its CPACF paths,
#   - the same for the newest OpenSSL releases Debian builds for s390x (3.5,
#     3.6, 4.0; scripts/openssl_release.sh fetches them and builds what runs
#     against them), each run on its suite's loader, C library and libcrypto;
#     a release the mirror does not serve is named and left out;
#     and hwcipher in each of those releases, through the same driver, so
#     that hwcipher and that release's default provider pay the same EVP
#     code (the module and driver load into / link 3.5's and 3.6's
#     libcrypto.so.3 as they are, and are built again against 4.0's
#     libcrypto.so.4),
#   - optionally (HWCIPHER_BENCH_SOFTWARE=1) the same OpenSSL as it runs under
#     QEMU unaided (software AES).
# A benchmark, not a test: it fails only when a run fails. Markdown on
# stdout, progress on stderr.
#
#   scripts/bench_s390x.sh
#
# The whole result also goes to docs/benchmarks/s390x.md (HWCIPHER_BENCH_DOC
# names another file, empty for none), headed by the emulated CPU, date,
# commit and this command (scripts/bench_doc.sh): a rerun replaces it.
#
# How CPACF runs without the hardware. QEMU reports the MSA facilities but no
# AES function code, and raises SIGILL when one is executed. bench_evp is
# therefore linked (s390x build with -DHWCIPHER_TEST_SEAMS=ON) with the
# test-only trap-and-emulate shim of test/s390x, built as its own shared
# object (bench/CMakeLists.txt): its SIGILL handler performs the instruction
# in software and resumes after it, and its detection hook tells hwcipher
# which function codes it emulates. The plugin's skip= excludes the shim
# library's code (bench_evp prints its address range), so "other
# instructions" is hwcipher/OpenSSL + EVP + libc, not the emulation (the
# shim library has its own memcpy & co. and static TLS, so the emulation makes
# no calls out of the range). What each trap still leaves outside the range
# is under 10 instructions per CPACF call, the same for both providers
# (measured with partial completion forced after every block: 9.0 more per
# extra execution, including the wrapper's branch back: the handler's errno
# saving through libc, the signal-return trampoline, QEMU counting the rest
# of the translation block the trap interrupted).
#
# OpenSSL on CPACF. libcrypto decides from a capability vector filled at load
# time from STFLE and each instruction's query function. Under QEMU the
# queries answer "no AES" and never trap, so the shim cannot answer them, and
# OPENSSL_s390xcap cannot help: it only ANDs masks into the vector (given
# as bit masks or as a named CPU model's bits), never adds functions. bench_evp --openssl-cpacf instead finds that vector in
# libcrypto's data (by content: the symbol is hidden and the library
# stripped) and ORs in exactly the function codes the shim emulates, the ones
# hwcipher is told about; libcrypto reads the vector whenever it keys a
# cipher, so from then on it issues the CPACF instructions it would on a
# machine with them (the table shows which: e.g. CMAC through KMC, CTR
# through KM on counter blocks or KMA; XTS wants the full-XTS codes 82/84,
# which the shim does not model, so OpenSSL's XTS falls back to its generic
# XTS over one-block KM calls). Where
# the shim declines an instruction OpenSSL issues (it models the architecture
# strictly and refuses what it does not model), that OpenSSL cell says
# "declined" and the table lists the shim's reason; for hwcipher a decline is
# a failure.
#
# Method: bench_evp does one key/IV set-up and K updates of S bytes, and in a
# second run 2K updates; per update = (count(2K) - count(K)) / K, so start-up,
# key set-up and the final cancel (stream runs skip the final: --no-final).
# CCM (one-shot) and CBC-CTS (one message per update in OpenSSL 3.0) run as
# messages instead: per message = IV init, one update of S bytes, final
# (+ tag). XTS runs both ways: as updates (each one data unit under the same
# IV, which both providers allow) and as messages (row XTS-msg: the IV re-init
# is EVP's cost more than the provider's). CMAC: EVP_MAC updates. CPACF
# instructions are counted by encoding with the plugin's op= (KM b92e, KMC
# b92f, KMF b92a, KMO b92b, KMCTR b92d, KMA b929, KIMD b93e, KMAC b91e, PCC
# b92c; every CPACF AES instruction, whatever function code it carries); with
# the shim's partial completion off (the default) each counted execution is one
# instruction call, and the shim's own trap count must equal it (checked).
#
# Environment: HWCIPHER_JOBS (parallel QEMU runs, default 2), HWCIPHER_BENCH_KEY
# (AES key bits, default 128; XTS always uses a 2x128-bit key unless 256),
# HWCIPHER_BENCH_ONLY (extended regex on "MODE dir", for a subset),
# HWCIPHER_BENCH_SIZES (default "16 64 1024 16384"), HWCIPHER_BENCH_BUILD
# (build directory, default build/s390x-bench), HWCIPHER_BENCH_SOFTWARE=1 (add
# the unaided-OpenSSL column), HWCIPHER_BENCH_RELEASES (newer OpenSSL
# releases to add, default "3.5 3.6 4.0"; empty for none), HWCIPHER_SYSROOT.
# Installs what it needs (scripts/deps.sh), prepares the s390x sysroot and
# configures its own build (Release, TEST_SEAMS=ON, no tests).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export DEBIAN_FRONTEND=noninteractive
JOBS=${HWCIPHER_JOBS:-2}
KEY=${HWCIPHER_BENCH_KEY:-128}
ONLY=${HWCIPHER_BENCH_ONLY:-}
read -r -a SIZES <<< "${HWCIPHER_BENCH_SIZES:-16 64 1024 16384}"
build=${HWCIPHER_BENCH_BUILD:-$repo/build/s390x-bench}
read -r -a RELEASES <<< "${HWCIPHER_BENCH_RELEASES-3.5 3.6 4.0}"
columns=(hw ossl)
[[ "${HWCIPHER_BENCH_SOFTWARE:-0}" == 1 ]] && columns+=(sw)
case "$KEY" in 128|192|256) ;; *) echo "bench_s390x.sh: HWCIPHER_BENCH_KEY must be 128, 192 or 256" >&2; exit 2 ;; esac
for s in "${SIZES[@]}"; do
    if ! [[ "$s" =~ ^[0-9]+$ ]] || (( s < 16 || s % 16 )); then
        echo "bench_s390x.sh: sizes must be multiples of 16 bytes: $s" >&2
        exit 2
    fi
done

start=$SECONDS
# shellcheck source=scripts/bench_doc.sh
source scripts/bench_doc.sh
bench_doc_start bench_s390x.sh HWCIPHER_JOBS HWCIPHER_BENCH_KEY HWCIPHER_BENCH_ONLY HWCIPHER_BENCH_SIZES \
    HWCIPHER_BENCH_BUILD HWCIPHER_BENCH_SOFTWARE HWCIPHER_BENCH_RELEASES HWCIPHER_SYSROOT HWCIPHER_BENCH_DOC

# ---- build: the cross build (module + driver + shim) and the host-side plugin --
bash scripts/deps.sh >&2
sysroot=${HWCIPHER_SYSROOT:-$repo/build/sysroot-s390x}
bash scripts/sysroot.sh s390x "$sysroot" >&2
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_TOOLCHAIN_FILE=$repo/cmake/toolchain-s390x.cmake" \
    "-DHWCIPHER_SYSROOT=$sysroot" -DHWCIPHER_TEST_SEAMS=ON -DHWCIPHER_BUILD_TESTS=OFF >&2
cmake --build "$build" -j"$JOBS" --target bench_evp >&2   # + hwcipher, the shim library
out=$build/bench
bench=$out/bench_evp
if [[ ! -f "$out/libhwcipher_bench_shim.so" ]]; then
    echo "bench_s390x.sh: $out has no CPACF shim library (needs HWCIPHER_TEST_SEAMS=ON)" >&2
    exit 1
fi
cc -O2 -Wall -shared -fPIC -o "$out/libinsncount.so" bench/qemu_insncount.c >&2   # host-side QEMU plugin
plugin=$out/libinsncount.so
res=$out/runs-s390x
rm -rf "$res"
mkdir -p "$res"

# Every guest run: the target's C runtime and libcrypto, hwcipher.so and the
# shim from the build, and nothing from the caller's environment that changes
# what runs (the shim's partial completion stays off: one execution = one call).
guest=(env -u OPENSSL_CONF -u OPENSSL_s390xcap -u HWCIPHER_CORES -u HWCIPHER_TRACE
       -u HWCIPHER_SHIM_PARTIAL
       QEMU_LD_PREFIX=/usr/s390x-linux-gnu
       "LD_LIBRARY_PATH=$sysroot/usr/lib/s390x-linux-gnu:$out"
       "OPENSSL_MODULES=$build")
qemu=(qemu-s390x -cpu max)

# ---- newer OpenSSL releases: their libcrypto, a bench_evp that links it -------
# Columns "rel-<release>" (its default provider) and "hwrel-<release>"
# (hwcipher in it, before the release's own, so both providers of the release
# run on the same EVP code). scripts/openssl_release.sh --module fetches the
# release and gives the build whose hwcipher.so and bench_evp load into /
# link its libcrypto: this build itself for a libcrypto.so.3 (3.5, 3.6), a
# build of its own configured like this one for 4.0's libcrypto.so.4. The
# runs use the suite's loader and C library (QEMU_LD_PREFIX = the unpacked
# root), the release's libcrypto first on the library path, the cross
# toolchain's libstdc++ after them.
declare -A rel_guest=() rel_bench=() rel_version=() rel_modules=()
unavailable=()
for rel in "${RELEASES[@]}"; do
    echo "bench_s390x.sh: OpenSSL $rel for s390x: fetching, and building what runs against it" >&2
    if ! root=$(bash scripts/openssl_release.sh "$rel" s390x 2> "$build/openssl-$rel.log"); then
        echo "bench_s390x.sh: OpenSSL $rel for s390x is not available here (see $build/openssl-$rel.log); its column is left out" >&2
        unavailable+=("$rel")
        continue
    fi
    rel_build=$(bash scripts/openssl_release.sh "$rel" s390x --module "$build" --target bench_evp \
                    2>> "$build/openssl-$rel.log") ||
        { tail -20 "$build/openssl-$rel.log" >&2
          echo "bench_s390x.sh: cannot build hwcipher and bench_evp against OpenSSL $rel" >&2; exit 1; }
    rel_version[$rel]=$(sed -n 's/^OSSL_VERSION="\(.*\)"$/\1/p' "$root/env.sh")
    rel_lib=$(sed -n 's/^OSSL_LIBDIR="\(.*\)"$/\1/p' "$root/env.sh")
    rel_guest[$rel]="QEMU_LD_PREFIX=$root LD_LIBRARY_PATH=$rel_lib:$rel_build/bench:/usr/s390x-linux-gnu/lib"
    rel_bench[$rel]=$rel_build/bench/bench_evp
    rel_modules[$rel]=$rel_build
    columns+=("hwrel-$rel" "rel-$rel")
done

# The command line of a guest run of one column: its environment and driver.
run_of() { # <column> -> sets run_env (array) and run_bench
    local col=$1
    run_env=("${guest[@]}") run_bench=$bench
    if [[ "$col" == rel-* || "$col" == hwrel-* ]]; then
        local rel=${col#*rel-}
        # shellcheck disable=SC2206  # words of VAR=value without blanks
        run_env=(env -u OPENSSL_CONF -u OPENSSL_s390xcap -u HWCIPHER_CORES -u HWCIPHER_TRACE
                 -u HWCIPHER_SHIM_PARTIAL ${rel_guest[$rel]} "OPENSSL_MODULES=${rel_modules[$rel]:-$build}")
        run_bench=${rel_bench[$rel]}
    fi
}

# CPACF instructions by opcode (s390x-cpacf notes, section 1).
ops=(b92e:KM b92f:KMC b92a:KMF b92b:KMO b92d:KMCTR b929:KMA b93e:KIMD b91e:KMAC b92c:PCC)
op_args=""
for o in "${ops[@]}"; do op_args+=",op=${o%%:*}"; done

# ---- what runs: hwcipher's cores and the shim's address range -----------------
report=$("${guest[@]}" "${qemu[@]}" "$bench" --provider hwcipher --cores 2>&1) ||
    { echo "bench_s390x.sh: bench_evp could not load hwcipher:" >&2; echo "$report" >&2; exit 1; }
cores=$(sed -n 's/^cores: //p' <<< "$report")
shim_range=$(sed -n 's/^shim-range: //p' <<< "$report")
[[ -n "$cores" && -n "$shim_range" ]] ||
    { echo "bench_s390x.sh: no cores report or shim range:" >&2; echo "$report" >&2; exit 1; }
core_of() { tr ',' '\n' <<< "$cores" | sed -n "s/^$1=//p"; }
aes_core=$(core_of aes)
ghash_core=$(core_of ghash)
echo "bench_s390x.sh: hwcipher cores: $cores; shim code at $shim_range" >&2
if [[ "$aes_core" != *cpacf* ]]; then
    echo "bench_s390x.sh: warning: hwcipher chose $aes_core for AES, not a CPACF core" >&2
fi
# Per OpenSSL column: the shim's address range in that process (the newer
# releases run on another C library) and what --openssl-cpacf added to
# libcrypto's capability vector.
declare -A col_shim=([hw]=$shim_range [sw]=$shim_range) col_added=()
for col in "${columns[@]}"; do
    [[ "$col" == hw || "$col" == sw ]] && continue
    run_of "$col"
    if [[ "$col" == hwrel-* ]]; then
        probe=$("${run_env[@]}" "${qemu[@]}" "$run_bench" --provider hwcipher --cores 2>&1) ||
            { echo "bench_s390x.sh: hwcipher does not load in $col:" >&2; echo "$probe" >&2; exit 1; }
        col_shim[$col]=$(sed -n 's/^shim-range: //p' <<< "$probe")
        [[ "$(sed -n 's/^cores: //p' <<< "$probe")" == "$cores" ]] ||
            { echo "bench_s390x.sh: hwcipher chose other cores in $col:" >&2; echo "$probe" >&2; exit 1; }
        continue
    fi
    probe=$("${run_env[@]}" "${qemu[@]}" "$run_bench" --provider default --openssl-cpacf --cores 2>&1) ||
        { echo "bench_s390x.sh: --openssl-cpacf failed for $col:" >&2; echo "$probe" >&2; exit 1; }
    col_added[$col]=$(sed -n 's/^openssl-cpacf: //p' <<< "$probe")
    col_shim[$col]=$(sed -n 's/^shim-range: //p' <<< "$probe")
    [[ -n "${col_added[$col]}" && -n "${col_shim[$col]}" ]] ||
        { echo "bench_s390x.sh: --openssl-cpacf printed nothing for $col:" >&2; echo "$probe" >&2; exit 1; }
done
ossl_added=${col_added[ossl]}

# ---- rows ---------------------------------------------------------------------
# "MODE DIR HOW": HOW = stream (K updates after one set-up), msg (one message
# per update) or mac (EVP_MAC updates). OFB and CTR: decryption is the same.
rows=()
for spec in ECB:enc+dec:stream CBC:enc+dec:stream CFB:enc+dec:stream CFB8:enc+dec:stream \
            OFB:enc:stream CTR:enc:stream XTS:enc+dec:stream XTS-msg:enc+dec:msg \
            GCM:enc+dec:stream \
            CCM:enc+dec:msg OCB:enc+dec:stream CBC-CTS:enc+dec:msg CMAC:mac:mac; do
    IFS=: read -r mode dirs how <<< "$spec"
    for dir in ${dirs//+/ }; do
        if [[ -z "$ONLY" || "$mode $dir" =~ $ONLY ]]; then rows+=("$mode $dir $how"); fi
    done
done
(( ${#rows[@]} )) || { echo "bench_s390x.sh: HWCIPHER_BENCH_ONLY matches no row" >&2; exit 2; }
cipher_of() { # <mode>
    case "$1" in
        XTS|XTS-msg) if (( KEY == 256 )); then echo AES-256-XTS; else echo AES-128-XTS; fi ;;
        CMAC) echo "AES-$KEY-CBC" ;;
        *)    echo "AES-$KEY-$1" ;;
    esac
}
# Updates per run (the second run does twice as many): enough bytes that any
# per-batch work averages out, few enough to keep the emulation quick.
updates_for() { local k=$(( 131072 / $1 )); (( k < 8 )) && k=8; (( k > 64 )) && k=64; echo "$k"; }

# Columns: hw (hwcipher), ossl (OpenSSL default provider on CPACF), sw (the
# same, unaided: software AES).
id_of() { echo "${1}_${2}_${3}_${4}_${5}"; } # mode dir size column updates

count_run() { # <mode> <dir> <how> <size> <column> <updates>
    local mode=$1 dir=$2 how=$3 size=$4 column=$5 k=$6 id args=() t0=$SECONDS rc=0
    local run_env run_bench
    id=$(id_of "$mode" "$dir" "$size" "$column" "$k")
    case "$column" in
        hw|hwrel-*) args=(--provider hwcipher) ;;
        ossl|rel-*) args=(--provider default --openssl-cpacf) ;;
        sw)    args=(--provider default) ;;
    esac
    run_of "$column"
    if [[ "$how" == mac ]]; then
        args+=(--mac CMAC --cipher "$(cipher_of "$mode")")
    else
        args+=(--cipher "$(cipher_of "$mode")" --dir "$dir")
    fi
    args+=(--bytes $(( size * k )))
    case "$how" in
        stream|mac) args+=(--update "$size" --no-final) ;;
        msg)        args+=(--message "$size") ;;
    esac
    "${run_env[@]}" "${qemu[@]}" -plugin "$plugin,skip=${col_shim[$column]}$op_args" -d plugin \
        -D "$res/$id.log" "$run_bench" "${args[@]}" > "$res/$id.out" 2> "$res/$id.err" || rc=$?
    echo "$rc" > "$res/$id.rc"
    printf '  %-8s %s %5d B %-4s x%-3d rc=%d  %3ds\n' "$mode" "$dir" "$size" "$column" "$k" \
        "$rc" $(( SECONDS - t0 )) >&2
}

spawn() {
    while (( $(jobs -rp | wc -l) >= JOBS )); do wait -n || true; done
    "$@" &
}

echo "bench_s390x.sh: ${#rows[@]} rows x ${#SIZES[@]} sizes x ${#columns[@]} columns, 2 runs each:" >&2
# Slowest first (CFB8 is one AES per byte, emulated), so the runs end together.
for pass in slow rest; do
    for row in "${rows[@]}"; do
        read -r mode dir how <<< "$row"
        if [[ "$mode" == CFB8 ]]; then is=slow; else is=rest; fi
        [[ "$is" == "$pass" ]] || continue
        for (( i = ${#SIZES[@]} - 1; i >= 0; i-- )); do
            size=${SIZES[i]}
            k=$(updates_for "$size")
            for column in "${columns[@]}"; do
                spawn count_run "$mode" "$dir" "$how" "$size" "$column" "$k"
                spawn count_run "$mode" "$dir" "$how" "$size" "$column" $(( 2 * k ))
            done
        done
    done
done
wait

# ---- figures ------------------------------------------------------------------
failures=0
declare -A fig_ops=() fig_other=() fig_total=()   # by "mode dir size column"
declare -A declines=()   # OpenSSL's instructions the shim declined: reason -> rows

# One run's counts: "insns OP1 OP2 ... traps declined" (traps/declined from the
# shim's exit line), or FAIL / NA (cipher not offered: bench_evp exit 3).
counts_of() { # <id>
    local id=$1 rc line o n traps declined
    rc=$(cat "$res/$id.rc" 2>/dev/null || echo 99)
    if [[ "$rc" == 3 ]]; then echo NA; return; fi
    if [[ "$rc" != 0 ]]; then echo FAIL; return; fi
    line=$(sed -n 's/^insns: //p' "$res/$id.log")
    for o in "${ops[@]}"; do
        n=$(sed -n "s/^op ${o%%:*}: //p" "$res/$id.log")
        line+=" ${n:-0}"
    done
    traps=$(sed -n 's/^cpacf-shim: .*: \([0-9]*\) traps, .*/\1/p' "$res/$id.err")
    declined=$(sed -n 's/^cpacf-shim: .*, \([0-9]*\) declined, .*/\1/p' "$res/$id.err")
    echo "$line ${traps:-0} ${declined:-0}"
}

# Per-update figures of one row, size and column into fig_*; "FAILED"/"—".
figure() { # <mode> <dir> <how> <size> <column>
    local mode=$1 dir=$2 how=$3 size=$4 col=$5 k key id1 id2 a b
    key="$mode $dir $size $col"
    k=$(updates_for "$size")
    id1=$(id_of "$mode" "$dir" "$size" "$col" "$k")
    id2=$(id_of "$mode" "$dir" "$size" "$col" $(( 2 * k )))
    a=$(counts_of "$id1")
    b=$(counts_of "$id2")
    if [[ "$a" == NA || "$b" == NA ]]; then
        fig_ops[$key]="—"; fig_other[$key]="—"; fig_total[$key]="—"
        return
    fi
    if [[ "$a" == FAIL || "$b" == FAIL ]] && [[ "$col" != hw && "$col" != hwrel-* ]] &&
       grep -q '^cpacf-shim: declined' "$res/$id1.err" "$res/$id2.err"; then
        local why
        why=$(grep -h -m1 '^cpacf-shim: declined' "$res/$id1.err" "$res/$id2.err" | head -1 |
              sed -E 's/^cpacf-shim: declined ([A-Z]+) .*, GR0 (0x[0-9a-f]+): (.*); the process.*/\1 with GR0 \2: \3/')
        declines[$why]+=" $mode-$dir/$size"
        fig_ops[$key]="declined"; fig_other[$key]="—"; fig_total[$key]="—"
        return
    fi
    if [[ "$a" == FAIL || "$b" == FAIL ]]; then
        local id
        for id in "$id1" "$id2"; do
            [[ "$(cat "$res/$id.rc" 2>/dev/null)" == 0 ]] && continue
            echo "bench_s390x.sh: FAILED: $id (exit $(cat "$res/$id.rc" 2>/dev/null || echo '?')):" >&2
            sed 's/^/    /' "$res/$id.err" >&2 2>/dev/null || true
        done
        fig_ops[$key]=FAILED; fig_other[$key]=FAILED; fig_total[$key]=FAILED
        failures=$(( failures + 1 ))
        return
    fi
    # hwcipher must have run the core the report names.
    if [[ "$col" == hw || "$col" == hwrel-* ]]; then
        local want=$aes_core got
        [[ "$mode" == GCM ]] && want+="+$ghash_core"
        got=$(sed -n 's/^core: //p' "$res/$id2.out")
        if [[ "$got" != "$want" ]]; then
            echo "bench_s390x.sh: $id2 ran core '$got', expected '$want'" >&2
            fig_ops[$key]=FAILED; fig_other[$key]=FAILED; fig_total[$key]=FAILED
            failures=$(( failures + 1 ))
            return
        fi
    fi
    if [[ "$(sed -n 's/^shim-range: //p' "$res/$id2.out")" != "${col_shim[$col]}" ]]; then
        echo "bench_s390x.sh: $id2: the shim library moved, its skip= range does not apply" >&2
        fig_ops[$key]=FAILED; fig_other[$key]=FAILED; fig_total[$key]=FAILED
        failures=$(( failures + 1 ))
        return
    fi
    # awk: per-op deltas / k as "KM 1 + KMC 0.5", the other instructions, and
    # consistency: the shim emulated every counted CPACF execution, declined none
    # (queries never trap: they cancel in the delta).
    local names=""
    for o in "${ops[@]}"; do names+="${o#*:} "; done
    local result
    result=$(awk -v a="$a" -v b="$b" -v k="$k" -v names="$names" 'BEGIN {
        na = split(a, A, " "); split(b, B, " "); split(names, N, " "); nops = na - 3
        cp = 0; s = ""
        for (i = 1; i <= nops; i++) {
            d = B[i + 1] - A[i + 1]; cp += d
            if (d != 0) s = s (s == "" ? "" : " + ") N[i] " " fmt(d / k)
        }
        if (s == "") s = "0"
        traps = B[na - 1] - A[na - 1]; declined = B[na] + A[na]
        other = (B[1] - A[1] - cp) / k
        ok = (traps == cp && declined == 0) ? "ok" : "bad traps=" traps " cpacf=" cp " declined=" declined
        printf "%s|%.1f|%.1f|%s\n", s, other, (B[1] - A[1]) / k, ok
    }
    function fmt(x) { return (x == int(x)) ? sprintf("%d", x) : sprintf("%.2f", x) }')
    IFS='|' read -r "fig_ops[$key]" "fig_other[$key]" "fig_total[$key]" ok <<< "$result"
    if [[ "$ok" != ok ]]; then
        echo "bench_s390x.sh: $id1/$id2: shim and plugin disagree: $ok" >&2
        sed 's/^/    /' "$res/$id2.err" >&2
        fig_ops[$key]="FAILED"
        failures=$(( failures + 1 ))
    fi
}

for row in "${rows[@]}"; do
    read -r mode dir how <<< "$row"
    for size in "${SIZES[@]}"; do
        for column in "${columns[@]}"; do figure "$mode" "$dir" "$how" "$size" "$column"; done
    done
done

openssl_version=$(sed -n 's/^libssl3:s390x=//p' "$sysroot/.hwcipher-sysroot" 2>/dev/null || echo "?")
openssl_version_short=${openssl_version%%-*}

# ---- targets (issue #5) --------------------------------------------------------
# A column's name in the tables and verdicts.
col_title() { # <column>
    case "$1" in
        ossl)  echo "OpenSSL $openssl_version_short" ;;
        rel-*) echo "OpenSSL ${rel_version[${1#rel-}]}" ;;
        hwrel-*) echo "hwcipher in ${rel_version[${1#hwrel-}]}" ;;
        *)     echo "$1" ;;
    esac
}

# Bulk (16 KiB) updates: one call of the mode's CPACF instruction per update and
# fewer than 300 other instructions for ECB, CBC, CFB, OFB, XTS, GCM (KMA) and
# CMAC; CTR: KMA (its GCM function without GHASH, where the CPU has MSA 8) or
# KMCTR only, and at most 6 instructions per block building counters
# (per-block slope of the other instructions between the smallest and largest
# size).
big=${SIZES[-1]}
small=${SIZES[0]}
declare -A main_insn=([ECB]=KM [CBC]=KMC [CFB]=KMF [OFB]=KMO [XTS]=KM [GCM]=KMA [CMAC]=KMAC)
targets=()
all_held=1
for row in "${rows[@]}"; do
    read -r mode dir how <<< "$row"
    [[ -n "${main_insn[$mode]:-}" || "$mode" == CTR ]] || continue
    key="$mode $dir $big hw"
    opsf=${fig_ops[$key]} other=${fig_other[$key]}
    if [[ "$mode" == CTR ]]; then
        slope=$(awk -v a="${fig_other[$mode $dir $small hw]}" -v b="$other" -v s="$small" -v l="$big" \
                'BEGIN { if (a !~ /^[0-9.]+$/ || b !~ /^[0-9.]+$/ || l == s) print "?"; else printf "%.2f", (b - a) / ((l - s) / 16) }')
        verdict=held
        [[ "$opsf" =~ ^(KMCTR|KMA)\ [0-9.]+$ ]] || verdict="NOT held"
        awk -v x="$slope" 'BEGIN { exit !(x ~ /^[0-9.]+$/ && x <= 6) }' || verdict="NOT held"
        targets+=("| CTR | $dir | $opsf per $big B update ($(( big / 16 )) blocks) | $slope other instructions per block (≤ 6) | $verdict |")
    else
        want=${main_insn[$mode]}
        [[ "$mode" == XTS ]] && want="KM 1 (+ PCC for the tweak)"
        verdict=held
        if ! [[ "$opsf" =~ (^|\ )${main_insn[$mode]}\ 1($|\ ) ]] ||
           ! awk -v x="$other" 'BEGIN { exit !(x ~ /^[0-9.]+$/ && x < 300) }'; then
            verdict="NOT held"
        fi
        # Exactly one call of the main instruction, nothing else but XTS's PCC.
        rest=$(sed -E "s/(^| \+ )${main_insn[$mode]} 1( |$)/ /; s/ \+ / /g" <<< "$opsf")
        if [[ "$mode" == XTS ]]; then rest=$(sed -E 's/PCC 1//' <<< "$rest"); fi
        [[ -z "${rest// /}" ]] || verdict="NOT held"
        targets+=("| $mode | $dir | $opsf per $big B update (want ${want% 1*} 1) | $other other (< 300) | $verdict |")
    fi
    [[ "$verdict" == held ]] || all_held=0
done
# OCB and CCM (issue #14): per 16 KiB update or message, no more other
# instructions than any OpenSSL column on the same shim.
ossl_cols=()
for col in "${columns[@]}"; do [[ "$col" == ossl || "$col" == rel-* ]] && ossl_cols+=("$col"); done
for row in "${rows[@]}"; do
    read -r mode dir how <<< "$row"
    [[ "$mode" == OCB || "$mode" == CCM ]] || continue
    key="$mode $dir $big"
    mine=${fig_other[$key hw]}
    verdict=held others=""
    for col in "${ossl_cols[@]}"; do
        theirs=${fig_other[$key $col]}
        others+="${others:+, }$theirs ($(col_title "$col"))"
        awk -v a="$mine" -v b="$theirs" 'BEGIN { exit !(a ~ /^[0-9.]+$/ && (b !~ /^[0-9.]+$/ || a + 0 <= b + 0)) }' ||
            verdict="NOT held"
    done
    targets+=("| $mode | $dir | ${fig_ops[$key hw]} per $big B ${how/stream/update} | $mine other (≤ OpenSSL: $others) | $verdict |")
    [[ "$verdict" == held ]] || all_held=0
done

# ---- tables -----------------------------------------------------------------------
qemu_version=$(qemu-s390x --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')
hwcipher_rev=$bench_doc_rev   # taken at the start: edits during the run do not count
tables=$out/bench-s390x.md
{
    echo "Per EVP update call under qemu-s390x $qemu_version -cpu max with the test-only CPACF"
    echo "shim: CPACF instruction calls (by opcode) and the other guest instructions"
    echo "executed (shim excluded); hwcipher $hwcipher_rev (cores: $aes_core, $ghash_core),"
    rel_txt=""
    for rel in "${RELEASES[@]}"; do
        [[ -n "${rel_version[$rel]:-}" ]] && rel_txt+=", ${rel_version[$rel]}"
    done
    if [[ -n "$rel_txt" ]]; then
        echo "s390x OpenSSL $openssl_version (Debian 12) and the newer releases${rel_txt#,}"
        echo "(Debian's builds, each on its own loader and libcrypto), default providers. AES-$KEY"
    else
        echo "s390x OpenSSL $openssl_version (Debian 12) default provider. AES-$KEY"
    fi
    echo "(XTS: AES-$(( KEY == 256 ? 256 : 128 ))-XTS). Per update = (count for 2K - count for K updates) / K,"
    echo "K = 131072 / size clamped to 8..64. Updates on one context, except: CCM,"
    echo "CBC-CTS and XTS-msg per message (IV init, one update, final); CMAC: EVP_MAC."
    echo "XTS: each update is one whole data unit under the IV set once (OpenSSL's"
    echo "semantics, which hwcipher keeps: the tweak restarts from the IV each update);"
    echo "XTS-msg adds the IV re-init and final a new data unit usually comes with."
    echo "\"OpenSSL CPACF\": libcrypto's capability vector given the shim's function"
    echo "codes (bench_evp --openssl-cpacf; OPENSSL_s390xcap can only remove bits)."
    echo "\"Other insns\": all guest instructions outside the shim minus the CPACF ones."
    echo "\"hwcipher in R\": hwcipher's module in release R's libcrypto (the same driver as"
    echo "R's default provider), so that EVP's own cost, which differs between releases,"
    echo "is the same on both sides of a comparison."
    sw_head="" sw_rule=""
    if [[ " ${columns[*]} " == *" sw "* ]]; then
        echo "\"OpenSSL software\": the same library unaided (QEMU reports no AES function)."
        sw_head=" OpenSSL software insns |" sw_rule=" ---: |"
    fi
    echo
    rel_head="" rel_rule=""
    for col in "${columns[@]}"; do
        [[ "$col" == rel-* || "$col" == hwrel-* ]] || continue
        rel_head+=" $(col_title "$col") CPACF calls | $(col_title "$col") other insns |"
        rel_rule+=" --- | ---: |"
    done
    echo "| mode | dir | bytes | hwcipher in $openssl_version_short CPACF calls | hwcipher in $openssl_version_short other insns | $(col_title ossl) CPACF calls | $(col_title ossl) other insns |$rel_head$sw_head"
    echo "| --- | --- | ---: | --- | ---: | --- | ---: |$rel_rule$sw_rule"
    for row in "${rows[@]}"; do
        read -r mode dir how <<< "$row"
        dir_txt=$dir
        [[ "$mode" == OFB || "$mode" == CTR ]] && dir_txt="enc = dec"
        [[ "$how" == mac ]] && dir_txt="—"
        for size in "${SIZES[@]}"; do
            h="$mode $dir $size"
            sw_cell="" rel_cells=""
            [[ -n "$sw_head" ]] && sw_cell=" ${fig_total[$h sw]} |"
            for col in "${columns[@]}"; do
                [[ "$col" == rel-* || "$col" == hwrel-* ]] && rel_cells+=" ${fig_ops[$h $col]} | ${fig_other[$h $col]} |"
            done
            printf '| %s | %s | %d | %s | %s | %s | %s |%s%s\n' "$mode" "$dir_txt" "$size" \
                "${fig_ops[$h hw]}" "${fig_other[$h hw]}" "${fig_ops[$h ossl]}" \
                "${fig_other[$h ossl]}" "$rel_cells" "$sw_cell"
        done
    done
    echo
    echo "Targets (issue #5; OCB and CCM: issue #14), hwcipher, $big-byte updates:"
    echo
    echo "| mode | dir | CPACF calls | other instructions | target |"
    echo "| --- | --- | --- | --- | --- |"
    printf '%s\n' "${targets[@]}"
    echo
    if (( all_held )); then echo "All targets held."; else echo "Some targets NOT held (see above)."; fi
    echo
    if (( ${#declines[@]} )); then
        echo "\"declined\": the shim refused an instruction OpenSSL issued (the run died with"
        echo "SIGILL there), so OpenSSL cannot be counted on CPACF for that row:"
        echo
        for why in "${!declines[@]}"; do echo "- $why (in:${declines[$why]})"; done
        echo
    fi
    echo "Added to OpenSSL's capability vector (function-code bit masks per instruction):"
    echo "$ossl_added."
    for col in "${columns[@]}"; do
        [[ "$col" == rel-* && "${col_added[$col]}" != "$ossl_added" ]] &&
            echo "$(col_title "$col"): ${col_added[$col]}."
    done
    for rel in "${unavailable[@]}"; do
        echo "OpenSSL $rel: not available for s390x from this machine's Debian sources (no column)."
    done
    echo
    echo "Run time: $(( SECONDS - start )) s with $JOBS parallel QEMU runs."
} > "$tables"
cat "$tables"
echo "bench_s390x.sh: tables also in ${tables#"$repo"/}" >&2
(( failures )) || bench_doc_write docs/benchmarks/s390x.md "hwcipher on s390x: CPACF calls and instructions per update" \
    "qemu-s390x $qemu_version -cpu max (CPACF through the test-only shim) on $(bench_doc_host_cpu)" < "$tables"
if (( failures )); then
    echo "bench_s390x.sh: $failures figure(s) FAILED (details above)" >&2
    exit 1
fi
