#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# The one place that gets a newer OpenSSL release and builds hwcipher against
# it: the benchmarks' peers and the version matrix's libraries. The release
# is unpacked from Debian's newer suites into the build folder without
# touching the system (no install, no change to the system's apt state);
# every build against it is configured here, the same way (the caller's
# CMake arguments plus -DHWCIPHER_OPENSSL_ROOT=<root>: cmake/HwcipherOpenSSL.cmake
# then takes that root's headers and libraries only, and links and runs
# programs on its loader).
#
#   scripts/openssl_release.sh <rel> [arch]
#       fetch only; prints the root (below). rel: 3.5, 3.6 or 4.0; arch:
#       amd64, arm64 or s390x (default: the host's)
#   scripts/openssl_release.sh <rel> --build <dir> [--target T]... [cmake args...]
#       fetch, then configure and build <dir>: a native Release build with
#       -Werror (tests included) against the release. scripts/build.sh
#       openssl-<rel> is this with <dir> = build/openssl-<rel>; the version
#       matrix (scripts/test.sh matrix) runs its tests.
#   scripts/openssl_release.sh <rel> [arch] --module <base dir> [--target T]...
#       fetch, then print the build directory whose hwcipher.so (and the
#       programs T, e.g. bench_x86_peer or bench_evp) load into / link that
#       release. <base dir> is a configured build against the system's (or the
#       cross sysroot's) OpenSSL 3.x. A release whose libcrypto is
#       libcrypto.so.3 (3.5, 3.6) takes the base build as it is (the provider
#       ABI and libcrypto's OPENSSL_3.0.0 symbols are stable across 3.x; a
#       target missing there is built); another soname (4.0's
#       libcrypto.so.4) gets <base dir>-openssl-<rel>, configured like the
#       base (build type, toolchain, sysroot, -Werror, test seams, flags; no
#       tests) against the release, with hwcipher and the targets built.
#       Progress on stderr, the directory on stdout. Programs built against
#       4.0 need its loader (OSSL_RUN in the root's env.sh).
#
# Release -> suite: 3.5 = trixie (Debian 13, stable; or trixie-security from
# the system's debian-security source where the mirror lacks it), 3.6 = forky
# (testing), 4.0 = experimental (with forky's C library). Packages: openssl, its libssl (libssl3t64 or libssl4),
# libssl-dev (headers, libcrypto.so), openssl-provider-legacy, and the
# suite's libc6, libzstd1, zlib1g: the suite's own C library, since its
# libcrypto needs a newer glibc than Debian 12's.
#
# Result of the fetch: build/openssl-<release>-<arch>/ (the "root"), holding
# the unpacked packages and
#   env.sh           sourced by callers: OSSL_ROOT, OSSL_VERSION (e.g. 3.5.9),
#                    OSSL_ARCH, OSSL_TRIPLE, OSSL_LIBDIR (its libcrypto),
#                    OSSL_INCLUDE (its headers), OSSL_MODULESDIR (its default
#                    provider modules), and OSSL_RUN: the command prefix that
#                    runs a program of that architecture on that suite's
#                    loader and libraries (a bash array: "${OSSL_RUN[@]}" prog);
#                    the host's /usr/lib/<triple> comes last on its library
#                    path, for libstdc++ and the like
#   bin/openssl      that release's openssl command, ready to run
# Idempotent: a root whose stamp names the versions the archive serves now is
# kept. The package lists are private (build/apt-newer/<arch>/), read from
# the same mirror as the system's Debian entries.
set -euo pipefail

all_args=("$@")
usage="usage: $0 <3.5|3.6|4.0> [amd64|arm64|s390x] [--build <dir> | --module <base dir>] [--target T]... [cmake args...]"
release=${1:?$usage}
shift
arch=$(dpkg --print-architecture)
if [[ $# -gt 0 && "$1" != --* ]]; then arch=$1; shift; fi
mode=fetch dir="" targets=()
while [[ $# -gt 0 ]]; do
    case "$1" in
        --build|--module) mode=${1#--} dir=${2:?$usage}; shift 2 ;;
        --target) targets+=("${2:?$usage}"); shift 2 ;;
        *) break ;;
    esac
done
cmake_args=("$@")   # --build only
if [[ "$mode" == fetch && $# -gt 0 ]] || [[ "$mode" == module && $# -gt 0 ]]; then
    echo "$usage" >&2; exit 2
fi
if [[ "$mode" == build && "$arch" != "$(dpkg --print-architecture)" ]]; then
    echo "openssl_release.sh: --build makes a native build; for $arch use --module with a cross build" >&2
    exit 2
fi
JOBS=${HWCIPHER_JOBS:-2}
# base: the suite the C library and compression libraries come from
# (experimental carries only what differs from unstable/testing).
case "$release" in
    3.5) suite=trixie;       base=trixie; libssl=libssl3t64 ;;
    3.6) suite=forky;        base=forky;  libssl=libssl3t64 ;;
    4.0) suite=experimental; base=forky;  libssl=libssl4 ;;
    *) echo "openssl_release.sh: unknown release '$release' (3.5, 3.6, 4.0)" >&2; exit 2 ;;
