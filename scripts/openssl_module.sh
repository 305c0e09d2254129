#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# A hwcipher.so (and, on x86_64, bench_x86_peer) that loads into OpenSSL <release>, as
# unpacked by scripts/openssl_release.sh; prints the build directory holding
# them on stdout (progress on stderr).
#
#   scripts/openssl_module.sh <3.5|3.6|4.0> [native build dir]
#
# A release whose libcrypto is libcrypto.so.3 (3.x) takes the module of the
# native build as it is (the provider ABI and libcrypto's OPENSSL_3.0.0
# symbols are stable across 3.x): prints that build directory (default
# build/native, which must hold hwcipher.so; bench_x86_peer is built there
# if missing). Another soname (4.0's libcrypto.so.4) gets a build of its
# own, build/native-openssl-<release>, configured against that release's
# headers and library (Release, no tests; only hwcipher and bench_x86_peer
# are built). Its programs need that release's loader (OSSL_RUN in the
# release's env.sh): its libcrypto needs a newer C library than the host's.
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
release=${1:?usage: $0 <3.5|3.6|4.0> [native build dir]}
native=${2:-$repo/build/native}

root=$(bash scripts/openssl_release.sh "$release")
# shellcheck source=/dev/null
source "$root/env.sh"
soname=$(readlink "$OSSL_LIBDIR/libcrypto.so" || true)
soname=${soname##*/}

if [[ "$soname" == libcrypto.so.3 ]]; then
    [[ -f "$native/hwcipher.so" ]] ||
        { echo "openssl_module.sh: $native has no hwcipher.so (scripts/build.sh native)" >&2; exit 1; }
    if [[ "$(uname -m)" == x86_64 && ! -x "$native/bench/bench_x86_peer" ]]; then
        cmake --build "$native" -j"${HWCIPHER_JOBS:-2}" --target bench_x86_peer >&2
    fi
    echo "$native"
    exit 0
fi

build=$repo/build/native-openssl-$release
echo "openssl_module.sh: hwcipher for OpenSSL $OSSL_VERSION ($soname) in ${build#"$repo"/}" >&2
# Its libcrypto's own references into the newer C library cannot be resolved
# against the host's when linking an executable: allowed, the loader that
# runs it (OSSL_RUN) has that C library.
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DHWCIPHER_BUILD_TESTS=OFF \
    "-DOPENSSL_ROOT_DIR=$OSSL_ROOT/usr" "-DOPENSSL_INCLUDE_DIR=$OSSL_INCLUDE" \
    "-DOPENSSL_CRYPTO_LIBRARY=$OSSL_LIBDIR/libcrypto.so" "-DOPENSSL_SSL_LIBRARY=$OSSL_LIBDIR/libssl.so" \
    "-DCMAKE_EXE_LINKER_FLAGS=-Wl,--allow-shlib-undefined" > /dev/null
targets=(hwcipher)
[[ "$(uname -m)" == x86_64 ]] && targets+=(bench_x86_peer)
cmake --build "$build" -j"${HWCIPHER_JOBS:-2}" --target "${targets[@]}" >&2
echo "$build"
