#!/usr/bin/env bash
# Configure and build one named build of hwcipher in build/<name>.
#
#   scripts/build.sh <native|sanitize|isa-emu|clang|tsan|aarch64|s390x|openssl-3.5|openssl-3.6|openssl-4.0>
#                    [--openssl <root>] [--target T] [extra cmake args...]
#
# --openssl <root>: build against the OpenSSL whose headers and libcrypto are
# under <root> (a `make install` prefix or an unpacked Debian root), nothing
# else; CMake checks that the headers' version is the library's
# (cmake/HwcipherOpenSSL.cmake). Without it: the system's OpenSSL.
# openssl-<release>: a native Release build (-Werror) against that release
# from Debian's newer suites, made by scripts/openssl_release.sh <release>
# --build build/openssl-<release> (the one place that fetches releases and
# configures builds against them; it unpacks the release into
# build/openssl-<release>-<arch>/; the tests run on that suite's loader).
# Cross builds prepare their sysroot first (scripts/sysroot.sh). Does not
# install packages: run scripts/deps.sh first (scripts/test.sh does).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
JOBS=${HWCIPHER_JOBS:-2}

name=${1:?usage: $0 <native|sanitize|isa-emu|clang|tsan|aarch64|s390x|openssl-<release>> [--openssl <root>] [--target T] [cmake args...]}
shift
target=()
root=""
while [[ "${1:-}" == --target || "${1:-}" == --openssl ]]; do
    case "$1" in
        --target) target=(--target "$2") ;;
        --openssl) root=$(cd "$2" && pwd) ;;
    esac
    shift 2
done

case "$name" in
    native)   args=(-DCMAKE_BUILD_TYPE=Release -DHWCIPHER_WERROR=ON) ;;
    sanitize) args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DHWCIPHER_SANITIZE=ON) ;;
    # Test-only: each VAES, VPCLMULQDQ and GFNI operation done with older
    # instructions (AES-NI, PCLMULQDQ, AVX2: cores/x86_64/aes_vaes.h,
    # aes_vaes512.cpp, ghash_vpclmul.h, sm4_gfni.h) and dropped from
    # the cores' needs, so their kernels run on CPUs without them. The
    # x86_64 cores only, at -O1 (CMakeLists.txt); the rest is compiled as
    # the native build is.
    isa-emu) args=(-DCMAKE_BUILD_TYPE=Release -DHWCIPHER_WERROR=ON -DHWCIPHER_ISA_EMULATE=ON) ;;
    # clang (Debian 12: 14) with -Werror, ASan + UBSan and libFuzzer
    # coverage: the unit suite, the fuzz targets (test/fuzz), the allocation
    # sweep and the huge-input test (test/reliability) all run from it; the
    # test seams let the huge-input test preset the GCM length count. No
    # benchmark programs: nothing runs them from this build.
    clang) args=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
                 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHWCIPHER_WERROR=ON
                 -DHWCIPHER_SANITIZE=ON -DHWCIPHER_FUZZ=ON -DHWCIPHER_TEST_SEAMS=ON
                 -DHWCIPHER_BUILD_BENCH=OFF) ;;
    # ThreadSanitizer: the module and test/reliability/threads. GCC: clang
    # 14's shared TSan runtime (which the module needs, see
    # cmake/HwcipherSetup.cmake) crashes at start-up on recent kernels.
    tsan) args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DHWCIPHER_WERROR=ON -DHWCIPHER_TSAN=ON) ;;
    aarch64|s390x)
        bash scripts/sysroot.sh "$name"
        args=(-DCMAKE_BUILD_TYPE=Release
              "-DCMAKE_TOOLCHAIN_FILE=$repo/cmake/toolchain-$name.cmake"
              "-DHWCIPHER_SYSROOT=${HWCIPHER_SYSROOT:-$repo/build/sysroot-$name}") ;;
    openssl-3.5|openssl-3.6|openssl-4.0)
        if [[ -z "$root" ]]; then
            exec bash scripts/openssl_release.sh "${name#openssl-}" --build "build/$name" \
                ${target[1]:+--target "${target[1]}"} "$@"
        fi
        args=(-DCMAKE_BUILD_TYPE=Release -DHWCIPHER_WERROR=ON) ;;
    *) echo "build.sh: unknown build '$name' (native, sanitize, isa-emu, clang, tsan, aarch64, s390x, openssl-3.5, openssl-3.6, openssl-4.0)" >&2; exit 2 ;;
esac
# Always given, so a build folder configured against a root never falls back
# to the system's OpenSSL from its cache (or the reverse).
args+=("-DHWCIPHER_OPENSSL_ROOT=$root")

cmake -S . -B "build/$name" "${args[@]}" "$@"
cmake --build "build/$name" -j"$JOBS" "${target[@]}"
