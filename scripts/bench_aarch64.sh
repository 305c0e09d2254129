#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The aarch64 instruction-count benchmark (issue #4): guest instructions per
# byte under `qemu-aarch64 -cpu max`, for every (cipher, mode, direction),
# through EVP, for
#   - hwcipher with the cores it picks on that CPU (its accelerated core where
#     one is registered, else the portable one: the column names it),
#   - hwcipher forced to its portable cores (HWCIPHER_CORES=portable),
#   - the arm64 OpenSSL default provider (Debian 12's libcrypto, which uses
#     its own ARMv8 Crypto Extension assembly under -cpu max).
# Instructions are not cycles (an AESE counts as much as an ADD), but the
# counts are exact and repeatable and measure the code, not the emulator.
# A benchmark, not a test: it fails only when a run fails.
#
#   scripts/bench_aarch64.sh            # Markdown tables on stdout, progress on stderr
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
# "CIPHER-MODE dir", to run a subset), HWCIPHER_SYSROOT (as scripts/build.sh).
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
if (( BYTES <= 0 || BYTES % UPDATE != 0 )); then
    echo "bench_aarch64.sh: HWCIPHER_BENCH_BYTES must be a positive multiple of $UPDATE" >&2
    exit 2
fi

start=$SECONDS

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
guest=(env -u OPENSSL_CONF -u OPENSSL_armcap -u HWCIPHER_CORES -u HWCIPHER_TRACE
       QEMU_LD_PREFIX=/usr/aarch64-linux-gnu
       "LD_LIBRARY_PATH=$sysroot/usr/lib/aarch64-linux-gnu"
       "OPENSSL_MODULES=$build")
qemu=(qemu-aarch64 -cpu max)

