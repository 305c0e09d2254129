#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# What applications gain (issue #31, item 3): real programs, with hwcipher
# preferred (an openssl.cnf like test/openssl-cnf/prefer-hwcipher.cnf:
# default_properties = ?provider=hwcipher) and without it (a config loading
# the default provider only), in the system's OpenSSL 3.0 and in the newest
# release scripts/openssl_release.sh fetches (default 4.0, its own openssl
# run on its own loader, with the hwcipher.so built against it):
#   (a) TLS bulk transfer per AES-GCM suite, TLS 1.3 and 1.2: Debian's nginx
#       + curl (they link the system's 3.0), and `openssl s_server -WWW` +
#       `s_client` in every release; TLS_SM4_GCM_SM3 (TLS 1.3) where the
#       release has it (a row saying why where it has not); and libssl alone
#       (bench/bench_tls: client and server in one process over a memory BIO
#       pair, the system's 3.0), where no kernel copy or scheduling dilutes
#       or blurs what the cipher costs;
#   (b) OpenSSH bulk upload per AES cipher `ssh -Q cipher` lists: the
#       system's sshd and ssh on 127.0.0.1 (test/support/openssh.sh);
#   (c) `openssl enc` of a file: AES-256-CTR, SM4-CTR, SM4-CBC,
#       Twofish-256-CBC (no default provider has Twofish: hwcipher only);
#   (d) small responses: nginx serving 1 KiB over TLS 1.3 to h2load
#       (HTTP/1.1, kept-alive connections): requests/s and CPU per 10,000
#       requests. Per-record cost, and the random generator, show here.
# Per row: MB/s, and CPU seconds per GiB: user + system of server AND client
# together (the client's from its waited-for children in /proc/<pid>/stat,
# the servers' from /proc/<pid>/stat of their process trees before and
# after). CPU per GiB is what an operator pays, even where loopback caps
# MB/s. Both sides are pinned to the same CPUs (taskset), the two
# configurations take turns run by run (hwcipher, default, hwcipher, ...),
# and each figure is the best of the runs: a shared host only ever slows a
# run down. The ratio is hwcipher's CPU per GiB over the default provider's
# (< 1: hwcipher costs less).
#
#   scripts/bench_apps.sh           # the whole table; writes docs/benchmarks/apps.md
#   scripts/bench_apps.sh --main    # scripts/main.sh's row: TLS 1.3 AES-128-GCM
#                                   # through libssl alone in 3.0 (tls-libssl),
#                                   # 1 GiB, best of 5, build/native as is
#   scripts/bench_apps.sh --chart   # only redraw the chart from the last run
#                                   # (build/apps/rows)
#
# Environment: HWCIPHER_APPS_MIB (MiB per bulk transfer and per enc file;
# default 1024, the issue's figure), HWCIPHER_APPS_RUNS
# (runs per configuration, default 3; 5 for --main), HWCIPHER_APPS_REQUESTS (row (d),
# default 50000), HWCIPHER_APPS_CPUS (taskset list for both sides, default
# one CPU, the first this process may use: another process's load on a
# shared host then shows as lower MB/s rather than in the CPU figures), HWCIPHER_APPS_RELEASE (the
# newer release, default 4.0; empty for 3.0 only), HWCIPHER_APPS_ONLY
# (extended regex on the workload names tls-nginx, tls-s_server,
# tls-libssl, ssh, enc, small), HWCIPHER_BENCH_NO_BUILD=1 (use build/native as it is),
# HWCIPHER_BENCH_DOC (scripts/bench_doc.sh). The work files go to
# build/apps/. Needs root (sshd's privilege separation, nginx as root).
# Markdown table on stdout, progress on stderr; a chart (gnuplot) of the
# ratios in bench/results/apps-cpu.png.
set -euo pipefail
# shellcheck disable=SC2317  # the run_* functions are called through measure

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export DEBIAN_FRONTEND=noninteractive
main_row=0
[[ "${1:-}" == --main ]] && main_row=1
work=$repo/build/apps
MIB=${HWCIPHER_APPS_MIB:-1024}
RUNS=${HWCIPHER_APPS_RUNS:-$( ((main_row)) && echo 5 || echo 3)}
REQS=${HWCIPHER_APPS_REQUESTS:-50000}
# Default: the first CPU this process may run on (0 on most hosts).
CPUS=${HWCIPHER_APPS_CPUS:-$(taskset -pc $$ | sed 's/.*: //; s/[,-].*//')}
RELEASE=${HWCIPHER_APPS_RELEASE-4.0}
ONLY=${HWCIPHER_APPS_ONLY:-}
((main_row)) && RELEASE="" ONLY=tls-libssl
TICK=$(getconf CLK_TCK)
start=$SECONDS
say() { printf 'bench_apps.sh [%4ds]: %s\n' $((SECONDS - start)) "$*" >&2; }
fail() { echo "bench_apps.sh: $*" >&2; exit 1; }
wanted() { [[ -z "$ONLY" || "$1" =~ $ONLY ]]; }

