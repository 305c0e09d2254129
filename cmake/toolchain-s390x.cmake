# Cross build for s390x Linux with Debian's s390x-linux-gnu toolchain; tests run
# under qemu-s390x -cpu max. Prepare the target libraries once with
#   scripts/sysroot.sh s390x
# then
#   cmake -S . -B build/s390x -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-s390x.cmake
# Details in cmake/CrossDebian.cmake.
set(HWCIPHER_CROSS_ARCH s390x)
set(HWCIPHER_CROSS_TRIPLE s390x-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/CrossDebian.cmake)