# ---- which cores run: hwcipher's own report, with and without the override ---
# "aes=aes-ce,sm4=sm4-portable,twofish=...,ghash=..."; bench_evp also prints
# module-range, the guest addresses of hwcipher.so's code (the same in every
# run: QEMU user mode loads the same files at the same addresses).
cores_report() { "${guest[@]}" "$@" "${qemu[@]}" "$bench" --provider hwcipher --cores; }
best_out=$(cores_report)
portable_out=$(cores_report HWCIPHER_CORES=portable)
best_cores=$(sed -n 's/^cores: //p' <<< "$best_out")
portable_cores=$(sed -n 's/^cores: //p' <<< "$portable_out")
module_range=$(sed -n 's/^module-range: //p' <<< "$best_out")
[[ -n "$best_cores" && -n "$portable_cores" && -n "$module_range" ]] ||
    { echo "bench_aarch64.sh: bench_evp could not load hwcipher:" >&2; echo "$best_out" >&2; exit 1; }

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
rows=()
add_family() { # <prefix> <MODE:dirs>...
    local prefix=$1 spec mode dirs dir how
    shift
    for spec in "$@"; do
        mode=${spec%%:*}
        dirs=${spec#*:}
        how=stream
        [[ "$mode" == CCM || "$mode" == XTS ]] && how=msg
        for dir in ${dirs//+/ }; do
            if [[ -z "$ONLY" || "$prefix-$mode $dir" =~ $ONLY ]]; then
                rows+=("$prefix-$mode $dir $how")
            fi
        done
    done
}
block_modes=(ECB:enc+dec CBC:enc+dec CFB:enc+dec CFB8:enc+dec OFB:enc CTR:enc
             XTS:enc+dec OCB:enc+dec GCM:enc+dec CCM:enc+dec)
add_family AES-128 "${block_modes[@]}"
add_family AES-256 "${block_modes[@]}"
add_family SM4 "${block_modes[@]}"
twofish_modes=(ECB:enc+dec CBC:enc+dec CFB:enc+dec OFB:enc CTR:enc XTS:enc+dec
               GCM:enc+dec OCB:enc+dec)
add_family TWOFISH-128 "${twofish_modes[@]}"
add_family TWOFISH-256 "${twofish_modes[@]}"
small_rows=()
for cipher in AES-128-GCM SM4-GCM; do
    for dir in enc dec; do
        if [[ -z "$ONLY" || "$cipher $dir" =~ $ONLY ]]; then
            small_rows+=("$cipher $dir small")
        fi
    done
done

# Which of the row ciphers each provider has (one QEMU run each). hwcipher
# must have every one; the default provider's gaps become "—".
ciphers=$(for row in "${rows[@]}" "${small_rows[@]}"; do echo "${row%% *}"; done | sort -u)
offered() { # <provider> -> the names it offers, one a line
    "${guest[@]}" "${qemu[@]}" "$bench" --provider "$1" --offers "$(paste -sd, <<< "$ciphers")" |
        sed -n 's/^offers: //p'
}
missing=$(comm -23 <(echo "$ciphers") <(offered hwcipher | sort))
if [[ -n "$missing" ]]; then
    echo "bench_aarch64.sh: hwcipher does not offer: $(paste -sd" " <<< "$missing")" >&2
    exit 1
fi
declare -A default_has=()
while read -r name; do default_has[$name]=1; done < <(offered default)

# ---- running ---------------------------------------------------------------------
# A "column" is how hwcipher/OpenSSL is asked: best (hwcipher's choice),
# portable (HWCIPHER_CORES=portable) or default (the default provider).
id_of() { echo "${1}_${2}_${3}_${4}_${5}"; } # cipher dir how column bytes

# One counted run; leaves <id>.out (bench_evp), .err, .log (plugin), .rc.
count_run() { # <cipher> <dir> <how> <column> <bytes>
    local cipher=$1 dir=$2 how=$3 column=$4 bytes=$5 id envs=() args=() t0=$SECONDS
    id=$(id_of "$@")
    case "$column" in
        best)     args=(--provider hwcipher) ;;
        portable) args=(--provider hwcipher); envs=(HWCIPHER_CORES=portable) ;;
        default)  args=(--provider default) ;;
    esac
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
    if [[ "$how" == small && "$column" != default ]]; then
        plug+=",skip=$module_range"
    fi
    local rc=0
    "${guest[@]}" "${envs[@]}" "${qemu[@]}" -plugin "$plug" -d plugin -D "$res/$id.log" \
        "$bench" "${args[@]}" > "$res/$id.out" 2> "$res/$id.err" || rc=$?
    echo "$rc" > "$res/$id.rc"
    printf '  %-16s %s %-6s %-8s %8d B  rc=%d  %3ds\n' "$cipher" "$dir" "$how" "$column" "$bytes" \
        "$rc" $(( SECONDS - t0 )) >&2
}

