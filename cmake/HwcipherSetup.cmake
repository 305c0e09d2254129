# Compiler flags, sanitizers and third-party dependencies for hwcipher.
include_guard(GLOBAL)
include(GNUInstallDirs)

# ---- warnings (only on our own targets, through hwcipher_build_flags) ------
add_library(hwcipher_build_flags INTERFACE)
target_compile_options(hwcipher_build_flags INTERFACE -Wall -Wextra)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_GREATER_EQUAL 12
   AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  # GCC 12 false positive in libstdc++'s std::string (`"lit" + std::string`
  # at -O2/-O3), https://gcc.gnu.org/bugzilla/show_bug.cgi?id=105651
  target_compile_options(hwcipher_build_flags INTERFACE -Wno-restrict)
endif()
if(HWCIPHER_WERROR)
  target_compile_options(hwcipher_build_flags INTERFACE -Werror)
endif()

# ---- sanitizers: everything (our code, tests, googletest built from source) -
# HWCIPHER_SANITIZE: ASan + UBSan; HWCIPHER_TSAN: ThreadSanitizer (exclusive).
# The module is a shared object linked with -z defs, so it needs the shared
# sanitizer runtime: GCC's default; clang links its runtimes statically into
# executables unless told -shared-libsan, so clang builds use the shared one
# everywhere (found through an rpath: it is not on the loader's path).
if(HWCIPHER_SANITIZE AND HWCIPHER_TSAN)
  message(FATAL_ERROR "HWCIPHER_SANITIZE and HWCIPHER_TSAN exclude each other")
endif()
set(_hwc_san "")
if(HWCIPHER_SANITIZE)
  set(_hwc_san -fsanitize=address,undefined -fno-sanitize-recover=all)
  set(_hwc_san_rt asan)
elseif(HWCIPHER_TSAN)
  set(_hwc_san -fsanitize=thread)
  set(_hwc_san_rt tsan)
endif()
if(_hwc_san)
  list(APPEND _hwc_san -fno-omit-frame-pointer)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    list(APPEND _hwc_san -shared-libsan)
    set(_hwc_rt_name libclang_rt.${_hwc_san_rt}-${CMAKE_SYSTEM_PROCESSOR}.so)
  else()
    set(_hwc_rt_name lib${_hwc_san_rt}.so)
  endif()
  add_compile_options(${_hwc_san})
  add_link_options(${_hwc_san})
  # Runtime to LD_PRELOAD when an uninstrumented program (the openssl CLI)
  # loads the instrumented module.
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=${_hwc_rt_name}
                  OUTPUT_VARIABLE HWCIPHER_SAN_RUNTIME OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    get_filename_component(_hwc_rt_dir "${HWCIPHER_SAN_RUNTIME}" DIRECTORY)
    add_link_options("LINKER:-rpath,${_hwc_rt_dir}")
  endif()
  message(STATUS "hwcipher: sanitizers ${_hwc_san} (runtime ${HWCIPHER_SAN_RUNTIME})")
endif()

# ---- libFuzzer (test/fuzz): coverage on everything, clang + ASan/UBSan only ---
if(HWCIPHER_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR NOT HWCIPHER_SANITIZE)
    message(FATAL_ERROR "HWCIPHER_FUZZ needs clang and HWCIPHER_SANITIZE=ON")
  endif()
  # The module's coverage callbacks resolve to the shared ASan runtime's weak
  # defaults at link time (-z defs) and to libFuzzer's in a fuzz target.
  add_compile_options(-fsanitize=fuzzer-no-link)
endif()

# ---- OpenSSL >= 3.0: which one, checked (HwcipherOpenSSL.cmake) -------------
include(${CMAKE_CURRENT_LIST_DIR}/HwcipherOpenSSL.cmake)

# modulesdir of the target's libcrypto (install destination of hwcipher.so).
find_package(PkgConfig QUIET)
set(HWCIPHER_DEFAULT_MODULESDIR "")
if(PKG_CONFIG_FOUND)
  pkg_get_variable(HWCIPHER_DEFAULT_MODULESDIR libcrypto modulesdir)
