#!/usr/bin/env bash
# Install everything hwcipher needs to build and test (Debian 12, run as root).
# Idempotent: does nothing when every package is already installed, and runs
# `apt-get update` only when a package cannot be found in the current lists.
#
#   scripts/deps.sh                  # everything: + cross compilers, QEMU
#   scripts/deps.sh --native-tests   # native test stages (native, clang, tsan,
#                                    # sanitize, matrix, package): + nginx, curl,
#                                    # OpenSSH's sshd and ssh, strace,
#                                    # dpkg-dev (dpkg-shlibdeps for the package),
#                                    # ccache (test.sh's builds share objects),
#                                    # clang and its sanitizer runtimes
#   scripts/deps.sh --apps           # scripts/bench_apps.sh: the main job's, +
#                                    # nginx, curl, OpenSSH's sshd and ssh,
#                                    # h2load (nghttp2-client)
#   scripts/deps.sh --native         # only what the main job (scripts/main.sh)
#                                    # needs: compiler, CMake, OpenSSL headers and
#                                    # CLI, and for its build folder and benchmark
#                                    # GoogleTest, libgcrypt and gnuplot
set -euo pipefail

level=all
case "${1:-}" in
    --native) level=main ;;
    --native-tests) level=tests ;;
    --apps) level=apps ;;
    "") ;;
    *) echo "deps.sh: unknown option '$1' (--native, --native-tests, --apps)" >&2; exit 2 ;;
esac

pkgs=(
    cmake make g++ pkg-config
    libssl-dev openssl
    libgtest-dev googletest   # build/native is configured with the tests
    libgcrypt20-dev           # bench_x86's third column (and the tests' oracle)
    gnuplot-nox               # scripts/bench_x86.sh's ratio chart
)
if [[ $level == apps ]]; then
    pkgs+=(nginx curl openssh-server openssh-client
           nghttp2-client)     # h2load: bench_apps.sh's small-response row
elif [[ $level != main ]]; then
    pkgs+=(nginx curl          # test/cli/tls_nginx_curl.native.sh
           openssh-server openssh-client  # test/cli/ssh_openssh.native.sh
           strace              # test/cli/trace_sandbox.native.sh
           dpkg-dev            # dpkg-shlibdeps: the package's Depends
           ccache              # scripts/test.sh: builds of one stage reuse another's objects
           clang libclang-rt-dev llvm)  # clang and tsan stages: compiler, sanitizer/libFuzzer runtimes, llvm-symbolizer
fi
if [[ $level == all ]]; then
    pkgs+=(qemu-user g++-aarch64-linux-gnu g++-s390x-linux-gnu)
fi

missing=()
for p in "${pkgs[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$p")
    fi
done
if (( ${#missing[@]} == 0 )); then
    echo "deps: all ${#pkgs[@]} packages present"
    exit 0
fi

echo "deps: installing ${missing[*]}"
SUDO=()
(( EUID == 0 )) || SUDO=(sudo)
export DEBIAN_FRONTEND=noninteractive

# Another apt/dpkg may hold the lock for a while (unattended jobs, other
# sessions): apt-get waits for it by itself with DPkg::Lock::Timeout.
apt_get() {
    "${SUDO[@]}" apt-get -y -q -o DPkg::Lock::Timeout=600 "$@"
}

need_update=0
for p in "${missing[@]}"; do
    if ! apt-cache show --no-all-versions "$p" >/dev/null 2>&1; then
        need_update=1
        break
    fi
done
(( need_update )) && apt_get update
if ! apt_get install --no-install-recommends "${missing[@]}"; then
    # Stale lists (404 on a superseded version): refresh once and retry.
    apt_get update
    apt_get install --no-install-recommends "${missing[@]}"
fi
