#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The package stage of scripts/test.sh: install and uninstall from a build
# folder, the Debian package, and the package at work in a scratch root.
# Nothing is installed into the real system: every install goes to a
# temporary --prefix or DESTDIR, the package is unpacked with dpkg -x.
#
#   1. cmake --install --prefix <tmp>: exactly the expected files, the module
#      and hwcipher-info stripped, the configs naming the module's path; an
#      OPENSSL_CONF on the installed whole config loads hwcipher; uninstall
#      leaves no file behind
#   2. the same with DESTDIR (configs name the final path, not DESTDIR's)
#   3. scripts/package.sh: hwcipher_<version>_<arch>.deb; its DESTDIR install
#      puts the module in libcrypto's MODULESDIR and needs no module line
#   4. the .deb: name, version, architecture, Depends, conffiles, file list
#   5. dpkg -x into a scratch root, with Debian's unmodified openssl.cnf:
#      the whole config (OPENSSL_CONF) and the drop-in included near the top
#      (where Debian's file suggests) and at the end; each time `openssl list
#      -providers` shows hwcipher active, `openssl req -addext
#      certificatePolicies=tsa_policy1` still finds the default config's
#      oid_section, the trace shows hwcipher serving, hwcipher-info exits 0;
#      with Debian 13's openssl.cnf (OpenSSL 3.5, which lists a
#      [provider_sect] of its own) too
# The last line is "package: <N> passed, <N> failed".
set -uo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
export HWCIPHER_JOBS=${HWCIPHER_JOBS:-2}
unset OPENSSL_CONF OPENSSL_MODULES HWCIPHER_CORES HWCIPHER_TRACE

passed=0 failed=0
ok() { echo "ok: $*"; passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; failed=$((failed + 1)); }
check() { # <label> <command...>: ok when the command succeeds
    local label=$1; shift
    if "$@"; then ok "$label"; else bad "$label"; fi
}
finish() { echo "package: $passed passed, $failed failed"; exit $(( failed > 0 )); }

t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
build=build/package
version=$(sed -nE 's/^project\(hwcipher VERSION ([0-9.]+).*/\1/p' CMakeLists.txt)
arch=$(dpkg --print-architecture)
moddir=$(openssl version -m | sed -nE 's/^MODULESDIR: "(.*)"$/\1/p')
real_before=$(ls -l "$moddir/hwcipher.so" /etc/ssl/hwcipher.cnf /etc/ssl/openssl-hwcipher.cnf 2>&1)
echo "== hwcipher $version, $arch; libcrypto's MODULESDIR $moddir"

# files under <dir>, relative, sorted
files_in() { (cd "$1" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort); }
stripped() { ! readelf -S --wide "$1" 2>/dev/null | grep -q '\.symtab'; }
# hwcipher listed and active in `openssl list -providers` under the current
# env ([openssl command], default openssl)
hw_active() {
    local out
    out=$(${1:-openssl} list -providers 2>&1) || { echo "$out"; return 1; }
    awk '/^  [a-z]/ { p = $1 } p == "hwcipher" && /status: active/ { found = 1 } END { exit !found }' <<< "$out" ||
        { echo "$out"; return 1; }
}

# ---- 1 + 2: install and uninstall from a build folder ----------------------
if ! cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHWCIPHER_WERROR=ON -DHWCIPHER_BUILD_TESTS=OFF \
        -DHWCIPHER_OPENSSL_ROOT= -DCMAKE_INSTALL_PREFIX=/usr/local -DHWCIPHER_INSTALL_TO_OPENSSL=OFF \
        -DHWCIPHER_CNF_DIR:STRING=share/hwcipher > "$t/configure.log" 2>&1 ||
   ! cmake --build "$build" -j"$HWCIPHER_JOBS" > "$t/build.log" 2>&1; then
    cat "$t/configure.log" "$t/build.log" | tail -30
    bad "configure and build $build"
    finish
fi
ok "configure and build $build"

