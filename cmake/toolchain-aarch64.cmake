# Cross build for aarch64 Linux with Debian's aarch64-linux-gnu toolchain; tests run
# under qemu-aarch64 -cpu max. Prepare the target libraries once with
#   scripts/sysroot.sh aarch64
# then
#   cmake -S . -B build/aarch64 -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64.cmake
# Details in cmake/CrossDebian.cmake.
set(HWCIPHER_CROSS_ARCH aarch64)
set(HWCIPHER_CROSS_TRIPLE aarch64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/CrossDebian.cmake)