esac
case "$arch" in
    amd64) triple=x86_64-linux-gnu;  loader=ld-linux-x86-64.so.2; qemu="" ;;
    arm64) triple=aarch64-linux-gnu; loader=ld-linux-aarch64.so.1; qemu=qemu-aarch64 ;;
    s390x) triple=s390x-linux-gnu;   loader=ld64.so.1;             qemu=qemu-s390x ;;
    *) echo "openssl_release.sh: unknown architecture '$arch' (amd64, arm64, s390x)" >&2; exit 2 ;;
esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
root=$repo/build/openssl-$release-$arch
# Package lists per architecture: a run for one architecture fetches and
# parses only its own (amd64: ~32 MB, under a minute), and never discards
# another's.
aptdir=$repo/build/apt-newer/$arch
# The OpenSSL packages come from the release's suite, or, where the mirror
# does not serve that suite's build for this architecture (seen: trixie's
# s390x openssl), from its security suite (same release, security updates).
set_packages() { # <suite of the OpenSSL packages>
    packages=("openssl/$1" "$libssl/$1" "libssl-dev/$1" "openssl-provider-legacy/$1"
              "libc6/$base" "libzstd1/$base" "zlib1g/$base")
}
if [[ "${HWCIPHER_OSSL_SECURITY_SUITE:-0}" == 1 ]]; then set_packages "$suite-security"; else set_packages "$suite"; fi

# ---- private apt state: the newer suites on the system's own mirror ---------
mirror=$(sed -nE 's#^URIs:[[:space:]]*(https?://[^[:space:]]+/debian)/?$#\1#p' \
             /etc/apt/sources.list.d/*.sources 2> /dev/null | head -1)
[[ -n "$mirror" ]] || mirror=$(sed -nE 's#^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?(https?://[^[:space:]]+/debian)/?[[:space:]].*#\2#p' \
             /etc/apt/sources.list 2> /dev/null | head -1)
mirror=${mirror:-http://deb.debian.org/debian}
security=$(sed -nE 's#^URIs:[[:space:]]*(https?://[^[:space:]]+/debian-security)/?$#\1#p' \
             /etc/apt/sources.list.d/*.sources 2> /dev/null | head -1)
[[ -n "$security" ]] || security=$(sed -nE 's#^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?(https?://[^[:space:]]+/debian-security)/?[[:space:]].*#\2#p' \
             /etc/apt/sources.list 2> /dev/null | head -1)
security=${security:-http://deb.debian.org/debian-security}
mkdir -p "$aptdir/lists/partial" "$aptdir/cache/archives/partial" "$aptdir/debs"
chmod 0777 "$aptdir/debs" 2> /dev/null || true   # apt's _apt sandbox user writes here
keyring=/usr/share/keyrings/debian-archive-keyring.gpg
{
    for s in trixie forky sid experimental; do
        echo "deb [arch=$arch signed-by=$keyring] $mirror $s main"
    done
    echo "deb [arch=$arch signed-by=$keyring] $security trixie-security main"
} > "$aptdir/sources.list"
apt_opts=(-o "Dir::Etc::sourcelist=$aptdir/sources.list" -o "Dir::Etc::sourceparts=-"
          -o "Dir::State::Lists=$aptdir/lists" -o "Dir::Cache=$aptdir/cache"
          -o "Dir::State::status=$aptdir/status" -o "Debug::NoLocking=1"
          -o "APT::Architectures::=$arch" -q)
touch "$aptdir/status"

# "<package>:<arch>=<version>" for each package from its suite, or failure
# (one apt-cache call: each costs seconds).
versions() {
    local specs=() p
    for p in "${packages[@]}"; do specs+=("${p%/*}:$arch/${p#*/}"); done
    apt-cache "${apt_opts[@]}" show "${specs[@]}" 2> /dev/null | awk -v arch="$arch" -v n="${#packages[@]}" '
        /^Package: / { pkg = $2 }
        /^Version: / { if (!(pkg in seen)) { seen[pkg] = 1; print pkg ":" arch "=" $2; got++ } }
        END          { exit (got == n ? 0 : 1) }'
}
# Lists older than a day are refreshed (the suites move; old versions vanish).
# (A list set without the security suite counts as old.)
lists_fresh() {
    [[ -n "$(find "$aptdir/lists" -maxdepth 1 -name '*_InRelease' -mmin -1440 2> /dev/null)" &&
       -n "$(find "$aptdir/lists" -maxdepth 1 -name '*debian-security*_InRelease' 2> /dev/null)" ]]
}
stamp=$root/.hwcipher-openssl-release
# A root unpacked after the lists were last read needs no new look at them:
# they would name what its stamp records (a second or more per apt-cache call,
# and callers ask for the same release several times).
if [[ -f "$stamp" && -x "$root/bin/openssl" ]] && lists_fresh &&
   [[ -z "$(find "$aptdir/lists" -maxdepth 1 -type f -newer "$stamp" 2> /dev/null)" ]]; then
    want=$(cat "$stamp")