# The tag a stream decryption of bench_evp's input verifies against (not
# counted). Computed with hwcipher; the other columns then verify it, so a
# wrong tag would also show up as a failed row.
tag_run() { # <cipher> <bytes>
    local o
    if o=$("${guest[@]}" "${qemu[@]}" "$bench" --provider hwcipher --cipher "$1" --dir dec \
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

# Same core in both hwcipher columns (no accelerated core for the family yet):
# the runs would be identical, so "best" reuses the portable figures.
best_is_portable() { [[ "$(core_for "$best_cores" "$1")" == "$(core_for "$portable_cores" "$1")" ]]; }

echo "bench_aarch64.sh: hwcipher cores: $best_cores" >&2
echo "bench_aarch64.sh: tags for GCM/OCB decryption" >&2
for row in "${rows[@]}"; do
    read -r cipher dir how <<< "$row"
    if [[ "$how" == stream && "$dir" == dec && "$cipher" =~ (GCM|OCB)$ ]]; then
        spawn tag_run "$cipher" "$BYTES"
        spawn tag_run "$cipher" $(( 2 * BYTES ))
    fi
done
wait
echo "bench_aarch64.sh: $(( ${#rows[@]} + ${#small_rows[@]} )) rows, counted runs:" >&2
# Slowest first (CFB8 does one block operation per byte), so the last runs
# finish together instead of one long run at the end.
for pass in slow rest; do
    for row in "${rows[@]}" "${small_rows[@]}"; do
        read -r cipher dir how <<< "$row"
        if [[ "$cipher" == *CFB8 ]]; then is_slow=slow; else is_slow=rest; fi
        [[ "$is_slow" == "$pass" ]] || continue
        for column in portable best default; do
            if [[ "$column" == best ]] && best_is_portable "$cipher"; then continue; fi
            if [[ "$column" == default && -z "${default_has[$cipher]:-}" ]]; then continue; fi
            spawn count_run "$cipher" "$dir" "$how" "$column" "$BYTES"
            spawn count_run "$cipher" "$dir" "$how" "$column" $(( 2 * BYTES ))
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

# Per-unit figure for one row and column: (count(2N) - count(N)) / units,
# units = bytes for bulk rows, messages for small rows.
figure() { # <cipher> <dir> <how> <column> <units> [total|outside]
    local c1 c2 id1 id2 col=$4
    if [[ "$col" == best ]] && best_is_portable "$1"; then col=portable; fi
    if [[ "$col" == default && -z "${default_has[$1]:-}" ]]; then echo "—"; return; fi
    id1=$(id_of "$1" "$2" "$3" "$col" "$BYTES")
    id2=$(id_of "$1" "$2" "$3" "$col" $(( 2 * BYTES )))
    c1=$(count_of "$id1" "${6:-total}")
    c2=$(count_of "$id2" "${6:-total}")
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
    # The core must be the one the column stands for.
    local want got
    case "$col" in
        best)     want=$(core_for "$best_cores" "$1") ;;
        portable) want=$(core_for "$portable_cores" "$1") ;;
        default)  want="" ;;
    esac
    got=$(sed -n 's/^core: //p' "$res/$id2.out")
    if [[ "$got" != "$want" ]]; then
        echo "bench_aarch64.sh: $id2 ran core '$got', expected '$want'" >&2
        echo FAILED
        return
    fi
    # skip= was given before the run: the module must have been where it was
    # when the script asked.
    if [[ "${6:-}" == outside && "$(sed -n 's/^module-range: //p' "$res/$id2.out")" != "$module_range" ]]; then
        echo "bench_aarch64.sh: $id2: hwcipher.so moved, its skip= range does not apply" >&2
        echo FAILED
        return
    fi
    awk -v a="$c1" -v b="$c2" -v n="$5" 'BEGIN { printf "%.2f", (b - a) / n }'
}
ratio() { # <hwcipher> <default>: hwcipher's count over the default provider's (< 1: hwcipher executes fewer)
    if [[ "$1" =~ ^[0-9.]+$ && "$2" =~ ^[0-9.]+$ ]]; then
        awk -v h="$1" -v d="$2" 'BEGIN { printf "%.2f", h / d }'
    else
        echo "—"
    fi
}
count_failed() { if [[ "$1" == FAILED ]]; then failures=$(( failures + 1 )); fi; }
per_msg() { # <insns/msg> -> "N (N/B)"
    if [[ "$1" =~ ^[0-9.]+$ ]]; then
        awk -v m="$1" -v n="$SMALL" 'BEGIN { printf "%.0f (%.1f)", m, m / n }'
    else
        echo "$1"
    fi
}

