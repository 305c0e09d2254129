# Install-time part of HwcipherInstall.cmake: writes hwcipher.cnf and
# openssl-hwcipher.cnf for the prefix this install really uses (so
# `cmake --install --prefix P` gets P's module path) and installs them with
# file(INSTALL), which applies DESTDIR and records them in the manifest (so
# the uninstall target removes them).
foreach(v HWCIPHER_VERSION HWCIPHER_MODULE_DIR HWCIPHER_CNF_DIR HWCIPHER_CNF_TEMPLATES HWCIPHER_CNF_WORK)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "InstallConfigs.cmake: ${v} not set")
  endif()
endforeach()

function(hwc_full out dir)
  if(IS_ABSOLUTE "${dir}")
    set(${out} "${dir}" PARENT_SCOPE)
  else()
    set(${out} "${CMAKE_INSTALL_PREFIX}/${dir}" PARENT_SCOPE)
  endif()
endfunction()
hwc_full(module_dir "${HWCIPHER_MODULE_DIR}")
hwc_full(HWCIPHER_CNF_FULL_DIR "${HWCIPHER_CNF_DIR}")

if(module_dir STREQUAL HWCIPHER_DEFAULT_MODULESDIR)
  set(HWCIPHER_CNF_MODULE_LINE
      "# module = hwcipher.so  (found by name in OpenSSL's MODULESDIR, ${module_dir}, or in $OPENSSL_MODULES)")
else()
  set(HWCIPHER_CNF_MODULE_LINE "module = ${module_dir}/hwcipher.so")
endif()

file(MAKE_DIRECTORY "${HWCIPHER_CNF_WORK}")
configure_file("${HWCIPHER_CNF_TEMPLATES}/hwcipher.cnf.in" "${HWCIPHER_CNF_WORK}/hwcipher.cnf" @ONLY)
# The whole config embeds the drop-in's sections (from its first section on).
file(READ "${HWCIPHER_CNF_WORK}/hwcipher.cnf" body)
string(FIND "${body}" "\n[" first_section)
string(SUBSTRING "${body}" ${first_section} -1 HWCIPHER_DROPIN_BODY)
string(STRIP "${HWCIPHER_DROPIN_BODY}" HWCIPHER_DROPIN_BODY)
configure_file("${HWCIPHER_CNF_TEMPLATES}/openssl-hwcipher.cnf.in"
               "${HWCIPHER_CNF_WORK}/openssl-hwcipher.cnf" @ONLY)
file(INSTALL DESTINATION "${HWCIPHER_CNF_FULL_DIR}" TYPE FILE
     FILES "${HWCIPHER_CNF_WORK}/hwcipher.cnf" "${HWCIPHER_CNF_WORK}/openssl-hwcipher.cnf")
