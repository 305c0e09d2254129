#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# CLI (native only): Debian's unmodified nginx serves a 16 MiB file over HTTPS on 127.0.0.1 and Debian's curl downloads it, both preferring hwcipher through OPENSSL_CONF; the checksum must match and both HWCIPHER_TRACE files must show hwcipher keying the record cipher.
# These are host binaries, so test/CMakeLists.txt registers *.native.sh scripts only for native builds.
set -euo pipefail

: "${OPENSSL_MODULES:?OPENSSL_MODULES not set}" "${HWCIPHER_CNF_DIR:?HWCIPHER_CNF_DIR not set}"
fail() { echo "FAIL: $*" >&2; exit 1; }

nginx_bin=$(command -v nginx || true)
[ -n "$nginx_bin" ] || nginx_bin=/usr/sbin/nginx    # not on a non-root PATH
[ -x "$nginx_bin" ] || fail "nginx not installed (scripts/deps.sh installs it)"
command -v curl >/dev/null || fail "curl not installed (scripts/deps.sh installs it)"
# OPENSSL_BIN's launcher (everything before "openssl"), e.g. the sanitizer
# build's "env LD_PRELOAD=<asan runtime> ...", which nginx and curl need too
# to load an instrumented module.
launcher=()
case ${OPENSSL_BIN:-openssl} in
  *qemu*) fail "nginx and curl are host binaries: native builds only (see test/CMakeLists.txt)" ;;
  *" "*) read -ra launcher <<<"${OPENSSL_BIN% *}" ;;
esac

