#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The aarch64 instruction-count benchmark (issues #4, #14): guest instructions
# per byte under `qemu-aarch64`, for every (cipher, mode, direction), through
# EVP, for
#   - hwcipher with the cores it picks on that CPU (its accelerated core where
#     one is registered, else the portable one: the column names it),
#   - hwcipher forced to its portable cores (HWCIPHER_CORES=portable),
#   - the arm64 OpenSSL default provider of Debian 12 (3.0, the sysroot's
#     libcrypto, with its own ARMv8 assembly),
#   - the default provider of the newer releases scripts/openssl_release.sh
#     unpacks from Debian's newer suites (3.5, 3.6, 4.0), the same bench_evp
#     run on that release's loader and libcrypto (built again against 4.0's
#     libcrypto.so.4 by scripts/openssl_release.sh --module),
#   - OpenSSL 3.5 with its Neoverse V1/V2 kernels forced (AES rows): 3.5
#     picks its 8-block AES-GCM and 12-block AES-CTR kernels with EOR3 only
#     on CPUs it knows by MIDR (crypto/armcap.c: ARMV8_UNROLL8_EOR3,
#     ARMV8_UNROLL12_EOR3), which QEMU's `max` is not; OPENSSL_armcap (which
#     replaces libcrypto's detection outright) gives it what `-cpu max` has
#     plus those bits.
# The first table is `-cpu max`; then SM4's main rows on CPUs without the
# SM4 instructions (`-cpu neoverse-n1`, `-cpu cortex-a72`: hwcipher's choice
# there, 3.0 and 3.5); then small GCM messages.
# Instructions are not cycles (an AESE counts as much as an ADD), but the
# counts are exact and repeatable and measure the code, not the emulator.
# A benchmark, not a test: it fails only when a run fails.
#
#   scripts/bench_aarch64.sh            # Markdown tables on stdout, progress on stderr
#
# The whole result also goes to docs/benchmarks/aarch64.md (HWCIPHER_BENCH_DOC
# names another file, empty for none), headed by the emulated CPUs, date,
# commit and this command (scripts/bench_doc.sh): a rerun replaces it.
#
# Method: bench/bench_evp (linked only against libcrypto) pushes N and 2N
# bytes through EVP in 16 KiB updates under the QEMU instruction-count plugin
# of bench/qemu_insncount.c; insns/B = (count(2N) - count(N)) / N,
# so start-up (loading libcrypto and the provider, key set-up) cancels.
# N = 1 MiB. CCM is one-shot per message in EVP and XTS takes one data unit
# per update, so both run as 16 KiB messages, each with its own IV/tweak.
# Decryption of GCM/OCB checks a real tag (computed once, in a run that is not
# counted); CCM decryption decrypts one valid message over and over.
# Then 64-byte GCM messages (per message: init with the IV, 16 bytes of AAD,
# one update, final, tag) give the per-message cost, and the share of it spent
# outside hwcipher.so (the EVP layer, common to every provider).
#
# Environment: HWCIPHER_JOBS (parallel QEMU runs, default 2),
# HWCIPHER_BENCH_BYTES (N, default 1048576; a multiple of 16 KiB: the figures
# do not depend on it), HWCIPHER_BENCH_ONLY (extended regex on
# "CIPHER-MODE dir", to run a subset), HWCIPHER_BENCH_RELEASES (the newer
# OpenSSL releases, default "3.5 3.6 4.0"; one that cannot be fetched is left
# out with a note, 3.5 must be there for its forced column),
# HWCIPHER_BENCH_CPUS (the CPU models of the SM4 table, default
# "neoverse-n1 cortex-a72"; empty: none), HWCIPHER_SYSROOT (as
# scripts/build.sh).
# Installs what it needs (scripts/deps.sh) and builds build/aarch64.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export DEBIAN_FRONTEND=noninteractive
JOBS=${HWCIPHER_JOBS:-2}
BYTES=${HWCIPHER_BENCH_BYTES:-1048576}
ONLY=${HWCIPHER_BENCH_ONLY:-}
UPDATE=16384     # bytes per EVP update (or per message for CCM and XTS)
SMALL=64         # the small-message GCM rows: payload bytes per message ...
SMALL_AAD=16     # ... and AAD bytes per message
read -r -a RELEASES <<< "${HWCIPHER_BENCH_RELEASES-3.5 3.6 4.0}"
read -r -a MODEL_CPUS <<< "${HWCIPHER_BENCH_CPUS-neoverse-n1 cortex-a72}"
# OpenSSL 3.5 with its Neoverse V1/V2 kernels: OPENSSL_armcap replaces the
# detected vector, so it names what `-cpu max` offers (crypto/arm_arch.h:
# NEON 1<<0, AES 1<<2, SHA1 1<<3, SHA256 1<<4, PMULL 1<<5, SHA512 1<<6,
# SM3 1<<9, SM4 1<<10, SHA3 1<<11) plus the bits armcap.c sets only for
# the CPUs it knows by MIDR: ARMV8_UNROLL8_EOR3 1<<12 (AES-GCM, 8 blocks),
# ARMV8_HAVE_SHA3_AND_WORTH_USING 1<<15, ARMV8_UNROLL12_EOR3 1<<16 (AES-CTR,
# 12 blocks).
NV_ARMCAP=$(( (1<<0) | (1<<2) | (1<<3) | (1<<4) | (1<<5) | (1<<6) | (1<<9) | (1<<10) | (1<<11)
              | (1<<12) | (1<<15) | (1<<16) ))
