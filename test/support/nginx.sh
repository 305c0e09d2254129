# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2034  # sourced; the arrays are the caller's
# Sourced (not a test: test/CMakeLists.txt registers test/cli/*.sh only):
# Debian's nginx on 127.0.0.1 serving <work>/www over HTTPS, set up the way
# test/cli/tls_nginx_curl.native.sh does it (sendfile off, so that the
# records go through libssl and the provider; OPENSSL_CONF and
# OPENSSL_MODULES handed to the workers), for scripts/bench_apps.sh. Each
# nginx is named and has its own prefix <work>/nginx-<name>; it takes the
# OpenSSL configuration from the caller's environment when started, so the
# caller can start one per configuration in a subshell and then learn their
# pids and ports with nginx_find_masters.
#
#   nginx_start <name> <work> <cpus>   start it (daemon, pinned to <cpus>)
#   nginx_find_masters <work>          fill nginx_master[name], nginx_port[name]
#   nginx_stop_all                     stop every one found

nginx_bin=/usr/sbin/nginx
declare -A nginx_master=() nginx_port=()

nginx_write_conf() { # <prefix> <port> <work>
    local user_line=""
    # As root nginx would switch its workers to nobody, who cannot read the
    # work directory; stay root (loopback only).
    ((EUID == 0)) && user_line="user root root;"
    cat > "$1/nginx.conf" << CONF
$user_line
worker_processes 1;
pid $1/nginx.pid;
error_log $1/logs/error.log notice;
env OPENSSL_CONF;
env OPENSSL_MODULES;
env HWCIPHER_TRACE;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path $1/tmp/body;
    proxy_temp_path $1/tmp/proxy;
    fastcgi_temp_path $1/tmp/fastcgi;
    uwsgi_temp_path $1/tmp/uwsgi;
    scgi_temp_path $1/tmp/scgi;
    default_type application/octet-stream;
    sendfile off;
    keepalive_requests 10000000;
    server {
        listen 127.0.0.1:$2 ssl;
        ssl_certificate $3/cert.pem;
        ssl_certificate_key $3/key.pem;
        ssl_protocols TLSv1.2 TLSv1.3;
        root $3/www;
    }
}
CONF
}

nginx_start() { # <name> <work> <cpus>
    local d=$2/nginx-$1 try _attempt
    mkdir -p "$d/logs" "$d/tmp"
    for _attempt in 1 2 3 4 5; do
        try=$((20000 + RANDOM % 40000))
        nginx_write_conf "$d" "$try" "$2"
        : > "$d/logs/error.log"
        if taskset -c "$3" "$nginx_bin" -p "$d" -c "$d/nginx.conf" -e "$d/logs/error.log" > "$d/logs/nginx.out" 2>&1; then
            for _ in $(seq 100); do
                [[ -s "$d/nginx.pid" ]] && { echo "$try" > "$d/port"; return 0; }
                sleep 0.05
            done
        fi
        grep -q 'Address already in use' "$d/logs/error.log" "$d/logs/nginx.out" && continue
        cat "$d/logs/error.log" "$d/logs/nginx.out" >&2
        return 1
    done
    return 1
}

nginx_find_masters() { # <work>
    local d name
    for d in "$1"/nginx-*/; do
        [[ -s "$d/nginx.pid" ]] || continue
        name=${d%/}
        name=${name##*/nginx-}
        nginx_master[$name]=$(cat "$d/nginx.pid")
        nginx_port[$name]=$(cat "$d/port")
    done
}

nginx_stop_all() {
    local name pid
    for name in "${!nginx_master[@]}"; do
        pid=${nginx_master[$name]}
        kill -QUIT "$pid" 2> /dev/null || continue
        for _ in $(seq 100); do
            kill -0 "$pid" 2> /dev/null || break
            sleep 0.05
        done
        kill -KILL "$pid" 2> /dev/null || true
    done
    nginx_master=()
}
