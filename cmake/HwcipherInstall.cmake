# Install, uninstall and the Debian package.
# Destinations are relative to the prefix, except where an absolute folder
# is asked for (HWCIPHER_MODULESDIR, HWCIPHER_CNF_DIR, or MODULESDIR outside
# the prefix): those ignore `--prefix` (DESTDIR still applies).
#
#   cmake --install <build> [--prefix P]       (DESTDIR honoured)
#     <prefix>/lib/ossl-modules/hwcipher.so    stripped; lib/<multiarch>/... under /usr
#     <prefix>/bin/hwcipher-info
#     <prefix>/share/hwcipher/hwcipher.cnf        openssl.cnf drop-in
#     <prefix>/share/hwcipher/openssl-hwcipher.cnf  whole config for OPENSSL_CONF
#     <prefix>/share/doc/hwcipher/{README.md,LICENSE,CHANGELOG.md}
#   -DHWCIPHER_INSTALL_TO_OPENSSL=ON   the module into libcrypto's own MODULESDIR
#                                      (absolute; `openssl version -m`) instead
#   -DHWCIPHER_MODULESDIR=<dir>        the module into <dir> (relative = under the prefix)
#   -DHWCIPHER_CNF_DIR=<dir>           the two .cnf files into <dir> (the package: /etc/ssl)
#   cmake --build <build> --target uninstall   removes what install_manifest.txt lists
#   cpack --config <build>/CPackConfig.cmake   hwcipher_<version>_<arch>.deb
#
# The .cnf files are written at install time, so that their module path
# follows `--prefix`: no `module =` line when the module lands in libcrypto's
# MODULESDIR (OpenSSL finds it there by name, and OPENSSL_MODULES can
# override), else the module's full path.
include_guard(GLOBAL)

option(HWCIPHER_INSTALL_TO_OPENSSL
       "Install hwcipher.so into libcrypto's MODULESDIR (${HWCIPHER_DEFAULT_MODULESDIR})" OFF)
# STRING, not PATH: a relative value stays relative to the install prefix
# (CMake would make a PATH given on the command line absolute to the cwd).
set(HWCIPHER_MODULESDIR "" CACHE STRING
    "Where to install hwcipher.so (default: <libdir>/ossl-modules under the prefix)")
set(HWCIPHER_CNF_DIR "${CMAKE_INSTALL_DATADIR}/hwcipher" CACHE STRING
    "Where to install hwcipher.cnf and openssl-hwcipher.cnf (relative = under the prefix)")

if(HWCIPHER_MODULESDIR)
  set(_hwc_moddir "${HWCIPHER_MODULESDIR}")
elseif(HWCIPHER_INSTALL_TO_OPENSSL)
  set(_hwc_moddir "${HWCIPHER_DEFAULT_MODULESDIR}")
  # Under the configured prefix (Debian: /usr and /usr/lib/<multiarch>/...),
  # keep it relative, so that `--prefix` still moves it.
  string(FIND "${_hwc_moddir}/" "${CMAKE_INSTALL_PREFIX}/" _hwc_at)
  if(_hwc_at EQUAL 0)
    file(RELATIVE_PATH _hwc_moddir "${CMAKE_INSTALL_PREFIX}" "${_hwc_moddir}")
  endif()
else()
  set(_hwc_moddir "${CMAKE_INSTALL_LIBDIR}/ossl-modules")
endif()
message(STATUS "hwcipher: module install dir ${_hwc_moddir} (libcrypto's MODULESDIR: ${HWCIPHER_DEFAULT_MODULESDIR})")

# The system's openssl.cnf, which openssl-hwcipher.cnf includes: OPENSSLDIR
# of the libcrypto built against (`openssl version -d`).
set(_hwc_openssldir /usr/lib/ssl)
if(NOT CMAKE_CROSSCOMPILING)
  if(NOT HWCIPHER_OPENSSL_EXE)
    find_program(HWCIPHER_OPENSSL_EXE openssl)
  endif()
  if(HWCIPHER_OPENSSL_EXE)
    execute_process(COMMAND ${HWCIPHER_OPENSSL_RUN} ${HWCIPHER_OPENSSL_EXE} version -d
                    OUTPUT_VARIABLE _hwc_d ERROR_QUIET)
    if(_hwc_d MATCHES "OPENSSLDIR: \"([^\"]+)\"")
      set(_hwc_openssldir "${CMAKE_MATCH_1}")
    endif()
  endif()
endif()
set(HWCIPHER_SYSTEM_OPENSSL_CNF "${_hwc_openssldir}/openssl.cnf" CACHE FILEPATH
    "The openssl.cnf that openssl-hwcipher.cnf includes")