expected_prefix="bin/hwcipher-info
lib/ossl-modules/hwcipher.so
share/doc/hwcipher/CHANGELOG.md
share/doc/hwcipher/LICENSE
share/doc/hwcipher/README.md
share/hwcipher/hwcipher.cnf
share/hwcipher/openssl-hwcipher.cnf"

p=$t/prefix
cmake --install "$build" --prefix "$p" > "$t/install.log" 2>&1 || { cat "$t/install.log"; bad "cmake --install --prefix"; }
got=$(files_in "$p")
if [[ "$got" == "$expected_prefix" ]]; then ok "--prefix: exactly the 7 expected files"
else bad "--prefix installed:"$'\n'"$got"$'\n'"expected:"$'\n'"$expected_prefix"; fi
check "--prefix: module stripped" stripped "$p/lib/ossl-modules/hwcipher.so"
check "--prefix: hwcipher-info stripped" stripped "$p/bin/hwcipher-info"
check "--prefix: the build folder's own module is left unstripped" \
    bash -c "readelf -S --wide '$build/hwcipher.so' | grep -q '\.symtab'"
check "--prefix: drop-in names the installed module" \
    grep -qx "module = $p/lib/ossl-modules/hwcipher.so" "$p/share/hwcipher/hwcipher.cnf"
check "--prefix: OPENSSL_CONF=<prefix>/share/hwcipher/openssl-hwcipher.cnf loads hwcipher (no OPENSSL_MODULES)" \
    env OPENSSL_CONF="$p/share/hwcipher/openssl-hwcipher.cnf" bash -c "$(declare -f hw_active); hw_active openssl"
OPENSSL_CONF="$p/share/hwcipher/openssl-hwcipher.cnf" "$p/bin/hwcipher-info" > "$t/info.out" 2>&1
rc_info=$?
if (( rc_info == 0 )) && grep -q '^OK:' "$t/info.out"; then ok "--prefix: installed hwcipher-info exits 0 (OK)"
else cat "$t/info.out"; bad "--prefix: installed hwcipher-info exit $rc_info"; fi
cmake --build "$build" --target uninstall > "$t/uninstall.log" 2>&1 || { cat "$t/uninstall.log"; bad "uninstall target failed"; }
left=$(files_in "$p")
if [[ -z "$left" ]]; then ok "--prefix: uninstall removed every file"; else bad "--prefix: left after uninstall: $left"; fi
check "--prefix: uninstall removed share/hwcipher and share/doc/hwcipher" \
    test ! -e "$p/share/hwcipher" -a ! -e "$p/share/doc/hwcipher"

d=$t/destdir
DESTDIR=$d cmake --install "$build" > "$t/install.log" 2>&1 || { cat "$t/install.log"; bad "DESTDIR install"; }
got=$(files_in "$d")
if [[ "$got" == "$(sed 's|^|usr/local/|' <<< "$expected_prefix")" ]]; then ok "DESTDIR: the 7 files under DESTDIR/usr/local"
else bad "DESTDIR installed:"$'\n'"$got"; fi
check "DESTDIR: config names the final path, not DESTDIR's" \
    grep -qx "module = /usr/local/lib/ossl-modules/hwcipher.so" "$d/usr/local/share/hwcipher/hwcipher.cnf"
DESTDIR=$d cmake --build "$build" --target uninstall > "$t/uninstall.log" 2>&1 || { cat "$t/uninstall.log"; bad "DESTDIR uninstall failed"; }
left=$(files_in "$d")
if [[ -z "$left" ]]; then ok "DESTDIR: uninstall removed every file"; else bad "DESTDIR: left after uninstall: $left"; fi

# ---- 3: the package configuration and the .deb -------------------------------
if ! deb=$(bash scripts/package.sh 2> "$t/package.log" | tail -1) || [[ ! -f "$deb" ]]; then
    tail -30 "$t/package.log"
    bad "scripts/package.sh"
    finish
