# `cmake --build <build> --target uninstall`: removes every file the last
# `cmake --install` recorded in install_manifest.txt (under $DESTDIR when
# set, as the install was), then the folders hwcipher alone owns if they are
# left empty.
# Nothing else: shared folders (bin, ossl-modules, /etc/ssl) stay.
if(NOT EXISTS "${MANIFEST}")
  message(FATAL_ERROR "no ${MANIFEST}: nothing was installed from this build folder")
endif()
file(STRINGS "${MANIFEST}" files)
set(removed 0)
set(own_dirs "")
foreach(f IN LISTS files)
  # The manifest has the paths without DESTDIR: uninstall with the same
  # DESTDIR as the install.
  set(f "$ENV{DESTDIR}${f}")
  if(IS_SYMLINK "${f}" OR EXISTS "${f}")
    file(REMOVE "${f}")
    if(EXISTS "${f}")
      message(FATAL_ERROR "cannot remove ${f}")
    endif()
    message(STATUS "Removed ${f}")
    math(EXPR removed "${removed} + 1")
  else()
    message(STATUS "Already gone: ${f}")
  endif()
  get_filename_component(d "${f}" DIRECTORY)
  get_filename_component(name "${d}" NAME)
  if(name STREQUAL "hwcipher")   # share/hwcipher, share/doc/hwcipher
    list(APPEND own_dirs "${d}")
  endif()
endforeach()
list(REMOVE_DUPLICATES own_dirs)
foreach(d IN LISTS own_dirs)
  file(GLOB left "${d}/*")
  if(IS_DIRECTORY "${d}" AND NOT left)
    file(REMOVE_RECURSE "${d}")
    message(STATUS "Removed empty ${d}")
  endif()
endforeach()
message(STATUS "uninstall: ${removed} files removed")
