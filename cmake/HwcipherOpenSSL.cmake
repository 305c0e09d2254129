# The OpenSSL that hwcipher is built against, checked, and how programs that
# link it are run.
#
#   (default)                      the system's OpenSSL (or the cross sysroot's)
#   -DHWCIPHER_OPENSSL_ROOT=<dir>  one OpenSSL release's headers and libcrypto,
#                                  and nothing else: a `make install` prefix
#                                  (include/, lib64/ or lib/) or an unpacked
#                                  Debian root (usr/include, usr/lib/<triple>;
#                                  scripts/openssl_release.sh makes those)
#
# Either way the version in the headers (OPENSSL_VERSION_STR) must be the
# version of the libcrypto that is linked, or configuration stops: 4.0
# headers with a 3.x library (or the reverse) would build a module that pulls
# a second libcrypto into every process. The tests check the same at run
# time, in the process that loads the module (ApiCatalogue.*OpenSSL*,
# cli.openssl_version).
#
# Sets:
#   HWCIPHER_OPENSSL_VERSION   the headers' version, e.g. 3.5.9
#   HWCIPHER_OPENSSL_RUN       command prefix (a list) that runs a program
#                              linked with that libcrypto; empty for the
#                              system's. Used as CMAKE_CROSSCOMPILING_EMULATOR
#                              (ctest, test discovery) when building against a
#                              root.
#   HWCIPHER_OPENSSL_EXE       that release's `openssl` command, when it has one
include_guard(GLOBAL)

set(HWCIPHER_OPENSSL_ROOT "" CACHE PATH
    "Build against the OpenSSL whose headers and libcrypto are under this directory only")
set(HWCIPHER_OPENSSL_RUN "")
# A build folder re-configured with another root (or none) forgets what
# FindOpenSSL cached for the previous one.
if(NOT "${HWCIPHER_OPENSSL_ROOT}" STREQUAL "${_HWCIPHER_OPENSSL_ROOT_SEEN}")
  foreach(v OPENSSL_INCLUDE_DIR OPENSSL_CRYPTO_LIBRARY OPENSSL_SSL_LIBRARY HWCIPHER_OPENSSL_EXE
            _hwc_ossl_inc _hwc_ossl_crypto _hwc_ossl_ssl)
    unset(${v} CACHE)
  endforeach()
  set(_HWCIPHER_OPENSSL_ROOT_SEEN "${HWCIPHER_OPENSSL_ROOT}" CACHE INTERNAL "")
endif()