elif ! lists_fresh || ! want=$(versions); then
    apt-get "${apt_opts[@]}" update >&2
    want=$(versions) || { echo "openssl_release.sh: Debian has no ${packages[*]} for $arch" >&2; exit 1; }
fi

# ---- download and unpack, unless the root holds what the archive serves ----
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" || ! -x "$root/bin/openssl" ]]; then
echo "openssl_release.sh: OpenSSL $release ($suite, $arch) into $root:" >&2
sed 's/^/  /' <<< "$want" >&2
# Download. A C or compression library the mirror lacks (seen: trixie's
# s390x zlib1g) is taken from the next suite that has one (compatible
# upwards; the stamp records what was used); a missing OpenSSL package of
# trixie (seen: s390x, listed but 404) sends the whole release to
# trixie-security once, otherwise it is an error: callers say which release
# they could not get.
# All in one apt-get call first (each call costs seconds); one by one only
# when that fails.
got=()
mapfile -t specs <<< "$want"
if (cd "$aptdir/debs" && apt-get "${apt_opts[@]}" download "${specs[@]}" >&2); then
    got=("${specs[@]}") want=""
fi
while IFS= read -r spec; do
    [[ -n "$spec" ]] || continue
    if (cd "$aptdir/debs" && apt-get "${apt_opts[@]}" download "$spec" >&2); then
        got+=("$spec")
        continue
    fi
    name=${spec%%:*} alt=""
    case "$name" in
        openssl|libssl*)
            echo "openssl_release.sh: the mirror does not serve $spec" >&2
            if [[ "${HWCIPHER_OSSL_SECURITY_SUITE:-0}" != 1 && "$suite" == trixie ]]; then
                echo "openssl_release.sh: trying $suite-security" >&2
                exec env HWCIPHER_OSSL_SECURITY_SUITE=1 bash "${BASH_SOURCE[0]}" "${all_args[@]}"
            fi
            exit 1 ;;
    esac
    for s in trixie forky sid; do
        v=$(apt-cache "${apt_opts[@]}" show "$name:$arch/$s" 2> /dev/null | sed -n 's/^Version: //p' | head -1)
        [[ -n "$v" && "$name:$arch=$v" != "$spec" ]] || continue
        if (cd "$aptdir/debs" && apt-get "${apt_opts[@]}" download "$name:$arch=$v" >&2); then
            alt="$name:$arch=$v"
            break
        fi
    done
    [[ -n "$alt" ]] || { echo "openssl_release.sh: cannot download $spec" >&2; exit 1; }
    got+=("$alt")