# The chart, bench/results/apps-cpu.png: the CPU ratio per row (rows without
# one are left out). Labels: workload, release, suite or cipher (up to its
# first comma, "TLS 1.3 TLS_AES_..." shortened to "1.3 AES_...").
png=$repo/bench/results/apps-cpu.png
draw_chart() { # <rows file>
    local dat=$work/ratios.dat n
    awk -F'|' '$8 != "—" { split($1, w, " "); split($3, what, ","); l = what[1]
        sub(/^TLS /, "", l); sub(/ TLS_/, " ", l)
        printf "\"%s %s %s\" %s\n", w[1], $2, l, $8 }' "$1" > "$dat"
    command -v gnuplot > /dev/null && [[ -s "$dat" ]] || return 0
    n=$(wc -l < "$dat")
    gnuplot << EOF
set terminal pngcairo size $((n * 26 + 240 > 800 ? n * 26 + 240 : 800)),820 font ",9" noenhanced
set output "$png"
set title "CPU seconds (server + client) per GiB (small: per 10,000 requests), hwcipher ÷ default provider; < 1 = hwcipher costs less"
set style data histograms
set style fill solid 0.85 border -1
set boxwidth 0.8
set yrange [0:*]
set grid ytics
set xtics rotate by 90 right nomirror
set key off
set arrow from graph 0, first 1 to graph 1, first 1 nohead lw 2 lc rgb "black"
set bmargin 27
plot "$dat" using 2:xtic(1) lc rgb "#1f77b4"
EOF
}

if [[ "${1:-}" == --chart ]]; then   # redraw the chart from the last run's rows
    draw_chart "$work/rows"
    exit
fi
# shellcheck source=scripts/bench_doc.sh
source scripts/bench_doc.sh
bench_doc_start bench_apps.sh HWCIPHER_APPS_MIB HWCIPHER_APPS_RUNS HWCIPHER_APPS_REQUESTS \
    HWCIPHER_APPS_CPUS HWCIPHER_APPS_RELEASE HWCIPHER_APPS_ONLY HWCIPHER_BENCH_DOC

# ---- what runs: packages, the module, the releases -----------------------------
if ((!main_row)); then
    bash scripts/deps.sh --apps >&2
    [[ "${HWCIPHER_BENCH_NO_BUILD:-0}" == 1 ]] || bash scripts/build.sh native --target bench_tls >&2
fi
mod=$repo/build/native
[[ -f "$mod/hwcipher.so" ]] || fail "no $mod/hwcipher.so (bash scripts/build.sh native)"
! wanted tls-libssl || [[ -x "$mod/bench/bench_tls" ]] ||
    fail "no $mod/bench/bench_tls (bash scripts/build.sh native --target bench_tls)"
declare -A OSSL=() MODS=() VERS=()
OSSL[3.0]=$(command -v openssl) MODS[3.0]=$mod
releases=(3.0)
if [[ -n "$RELEASE" ]]; then
    say "OpenSSL $RELEASE and hwcipher built against it (scripts/openssl_release.sh $RELEASE --module build/native)"
    if rmod=$(bash scripts/openssl_release.sh "$RELEASE" --module "$mod"); then
        OSSL[$RELEASE]=$repo/build/openssl-$RELEASE-$(dpkg --print-architecture)/bin/openssl
        MODS[$RELEASE]=$rmod
        releases+=("$RELEASE")
    else
        say "OpenSSL $RELEASE is not available here: left out"
    fi
fi
for rel in "${releases[@]}"; do VERS[$rel]=$("${OSSL[$rel]}" version | cut -d' ' -f2); done

