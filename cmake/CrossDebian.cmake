# Shared part of the Debian cross toolchain files (toolchain-<arch>.cmake).
# Expects HWCIPHER_CROSS_ARCH (CMAKE_SYSTEM_PROCESSOR) and
# HWCIPHER_CROSS_TRIPLE (Debian multiarch triple) to be set.
#
#   compilers : <triple>-gcc / <triple>-g++           (g++-<triple> packages)
#   C runtime : /usr/<triple>                          (libc6-dev-<arch>-cross ...)
#   OpenSSL, libgcrypt : an unpacked sysroot, made by scripts/sysroot.sh,
#               at -DHWCIPHER_SYSROOT=..., $HWCIPHER_SYSROOT or
#               <repo>/build/sysroot-<arch>
#   running   : qemu-<arch> -cpu max, with the C runtime from QEMU_LD_PREFIX
#               and the sysroot libraries from LD_LIBRARY_PATH
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR ${HWCIPHER_CROSS_ARCH})
set(CMAKE_LIBRARY_ARCHITECTURE ${HWCIPHER_CROSS_TRIPLE})

set(CMAKE_C_COMPILER   ${HWCIPHER_CROSS_TRIPLE}-gcc)
set(CMAKE_CXX_COMPILER ${HWCIPHER_CROSS_TRIPLE}-g++)

# The sysroot (cache var > environment > default). The toolchain file is also
# read for try_compile projects, where the cache is not ours: keep the value
# in the environment so those see the same one.
if(NOT HWCIPHER_SYSROOT)
  if(DEFINED ENV{HWCIPHER_SYSROOT} AND NOT "$ENV{HWCIPHER_SYSROOT}" STREQUAL "")
    set(HWCIPHER_SYSROOT "$ENV{HWCIPHER_SYSROOT}")
  else()
    get_filename_component(HWCIPHER_SYSROOT
        "${CMAKE_CURRENT_LIST_DIR}/../build/sysroot-${HWCIPHER_CROSS_ARCH}" ABSOLUTE)
  endif()
endif()
set(HWCIPHER_SYSROOT "${HWCIPHER_SYSROOT}" CACHE PATH "Unpacked target packages (scripts/sysroot.sh)")
set(ENV{HWCIPHER_SYSROOT} "${HWCIPHER_SYSROOT}")
if(NOT EXISTS "${HWCIPHER_SYSROOT}/usr/include/openssl/opensslv.h")
  message(FATAL_ERROR "No OpenSSL in sysroot ${HWCIPHER_SYSROOT}: run scripts/sysroot.sh ${HWCIPHER_CROSS_ARCH}")
endif()
set(HWCIPHER_TARGET_TRIPLE ${HWCIPHER_CROSS_TRIPLE})
set(HWCIPHER_TARGET_LIBDIR "${HWCIPHER_SYSROOT}/usr/lib/${HWCIPHER_CROSS_TRIPLE}")

# Search target headers/libraries/packages only in the runtime dir and the
# sysroot; programs (pkg-config, openssl) on the host.
set(CMAKE_FIND_ROOT_PATH "${HWCIPHER_SYSROOT}" "/usr/${HWCIPHER_CROSS_TRIPLE}")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# pkg-config answers about the target (modulesdir for install).
set(ENV{PKG_CONFIG_LIBDIR} "${HWCIPHER_TARGET_LIBDIR}/pkgconfig:${HWCIPHER_SYSROOT}/usr/share/pkgconfig")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
set(ENV{PKG_CONFIG_PATH} "")

# libgcrypt.so needs libgpg-error.so.0: let the linker find such indirect
# dependencies in the sysroot.
foreach(kind EXE SHARED MODULE)
  set(CMAKE_${kind}_LINKER_FLAGS_INIT "-Wl,-rpath-link,${HWCIPHER_TARGET_LIBDIR}")
endforeach()

# Running target programs (ctest, gtest discovery, custom commands):
#   env QEMU_LD_PREFIX=/usr/<triple> LD_LIBRARY_PATH=<sysroot libs> HWCIPHER_EMULATED=1 \
#       cmake/qemu-run.sh <arch> <program>     (qemu-<arch> -cpu max, or
#                                               $HWCIPHER_QEMU_CPU when set)
# The host ld.so skips the foreign-architecture libraries in LD_LIBRARY_PATH,
# so the same environment is safe for host tools (bash, cmp) in tests.
set(HWCIPHER_QEMU ${CMAKE_CURRENT_LIST_DIR}/qemu-run.sh ${HWCIPHER_CROSS_ARCH})
set(HWCIPHER_RUN_ENV
    "QEMU_LD_PREFIX=/usr/${HWCIPHER_CROSS_TRIPLE}"
    "LD_LIBRARY_PATH=${HWCIPHER_TARGET_LIBDIR}"
    "HWCIPHER_EMULATED=1")   # tests shorten very long loops under emulation
set(CMAKE_CROSSCOMPILING_EMULATOR env ${HWCIPHER_RUN_ENV} ${HWCIPHER_QEMU})