done <<< "$want"
want=$(printf '%s\n' "${got[@]}")
rm -rf "$root"
mkdir -p "$root/bin"
while IFS= read -r spec; do
    name=${spec%%:*}
    ver=${spec#*=}
    dpkg -x "$aptdir/debs/${name}_${ver//:/%3a}_$arch.deb" "$root"
done <<< "$want"
# Merged-/usr packages put the loader in usr/lib; programs name /lib/<loader>.
[[ -e "$root/lib" ]] || ln -s usr/lib "$root/lib"
[[ -e "$root/lib64" ]] || ln -s usr/lib64 "$root/lib64" 2> /dev/null || true
# Absolute links inside the root would point into the host.
while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    [[ "$target" == /* ]] || continue
    ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$root$target")" "$link"
done < <(find "$root" -type l -print0)

version=$(sed -nE 's/^#[[:space:]]*define[[:space:]]+OPENSSL_VERSION_STR[[:space:]]+"([^"]+)".*/\1/p' \
              "$root/usr/include/openssl/opensslv.h")
libdir=$root/usr/lib/$triple
modulesdir=$(find "$libdir" -maxdepth 2 -type d -name 'ossl-modules' | head -1)
loader_path=$(find "$root/usr/lib" "$root/usr/lib64" -maxdepth 2 -name "$loader" 2> /dev/null | head -1 || true)
[[ -n "$loader_path" && -n "$version" ]] ||
    { echo "openssl_release.sh: unpacked $root lacks its loader or opensslv.h" >&2; exit 1; }

if [[ -z "$qemu" ]]; then
    run="OSSL_RUN=(\"$loader_path\" --library-path \"$libdir:/usr/lib/$triple:/lib/$triple\")"
else
    # QEMU: the root is the guest's /, the host's cross runtime (libstdc++)
    # comes after the suite's libraries.
    run="OSSL_RUN=(env \"QEMU_LD_PREFIX=$root\" \"LD_LIBRARY_PATH=$libdir:/usr/$triple/lib\" $qemu)"
fi
cat > "$root/env.sh" <<EOF
# Generated by scripts/openssl_release.sh: OpenSSL $version from Debian $suite ($arch).
OSSL_ROOT="$root"
OSSL_RELEASE="$release"
OSSL_VERSION="$version"
OSSL_ARCH="$arch"
OSSL_TRIPLE="$triple"
OSSL_LIBDIR="$libdir"
OSSL_INCLUDE="$root/usr/include"
OSSL_MODULESDIR="$modulesdir"
$run
EOF
cat > "$root/bin/openssl" <<EOF
#!/usr/bin/env bash
# OpenSSL $version ($suite, $arch), run on its own loader and libraries.
source "$root/env.sh"
exec "\${OSSL_RUN[@]}" "$root/usr/bin/openssl" "\$@"
EOF
chmod +x "$root/bin/openssl"
"$root/bin/openssl" version > /dev/null ||
    { echo "openssl_release.sh: $root/bin/openssl does not run" >&2; exit 1; }
echo "$want" > "$stamp"
fi   # fetched

if [[ "$mode" == fetch ]]; then
    echo "$root"
    exit 0
fi

# ---- builds against the release -----------------------------------------------
# Every build against a release is configured here: the given arguments plus
# the root, nothing else.
build_against() { # <build dir> [cmake args...]; targets: "${targets[@]}"
    local out=$1
    shift
    local tgt=()
    (( ${#targets[@]} )) && tgt=(--target "${targets[@]}")
    cmake -S "$repo" -B "$out" "$@" "-DHWCIPHER_OPENSSL_ROOT=$root" >&2
    cmake --build "$out" -j"$JOBS" "${tgt[@]}" >&2
}

if [[ "$mode" == build ]]; then
    [[ "$dir" == /* ]] || dir=$PWD/$dir
    build_against "$dir" -DCMAKE_BUILD_TYPE=Release -DHWCIPHER_WERROR=ON "${cmake_args[@]}"
    exit 0
fi

# --module: the base build's own module, or one built against the release.
[[ "$dir" == /* ]] || dir=$PWD/$dir
dir=${dir%/}
cache=$dir/CMakeCache.txt
[[ -f "$cache" ]] ||
    { echo "openssl_release.sh: $dir is not a configured build (e.g. scripts/build.sh native)" >&2; exit 1; }
source "$root/env.sh"
soname=$(readlink "$OSSL_LIBDIR/libcrypto.so" || true)
soname=${soname##*/}
targets=(hwcipher "${targets[@]}")
output_of() { # <target>: the file it makes
    if [[ "$1" == hwcipher ]]; then echo "$2/hwcipher.so"; else echo "$2/bench/$1"; fi
}
if [[ "$soname" == libcrypto.so.3 ]]; then
    # Only what is missing is built: the base may be a build of another
    # version on purpose (e.g. bench_x86_speed.sh's HWCIPHER_SPEED_BUILD).
    missing=()
    for t in "${targets[@]}"; do
        [[ -e "$(output_of "$t" "$dir")" ]] || missing+=("$t")
    done
    if (( ${#missing[@]} )); then
        echo "openssl_release.sh: building ${missing[*]} in ${dir#"$repo"/}" >&2
        cmake --build "$dir" -j"$JOBS" --target "${missing[@]}" >&2
    fi
    echo "$dir"
    exit 0
fi
own=$dir-openssl-$release
echo "openssl_release.sh: hwcipher for OpenSSL $OSSL_VERSION ($soname, $arch) in ${own#"$repo"/}" >&2
like=(-DHWCIPHER_BUILD_TESTS=OFF)
for key in CMAKE_BUILD_TYPE CMAKE_TOOLCHAIN_FILE HWCIPHER_SYSROOT HWCIPHER_WERROR \
           HWCIPHER_TEST_SEAMS CMAKE_C_COMPILER CMAKE_CXX_COMPILER CMAKE_CXX_FLAGS; do
    value=$(sed -n "s/^$key:[A-Z]*=//p" "$cache" | head -1)
    [[ -n "$value" ]] && like+=("-D$key=$value")
done
build_against "$own" "${like[@]}"
echo "$own"