rm -rf "$work"
mkdir -p "$work/www" "$work/tmp" "$work/logs"
# shellcheck source=test/support/openssh.sh
source test/support/openssh.sh
# shellcheck source=test/support/nginx.sh
source test/support/nginx.sh
cleanup() { nginx_stop_all; sshd_stop_all; }
trap cleanup EXIT

# The two configurations: hwcipher preferred (the repository's own file) and
# the default provider alone.
cp test/openssl-cnf/prefer-hwcipher.cnf "$work/hw.cnf"
cat > "$work/def.cnf" << 'EOF'
openssl_conf = openssl_init
[openssl_init]
providers = provider_sect
[provider_sect]
default = default_sect
[default_sect]
activate = 1
EOF
# Exports the configuration <side> (hw or def) for release <rel>.
side_env() { # <side> <rel>
    export OPENSSL_CONF=$work/$1.cnf OPENSSL_MODULES=${MODS[$2]}
    unset HWCIPHER_CORES HWCIPHER_TRACE
}
for rel in "${releases[@]}"; do
    (side_env hw "$rel"; "${OSSL[$rel]}" list -providers) | grep -q hwcipher ||
        fail "hwcipher does not load into OpenSSL ${VERS[$rel]} with $work/hw.cnf"
done

bytes=$((MIB * 1048576))
# The certificate and the files for the workloads that serve or read them
# (bench_tls makes its own).
if wanted tls-nginx || wanted tls-s_server || wanted ssh || wanted enc || wanted small; then
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
        -subj /CN=localhost -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -days 1 2> /dev/null
    say "a $MIB MiB file of random bytes (build/apps/www/data.bin)"
    head -c "$bytes" /dev/urandom > "$work/www/data.bin"
    head -c 1024 /dev/urandom > "$work/www/small.bin"
fi

