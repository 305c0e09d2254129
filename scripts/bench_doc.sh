# SPDX-License-Identifier: Apache-2.0
# Sourced by the benchmark scripts (bench_x86.sh, bench_aarch64.sh,
# bench_s390x.sh): each writes its whole result to its own file under
# docs/benchmarks/, with a header naming the machine, the date, the commit and
# the exact command that made it, so that running the command again replaces
# the file. HWCIPHER_BENCH_DOC=<path> writes elsewhere (empty: no file).
#
#   bench_doc_start <script name> <env var>...     at the start, before the build:
#                       records the commit and the command (the script's name
#                       with the named environment variables that are set)
#   bench_doc_write <default path> <title> <machine> < body
#                       writes header + body to $HWCIPHER_BENCH_DOC or the
#                       default path (relative to the repository)

# "<short commit>", "+dirty" when tracked files differ from it (the files the
# benchmarks write themselves do not count).
bench_doc_commit() {
    local rev
    rev=$(git -C "$repo" rev-parse --short HEAD 2> /dev/null) || { echo "unknown (not a git checkout)"; return; }
    if [[ -n "$(git -C "$repo" status --porcelain --untracked-files=no -- . \
                 ':!docs/benchmarks' ':!bench/results' 2> /dev/null)" ]]; then
        rev+="+dirty"
    fi
    echo "$rev"
}

bench_doc_start() { # <script name> <env var>...
    local script=$1 var
    shift
    bench_doc_rev=$(bench_doc_commit)
    bench_doc_command=""
    for var in "$@"; do
        [[ -n "${!var+set}" ]] && bench_doc_command+="$var=$(printf '%q' "${!var}") "
    done
    bench_doc_command+="bash scripts/$script"
}

bench_doc_write() { # <default path> <title> <machine>; body on stdin
    local path=${HWCIPHER_BENCH_DOC-$1} title=$2 machine=$3
    if [[ -z "$path" ]]; then cat > /dev/null; return 0; fi
    [[ "$path" == /* ]] || path=$repo/$path
    mkdir -p "$(dirname "$path")"
    {
        echo "# $title"
        echo
        echo "Written by the command below; run it again to replace this file."
        echo
        echo "- Command: \`$bench_doc_command\`"
        echo "- Machine: $machine"
        echo "- Date: $(date -u '+%Y-%m-%d %H:%M UTC')"
        echo "- Commit: $bench_doc_rev"
        echo
        cat
    } > "$path.tmp"
    mv "$path.tmp" "$path"
    echo "${BASH_SOURCE[1]##*/}: written to ${path#"$repo"/}" >&2
}

# The host's CPU model, as /proc/cpuinfo names it.
bench_doc_host_cpu() {
    local cpu
    cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
    echo "${cpu:-$(uname -m)}, $(nproc) logical CPUs"
}