fi
check "scripts/package.sh made hwcipher_${version}_${arch}.deb" test "$(basename "$deb")" = "hwcipher_${version}_${arch}.deb"
s=$t/sys
DESTDIR=$s cmake --install "$build" > "$t/install.log" 2>&1 || { cat "$t/install.log"; bad "package configuration: DESTDIR install"; }
check "HWCIPHER_INSTALL_TO_OPENSSL=ON: module in DESTDIR + libcrypto's MODULESDIR ($moddir)" test -f "$s$moddir/hwcipher.so"
check "module in MODULESDIR: the drop-in has no module line (found by name)" \
    bash -c "! grep -q '^module' '$s/etc/ssl/hwcipher.cnf'"
DESTDIR=$s cmake --build "$build" --target uninstall > "$t/uninstall.log" 2>&1
left=$(files_in "$s")
if [[ -z "$left" ]]; then ok "package configuration: uninstall removed every file"; else bad "left after uninstall: $left"; fi

# ---- 4: the .deb's metadata and contents -------------------------------------
check "deb: Package hwcipher" test "$(dpkg-deb -f "$deb" Package)" = hwcipher
check "deb: Version $version" test "$(dpkg-deb -f "$deb" Version)" = "$version"
check "deb: Architecture $arch" test "$(dpkg-deb -f "$deb" Architecture)" = "$arch"
depends=$(dpkg-deb -f "$deb" Depends)
echo "   Depends: $depends"
check "deb: Depends on libssl3 (dpkg-shlibdeps)" grep -qE '(^|, )libssl3' <<< "$depends"
mkdir -p "$t/control"
dpkg-deb -e "$deb" "$t/control"
check "deb: conffiles /etc/ssl/hwcipher.cnf and /etc/ssl/openssl-hwcipher.cnf" \
    test "$(sort "$t/control/conffiles" 2>/dev/null)" = "$(printf '%s\n' /etc/ssl/hwcipher.cnf /etc/ssl/openssl-hwcipher.cnf)"
