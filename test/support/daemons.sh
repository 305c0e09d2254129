# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Sourced by test/support/nginx.sh and openssh.sh (not a test: test/CMakeLists.txt
# registers test/cli/*.sh only): what their servers share. Each server is
# started in a subshell with its own environment and leaves a directory
# <work>/<kind>-<name> with its pid file and port; the caller then learns
# them here and stops them all at the end.
#
#   daemon_start <dir> <pid file> <log> <bind failure regex> <write conf fn> <cpus> <cmd...>
#       up to 5 random high ports: <write conf fn> <port> writes the
#       configuration, <cmd...> (pinned to <cpus>) daemonises and writes
#       <pid file>; a port in use (<log> or the command's output matches the
#       regex) is tried again. The port goes to <dir>/port.
#   daemon_find <work> <kind> <pid file name> <masters array> <ports array>
#       fills the two associative arrays (by name) from <work>/<kind>-*/
#   daemon_stop_all <signal> <masters array>
#       stops every master found (the signal, then KILL after 5 s)

daemon_start() {
    local dir=$1 pidfile=$2 log=$3 busy=$4 write_conf=$5 cpus=$6 try _attempt
    shift 6
    for _attempt in 1 2 3 4 5; do
        try=$((20000 + RANDOM % 40000))
        "$write_conf" "$try"
        : > "$log"
        if taskset -c "$cpus" "$@" > "$dir/daemon.out" 2>&1; then
            for _ in $(seq 100); do
                [[ -s "$pidfile" ]] && { echo "$try" > "$dir/port"; return 0; }
                sleep 0.05
            done
        fi
        grep -Eqs "$busy" "$log" "$dir/daemon.out" && continue
        cat "$log" "$dir/daemon.out" >&2
        return 1
    done
    return 1
}

daemon_find() {
    local -n masters=$4 ports=$5
    local d name
    for d in "$1/$2"-*/; do
        [[ -s "$d/$3" ]] || continue
        name=${d%/}
        name=${name##*/"$2"-}
        masters[$name]=$(cat "$d/$3")
        ports[$name]=$(cat "$d/port")
    done
}

daemon_stop_all() {
    local -n masters=$2
    local name pid
    for name in "${!masters[@]}"; do
        pid=${masters[$name]}
        kill "-$1" "$pid" 2> /dev/null || continue
        for _ in $(seq 100); do
            kill -0 "$pid" 2> /dev/null || break
            sleep 0.05
        done
        kill -KILL "$pid" 2> /dev/null || true
    done
    masters=()
}