if (( BYTES <= 0 || BYTES % UPDATE != 0 )); then
    echo "bench_aarch64.sh: HWCIPHER_BENCH_BYTES must be a positive multiple of $UPDATE" >&2
    exit 2
fi

start=$SECONDS
# The revision measured: taken now, before the build, so that edits made
# while the runs go on do not show up as "-dirty".
hwcipher_rev=$(git -C "$repo" describe --always --dirty 2>/dev/null || echo "?")
# shellcheck source=scripts/bench_doc.sh
source scripts/bench_doc.sh
bench_doc_start bench_aarch64.sh HWCIPHER_JOBS HWCIPHER_BENCH_BYTES HWCIPHER_BENCH_ONLY \
    HWCIPHER_BENCH_RELEASES HWCIPHER_BENCH_CPUS HWCIPHER_SYSROOT HWCIPHER_BENCH_DOC

# ---- build: the cross build (module + driver) and the host-side plugin ------
bash scripts/deps.sh >&2
bash scripts/build.sh aarch64 --target bench_evp >&2   # bench_evp depends on hwcipher
build=$repo/build/aarch64
out=$build/bench
bench=$out/bench_evp
# The instruction-count plugin runs inside the host's QEMU: host compiler.
cc -O2 -Wall -shared -fPIC -o "$out/libinsncount.so" bench/qemu_insncount.c >&2
plugin=$out/libinsncount.so
sysroot=${HWCIPHER_SYSROOT:-$repo/build/sysroot-aarch64}
res=$out/runs
rm -rf "$res"
mkdir -p "$res"

# Every guest run: the target's C runtime and libcrypto, hwcipher.so from the
# build, and nothing from the caller's environment that changes what runs.
clean_env=(env -u OPENSSL_CONF -u OPENSSL_armcap -u HWCIPHER_CORES -u HWCIPHER_TRACE
           "OPENSSL_MODULES=$build")
guest=("${clean_env[@]}" QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
       "LD_LIBRARY_PATH=$sysroot/usr/lib/aarch64-linux-gnu")

# ---- the newer releases: each its own loader, C library and libcrypto --------
# rel_prefix[REL]: the environment a guest run of that release starts with;
# rel_bench[REL]: the bench_evp for its libcrypto (the one built here, whose
# libcrypto.so.3 that release also provides, or, for a release with another
# soname, bench_evp compiled again against that release's headers).
declare -A rel_prefix=() rel_bench=() rel_version=()
have_releases=()
for rel in "${RELEASES[@]}"; do
    echo "bench_aarch64.sh: OpenSSL $rel for arm64: fetching, and building what runs against it" >&2
    if ! bash scripts/openssl_release.sh "$rel" arm64 > "$out/openssl-$rel.log" 2>&1; then
        echo "bench_aarch64.sh: OpenSSL $rel for arm64 could not be fetched (build/aarch64/bench/openssl-$rel.log); its column is left out" >&2
        continue
    fi
    # The bench_evp that links its libcrypto: this build's for a
    # libcrypto.so.3, one built against the release for another soname (4.0).
    if ! rel_build=$(bash scripts/openssl_release.sh "$rel" arm64 --module "$build" --target bench_evp \
                         2>> "$out/openssl-$rel.log"); then
        echo "bench_aarch64.sh: bench_evp does not build against OpenSSL $rel (build/aarch64/bench/openssl-$rel.log); its column is left out" >&2
        continue
    fi
    # shellcheck disable=SC1090
    vars=$(source "build/openssl-$rel-arm64/env.sh" &&
           printf '%s\n' "$OSSL_ROOT" "$OSSL_LIBDIR" "$OSSL_INCLUDE" "$OSSL_VERSION")
    { read -r root; read -r libdir; read -r include; read -r version; } <<< "$vars"
    rel_version[$rel]=$version
    rel_prefix[$rel]="QEMU_LD_PREFIX=$root LD_LIBRARY_PATH=$libdir:/usr/aarch64-linux-gnu/lib"
    rel_bench[$rel]=$rel_build/bench/bench_evp
    have_releases+=("$rel")