if(HWCIPHER_OPENSSL_ROOT)
  get_filename_component(_hwc_root "${HWCIPHER_OPENSSL_ROOT}" ABSOLUTE)
  set(_hwc_triple "${CMAKE_LIBRARY_ARCHITECTURE}")
  find_path(_hwc_ossl_inc openssl/opensslv.h
            PATHS "${_hwc_root}/include" "${_hwc_root}/usr/include"
            NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
  set(_hwc_libdirs "")
  foreach(d lib64 lib "lib/${_hwc_triple}" "usr/lib/${_hwc_triple}" usr/lib64 usr/lib)
    if(IS_DIRECTORY "${_hwc_root}/${d}")
      list(APPEND _hwc_libdirs "${_hwc_root}/${d}")
    endif()
  endforeach()
  find_library(_hwc_ossl_crypto NAMES crypto PATHS ${_hwc_libdirs}
               NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
  find_library(_hwc_ossl_ssl NAMES ssl PATHS ${_hwc_libdirs}
               NO_DEFAULT_PATH NO_CMAKE_FIND_ROOT_PATH)
  if(NOT _hwc_ossl_inc OR NOT _hwc_ossl_crypto OR NOT _hwc_ossl_ssl)
    message(FATAL_ERROR "HWCIPHER_OPENSSL_ROOT=${_hwc_root}: no openssl/opensslv.h under "
            "include/ or usr/include/, or no libcrypto/libssl under ${_hwc_libdirs}")
  endif()
  # FindOpenSSL takes these as given, so nothing outside the root is used.
  set(OPENSSL_ROOT_DIR "${_hwc_root}")
  set(OPENSSL_INCLUDE_DIR "${_hwc_ossl_inc}" CACHE PATH "" FORCE)
  set(OPENSSL_CRYPTO_LIBRARY "${_hwc_ossl_crypto}" CACHE FILEPATH "" FORCE)
  set(OPENSSL_SSL_LIBRARY "${_hwc_ossl_ssl}" CACHE FILEPATH "" FORCE)
  get_filename_component(_hwc_ossl_libdir "${_hwc_ossl_crypto}" DIRECTORY)
  foreach(b "${_hwc_root}/usr/bin/openssl" "${_hwc_root}/bin/openssl")
    if(EXISTS "${b}" AND NOT IS_DIRECTORY "${b}")
      set(HWCIPHER_OPENSSL_EXE "${b}")
      break()
    endif()
  endforeach()
  # A root that carries its own C library (a newer Debian suite's) runs its
  # programs on its own loader; the host's library folders come after its
  # own, for libstdc++, libgcrypt and GoogleTest. A plain prefix built on
  # this system needs only its library folder first.
  file(GLOB _hwc_loader "${_hwc_ossl_libdir}/ld-linux*.so.*" "${_hwc_ossl_libdir}/ld64.so.*")
  if(_hwc_loader)
    # Linking: libcrypto's own references into that newer C library are
    # resolved at run time by its loader, not against the host's (or the
    # cross toolchain's) libc; its other libraries are in the root.
    foreach(kind EXE SHARED MODULE)
      string(APPEND CMAKE_${kind}_LINKER_FLAGS
             " -Wl,--allow-shlib-undefined -Wl,-rpath-link,${_hwc_ossl_libdir}")
    endforeach()
  endif()
  if(_hwc_loader AND NOT CMAKE_CROSSCOMPILING)
    list(GET _hwc_loader 0 _hwc_loader)
    set(HWCIPHER_OPENSSL_RUN "${_hwc_loader}" --library-path
        "${_hwc_ossl_libdir}:/usr/lib/${_hwc_triple}:/lib/${_hwc_triple}")
  elseif(NOT CMAKE_CROSSCOMPILING)
    set(HWCIPHER_OPENSSL_RUN env "LD_LIBRARY_PATH=${_hwc_ossl_libdir}")
  endif()
  if(HWCIPHER_OPENSSL_RUN AND NOT CMAKE_CROSSCOMPILING_EMULATOR)
    set(CMAKE_CROSSCOMPILING_EMULATOR ${HWCIPHER_OPENSSL_RUN})
  endif()
  # pkg-config answers about the root's libcrypto (its modulesdir).
  set(ENV{PKG_CONFIG_LIBDIR} "${_hwc_ossl_libdir}/pkgconfig")
endif()

find_package(OpenSSL 3.0 REQUIRED)
# Debian keeps opensslconf.h/configuration.h in include/<multiarch>/openssl.
# Natively that folder is on the compiler's default path; against an unpacked
# sysroot or root it is not, so add it when it exists (ahead of the system's).
if(CMAKE_LIBRARY_ARCHITECTURE AND EXISTS "${OPENSSL_INCLUDE_DIR}/${CMAKE_LIBRARY_ARCHITECTURE}/openssl/configuration.h")
  set_property(TARGET OpenSSL::Crypto APPEND PROPERTY INTERFACE_INCLUDE_DIRECTORIES
               "${OPENSSL_INCLUDE_DIR}/${CMAKE_LIBRARY_ARCHITECTURE}")
elseif(HWCIPHER_OPENSSL_ROOT AND NOT EXISTS "${OPENSSL_INCLUDE_DIR}/openssl/configuration.h")
  message(FATAL_ERROR "HWCIPHER_OPENSSL_ROOT: no openssl/configuration.h next to "
          "${OPENSSL_INCLUDE_DIR}/openssl (the system's would be used instead)")
endif()

# ---- headers and library must be one release ------------------------------
file(STRINGS "${OPENSSL_INCLUDE_DIR}/openssl/opensslv.h" _hwc_v
     REGEX "^#[ \t]*define[ \t]+OPENSSL_VERSION_STR[ \t]+\"")
string(REGEX REPLACE ".*\"([^\"]+)\".*" "\\1" HWCIPHER_OPENSSL_VERSION "${_hwc_v}")
# libcrypto carries its version text ("OpenSSL 3.5.9 29 Sep 2026") for
# OpenSSL_version(): read it from the file that is linked.
file(STRINGS "${OPENSSL_CRYPTO_LIBRARY}" _hwc_libv LIMIT_COUNT 1
     REGEX "^OpenSSL [0-9]+\\.[0-9]+\\.[0-9]+[ a-z-]")
string(REGEX REPLACE "^OpenSSL ([0-9]+\\.[0-9]+\\.[0-9]+).*" "\\1" _hwc_libv "${_hwc_libv}")
if(NOT HWCIPHER_OPENSSL_VERSION MATCHES "^[0-9]+\\.[0-9]+\\.[0-9]+$")
  message(FATAL_ERROR "cannot read OPENSSL_VERSION_STR from ${OPENSSL_INCLUDE_DIR}/openssl/opensslv.h")
endif()
if(NOT _hwc_libv)
  message(WARNING "hwcipher: cannot read the version of ${OPENSSL_CRYPTO_LIBRARY}; "
          "header/library agreement is checked by the tests only")
elseif(NOT _hwc_libv VERSION_EQUAL HWCIPHER_OPENSSL_VERSION)
  message(FATAL_ERROR "OpenSSL headers ${OPENSSL_INCLUDE_DIR} are ${HWCIPHER_OPENSSL_VERSION}, "
          "but the libcrypto linked (${OPENSSL_CRYPTO_LIBRARY}) is ${_hwc_libv}: "
          "give one release's headers and library (-DHWCIPHER_OPENSSL_ROOT=<dir>)")
endif()
message(STATUS "hwcipher: OpenSSL ${HWCIPHER_OPENSSL_VERSION}: ${OPENSSL_INCLUDE_DIR}, ${OPENSSL_CRYPTO_LIBRARY}")
if(HWCIPHER_OPENSSL_RUN)
  string(JOIN " " _hwc_run_txt ${HWCIPHER_OPENSSL_RUN})
  message(STATUS "hwcipher: programs run as: ${_hwc_run_txt} <program>")
endif()
