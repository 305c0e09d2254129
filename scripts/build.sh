#!/usr/bin/env bash
# Configure and build one named build of hwcipher in build/<name>.
#
#   scripts/build.sh <native|sanitize|isa-emu|clang|tsan|aarch64|s390x> [--target T] [extra cmake args...]
#
# Cross builds prepare their sysroot first (scripts/sysroot.sh). Does not
# install packages: run scripts/deps.sh first (scripts/test.sh does).
set -euo pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$repo"
JOBS=${HWCIPHER_JOBS:-2}

name=${1:?usage: $0 <native|sanitize|isa-emu|clang|tsan|aarch64|s390x> [--target T] [cmake args...]}
shift
target=()
if [[ "${1:-}" == "--target" ]]; then
    target=(--target "$2")
    shift 2
fi

case "$name" in
    native)   args=(-DCMAKE_BUILD_TYPE=Release -DHWCIPHER_WERROR=ON) ;;
    sanitize) args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DHWCIPHER_SANITIZE=ON) ;;
    # Test-only: each VAES, VPCLMULQDQ and GFNI operation done with older
    # instructions (AES-NI, PCLMULQDQ, AVX2: cores/x86_64/aes_vaes.h,
    # aes_vaes512.cpp, ghash_vpclmul.h, sm4_gfni.h) and dropped from
    # the cores' needs, so their kernels run on CPUs without them.
    isa-emu) args=(-DCMAKE_BUILD_TYPE=Release -DHWCIPHER_WERROR=ON
                   "-DCMAKE_CXX_FLAGS=-DHWCIPHER_VAES_EMULATE -DHWCIPHER_VPCLMUL_EMULATE -DHWCIPHER_GFNI_EMULATE") ;;
    # clang (Debian 12: 14) with -Werror, ASan + UBSan and libFuzzer
    # coverage: the unit suite, the fuzz targets (test/fuzz), the allocation
    # sweep and the huge-input test (test/reliability) all run from it; the
    # test seams let the huge-input test preset the GCM length count.
    clang) args=(-DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++
                 -DCMAKE_BUILD_TYPE=RelWithDebInfo -DHWCIPHER_WERROR=ON
                 -DHWCIPHER_SANITIZE=ON -DHWCIPHER_FUZZ=ON -DHWCIPHER_TEST_SEAMS=ON) ;;
    # ThreadSanitizer: the module and test/reliability/threads. GCC: clang
    # 14's shared TSan runtime (which the module needs, see
    # cmake/HwcipherSetup.cmake) crashes at start-up on recent kernels.
    tsan) args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DHWCIPHER_WERROR=ON -DHWCIPHER_TSAN=ON) ;;
    aarch64|s390x)
        bash scripts/sysroot.sh "$name"
        args=(-DCMAKE_BUILD_TYPE=Release
              "-DCMAKE_TOOLCHAIN_FILE=$repo/cmake/toolchain-$name.cmake"
              "-DHWCIPHER_SYSROOT=${HWCIPHER_SYSROOT:-$repo/build/sysroot-$name}") ;;
    *) echo "build.sh: unknown build '$name' (native, sanitize, isa-emu, clang, tsan, aarch64, s390x)" >&2; exit 2 ;;
esac

cmake -S . -B "build/$name" "${args[@]}" "$@"
cmake --build "build/$name" -j"$JOBS" "${target[@]}"
