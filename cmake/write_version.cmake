# Writes OUTPUT, a header naming the version and the commit the binary is built from, so that a
# report says which code produced it. Run on every build (cmake -DSOURCE_DIR= -DVERSION= -DOUTPUT=
# -P write_version.cmake); the header is replaced only when its text changes, so an unchanged
# commit rebuilds nothing. A checkout with uncommitted changes is marked "-modified".
cmake_minimum_required(VERSION 3.22)
execute_process(COMMAND git -C "${SOURCE_DIR}" rev-parse --short=12 HEAD
                OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE
                RESULT_VARIABLE failed ERROR_QUIET)
if(failed)
  set(commit "unknown")
else()
  execute_process(COMMAND git -C "${SOURCE_DIR}" diff --quiet HEAD -- src
                  RESULT_VARIABLE modified ERROR_QUIET)
  if(modified)
    string(APPEND commit "-modified")
  endif()
endif()
set(text "// Written by cmake/write_version.cmake at build time.\n")
string(APPEND text "#define ARCHIMEDES_VERSION \"${VERSION}\"\n")
string(APPEND text "#define ARCHIMEDES_COMMIT \"${commit}\"\n")
include("${CMAKE_CURRENT_LIST_DIR}/write_if_changed.cmake")
write_if_changed("${OUTPUT}" "${text}")
