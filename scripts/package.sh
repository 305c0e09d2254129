#!/usr/bin/env bash
# Builds the Debian package build/package/hwcipher_<version>_<arch>.deb and
# prints its path.
#
#   scripts/package.sh [--openssl <root>]
#
# Contents: hwcipher.so in libcrypto's MODULESDIR (/usr/lib/<multiarch>/
# ossl-modules, where Debian's OpenSSL looks for providers), /usr/bin/
# hwcipher-info, /etc/ssl/hwcipher.cnf (an openssl.cnf drop-in: one
# `.include` line anywhere in openssl.cnf) and /etc/ssl/openssl-hwcipher.cnf
# (the system's openssl.cnf plus hwcipher, for OPENSSL_CONF), both conffiles,
# and README.md, LICENSE, CHANGELOG.md in /usr/share/doc/hwcipher. Depends
# from dpkg-shlibdeps. Installing it loads nothing by itself: the drop-in or
# OPENSSL_CONF does (README "Install the Debian package").
# Needs dpkg-dev (scripts/deps.sh --native-tests).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
root=""
[[ "${1:-}" == --openssl ]] && root=$(cd "$2" && pwd)

build=build/package
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHWCIPHER_WERROR=ON -DHWCIPHER_BUILD_TESTS=OFF \
      -DCMAKE_INSTALL_PREFIX=/usr -DHWCIPHER_INSTALL_TO_OPENSSL=ON -DHWCIPHER_CNF_DIR:STRING=/etc/ssl \
      "-DHWCIPHER_OPENSSL_ROOT=$root" >&2
cmake --build "$build" -j"${HWCIPHER_JOBS:-2}" >&2
rm -f "$build"/hwcipher_*.deb
(cd "$build" && cpack -G DEB >&2)
ls "$repo/$build"/hwcipher_*.deb