deb_files=$(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { print $6 }' | sed 's|^\./||' | sort)
expected_deb=$(printf '%s\n' etc/ssl/hwcipher.cnf etc/ssl/openssl-hwcipher.cnf usr/bin/hwcipher-info \
    "${moddir#/}/hwcipher.so" usr/share/doc/hwcipher/CHANGELOG.md usr/share/doc/hwcipher/LICENSE \
    usr/share/doc/hwcipher/README.md | sort)
if [[ "$deb_files" == "$expected_deb" ]]; then ok "deb: exactly the 7 expected files (module in $moddir)"
else bad "deb files:"$'\n'"$deb_files"$'\n'"expected:"$'\n'"$expected_deb"; fi

# ---- 5: the package in a scratch root ----------------------------------------
r=$t/root
dpkg -x "$deb" "$r"
check "dpkg -x: stripped module" stripped "$r$moddir/hwcipher.so"
# The package's module stands where Debian's libcrypto looks, inside the root.
export OPENSSL_MODULES=$r$moddir
debian_cnf=/etc/ssl/openssl.cnf
md5_pkg=$(dpkg-query -W -f='${Conffiles}\n' openssl | awk -v f="$debian_cnf" '$1 == f { print $2 }')
check "the system's $debian_cnf is Debian's own, unmodified (md5 as in dpkg's record)" \
    test -n "$md5_pkg" -a "$(md5sum < "$debian_cnf" | cut -d' ' -f1)" = "$md5_pkg"

# with_config <label> <OPENSSL_CONF> [openssl command]: the checks of item 5
with_config() {
    local label=$1 cnf=$2 ossl=${3:-openssl} out
    export OPENSSL_CONF=$cnf
    check "$label: openssl list -providers shows hwcipher active" hw_active "$ossl"
    if out=$($ossl req -new -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$t/k.pem" \
                 -subj /CN=hwcipher-test -days 1 -addext certificatePolicies=tsa_policy1 -out "$t/c.pem" 2>&1) &&
       $ossl x509 -in "$t/c.pem" -noout -text | grep -q 'Policy: 1.2.3.4.1'; then
        ok "$label: openssl req -addext certificatePolicies=tsa_policy1 (the default config's oid_section)"
    else
        echo "$out"; bad "$label: openssl req with tsa_policy1"
    fi
    rm -f "$t/trace"
    head -c 1000 /dev/urandom > "$t/plain"
    local c
    for c in aes-128-cbc twofish-256-cbc; do
        if HWCIPHER_TRACE=$t/trace $ossl enc -$c -pbkdf2 -pass pass:x -in "$t/plain" -out "$t/ct" &&
           HWCIPHER_TRACE=$t/trace $ossl enc -d -$c -pbkdf2 -pass pass:x -in "$t/ct" -out "$t/back" &&
           cmp -s "$t/plain" "$t/back" && grep -qi "alg=$c .*op=encrypt" "$t/trace" &&
           grep -qi "alg=$c .*op=decrypt" "$t/trace"; then
            ok "$label: openssl enc -$c round trip, served by hwcipher (trace)"
        else
            bad "$label: $c round trip / trace: $(tr '\n' ';' < "$t/trace" 2>/dev/null)"
        fi
    done
    unset OPENSSL_CONF
}

with_config "whole config (OPENSSL_CONF=/etc/ssl/openssl-hwcipher.cnf)" "$r/etc/ssl/openssl-hwcipher.cnf"
if OPENSSL_CONF=$r/etc/ssl/openssl-hwcipher.cnf "$r/usr/bin/hwcipher-info" > "$t/info.out" 2>&1 &&
   grep -q '^OK:' "$t/info.out"; then ok "whole config: hwcipher-info from the package exits 0 (OK)"
else cat "$t/info.out"; bad "whole config: hwcipher-info"; fi

# The drop-in, one line added where Debian's file suggests (its
# "#.include filename" near the top) and at the end.
sed "s|^#\.include filename\$|.include $r/etc/ssl/hwcipher.cnf|" "$debian_cnf" > "$t/top.cnf"
check "top.cnf: the .include replaced Debian's '#.include filename' line" grep -q "^\.include $r/etc/ssl/hwcipher.cnf" "$t/top.cnf"
with_config "drop-in near the top" "$t/top.cnf"
{ cat "$debian_cnf"; echo ".include $r/etc/ssl/hwcipher.cnf"; } > "$t/end.cnf"
with_config "drop-in at the end" "$t/end.cnf"
if OPENSSL_CONF=$t/top.cnf "$r/usr/bin/hwcipher-info" > "$t/info.out" 2>&1 && grep -q '^OK:' "$t/info.out"; then
    ok "drop-in near the top: hwcipher-info exits 0 (OK)"
else cat "$t/info.out"; bad "drop-in near the top: hwcipher-info"; fi

# Debian 13's openssl.cnf ([openssl_init] providers = provider_sect) and
# OpenSSL 3.5: the module built on 3.0 loads there too (libcrypto.so.3).
if rel=$(bash scripts/openssl_release.sh 3.5 2> "$t/rel.log"); then
    sed "s|^#\.include filename\$|.include $r/etc/ssl/hwcipher.cnf|" "$rel/etc/ssl/openssl.cnf" > "$t/top35.cnf"
    check "Debian 13's openssl.cnf lists a providers section of its own" grep -q '^providers = provider_sect' "$t/top35.cnf"
    with_config "Debian 13 openssl.cnf + drop-in, OpenSSL 3.5" "$t/top35.cnf" "$rel/bin/openssl"
else
    tail -3 "$t/rel.log"
    bad "OpenSSL 3.5 (scripts/openssl_release.sh) for Debian 13's openssl.cnf"
fi
unset OPENSSL_MODULES

# ---- never the real system ----------------------------------------------------
check "the real $moddir/hwcipher.so and /etc/ssl/*hwcipher.cnf are as before (untouched)" \
    test "$(ls -l "$moddir/hwcipher.so" /etc/ssl/hwcipher.cnf /etc/ssl/openssl-hwcipher.cnf 2>&1)" = "$real_before"
check "the package is not installed in the real system" bash -c "! dpkg -s hwcipher > /dev/null 2>&1"
finish