endif()
if(NOT HWCIPHER_DEFAULT_MODULESDIR AND NOT CMAKE_CROSSCOMPILING AND NOT HWCIPHER_OPENSSL_ROOT)
  find_program(HWCIPHER_OPENSSL_EXE openssl)
  if(HWCIPHER_OPENSSL_EXE)
    execute_process(COMMAND ${HWCIPHER_OPENSSL_EXE} version -m
                    OUTPUT_VARIABLE _hwc_m OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(_hwc_m MATCHES "MODULESDIR: \"([^\"]*)\"")
      set(HWCIPHER_DEFAULT_MODULESDIR "${CMAKE_MATCH_1}")
    endif()
  endif()
endif()
if(NOT HWCIPHER_DEFAULT_MODULESDIR)
  set(HWCIPHER_DEFAULT_MODULESDIR "${CMAKE_INSTALL_LIBDIR}/ossl-modules")
endif()

# ---- test-only dependencies -----------------------------------------------
if(HWCIPHER_BUILD_TESTS)
  # libgcrypt: the independent oracle.
  find_path(GCRYPT_INCLUDE_DIR gcrypt.h)
  find_path(GPGERROR_INCLUDE_DIR gpg-error.h)
  find_library(GCRYPT_LIBRARY gcrypt)
  find_library(GPGERROR_LIBRARY gpg-error)
  if(NOT GCRYPT_INCLUDE_DIR OR NOT GCRYPT_LIBRARY OR NOT GPGERROR_INCLUDE_DIR OR NOT GPGERROR_LIBRARY)
    message(FATAL_ERROR "libgcrypt not found (apt-get install libgcrypt20-dev, or scripts/sysroot.sh for cross builds)")
  endif()
  add_library(hwcipher::gcrypt INTERFACE IMPORTED)
  set_target_properties(hwcipher::gcrypt PROPERTIES
      INTERFACE_INCLUDE_DIRECTORIES "${GCRYPT_INCLUDE_DIR};${GPGERROR_INCLUDE_DIR}"
      INTERFACE_LINK_LIBRARIES "${GCRYPT_LIBRARY};${GPGERROR_LIBRARY}")
  message(STATUS "hwcipher: libgcrypt ${GCRYPT_LIBRARY}")

  # GoogleTest: the system package natively; built from /usr/src/googletest
  # (Debian package googletest) when cross-compiling or when asked to.
  set(HWCIPHER_GTEST_SOURCE_DIR /usr/src/googletest CACHE PATH "GoogleTest sources for cross builds")
  option(HWCIPHER_GTEST_FROM_SOURCE "Build GoogleTest from HWCIPHER_GTEST_SOURCE_DIR" ${CMAKE_CROSSCOMPILING})
  if(NOT HWCIPHER_GTEST_FROM_SOURCE)
    find_package(GTest QUIET)
    if(NOT GTest_FOUND)
      set(HWCIPHER_GTEST_FROM_SOURCE ON)
    endif()
  endif()
  if(HWCIPHER_GTEST_FROM_SOURCE)
    if(NOT EXISTS ${HWCIPHER_GTEST_SOURCE_DIR}/CMakeLists.txt)
      message(FATAL_ERROR "GoogleTest sources not found in ${HWCIPHER_GTEST_SOURCE_DIR} (apt-get install googletest)")
    endif()
    set(BUILD_GMOCK OFF CACHE BOOL "" FORCE)
    set(INSTALL_GTEST OFF CACHE BOOL "" FORCE)
    add_subdirectory(${HWCIPHER_GTEST_SOURCE_DIR} ${PROJECT_BINARY_DIR}/_googletest EXCLUDE_FROM_ALL)
    # Third-party code: its warnings (GCC 12 -Wrestrict false positives in
    # gtest at -O3) are not ours to fix.
    target_compile_options(gtest PRIVATE -w)
    target_compile_options(gtest_main PRIVATE -w)
    if(NOT TARGET GTest::gtest_main)
      add_library(GTest::gtest_main ALIAS gtest_main)
      add_library(GTest::gtest ALIAS gtest)
    endif()
    message(STATUS "hwcipher: GoogleTest built from ${HWCIPHER_GTEST_SOURCE_DIR}")
  endif()
endif()