done
have_release() { [[ " ${have_releases[*]} " == *" $1 "* ]]; }
have_release 3.5 || { echo "bench_aarch64.sh: OpenSSL 3.5 is required" >&2; exit 1; }

# A "column" is how hwcipher/OpenSSL is asked: best (hwcipher's choice),
# portable (HWCIPHER_CORES=portable), default (Debian 12's default provider),
# r<REL> (release REL's default provider), nv3.5 (3.5 with its Neoverse
# kernels forced). column_cmd sets cmd (the guest environment), bin and args
# (bench_evp and its provider).
column_cmd() { # <column>
    local rel
    case "$1" in
        best)     cmd=("${guest[@]}"); bin=$bench; args=(--provider hwcipher) ;;
        portable) cmd=("${guest[@]}" HWCIPHER_CORES=portable); bin=$bench; args=(--provider hwcipher) ;;
        default)  cmd=("${guest[@]}"); bin=$bench; args=(--provider default) ;;
        r*|nv*)
            rel=${1#r}; rel=${rel#nv}
            read -r -a cmd <<< "${rel_prefix[$rel]}"
            cmd=("${clean_env[@]}" "${cmd[@]}")
            [[ "$1" == nv* ]] && cmd+=("OPENSSL_armcap=$NV_ARMCAP")
            bin=${rel_bench[$rel]}; args=(--provider default) ;;
    esac
}
column_title() { # <column>
    case "$1" in
        default) echo "OpenSSL 3.0" ;;
        r*)      echo "OpenSSL ${1#r}" ;;
        nv*)     echo "OpenSSL ${1#nv} Neoverse kernels" ;;
    esac
}

# ---- which cores run: hwcipher's own report, with and without the override ---
# "aes=aes-ce,sm4=sm4-portable,twofish=...,ghash=..." per CPU model; bench_evp
# also prints module-range, the guest addresses of hwcipher.so's code (the
# same in every run: QEMU user mode loads the same files at the same
# addresses).
declare -A best_cores=()
cores_report() { # <cpu> [VAR=value]
    local cpu=$1
    shift
    "${guest[@]}" "$@" qemu-aarch64 -cpu "$cpu" "$bench" --provider hwcipher --cores
}
best_out=$(cores_report max)
portable_out=$(cores_report max HWCIPHER_CORES=portable)
best_cores[max]=$(sed -n 's/^cores: //p' <<< "$best_out")
portable_cores=$(sed -n 's/^cores: //p' <<< "$portable_out")
module_range=$(sed -n 's/^module-range: //p' <<< "$best_out")
[[ -n "${best_cores[max]}" && -n "$portable_cores" && -n "$module_range" ]] ||
    { echo "bench_aarch64.sh: bench_evp could not load hwcipher:" >&2; echo "$best_out" >&2; exit 1; }
for cpu in "${MODEL_CPUS[@]}"; do
    best_cores[$cpu]=$(cores_report "$cpu" | sed -n 's/^cores: //p')
    [[ -n "${best_cores[$cpu]}" ]] ||
        { echo "bench_aarch64.sh: bench_evp could not load hwcipher on -cpu $cpu" >&2; exit 1; }
done

# The core(s) serving CIPHER in a cores report: its family's block core, plus
# the GHASH core for GCM.
core_for() { # <report> <cipher>
    local family core
    case "$2" in AES*) family=aes ;; SM4*) family=sm4 ;; *) family=twofish ;; esac
    core=$(tr ',' '\n' <<< "$1" | sed -n "s/^$family=//p")
    if [[ "$2" == *GCM ]]; then
        core+="+$(tr ',' '\n' <<< "$1" | sed -n 's/^ghash=//p')"
    fi
    echo "$core"
}