install(TARGETS hwcipher LIBRARY DESTINATION "${_hwc_moddir}")
install(TARGETS hwcipher_info RUNTIME DESTINATION "${CMAKE_INSTALL_BINDIR}")
# Stripped: the installed files are the ones the manifest has recorded so far
# (with DESTDIR and the install-time prefix already applied).
# (The manifest records paths without DESTDIR.)
install(CODE "
  foreach(f IN LISTS CMAKE_INSTALL_MANIFEST_FILES)
    if(f MATCHES \"/(hwcipher\\\\.so|hwcipher-info)\$\")
      set(f \"\$ENV{DESTDIR}\${f}\")
      execute_process(COMMAND \"${CMAKE_STRIP}\" --strip-unneeded \"\${f}\" RESULT_VARIABLE rc)
      if(rc)
        message(FATAL_ERROR \"strip \${f} failed\")
      endif()
    endif()
  endforeach()")
install(FILES README.md LICENSE CHANGELOG.md DESTINATION "${CMAKE_INSTALL_DOCDIR}")
install(CODE "
  set(HWCIPHER_VERSION \"${PROJECT_VERSION}\")
  set(HWCIPHER_MODULE_DIR \"${_hwc_moddir}\")
  set(HWCIPHER_CNF_DIR \"${HWCIPHER_CNF_DIR}\")
  set(HWCIPHER_DEFAULT_MODULESDIR \"${HWCIPHER_DEFAULT_MODULESDIR}\")
  set(HWCIPHER_SYSTEM_OPENSSL_CNF \"${HWCIPHER_SYSTEM_OPENSSL_CNF}\")
  set(HWCIPHER_CNF_TEMPLATES \"${PROJECT_SOURCE_DIR}/config\")
  set(HWCIPHER_CNF_WORK \"${PROJECT_BINARY_DIR}/install-cnf\")")
install(SCRIPT "${CMAKE_CURRENT_LIST_DIR}/InstallConfigs.cmake")

# ---- uninstall: exactly the files install_manifest.txt lists --------------
add_custom_target(uninstall
    COMMAND ${CMAKE_COMMAND} -DMANIFEST=${PROJECT_BINARY_DIR}/install_manifest.txt
            -P ${CMAKE_CURRENT_LIST_DIR}/Uninstall.cmake
    COMMENT "Removing the files of the last install (install_manifest.txt)")

# ---- Debian package ---------------------------------------------------------
# Build it from a build folder configured with
#   -DCMAKE_INSTALL_PREFIX=/usr -DHWCIPHER_INSTALL_TO_OPENSSL=ON -DHWCIPHER_CNF_DIR=/etc/ssl
# (scripts/package.sh does): the module goes where Debian's libcrypto looks
# (/usr/lib/<multiarch>/ossl-modules), the configs into /etc/ssl as conffiles.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME hwcipher)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_CONTACT "hwcipher developers <hwcipher@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "OpenSSL 3 provider: AES, SM4 and Twofish on the CPU's crypto instructions")
set(CPACK_PACKAGE_DESCRIPTION "hwcipher.so is an OpenSSL provider module with AES, SM4 and Twofish
in every common mode (ECB to XTS, GCM, CCM, OCB, SIV, GCM-SIV, key wrap) and
CMAC/GMAC, on AES-NI/VAES/GFNI (x86_64), the ARMv8 Crypto Extensions
(aarch64) or CPACF (s390x), with constant-time portable code elsewhere.
/etc/ssl/hwcipher.cnf is an openssl.cnf drop-in; hwcipher-info shows
whether OpenSSL uses it.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)   # hwcipher_<version>_<arch>.deb
set(CPACK_DEBIAN_PACKAGE_SECTION libs)
set(CPACK_PACKAGING_INSTALL_PREFIX "${CMAKE_INSTALL_PREFIX}")
find_program(HWCIPHER_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(HWCIPHER_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)   # libc6, libssl3/libssl4, libstdc++6
else()
  string(REGEX MATCH "^[0-9]+" _hwc_major "${HWCIPHER_OPENSSL_VERSION}")
  set(CPACK_DEBIAN_PACKAGE_DEPENDS "libssl${_hwc_major}, libstdc++6")
endif()
if(IS_ABSOLUTE "${HWCIPHER_CNF_DIR}" AND HWCIPHER_CNF_DIR MATCHES "^/etc/")
  file(WRITE "${PROJECT_BINARY_DIR}/deb/conffiles"
       "${HWCIPHER_CNF_DIR}/hwcipher.cnf\n${HWCIPHER_CNF_DIR}/openssl-hwcipher.cnf\n")
  set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA "${PROJECT_BINARY_DIR}/deb/conffiles")
endif()
include(CPack)
