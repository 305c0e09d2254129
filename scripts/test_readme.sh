#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The documentation's examples cannot rot: every command line of the ```sh
# blocks of README.md, then of docs/architecture.md and docs/testing.md, is
# run, in the order the files give them, in a copy of the source tree
# (tracked and new files, no build/; the docs' commands run after README's,
# so they can use its build), and must exit 0; configuration blocks are
# checked where they stand:
#   ```ini with [hwcipher_sect]      loads hwcipher (openssl list -providers)
#   ```ini holding one .include line that line, put into Debian's unmodified
#                                    openssl.cnf, loads hwcipher and keeps
#                                    oid_section working (openssl req tsa_policy1)
#   ```nginx                         each line is in test/cli/tls_nginx_curl.native.sh
# A few commands are run by other jobs instead (CI's .ci/run, the main job,
# scripts/test_package.sh) or are benchmarks: listed as "elsewhere" with
# where, and checked to be there where that can be checked.
#
# Installs stay off the system: the commands run in a private mount
# namespace (unshare -m) where /usr/local and libcrypto's MODULESDIR are
# scratch folders (MODULESDIR starts as a copy of the real one). Without
# mount namespaces the commands run with DESTDIR set and /usr/local in them
# replaced by the scratch folder (said in the output).
# The last line is "readme: <N> passed, <N> failed".
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
unset OPENSSL_CONF OPENSSL_MODULES HWCIPHER_CORES HWCIPHER_TRACE DESTDIR
# A benchmark the README lists is run here to show that the command works,
# not for its figures: bench_x86_speed.sh's shortest run (one 1-second run per
# provider and row; with its build about 2 minutes of CI time instead of 5.5).
export HWCIPHER_SPEED_RUNS=1 HWCIPHER_SPEED_SECONDS=1

# ---- the copy of the tree ---------------------------------------------------
copy=$t/hwcipher
mkdir -p "$copy"
if git rev-parse --git-dir > /dev/null 2>&1; then
    git ls-files -z -co --exclude-standard | xargs -0 cp --parents -t "$copy"
else
    tar --exclude=./build -cf - . | tar -xf - -C "$copy"
fi

# scripts/test.sh's compiler cache (if any) serves the copy's builds too: its
# paths are made relative to the copy, so they match the repository's.
[[ -z "${CCACHE_DIR:-}" ]] || export CCACHE_BASEDIR=$copy

# ---- steps, in document order: "cmd<TAB>command", "<kind><TAB>file" or
# "file<TAB>document" where each document starts ---------------------------------
docs=(README.md)
for f in docs/architecture.md docs/testing.md; do [[ -f $f ]] && docs+=("$f"); done
awk -v dir="$t" '
    FNR == 1 { inblock = 0; printf "file\t%s\n", FILENAME }
    /^```/ && !inblock {
        inblock = 1; lang = substr($0, 4); n++; file = dir "/block." n; cont = ""
        if (lang != "sh") kind[n] = lang
        next
    }
    /^```$/ && inblock {
        inblock = 0
        if (lang != "sh" && lang != "") { close(file); printf "%s\t%s\n", lang, file }
        next
    }
    inblock && lang == "sh" {
        line = $0
        if (line ~ /\\$/) { cont = cont substr(line, 1, length(line) - 1); next }
        line = cont line; cont = ""
        sub(/[ \t]+#[ \t].*$/, "", line)          # trailing comment
        sub(/^[ \t]+/, "", line); sub(/[ \t]+$/, "", line)
        if (line != "" && line !~ /^#/) printf "cmd\t%s\n", line
        next
    }
    inblock { print > file }
' "${docs[@]}" > "$t/steps"

# Commands that other jobs run (or that are benchmarks): command -> where.
elsewhere_of() {
    case "$1" in
        "bash scripts/test.sh") echo "CI: .ci/run runs it"
            grep -qx 'bash scripts/test.sh' .ci/run ;;
        "bash scripts/main.sh") echo "the main job (scripts/main.sh itself)" ;;
        "bash scripts/package.sh") echo "scripts/test_package.sh runs this command"
            grep -q 'bash scripts/package.sh' scripts/test_package.sh ;;
        "bash scripts/bench_aarch64.sh"|"bash scripts/bench_s390x.sh"|"bash scripts/bench_x86.sh"|"bash scripts/bench_apps.sh")
            echo "a benchmark, run on demand (not by CI)" ;;
        *) return 2 ;;
    esac
}

moddir=$(openssl version -m | sed -nE 's/^MODULESDIR: "(.*)"$/\1/p')
debian_cnf=/etc/ssl/openssl.cnf
mkdir -p "$t/usr-local" "$t/modulesdir"
cp -a "$moddir/." "$t/modulesdir/" 2> /dev/null || true