# ---- the rows ------------------------------------------------------------------
# "CIPHER DIR HOW": HOW is stream (one key/IV, 16 KiB updates), msg (16 KiB
# messages) or small (64-byte GCM messages). OFB and CTR run one direction:
# decryption is the same computation.
add_family() { # <array name> <prefix> <MODE:dirs>...
    local -n into=$1
    local prefix=$2 spec mode dirs dir how
    shift 2
    for spec in "$@"; do
        mode=${spec%%:*}
        dirs=${spec#*:}
        how=stream
        [[ "$mode" == CCM || "$mode" == XTS ]] && how=msg
        for dir in ${dirs//+/ }; do
            if [[ -z "$ONLY" || "$prefix-$mode $dir" =~ $ONLY ]]; then
                into+=("$prefix-$mode $dir $how")
            fi
        done
    done
}
rows=()
block_modes=(ECB:enc+dec CBC:enc+dec CFB:enc+dec CFB8:enc+dec OFB:enc CTR:enc
             XTS:enc+dec OCB:enc+dec GCM:enc+dec CCM:enc+dec)
add_family rows AES-128 "${block_modes[@]}"
add_family rows AES-256 "${block_modes[@]}"
add_family rows SM4 "${block_modes[@]}"
twofish_modes=(ECB:enc+dec CBC:enc+dec CFB:enc+dec OFB:enc CTR:enc XTS:enc+dec
               GCM:enc+dec OCB:enc+dec)
add_family rows TWOFISH-128 "${twofish_modes[@]}"
add_family rows TWOFISH-256 "${twofish_modes[@]}"
# SM4 on the CPU models without SM4E: the modes of issue #14's target.
model_rows=()
(( ${#MODEL_CPUS[@]} )) &&
    add_family model_rows SM4 ECB:enc CTR:enc CBC:dec GCM:enc+dec XTS:enc+dec
small_rows=()
for cipher in AES-128-GCM SM4-GCM; do
    for dir in enc dec; do
        if [[ -z "$ONLY" || "$cipher $dir" =~ $ONLY ]]; then
            small_rows+=("$cipher $dir small")
        fi
    done
done

# The OpenSSL columns of each table: every release of the row, the forced
# 3.5 kernels only where they exist (AES).
openssl_columns=(default)
for rel in "${have_releases[@]}"; do openssl_columns+=("r$rel"); done
openssl_columns+=(nv3.5)
model_columns=(default r3.5)
small_columns=(default r3.5 nv3.5)
applies() { # <column> <cipher>: does the column run for this cipher?
    [[ "$1" != nv* || "$2" == AES* ]]
}

# Which of the row ciphers each OpenSSL offers (one QEMU run each). hwcipher
# must have every one; the gaps of the others become "—".
ciphers=$(for row in "${rows[@]}" "${model_rows[@]}" "${small_rows[@]}"; do
              echo "${row%% *}"; done | sort -u)
offered() { # <column> -> the names it offers, one a line
    local cmd bin args
    column_cmd "$1"
    "${cmd[@]}" qemu-aarch64 -cpu max "$bin" "${args[@]}" --offers "$(paste -sd, <<< "$ciphers")" |
        sed -n 's/^offers: //p'
}
missing=$(comm -23 <(echo "$ciphers") <(offered best | sort))
if [[ -n "$missing" ]]; then
    echo "bench_aarch64.sh: hwcipher does not offer: $(paste -sd" " <<< "$missing")" >&2
    exit 1
fi
declare -A offers=()   # "<column> <cipher>" -> 1
for column in "${openssl_columns[@]}"; do
    [[ "$column" == nv* ]] && continue   # the same library as r3.5
    while read -r name; do offers["$column $name"]=1; done < <(offered "$column")
done
has_cipher() { # <column> <cipher>
    local c=$1
    [[ "$c" == nv* ]] && c=r${c#nv}
    [[ "$c" == best || "$c" == portable || -n "${offers["$c $2"]:-}" ]]
}

# ---- running ---------------------------------------------------------------------
id_of() { echo "${1}_${2}_${3}_${4}_${5}_${6}"; } # cipher dir how column cpu bytes

# One counted run; leaves <id>.out (bench_evp), .err, .log (plugin), .rc.
count_run() { # <cipher> <dir> <how> <column> <cpu> <bytes>
    local cipher=$1 dir=$2 how=$3 column=$4 cpu=$5 bytes=$6 id cmd bin args t0=$SECONDS
    id=$(id_of "$@")
    column_cmd "$column"
    args+=(--cipher "$cipher" --dir "$dir" --bytes "$bytes")
    case "$how" in
        stream) args+=(--update "$UPDATE") ;;
        msg)    args+=(--message "$UPDATE") ;;
        small)  args+=(--message "$SMALL" --aad "$SMALL_AAD") ;;
    esac
    if [[ "$how" == stream && "$dir" == dec && "$cipher" =~ (GCM|OCB)$ ]]; then
        args+=(--tag "$(cat "$res/tag_${cipher}_$bytes")")
    fi
    local plug=$plugin
    # For hwcipher's small messages also count what runs outside hwcipher.so
    # (the plugin then prints insns = outside, insns-all = everything).
    if [[ "$how" == small && ( "$column" == best || "$column" == portable ) ]]; then
        plug+=",skip=$module_range"
    fi
    local rc=0
    "${cmd[@]}" qemu-aarch64 -cpu "$cpu" -plugin "$plug" -d plugin -D "$res/$id.log" \
        "$bin" "${args[@]}" > "$res/$id.out" 2> "$res/$id.err" || rc=$?
    echo "$rc" > "$res/$id.rc"
    printf '  %-16s %s %-6s %-9s %-11s %8d B  rc=%d  %3ds\n' "$cipher" "$dir" "$how" "$column" \
        "$cpu" "$bytes" "$rc" $(( SECONDS - t0 )) >&2
}

# The tag a stream decryption of bench_evp's input verifies against (not
# counted). Computed with hwcipher; the other columns then verify it, so a
# wrong tag would also show up as a failed row.
tag_run() { # <cipher> <bytes>
    local o
    if o=$("${guest[@]}" qemu-aarch64 -cpu max "$bench" --provider hwcipher --cipher "$1" --dir dec \
              --bytes "$2" --update "$UPDATE" --make-tag 2> "$res/tag_$1_$2.err"); then
        sed -n 's/^tag: //p' <<< "$o" > "$res/tag_$1_$2"
    else
        echo "bench_aarch64.sh: --make-tag failed for $1:" >&2
        cat "$res/tag_$1_$2.err" >&2
        : > "$res/tag_$1_$2"
    fi
}

# At most $JOBS at once; each job records its own status, so none fails here.
spawn() {
    while (( $(jobs -rp | wc -l) >= JOBS )); do wait -n || true; done
    "$@" &
}

# Same core in both hwcipher columns of the max table (no accelerated core
# for the family): the runs would be identical, so "best" reuses the
# portable figures. (The CPU-model tables run their own: glibc's string
# functions may differ per CPU.)
best_is_portable() { # <cipher> <cpu>
    [[ "$(core_for "${best_cores[$2]}" "$1")" == "$(core_for "$portable_cores" "$1")" ]]
}

# The runs of one row: both sizes of each column that applies.
spawn_row() { # <cipher> <dir> <how> <cpu> <column>...
    local cipher=$1 dir=$2 how=$3 cpu=$4 column
    shift 4
    for column; do
        if [[ "$column" == best && "$cpu" == max ]] && best_is_portable "$cipher" max; then
            continue
        fi
        has_cipher "$column" "$cipher" || continue
        applies "$column" "$cipher" || continue
        spawn count_run "$cipher" "$dir" "$how" "$column" "$cpu" "$BYTES"
        spawn count_run "$cipher" "$dir" "$how" "$column" "$cpu" $(( 2 * BYTES ))
    done
}

echo "bench_aarch64.sh: hwcipher cores: ${best_cores[max]}" >&2
for cpu in "${MODEL_CPUS[@]}"; do echo "bench_aarch64.sh: on $cpu: ${best_cores[$cpu]}" >&2; done
echo "bench_aarch64.sh: OpenSSL releases: 3.0 (Debian 12) ${have_releases[*]}" >&2
echo "bench_aarch64.sh: tags for GCM/OCB decryption" >&2
for row in "${rows[@]}" "${model_rows[@]}"; do
    read -r cipher dir how <<< "$row"
    if [[ "$how" == stream && "$dir" == dec && "$cipher" =~ (GCM|OCB)$ &&
          ! -e "$res/tag_${cipher}_$BYTES" ]]; then
        : > "$res/tag_${cipher}_$BYTES"   # claimed; filled by the run
        spawn tag_run "$cipher" "$BYTES"
        spawn tag_run "$cipher" $(( 2 * BYTES ))
    fi
done
wait
echo "bench_aarch64.sh: $(( ${#rows[@]} + ${#model_rows[@]} * ${#MODEL_CPUS[@]} + ${#small_rows[@]} )) rows, counted runs:" >&2
# Slowest first (CFB8 does one block operation per byte, the portable SM4 of
# the CPU models without SM4E is slow too), so the last runs finish together
# instead of one long run at the end.
for pass in slow rest; do
    for row in "${rows[@]}" "${small_rows[@]}"; do
        read -r cipher dir how <<< "$row"
        if [[ "$cipher" == *CFB8 ]]; then is_slow=slow; else is_slow=rest; fi
        [[ "$is_slow" == "$pass" ]] || continue
        columns=(portable best "${openssl_columns[@]}")
        [[ "$how" == small ]] && columns=(portable best "${small_columns[@]}")
        spawn_row "$cipher" "$dir" "$how" max "${columns[@]}"
    done
    [[ "$pass" == slow ]] || continue
    for cpu in "${MODEL_CPUS[@]}"; do
        for row in "${model_rows[@]}"; do
            read -r cipher dir how <<< "$row"
            spawn_row "$cipher" "$dir" "$how" "$cpu" best "${model_columns[@]}"
        done
    done
done
wait

# ---- figures ---------------------------------------------------------------------
failures=0
# The count of one run: everything ("insns-all" when skip= was given, else
# "insns"), or with "outside" only what ran outside hwcipher.so; FAIL when
# the run failed.
count_of() { # <id> [total|outside]
    local id=$1 key=${2:-total} rc
    rc=$(cat "$res/$id.rc" 2>/dev/null || echo 99)
    if [[ "$rc" != 0 ]]; then echo FAIL; return; fi
    local all insns
    insns=$(sed -n 's/^insns: //p' "$res/$id.log")
    all=$(sed -n 's/^insns-all: //p' "$res/$id.log")
    case "$key" in
        total)   echo "${all:-$insns}" ;;
        outside) echo "$insns" ;;
    esac
}

# The libcrypto a column must have run on ("OpenSSL 3.5.9 ..." as bench_evp
# prints it).
want_libcrypto() { # <column>
    case "$1" in
        best|portable|default) echo "OpenSSL 3.0." ;;
        r*) echo "OpenSSL ${rel_version[${1#r}]} " ;;
        nv*) echo "OpenSSL ${rel_version[${1#nv}]} " ;;
    esac
}

