# ctest helper: hwcipher.so must export exactly OSSL_provider_init.
#   cmake -DNM=<nm> -DMODULE=<path to hwcipher.so> -P CheckExports.cmake
execute_process(COMMAND ${NM} -D --defined-only ${MODULE}
                OUTPUT_VARIABLE out RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${NM} failed on ${MODULE}")
endif()
string(REGEX MATCHALL "[^\n]+" lines "${out}")
set(exported "")
foreach(line IN LISTS lines)
  # "<address> <type> <name>"; ignore the version node (type A).
  if(line MATCHES "^[0-9a-fA-F]* ([A-Za-z]) ([^ ]+)$" AND NOT CMAKE_MATCH_1 STREQUAL "A")
    list(APPEND exported "${CMAKE_MATCH_2}")
  endif()
endforeach()
if(NOT exported STREQUAL "OSSL_provider_init")
  message(FATAL_ERROR "hwcipher.so exports [${exported}], expected exactly OSSL_provider_init "
                      "(mark it __attribute__((visibility(\"default\"))) — the module is built with -fvisibility=hidden)")
endif()
message(STATUS "exports: ${exported}")
