#!/usr/bin/env bash
# Build a foreign-architecture "sysroot" holding OpenSSL 3 and libgcrypt for
# cross builds, by unpacking Debian packages (no multiarch install, so version
# skew between the architectures' archives cannot break anything).
#
#   scripts/sysroot.sh <arm64|aarch64|s390x> [SYSROOT_DIR]
#
# SYSROOT_DIR defaults to $HWCIPHER_SYSROOT or <repo>/build/sysroot-<arch>
# (<arch> = aarch64 or s390x, i.e. CMAKE_SYSTEM_PROCESSOR). The .debs are kept
# in <repo>/build/debs-<arch>. Idempotent: when the archive still serves the
# versions recorded in the sysroot's stamp file, nothing is done.
#
# The C/C++ runtime (libc, libstdc++) is NOT in this sysroot: it comes from the
# Debian cross toolchain in /usr/<triple> (QEMU_LD_PREFIX at run time).
set -euo pipefail

case "${1:-}" in
    arm64|aarch64) deb_arch=arm64; arch=aarch64; triple=aarch64-linux-gnu ;;
    s390x)         deb_arch=s390x; arch=s390x;   triple=s390x-linux-gnu ;;
    *) echo "usage: $0 <arm64|s390x> [SYSROOT_DIR]" >&2; exit 2 ;;
esac

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
sysroot=${2:-${HWCIPHER_SYSROOT:-$repo/build/sysroot-$arch}}
cache=$repo/build/debs-$arch
packages=(openssl libssl3 libssl-dev libgcrypt20 libgcrypt20-dev libgpg-error0 libgpg-error-dev)

SUDO=()
(( EUID == 0 )) || SUDO=(sudo)
export DEBIAN_FRONTEND=noninteractive
apt_get() { "${SUDO[@]}" apt-get -q -o DPkg::Lock::Timeout=600 "$@"; }

if ! dpkg --print-foreign-architectures | grep -qx "$deb_arch"; then
    "${SUDO[@]}" dpkg --add-architecture "$deb_arch"
fi

# Candidate version of every package for the foreign architecture; refresh the
# lists when they do not know the architecture yet.
candidates() {
    local specs=() p
    for p in "${packages[@]}"; do specs+=("$p:$deb_arch"); done
    # One apt-cache call (each call costs seconds): "<pkg>:<arch>:" headers
    # followed by "Candidate: <version>".
    apt-cache policy "${specs[@]}" 2>/dev/null | awk -v n="${#packages[@]}" '
        /^[^ ]/            { pkg = $1; sub(/:$/, "", pkg) }
        /^  Candidate:/    { if ($2 == "(none)") exit 1; print pkg "=" $2; got++ }
        END                { exit (got == n ? 0 : 1) }'
}
if ! want=$(candidates); then
    apt_get update
    want=$(candidates) || { echo "sysroot: $deb_arch packages not available" >&2; exit 1; }
fi

stamp=$sysroot/.hwcipher-sysroot
if [[ -f "$stamp" ]] && [[ "$(cat "$stamp")" == "$want" ]]; then
    echo "sysroot: $sysroot up to date"
    exit 0
fi

echo "sysroot: unpacking into $sysroot:"
echo "$want" | sed 's/^/  /'
mkdir -p "$cache"
chmod 0777 "$cache" 2>/dev/null || true   # apt's _apt sandbox user writes here
(
    cd "$cache"
    # shellcheck disable=SC2046
    apt_get download $(echo "$want")
) || {
    apt_get update
    want=$(candidates)
    (cd "$cache" && apt_get download $(echo "$want"))
}

rm -rf "$sysroot"
mkdir -p "$sysroot"
while IFS= read -r spec; do
    name=${spec%%:*}
    ver=${spec#*=}
    ver=${ver//:/%3a}              # apt escapes an epoch's ':' in file names
    deb=$cache/${name}_${ver}_${deb_arch}.deb
    [[ -f "$deb" ]] || { echo "sysroot: missing $deb" >&2; exit 1; }
    dpkg -x "$deb" "$sysroot"
done <<< "$want"

# Absolute symlinks (e.g. usr/lib/<triple>/libgpg-error.so -> /lib/<triple>/...)
# would point into the host: make them relative within the sysroot.
while IFS= read -r -d '' link; do
    target=$(readlink "$link")
    [[ "$target" == /* ]] || continue
    ln -sfn "$(realpath -m --relative-to="$(dirname "$link")" "$sysroot$target")" "$link"
done < <(find "$sysroot" -type l -print0)

# Everything in one library folder as well, so one LD_LIBRARY_PATH entry and
# one -rpath-link suffice (Debian 12 still ships some libs in /lib/<triple>).
if [[ -d "$sysroot/lib/$triple" ]]; then
    for f in "$sysroot/lib/$triple"/*; do
        [[ -e "$sysroot/usr/lib/$triple/$(basename "$f")" ]] ||
            ln -s "../../../lib/$triple/$(basename "$f")" "$sysroot/usr/lib/$triple/"
    done
fi

echo "$want" > "$stamp"
echo "sysroot: done ($sysroot)"