# ---- CPU accounting ------------------------------------------------------------
# User + system ticks of a process and of its children it has waited for
# (fields 14-17 of /proc/<pid>/stat; 3 fields precede them after the name).
own_ticks() { # <pid>
    local f
    read -r -a f < <(sed 's/^.*) //' "/proc/$1/stat" 2> /dev/null) || return 1
    ((${#f[@]} > 14)) || return 1
    echo $((f[11] + f[12] + f[13] + f[14]))
}
descendants() { # <pid>
    local c
    for c in $(ps -o pid= --ppid "$1" 2> /dev/null); do echo "$c"; descendants "$c"; done
}
tree_ticks() { # <pid>: the process and all its descendants
    local p t=0 v
    for p in "$1" $(descendants "$1"); do
        v=$(own_ticks "$p") || v=0
        t=$((t + v))
    done
    echo "$t"
}
# Runs a command pinned to $CPUS (its stdin, stdout), then writes the ticks
# it used to <file>: a bash that only waits for it reads its own cutime.
timed() { # <ticks file> <command...>
    bash -c '"${@:2}"; s=$?; read -r -a f < <(sed "s/^.*) //" /proc/$$/stat); echo $((f[13] + f[14])) > "$1"; exit $s' \
        _ "$1" taskset -c "$CPUS" "${@:2}"
}
now() { date +%s.%N; }
# "cpu_seconds wall_seconds" from ticks and two timestamps.
result() { # <ticks> <t0> <t1>
    awk -v t="$1" -v a="$2" -v b="$3" -v k="$TICK" 'BEGIN { printf "%.3f %.4f\n", t / k, b - a }'
}
wait_no_children() { # <pid>: until it has none (its connections ended and were reaped)
    local _
    for _ in $(seq 300); do
        [[ -z "$(ps -o pid= --ppid "$1" 2> /dev/null)" ]] && return 0
        sleep 0.05
    done
    return 1
}

# ---- the workloads: each prints "cpu_seconds wall_seconds" or fails ------------
# (a) through s_server -WWW and s_client of release <rel>; s_client's output
# goes to /dev/null (a pipe to count it costs more CPU than the cipher does:
# the exit statuses and s_server's own count say the transfer finished).
run_s_server() { # <side> <rel> <s_client/s_server options...>
    local side=$1 rel=$2 port='' srv t0 t1 _
    shift 2
    : > "$work/srv.out"
    rm -f "$work/srv.ticks" "$work/cli.ticks"
    (cd "$work/www" && side_env "$side" "$rel" &&
        timed "$work/srv.ticks" "${OSSL[$rel]}" s_server -accept 127.0.0.1:0 -naccept 1 -WWW \
            -cert "$work/cert.pem" -key "$work/key.pem" "$@" > "$work/srv.out" 2> "$work/srv.err") &
    srv=$!
    for _ in $(seq 200); do
        port=$(sed -n 's/^ACCEPT 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$work/srv.out")
        [[ -n "$port" ]] && break
        kill -0 "$srv" 2> /dev/null || break
        sleep 0.05
    done
    [[ -n "$port" ]] || { cat "$work/srv.err" >&2; return 1; }
    t0=$(now)
    printf 'GET /data.bin HTTP/1.0\r\n\r\n' |
        (side_env "$side" "$rel" && timed "$work/cli.ticks" "${OSSL[$rel]}" s_client \
            -connect "127.0.0.1:$port" -quiet "$@" > /dev/null 2> "$work/cli.err") ||
        { kill "$srv" 2> /dev/null; cat "$work/cli.err" >&2; return 1; }
    t1=$(now)
    wait "$srv" || { cat "$work/srv.err" >&2; return 1; }
    grep -q '^ *1 server accepts that finished' "$work/srv.out" || return 1
    result $(($(cat "$work/srv.ticks") + $(cat "$work/cli.ticks"))) "$t0" "$t1"
}
# (a) libssl alone: bench_tls times the transfer itself (the handshake and
# its start-up outside) and prints "cpu wall"; it checks that the
# configuration's AES-GCM comes from the provider the side means.
run_tls_libssl() { # <side> <bench_tls options...>
    local side=$1 out want=default
    shift
    [[ "$side" == hw ]] && want=hwcipher
    out=$(side_env "$side" 3.0 && taskset -c "$CPUS" "$mod/bench/bench_tls" --mib "$MIB" "$@" 2> "$work/cli.err") ||
        { cat "$work/cli.err" >&2; return 1; }
    grep -q "fetched from $want\$" "$work/cli.err" || { cat "$work/cli.err" >&2; return 1; }
    echo "$out"
}
# (a) nginx (started per side below) and curl, both the system's 3.0.
run_nginx_curl() { # <side> <curl options...>
    local side=$1 master got s0 s1 t0 t1
    shift
    master=${nginx_master[$side]}
    s0=$(tree_ticks "$master")
    t0=$(now)
    got=$(side_env "$side" 3.0 && timed "$work/cli.ticks" curl --silent --show-error --fail \
        --cacert "$work/cert.pem" -o /dev/null -w '%{size_download}' "$@" \
        "https://127.0.0.1:${nginx_port[$side]}/data.bin" 2> "$work/cli.err") ||
        { cat "$work/cli.err" >&2; return 1; }
    t1=$(now)
    s1=$(tree_ticks "$master")
    [[ "$got" == "$bytes" ]] || { echo "curl got $got bytes of $bytes" >&2; return 1; }
    result $((s1 - s0 + $(cat "$work/cli.ticks"))) "$t0" "$t1"
}
# (b) an upload through the system's ssh to the side's sshd.
run_ssh() { # <side> <cipher>
    local side=$1 master s0 s1 t0 t1
    master=${sshd_master[$side]}
    s0=$(tree_ticks "$master")
    t0=$(now)
    (side_env "$side" 3.0 && timed "$work/cli.ticks" ssh "${ssh_args[@]}" -p "${sshd_port[$side]}" \
        -o "Ciphers=$2" root@127.0.0.1 'cat > /dev/null' < "$work/www/data.bin" 2> "$work/cli.err") ||
        { cat "$work/cli.err" >&2; return 1; }
    t1=$(now)
    wait_no_children "$master" || { echo "sshd's connection did not end" >&2; return 1; }
    s1=$(tree_ticks "$master")
    result $((s1 - s0 + $(cat "$work/cli.ticks"))) "$t0" "$t1"
}
# (c) openssl enc of the file.
run_enc() { # <side> <rel> <cipher> <key hex>
    local t0 t1
    t0=$(now)
    (side_env "$1" "$2" && timed "$work/cli.ticks" "${OSSL[$2]}" enc -e "-$3" -K "$4" \
        -iv 000102030405060708090a0b0c0d0e0f -in "$work/www/data.bin" -out /dev/null 2> "$work/cli.err") ||
        { [[ "$1" == def ]] || cat "$work/cli.err" >&2; return 1; }
    t1=$(now)
    result "$(cat "$work/cli.ticks")" "$t0" "$t1"
}
# (d) h2load: $REQS requests for 1 KiB on 4 kept-alive HTTP/1.1 connections.
run_small() { # <side>
    local side=$1 master s0 s1 t0 t1 out
    master=${nginx_master[$side]}
    s0=$(tree_ticks "$master")
    t0=$(now)
    out=$(side_env "$side" 3.0 && timed "$work/cli.ticks" h2load --h1 -n "$REQS" -c 4 -t 1 \
        --tls13-ciphers TLS_AES_128_GCM_SHA256 "https://127.0.0.1:${nginx_port[$side]}/small.bin" 2>&1) ||
        { echo "$out" >&2; return 1; }
    t1=$(now)
    s1=$(tree_ticks "$master")
    grep -q "requests: $REQS total, $REQS started, $REQS done, $REQS succeeded" <<< "$out" ||
        { echo "$out" >&2; return 1; }
    result $((s1 - s0 + $(cat "$work/cli.ticks"))) "$t0" "$t1"
}

# ---- rows ------------------------------------------------------------------------
# One row: RUNS runs per side in turns; the best (least) CPU and the best
# (least) wall time of each side. <amount>: GiB (bulk) or units of 10,000
# requests (small). Appends "workload|release|what|hw MB/s|def MB/s|hw
# cpu|def cpu|ratio" to $rows (MB/s: requests/s for small); a side that
# cannot run (Twofish in a default provider) is "—".
rows=$work/rows
: > "$rows"
status=0
measure() { # <workload> <release> <what> <kind: bulk|small> <run function> <args after side...>
    local wl=$1 rel=$2 what=$3 kind=$4 fn=$5 side i r cpu wall
    shift 5
    declare -A bc=() bw=() ok=([hw]=1 [def]=1)
    say "$wl, OpenSSL ${VERS[$rel]}: $what ($RUNS runs each way)"
    for ((i = 0; i < RUNS; ++i)); do
        for side in hw def; do
            ((ok[$side])) || continue
            if ! r=$("$fn" "$side" "$@"); then
                ok[$side]=0
                [[ "$side" == def ]] || { say "  hwcipher's run failed: row left out"; status=1; return 0; }
                continue
            fi
            read -r cpu wall <<< "$r"
            bc[$side]=$(awk -v a="$cpu" -v b="${bc[$side]:-}" 'BEGIN { print (b == "" || a < b) ? a : b }')
            bw[$side]=$(awk -v a="$wall" -v b="${bw[$side]:-}" 'BEGIN { print (b == "" || a < b) ? a : b }')
        done
    done
    awk -v wl="$wl" -v rel="${VERS[$rel]}" -v what="$what" -v kind="$kind" -v mib="$MIB" -v reqs="$REQS" \
        -v hc="${bc[hw]}" -v hw="${bw[hw]}" -v dc="${bc[def]:-}" -v dw="${bw[def]:-}" 'BEGIN {
        amount = kind == "bulk" ? mib / 1024 : reqs / 10000
        per = kind == "bulk" ? mib * 1048576 / 1e6 : reqs
        hr = sprintf("%.0f", per / hw); hcpu = sprintf("%.2f", hc / amount)
        if (dc == "") { dr = "—"; dcpu = "—"; ratio = "—" }
        else { dr = sprintf("%.0f", per / dw); dcpu = sprintf("%.2f", dc / amount)
               ratio = sprintf("%.2f", hc / dc) }
        printf "%s|%s|%s|%s|%s|%s|%s|%s\n", wl, rel, what, hr, dr, hcpu, dcpu, ratio }' | tee -a "$rows" |
        awk -F'|' '{ printf "bench_apps.sh:   hwcipher %s MB/s %s CPU, default %s MB/s %s CPU: %s\n", $4, $6, $5, $7, $8 }' >&2
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
tls13="-tls1_3 -ciphersuites"
tls12="-tls1_2 -cipher"
if wanted tls-nginx; then
    for side in hw def; do (side_env "$side" 3.0 && nginx_start "$side" "$work" "$CPUS"); done
    nginx_find_masters "$work"
    for s in "TLS 1.3 TLS_AES_128_GCM_SHA256|--tlsv1.3 --tls13-ciphers TLS_AES_128_GCM_SHA256" \
             "TLS 1.3 TLS_AES_256_GCM_SHA384|--tlsv1.3 --tls13-ciphers TLS_AES_256_GCM_SHA384" \
             "TLS 1.2 ECDHE-RSA-AES128-GCM-SHA256|--tlsv1.2 --tls-max 1.2 --ciphers ECDHE-RSA-AES128-GCM-SHA256" \
             "TLS 1.2 ECDHE-RSA-AES256-GCM-SHA384|--tlsv1.2 --tls-max 1.2 --ciphers ECDHE-RSA-AES256-GCM-SHA384"; do
        # shellcheck disable=SC2086  # the options are words
        measure "tls-nginx (nginx + curl)" 3.0 "${s%%|*}" bulk run_nginx_curl ${s#*|}
    done
fi
if wanted tls-s_server; then
    for rel in "${releases[@]}"; do
        suites=("TLS 1.3 TLS_AES_128_GCM_SHA256|$tls13 TLS_AES_128_GCM_SHA256")
        if ((!main_row)); then
            suites+=("TLS 1.3 TLS_AES_256_GCM_SHA384|$tls13 TLS_AES_256_GCM_SHA384"
                     "TLS 1.2 ECDHE-RSA-AES128-GCM-SHA256|$tls12 ECDHE-RSA-AES128-GCM-SHA256"
                     "TLS 1.2 ECDHE-RSA-AES256-GCM-SHA384|$tls12 ECDHE-RSA-AES256-GCM-SHA384")
            if (side_env def "$rel" && "${OSSL[$rel]}" ciphers -tls1_3 -ciphersuites TLS_SM4_GCM_SM3) > /dev/null 2>&1; then
                suites+=("TLS 1.3 TLS_SM4_GCM_SM3|$tls13 TLS_SM4_GCM_SM3")
            else
                echo "tls-s_server (s_server + s_client)|${VERS[$rel]}|TLS 1.3 TLS_SM4_GCM_SM3: not in this release|—|—|—|—|—" >> "$rows"
                say "OpenSSL ${VERS[$rel]} has no TLS_SM4_GCM_SM3: SM4 row skipped"
            fi
        fi
        for s in "${suites[@]}"; do
            # shellcheck disable=SC2086
            measure "tls-s_server (s_server + s_client)" "$rel" "${s%%|*}" bulk run_s_server "$rel" ${s#*|}
        done
    done
fi
if wanted tls-libssl; then
    for s in "TLS 1.3 TLS_AES_128_GCM_SHA256|--tls13 TLS_AES_128_GCM_SHA256" \
             "TLS 1.3 TLS_AES_256_GCM_SHA384|--tls13 TLS_AES_256_GCM_SHA384" \
             "TLS 1.2 ECDHE-ECDSA-AES128-GCM-SHA256|--tls12 ECDHE-ECDSA-AES128-GCM-SHA256" \
             "TLS 1.2 ECDHE-ECDSA-AES256-GCM-SHA384|--tls12 ECDHE-ECDSA-AES256-GCM-SHA384"; do
        ((main_row)) && [[ "$s" != "TLS 1.3 TLS_AES_128_GCM_SHA256|"* ]] && continue
        # shellcheck disable=SC2086
        measure "tls-libssl (libssl alone, one process)" 3.0 "${s%%|*}" bulk run_tls_libssl ${s#*|}
    done
fi
if wanted ssh; then
    for side in hw def; do (side_env "$side" 3.0 && sshd_start "$side" "$work" "$CPUS"); done
    sshd_find_masters "$work"
    ssh_opts "$work"
    for c in $(ssh -Q cipher | grep '^aes'); do
        measure "ssh (OpenSSH $(ssh -V 2>&1 | sed 's/^OpenSSH_\([^ ,]*\).*/\1/'), upload)" 3.0 "$c" bulk run_ssh "$c"
    done
fi
if wanted enc; then
    k128=000102030405060708090a0b0c0d0e0f
    for rel in "${releases[@]}"; do
        for c in "aes-256-ctr $k128$k128" "sm4-ctr $k128" "sm4-cbc $k128" "twofish-256-cbc $k128$k128"; do
            # shellcheck disable=SC2086
            measure "enc (openssl enc)" "$rel" "${c%% *}" bulk run_enc "$rel" $c
        done
    done
fi
if wanted small; then
    if [[ -z "${nginx_master[hw]:-}" ]]; then
        for side in hw def; do (side_env "$side" 3.0 && nginx_start "$side" "$work" "$CPUS"); done
        nginx_find_masters "$work"
    fi
    measure "small (nginx + h2load, 1 KiB)" 3.0 "TLS 1.3 TLS_AES_128_GCM_SHA256, $REQS requests on 4 connections" small run_small
fi
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# ---- output ------------------------------------------------------------------------
host="$(bench_doc_host_cpu) (family $(sed -n 's/^cpu family[[:space:]]*: //p' /proc/cpuinfo | head -1) model $(
    sed -n 's/^model[[:space:]]*: //p' /proc/cpuinfo | head -1)), $(. /etc/os-release && echo "$PRETTY_NAME")"
if ((main_row)); then
    IFS='|' read -r _ rel what hr dr hc dc ratio < "$rows"
    echo "TLS bulk through libssl $rel alone (client and server in one process, memory BIOs: bench/bench_tls),"
    echo "$what, $MIB MiB per run, best of $RUNS runs each way in turns, CPU s (both ends) per GiB:"
    echo "  hwcipher $hc ($hr MB/s), default $dc ($dr MB/s): ${ratio}x"
    exit $status
fi
table() {
    echo "| workload | OpenSSL | suite / cipher | hwcipher MB/s | default MB/s | hwcipher CPU s/GiB | default CPU s/GiB | CPU hwcipher ÷ default |"
    echo "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |"
    awk -F'|' '{ printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$rows"
}
table

draw_chart "$rows"


{
    echo "What applications spend with hwcipher preferred (\`default_properties = ?provider=hwcipher\`, the"
    echo "repository's test/openssl-cnf/prefer-hwcipher.cnf) and with the default provider alone, in"
    echo "OpenSSL $(for r in "${releases[@]}"; do echo "${VERS[$r]}"; done | paste -sd' ' | sed 's/ / and /')."
    echo "hwcipher $(sed -nE 's/^project\(hwcipher VERSION ([0-9.]+).*/\1/p' CMakeLists.txt), cores: $(
        OPENSSL_CONF=$work/hw.cnf OPENSSL_MODULES=$mod openssl list -providers -verbose 2> /dev/null |
        sed -n 's/.*); cores //p' | head -1 | sed 's/,/, /g')."
    echo
    echo "- Bulk rows: $MIB MiB per transfer or file; CPU s/GiB = user + system seconds of server and client"
    echo "  together (from /proc/<pid>/stat), scaled to 1 GiB; MB/s = bytes / wall time of the client."
    echo "- Both sides pinned with \`taskset -c $CPUS\`; $RUNS runs per configuration, the two taking turns;"
    echo "  each figure is the best run. Load average $load_before before the runs, $load_after after."
    echo "- tls-nginx: Debian's nginx ($(nginx -v 2>&1 | sed 's/.*: //'), sendfile off) and curl"
    echo "  ($(curl --version | head -1 | cut -d' ' -f1-2)), both on the system's libssl. tls-s_server:"
    echo "  each release's own \`openssl s_server -WWW\` and \`s_client -quiet\` (output to /dev/null)."
    echo "  tls-libssl: bench/bench_tls, client and server in one process over a memory BIO pair (the"
    echo "  system's libssl; P-256 certificate, 16 KiB records): libssl's record layer and the cipher, no"
    echo "  kernel; MB/s there is the transfer's bytes over its wall time."
    echo "- ssh: the system's sshd and ssh on 127.0.0.1, \`cat > /dev/null\` on the server, the file on"
    echo "  ssh's stdin; OpenSSH's own MAC (umac-64-etm for CTR and CBC) and copying are in the figures."
    echo "- enc: \`openssl enc -e -<cipher> -K .. -iv .. -in <file> -out /dev/null\`. Twofish: no default"
    echo "  provider has it."
    echo "- small: nginx serving 1 KiB over TLS 1.3 to \`h2load --h1 -c 4\` (HTTP/1.1 keep-alive); MB/s"
    echo "  columns are requests/s there, CPU columns CPU seconds per 10,000 requests."
    echo
    table
    echo
    echo "![CPU per GiB, hwcipher ÷ default, per row]($(realpath -m --relative-to="$repo/docs/benchmarks" "$png"))"
} | bench_doc_write docs/benchmarks/apps.md "What applications gain: CPU per GiB with and without hwcipher" "$host"
say "done"
exit $status