wait_s=${HWCIPHER_TLS_WAIT:-120}   # bound on every wait below
build=${HWCIPHER_BUILD_DIR:-$PWD}
work=$(mktemp -d "$build/tls_nginx_curl.XXXXXX")   # the nginx prefix, in the build tree
master=
stop_nginx() {
  [ -n "$master" ] || return 0
  local workers
  workers=$(ps -o pid= --ppid "$master" 2>/dev/null || true)
  kill -QUIT "$master" 2>/dev/null || true          # graceful: the master stops its workers
  for _ in $(seq $((wait_s * 10))); do
    kill -0 "$master" 2>/dev/null || break
    sleep 0.1
  done
  # shellcheck disable=SC2086
  kill -KILL "$master" $workers 2>/dev/null || true
  wait "$master" 2>/dev/null || true
  master=
}
cleanup() {
  stop_nginx
  if [ "${HWCIPHER_KEEP_WORK:-0}" = 1 ]; then echo "kept $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
start=$SECONDS

mkdir -p "$work/www" "$work/tmp" "$work/logs"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/key.pem" -out "$work/cert.pem" \
    -subj /CN=localhost -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -days 1 \
    2>/dev/null || fail "cannot make a test certificate"
head -c 16777216 /dev/urandom >"$work/www/data.bin"
want=$(sha256sum "$work/www/data.bin" | cut -d' ' -f1)

export OPENSSL_CONF=$HWCIPHER_CNF_DIR/prefer-hwcipher.cnf
export OPENSSL_MODULES

# nginx hands its workers only the variables named by `env`; OpenSSL itself
# reads OPENSSL_CONF in the master (at OPENSSL_init_ssl, before the
# configuration is parsed), and the workers inherit the loaded providers, the
# open trace file included.
write_conf() {
  local user_line=
  # As root nginx would switch its workers to nobody, who cannot read the
  # private work directory; stay root (this is a test on loopback).
  (( EUID == 0 )) && user_line="user root root;"
  cat >"$work/nginx.conf" <<EOF
$user_line
daemon off;
master_process on;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/logs/error.log notice;
env OPENSSL_CONF;
env OPENSSL_MODULES;
env HWCIPHER_TRACE;
events { worker_connections 64; }
http {
    access_log $work/logs/access.log;
    client_body_temp_path $work/tmp/body;
    proxy_temp_path $work/tmp/proxy;
    fastcgi_temp_path $work/tmp/fastcgi;
    uwsgi_temp_path $work/tmp/uwsgi;
    scgi_temp_path $work/tmp/scgi;
    default_type application/octet-stream;
    sendfile off;    # records go through libssl (and so the provider)
    server {
        listen 127.0.0.1:$1 ssl;
        ssl_certificate $work/cert.pem;
        ssl_certificate_key $work/key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        root $work/www;
    }
}
EOF
}

# A random high port; if it is taken, nginx fails to bind and we try another.
port=
for _attempt in 1 2 3 4 5; do
  try=$((20000 + RANDOM % 40000))
  write_conf "$try"
  : >"$work/logs/error.log"
  HWCIPHER_TRACE=$work/nginx.trace "${launcher[@]}" "$nginx_bin" -p "$work" -c "$work/nginx.conf" -e "$work/logs/error.log" \
      >"$work/logs/nginx.out" 2>&1 &
  master=$!
  for _ in $(seq $((wait_s * 10))); do
    grep -q 'start worker process' "$work/logs/error.log" && { port=$try; break; }
    kill -0 "$master" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$port" ] && break
  if grep -q 'Address already in use' "$work/logs/error.log"; then master=; continue; fi
  cat "$work/logs/error.log" "$work/logs/nginx.out" >&2
  fail "nginx did not start within ${wait_s}s"
done
[ -n "$port" ] || fail "no free port found for nginx"
workers=$(ps -o pid= --ppid "$master" | xargs)
echo "nginx $("$nginx_bin" -v 2>&1 | sed 's/.*: //') on 127.0.0.1:$port (master $master, workers $workers)"

HWCIPHER_TRACE=$work/curl.trace "${launcher[@]}" curl --silent --show-error --fail --verbose --max-time "$wait_s" \
    --cacert "$work/cert.pem" -o "$work/download.bin" "https://127.0.0.1:$port/data.bin" \
    2>"$work/curl.err" &
curl_pid=$!
wait "$curl_pid" || { cat "$work/curl.err" >&2; fail "curl failed"; }
stop_nginx

got=$(sha256sum "$work/download.bin" | cut -d' ' -f1)
[ "$got" = "$want" ] || fail "download differs: sha256 $got, want $want ($(wc -c <"$work/download.bin") bytes)"

# "SSL connection using TLSv1.3 / TLS_AES_256_GCM_SHA384" -> AES-256-GCM
suite=$(sed -n 's/^\* SSL connection using \(TLSv1\.[23]\) \/ \([A-Z0-9_-]*\).*/\1 \2/p' "$work/curl.err")
case "${suite#* }" in
  TLS_AES_128_GCM_SHA256 | ECDHE-RSA-AES128-GCM-SHA256) alg=AES-128-GCM ;;
  TLS_AES_256_GCM_SHA384 | ECDHE-RSA-AES256-GCM-SHA384) alg=AES-256-GCM ;;
  *) fail "negotiated '$suite', not an AES-GCM suite hwcipher serves" ;;
esac

# nginx's records are the worker's: its lines carry a worker's pid.
check_trace() {
  local file=$1 side=$2 pids=$3 op p ok
  [ -s "$file" ] || fail "$side's HWCIPHER_TRACE is empty (hwcipher not used)"
  for op in encrypt decrypt; do
    ok=0
    for p in $pids; do
      grep -Eq "^hwcipher-trace pid=$p alg=$alg core=[^ ]+ op=$op\$" "$file" && ok=1
    done
    (( ok )) || fail "no '$alg $op' by pid(s) $pids in $side's trace: $(sort -u "$file" | tr '\n' ';')"
  done
}
check_trace "$work/nginx.trace" "nginx" "$workers"
check_trace "$work/curl.trace" "curl" "$curl_pid"
echo "ok: 16 MiB over $suite, sha256 $got"
echo "nginx trace: $(grep " alg=$alg " "$work/nginx.trace" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
echo "curl trace:  $(grep " alg=$alg " "$work/curl.trace" | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
echo "PASS: tls_nginx_curl ($((SECONDS - start)) s)"