qemu_version=$(qemu-aarch64 --version | sed -n '1s/.*version \([^ ]*\).*/\1/p')
openssl_version=$(sed -n 's/^libssl3:arm64=//p' "$sysroot/.hwcipher-sysroot" 2>/dev/null || echo "?")
hwcipher_rev=$(git -C "$repo" describe --always --dirty 2>/dev/null || echo "?")
tables=$out/bench-aarch64.md
{
    echo "Guest instructions per byte, qemu-aarch64 $qemu_version -cpu max, through EVP;"
    echo "hwcipher $hwcipher_rev, arm64 OpenSSL $openssl_version (Debian 12)."
    echo "insns/B = (count for $(( 2 * BYTES )) B - count for $BYTES B) / $BYTES B, in $UPDATE-byte"
    echo "updates (CCM and XTS: $UPDATE-byte messages, each with its own nonce/tweak)."
    echo "hwcipher cores chosen: $best_cores."
    echo
    echo "| cipher | mode | direction | hwcipher core | hwcipher insns/B | hwcipher portable insns/B | OpenSSL default insns/B | hwcipher ÷ default |"
    echo "| --- | --- | --- | --- | ---: | ---: | ---: | ---: |"
    for row in "${rows[@]}"; do
        read -r cipher dir how <<< "$row"
        best=$(figure "$cipher" "$dir" "$how" best "$BYTES")
        port=$(figure "$cipher" "$dir" "$how" portable "$BYTES")
        def=$(figure "$cipher" "$dir" "$how" default "$BYTES")
        for f in "$best" "$port" "$def"; do count_failed "$f"; done
        mode=${cipher##*-}
        dir_txt=$dir
        [[ "$mode" == OFB || "$mode" == CTR ]] && dir_txt="enc = dec"
        printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "${cipher%-*}" "$mode" "$dir_txt" \
            "$(core_for "$best_cores" "$cipher")" "$best" "$port" "$def" "$(ratio "$best" "$def")"
    done
    if (( ${#small_rows[@]} )); then
        messages=$(( BYTES / SMALL ))
        echo
        echo "GCM with $SMALL-byte messages and $SMALL_AAD bytes of AAD, key set once; per message:"
        echo "EVP_CipherInit_ex with the IV, AAD update, one update, final, get (enc) or set (dec) the"
        echo "tag. insns/msg = (count for $(( 2 * messages )) - count for $messages messages) / $messages;"
        echo "insns/B = insns/msg / $SMALL. \"outside hwcipher.so\": the same runs, counting only"
        echo "instructions whose code is not in hwcipher.so (QEMU plugin skip= over the module's"
        echo "mapped code): libcrypto's EVP layer, which does the same work whichever provider"
        echo "serves the cipher, plus the few libcrypto/libc helpers hwcipher itself calls"
        echo "(OSSL_PARAM_*, memcpy), so it is an upper bound of the EVP layer's own share. The"
        echo "default provider's own work per message is about its total minus that share."
        echo
        echo "| cipher | direction | hwcipher core | hwcipher insns/msg (insns/B) | of which outside hwcipher.so | hwcipher portable insns/msg (insns/B) | OpenSSL default insns/msg (insns/B) | hwcipher ÷ default |"
        echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"
        evp_enc="" evp_dec=""   # the "outside" figures, per direction
        for row in "${small_rows[@]}"; do
            read -r cipher dir how <<< "$row"
            best=$(figure "$cipher" "$dir" small best "$messages")
            outside=$(figure "$cipher" "$dir" small best "$messages" outside)
            port=$(figure "$cipher" "$dir" small portable "$messages")
            def=$(figure "$cipher" "$dir" small default "$messages")
            for f in "$best" "$outside" "$port" "$def"; do count_failed "$f"; done
            if [[ "$outside" =~ ^[0-9.]+$ ]]; then
                if [[ "$dir" == enc ]]; then evp_enc+=" $outside"; else evp_dec+=" $outside"; fi
            fi
            printf '| %s | %s | %s | %s | %s | %s | %s | %s |\n' "$cipher" "$dir" \
                "$(core_for "$best_cores" "$cipher")" "$(per_msg "$best")" \
                "$(per_msg "$outside" | sed 's/ (.*//')" \
                "$(per_msg "$port")" "$(per_msg "$def")" "$(ratio "$best" "$def")"
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
    echo "Run time: $(( SECONDS - start )) s with $JOBS parallel QEMU runs."
} > "$tables"   # not a pipe: the block counts failures in this shell
cat "$tables"
echo "bench_aarch64.sh: tables also in ${tables#"$repo"/}" >&2
if (( failures )); then
    echo "bench_aarch64.sh: $failures figure(s) FAILED (details above)" >&2
    exit 1
fi