# Per-unit figure for one row, column and CPU model: (count(2N) - count(N)) /
# units, units = bytes for bulk rows, messages for small rows; "—" where the
# column does not apply or that OpenSSL lacks the cipher.
figure() { # <cipher> <dir> <how> <column> <cpu> <units> [total|outside]
    local c1 c2 id1 id2 col=$4 cpu=$5
    if [[ "$col" == best && "$cpu" == max ]] && best_is_portable "$1" max; then col=portable; fi
    if ! has_cipher "$col" "$1" || ! applies "$col" "$1"; then echo "—"; return; fi
    id1=$(id_of "$1" "$2" "$3" "$col" "$cpu" "$BYTES")
    id2=$(id_of "$1" "$2" "$3" "$col" "$cpu" $(( 2 * BYTES )))
    c1=$(count_of "$id1" "${7:-total}")
    c2=$(count_of "$id2" "${7:-total}")
    if [[ "$c1" == FAIL || "$c2" == FAIL || -z "$c1" || -z "$c2" ]]; then
        local id
        for id in "$id1" "$id2"; do
            [[ "$(cat "$res/$id.rc" 2>/dev/null)" == 0 ]] && continue
            echo "bench_aarch64.sh: FAILED: $id (exit $(cat "$res/$id.rc" 2>/dev/null || echo '?')):" >&2
            sed 's/^/    /' "$res/$id.err" >&2 2>/dev/null || true
        done
        echo FAILED
        return
    fi
    # The core must be the one the column stands for, on the library it
    # stands for.
    local want got
    case "$col" in
        best)     want=$(core_for "${best_cores[$cpu]}" "$1") ;;
        portable) want=$(core_for "$portable_cores" "$1") ;;
        *)        want="" ;;
    esac
    got=$(sed -n 's/^core: //p' "$res/$id2.out")
    if [[ "$got" != "$want" ]]; then
        echo "bench_aarch64.sh: $id2 ran core '$got', expected '$want'" >&2
        echo FAILED
        return
    fi
    want=$(want_libcrypto "$col")
    got=$(sed -n 's/^libcrypto: //p' "$res/$id2.out")
    if [[ "$got " != "$want"* ]]; then
        echo "bench_aarch64.sh: $id2 ran on '$got', expected '$want...'" >&2
        echo FAILED
        return
    fi
    # skip= was given before the run: the module must have been where it was
    # when the script asked.
    if [[ "${7:-}" == outside && "$(sed -n 's/^module-range: //p' "$res/$id2.out")" != "$module_range" ]]; then
        echo "bench_aarch64.sh: $id2: hwcipher.so moved, its skip= range does not apply" >&2
        echo FAILED
        return
    fi
    awk -v a="$c1" -v b="$c2" -v n="$6" 'BEGIN { printf "%.2f", (b - a) / n }'
}
ratio() { # <hwcipher> <openssl>: hwcipher's count over OpenSSL's (< 1: hwcipher executes fewer)
    if [[ "$1" =~ ^[0-9.]+$ && "$2" =~ ^[0-9.]+$ ]]; then
        awk -v h="$1" -v d="$2" 'BEGIN { printf "%.2f", h / d }'
    else
        echo "—"
    fi
}
lowest() { # <figure>...: the smallest number among them, or "—"
    printf '%s\n' "$@" | awk '/^[0-9.]+$/ { if (n++ == 0 || $1 < m) m = $1 } END { if (n) print m; else print "—" }'
}
count_failed() { local f; for f; do if [[ "$f" == FAILED ]]; then failures=$(( failures + 1 )); fi; done; }
per_msg() { # <insns/msg> -> "N (N/B)"
    if [[ "$1" =~ ^[0-9.]+$ ]]; then
        awk -v m="$1" -v n="$SMALL" 'BEGIN { printf "%.0f (%.1f)", m, m / n }'
    else
        echo "$1"
    fi
}
mode_dir() { # <cipher> <dir> -> "MODE | dir" cells
    local mode=${1##*-} d=$2
    [[ "$mode" == OFB || "$mode" == CTR ]] && d="enc = dec"
    printf '%s | %s' "$mode" "$d"
}

qemu_version=$(qemu-aarch64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')
openssl_version=$(sed -n 's/^libssl3:arm64=//p' "$sysroot/.hwcipher-sysroot" 2>/dev/null || echo "?")
release_list=""
for rel in "${have_releases[@]}"; do release_list+=", OpenSSL ${rel_version[$rel]}"; done
tables=$out/bench-aarch64.md
{
    echo "Guest instructions per byte, qemu-aarch64 $qemu_version -cpu max, through EVP;"
    echo "hwcipher $hwcipher_rev; default providers of arm64 OpenSSL $openssl_version (Debian 12)$release_list"
    echo "(Debian's newer suites, scripts/openssl_release.sh); \"3.5 NV\": 3.5 with"
    echo "OPENSSL_armcap=$(printf '0x%x' "$NV_ARMCAP") (what -cpu max has plus ARMV8_UNROLL8_EOR3,"
    echo "ARMV8_UNROLL12_EOR3, ARMV8_HAVE_SHA3_AND_WORTH_USING: its Neoverse V1/V2 AES-GCM and"
    echo "AES-CTR kernels, AES rows only)."
    echo "insns/B = (count for $(( 2 * BYTES )) B - count for $BYTES B) / $BYTES B, in $UPDATE-byte"
    echo "updates (CCM and XTS: $UPDATE-byte messages, each with its own nonce/tweak)."
    echo "hwcipher cores chosen: ${best_cores[max]}. Ratios: hwcipher ÷ that OpenSSL"
    echo "(< 1: hwcipher executes fewer); \"best\": the lowest OpenSSL figure of the row."
    echo
    header="| cipher | mode | direction | hwcipher core | hwcipher insns/B | hwcipher portable insns/B"
    rule="| --- | --- | --- | --- | ---: | ---:"
    for column in "${openssl_columns[@]}"; do
        header+=" | $(column_title "$column" | sed 's/ Neoverse kernels/ NV/') insns/B"
        rule+=" | ---:"
    done
    header+=" | ÷ 3.0 | ÷ 3.5 | ÷ 3.5 NV | ÷ best |"
    rule+=" | ---: | ---: | ---: | ---: |"
    echo "$header"
    echo "$rule"
    for row in "${rows[@]}"; do
        read -r cipher dir how <<< "$row"
        best=$(figure "$cipher" "$dir" "$how" best max "$BYTES")
        port=$(figure "$cipher" "$dir" "$how" portable max "$BYTES")
        line="| ${cipher%-*} | $(mode_dir "$cipher" "$dir") | $(core_for "${best_cores[max]}" "$cipher") | $best | $port"
        figs=()
        declare -A fig_of=()
        for column in "${openssl_columns[@]}"; do
            f=$(figure "$cipher" "$dir" "$how" "$column" max "$BYTES")
            fig_of[$column]=$f
            figs+=("$f")
            line+=" | $f"
        done
        count_failed "$best" "$port" "${figs[@]}"
        line+=" | $(ratio "$best" "${fig_of[default]}") | $(ratio "$best" "${fig_of[r3.5]}")"
        line+=" | $(ratio "$best" "${fig_of[nv3.5]}") | $(ratio "$best" "$(lowest "${figs[@]}")") |"
        echo "$line"
        unset fig_of
    done
    for cpu in "${MODEL_CPUS[@]}"; do
        (( ${#model_rows[@]} )) || break
        echo
        echo "SM4 under qemu-aarch64 -cpu $cpu (no SM4 instructions; AES and PMULL):"
        echo "hwcipher cores chosen: ${best_cores[$cpu]}."
        echo
        echo "| cipher | mode | direction | hwcipher core | hwcipher insns/B | OpenSSL 3.0 insns/B | OpenSSL 3.5 insns/B | ÷ 3.0 | ÷ 3.5 |"
        echo "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"
        for row in "${model_rows[@]}"; do
            read -r cipher dir how <<< "$row"
            best=$(figure "$cipher" "$dir" "$how" best "$cpu" "$BYTES")
            d30=$(figure "$cipher" "$dir" "$how" default "$cpu" "$BYTES")
            d35=$(figure "$cipher" "$dir" "$how" r3.5 "$cpu" "$BYTES")
            count_failed "$best" "$d30" "$d35"
            echo "| ${cipher%-*} | $(mode_dir "$cipher" "$dir") | $(core_for "${best_cores[$cpu]}" "$cipher") | $best | $d30 | $d35 | $(ratio "$best" "$d30") | $(ratio "$best" "$d35") |"
        done
    done
    if (( ${#small_rows[@]} )); then
        messages=$(( BYTES / SMALL ))
        echo
        echo "GCM with $SMALL-byte messages and $SMALL_AAD bytes of AAD, key set once, -cpu max; per message:"
        echo "EVP_CipherInit_ex with the IV, AAD update, one update, final, get (enc) or set (dec) the"
        echo "tag. insns/msg = (count for $(( 2 * messages )) - count for $messages messages) / $messages;"
        echo "insns/B = insns/msg / $SMALL. \"outside hwcipher.so\": the same runs, counting only"
        echo "instructions whose code is not in hwcipher.so (QEMU plugin skip= over the module's"
        echo "mapped code): libcrypto's EVP layer, which does the same work whichever provider"
        echo "serves the cipher, plus the few libcrypto/libc helpers hwcipher itself calls"
        echo "(OSSL_PARAM_*, memcpy), so it is an upper bound of the EVP layer's own share. The"
        echo "default provider's own work per message is about its total minus that share"
        echo "(3.0's EVP layer; 3.5's differs)."
        echo
        echo "| cipher | direction | hwcipher core | hwcipher insns/msg (insns/B) | of which outside hwcipher.so | hwcipher portable insns/msg (insns/B) | OpenSSL 3.0 insns/msg (insns/B) | OpenSSL 3.5 insns/msg (insns/B) | OpenSSL 3.5 NV insns/msg (insns/B) | ÷ 3.0 | ÷ 3.5 | ÷ 3.5 NV |"
        echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        evp_enc="" evp_dec=""   # the "outside" figures, per direction
        for row in "${small_rows[@]}"; do
            read -r cipher dir how <<< "$row"
            best=$(figure "$cipher" "$dir" small best max "$messages")
            outside=$(figure "$cipher" "$dir" small best max "$messages" outside)
            port=$(figure "$cipher" "$dir" small portable max "$messages")
            d30=$(figure "$cipher" "$dir" small default max "$messages")
            d35=$(figure "$cipher" "$dir" small r3.5 max "$messages")
            nv=$(figure "$cipher" "$dir" small nv3.5 max "$messages")
            count_failed "$best" "$outside" "$port" "$d30" "$d35" "$nv"
            if [[ "$outside" =~ ^[0-9.]+$ ]]; then
                if [[ "$dir" == enc ]]; then evp_enc+=" $outside"; else evp_dec+=" $outside"; fi
            fi
            echo "| $cipher | $dir | $(core_for "${best_cores[max]}" "$cipher") | $(per_msg "$best") | $(per_msg "$outside" | sed 's/ (.*//') | $(per_msg "$port") | $(per_msg "$d30") | $(per_msg "$d35") | $(per_msg "$nv") | $(ratio "$best" "$d30") | $(ratio "$best" "$d35") | $(ratio "$best" "$nv") |"
        done
        # "N" when every cipher gave the same figure, else "MIN–MAX".
        span() { awk '{ lo = hi = $1; for (i = 2; i <= NF; i++) { if ($i < lo) lo = $i; if ($i > hi) hi = $i }
                        if (NF == 0) print "?"; else if (lo == hi) printf "%.0f", lo; else printf "%.0f–%.0f", lo, hi }' <<< "$1"; }
        echo
        echo "EVP layer's share of a $SMALL-byte GCM message (common to every provider): at most"
        echo "$(span "$evp_enc") instructions to encrypt, $(span "$evp_dec") to decrypt (instructions executed"
        echo "outside hwcipher.so while hwcipher served the messages, over ${#small_rows[@]} rows)."
    fi
    echo
    echo "Run time: $(( SECONDS - start )) s with $JOBS parallel QEMU runs (shared machine)."
} > "$tables"   # not a pipe: the block counts failures in this shell
cat "$tables"
echo "bench_aarch64.sh: tables also in ${tables#"$repo"/}" >&2
(( failures )) || bench_doc_write docs/benchmarks/aarch64.md "hwcipher on aarch64: instructions per byte" \
    "qemu-aarch64 $qemu_version -cpu max$( (( ${#MODEL_CPUS[@]} )) && printf ', -cpu %s' "${MODEL_CPUS[@]}") on $(bench_doc_host_cpu)" < "$tables"
if (( failures )); then
    echo "bench_aarch64.sh: $failures figure(s) FAILED (details above)" >&2
    exit 1
fi
