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

# shellcheck source=test/support/daemons.sh
source "$(dirname "${BASH_SOURCE[0]}")/daemons.sh"
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
    local d=$2/nginx-$1 work=$2
    mkdir -p "$d/logs" "$d/tmp"
    nginx_conf_at() { nginx_write_conf "$d" "$1" "$work"; }
    daemon_start "$d" "$d/nginx.pid" "$d/logs/error.log" 'Address already in use' nginx_conf_at "$3" \
        "$nginx_bin" -p "$d" -c "$d/nginx.conf" -e "$d/logs/error.log"
}

nginx_find_masters() { daemon_find "$1" nginx nginx.pid nginx_master nginx_port; } # <work>
nginx_stop_all() { daemon_stop_all QUIT nginx_master; }
