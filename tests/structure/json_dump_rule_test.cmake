# Every JSON text product code writes goes through json_text() (results/json_text.hpp), which
# replaces invalid UTF-8: a bare nlohmann dump() throws type_error.316 on a kernel-log line, host
# name or storage path that is not UTF-8, and the rank ends with SIGABRT. This test (ctest
# json_dump_rule) fails naming FILE:LINE for any other dump() or nlohmann::to_string() in the
# folders of cmake/FabcheckLayers.cmake, and checks itself on a planted one.
#   cmake -DROOT=<source dir> -P json_dump_rule_test.cmake
cmake_policy(SET CMP0057 NEW)  # if(IN_LIST)
include("${ROOT}/cmake/FabcheckLayers.cmake")

set(kAllowed "results/json_text.cpp")
set(kPattern "(\\.dump[ \t\n]*\\(|nlohmann::to_string[ \t]*\\(|json::to_string[ \t]*\\()")

# Appends "FILE:LINE: <the line>" to `${out}` for every match in `text` (named `name`).
function(find_dumps out name text)
  set(found "${${out}}")
  string(REPLACE ";" "\\;" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(number 0)
  foreach(line IN LISTS lines)
    math(EXPR number "${number} + 1")
    string(REGEX REPLACE "//.*$" "" code "${line}")
    if(code MATCHES "${kPattern}")
      string(STRIP "${line}" shown)
      string(APPEND found "\n  ${name}:${number}: ${shown}")
    endif()
  endforeach()
  set(${out} "${found}" PARENT_SCOPE)
endfunction()

set(found "")
set(checked 0)
foreach(folder IN LISTS FABCHECK_FOLDERS)
  file(GLOB files RELATIVE "${ROOT}" "${ROOT}/${folder}/*.cpp" "${ROOT}/${folder}/*.hpp"
       "${ROOT}/${folder}/*.cu" "${ROOT}/${folder}/*.cuh")
  foreach(file IN LISTS files)
    if(file IN_LIST kAllowed)
      continue()
    endif()
    file(READ "${ROOT}/${file}" text)
    find_dumps(found "${file}" "${text}")
    math(EXPR checked "${checked} + 1")
  endforeach()
endforeach()
if(checked LESS 100)
  message(FATAL_ERROR "json_dump_rule: only ${checked} files checked: the folders were not found")
endif()
if(NOT found STREQUAL "")
  message(FATAL_ERROR "json_dump_rule: JSON serialised without json_text() (invalid UTF-8 "
                      "would throw):${found}")
endif()

# The check itself catches what it is for (a dump split over lines, to_string) and not comments.
set(planted "")
find_dumps(planted "planted.cpp" "std::string a = summary\n    .dump();\n// x.dump() in a comment\nauto b = nlohmann::to_string(j);\n")
string(REGEX MATCHALL "planted.cpp:[0-9]+" hits "${planted}")
if(NOT hits STREQUAL "planted.cpp:2;planted.cpp:4")
  message(FATAL_ERROR "json_dump_rule: the check missed planted dumps (found: ${hits})")
endif()
message(STATUS "json_dump_rule: ${checked} files, every JSON text through json_text()")