# ---- the runner (inside the namespace) ----------------------------------------
cat > "$t/run.sh" <<'RUNNER'
set -uo pipefail
t=$1 copy=$2 moddir=$3 debian_cnf=$4 mode=$5
passed=0 failed=0 elsewhere=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
hw_active() { # list -providers output on stdin
    awk '/^  [a-z]/ { p = $1 } p == "hwcipher" && /status: active/ { f = 1 } END { exit !f }'
}
if [[ $mode == namespace ]]; then
    mount --make-rprivate / && mount --bind "$t/usr-local" /usr/local &&
        mount --bind "$t/modulesdir" "$moddir" || { echo "FAIL: scratch mounts"; exit 1; }
    prefix=/usr/local
else
    export DESTDIR=$t/destdir
    prefix=$DESTDIR/usr/local
    export PATH=$prefix/bin:$PATH
    echo "note: no mount namespace here: installs go to DESTDIR=$DESTDIR, /usr/local in the commands reads $prefix"
fi
cd "$copy"
n=0
while IFS=$'\t' read -r kind what; do
    n=$((n + 1))
    case "$kind" in
    cmd)
        cmd=$what
        if where=$(bash "$t/elsewhere.sh" "$cmd"); then
            echo "elsewhere: $cmd  -- $where"; elsewhere=$((elsewhere + 1)); continue
        elif [[ $? == 1 ]]; then
            bad "$cmd: said to run elsewhere ($where), but it is not there"; continue
        fi
        [[ $mode == namespace ]] || cmd=${cmd//\/usr\/local/$prefix}
        start=$SECONDS
        if timeout 1800 bash -c "$cmd" > "$t/out.$n" 2>&1; then
            ok "$what  ($((SECONDS - start)) s)"
        else
            tail -20 "$t/out.$n"; bad "$what  (exit status $?)"
        fi ;;
    ini)
        if grep -q '^\[hwcipher_sect\]' "$what"; then
            if OPENSSL_CONF=$what OPENSSL_MODULES=$copy/build/release openssl list -providers | hw_active; then
                ok "ini block (the configuration sections): loads hwcipher"
            else bad "ini block (the configuration sections) does not load hwcipher"; fi
        elif [[ $(grep -c . "$what") == 1 ]] && grep -q '^\.include ' "$what"; then
            inc=$(cat "$what")
            [[ $mode == namespace ]] || inc=${inc//\/usr\/local/$prefix}
            sed "s|^#\.include filename\$|$inc|" "$debian_cnf" > "$t/inc.cnf"
            if OPENSSL_CONF=$t/inc.cnf openssl list -providers | hw_active &&
               OPENSSL_CONF=$t/inc.cnf openssl req -new -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 \
                   -nodes -keyout /dev/null -subj /CN=readme -days 1 -addext certificatePolicies=tsa_policy1 \
                   -out /dev/null 2> "$t/req.err"; then
                ok "ini block '$(cat "$what")' in Debian's openssl.cnf: loads hwcipher, oid_section still works"
            else cat "$t/req.err" 2> /dev/null; bad "ini block '$(cat "$what")' in Debian's openssl.cnf"; fi
        else
            echo "not run: ini block starting '$(head -1 "$what")' (a service unit's setting)"
        fi ;;
    nginx)
        missing=$(grep -v '^[[:space:]]*$' "$what" | sed 's/[[:space:]]*#.*$//' |
                  while read -r l; do grep -qF "$l" "$copy/test/cli/tls_nginx_curl.native.sh" || echo "$l"; done)
        if [[ -z "$missing" ]]; then ok "nginx block: every line is in tls_nginx_curl.native.sh's nginx.conf"
        else bad "nginx block lines not in tls_nginx_curl.native.sh: $missing"; fi ;;
    file) echo "== $what" ;;
    *) echo "not run: $kind block" ;;
    esac
done < "$t/steps"
echo "readme: $passed passed, $failed failed ($elsewhere commands run elsewhere)"
(( failed == 0 ))
RUNNER
{ echo '#!/usr/bin/env bash'; declare -f elsewhere_of; echo 'cd "'"$repo"'"; elsewhere_of "$1"'; } > "$t/elsewhere.sh"

mode=destdir
unshare -m true 2> /dev/null && mode=namespace
if [[ $mode == namespace ]]; then
    unshare -m --propagation private bash "$t/run.sh" "$t" "$copy" "$moddir" "$debian_cnf" namespace
else
    bash "$t/run.sh" "$t" "$copy" "$moddir" "$debian_cnf" destdir
fi
