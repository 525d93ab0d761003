# The test of check_includes.cmake itself (CTest ModuleBoundariesChecker): it runs the checker over
# small trees written under WORK and fails unless the checker passes the clean tree and refuses,
# naming the file and the include, each forbidden one, tests/support/ headers included.
#   cmake -DCHECKER=<check_includes.cmake> -DWORK=<scratch folder> -P check_includes_test.cmake
cmake_minimum_required(VERSION 3.22)

# Modules a and b, b building on a.
set(rules "a=a|b=b,a")

function(write_tree root)
  file(REMOVE_RECURSE "${root}")
  file(WRITE "${root}/src/a/a.h" "#include <vector>\n#include \"a/other.h\"\n")
  file(WRITE "${root}/src/a/other.h" "// nothing\n")
  file(WRITE "${root}/src/b/b.cc" "#include \"a/a.h\"\n#include \"b/b.h\"\n")
  file(WRITE "${root}/src/b/b.h" "// nothing\n")
  file(WRITE "${root}/tests/support/on_a.h" "#include \"a/a.h\"\n")
  file(WRITE "${root}/tests/support/on_b.h" "#include \"b/b.h\"\n")
  file(WRITE "${root}/tests/support/outer.h" "#include \"support/on_b.h\"\n")
  file(WRITE "${root}/tests/a/a_test.cc" "#include \"a/a.h\"\n#include \"support/on_a.h\"\n")
  file(WRITE "${root}/tests/b/b_test.cc" "#include \"support/outer.h\"\n")
endfunction()

# Runs the checker over `root`; sets `passed` and `output` in the caller.
function(run_checker root)
  execute_process(COMMAND ${CMAKE_COMMAND} -DROOT=${root} "-DRULES=${rules}" -P ${CHECKER}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(rc EQUAL 0)
    set(passed TRUE PARENT_SCOPE)
  else()
    set(passed FALSE PARENT_SCOPE)
  endif()
  set(output "${out}${err}" PARENT_SCOPE)
endfunction()

# Writes the clean tree plus `file` holding `text`, and expects the checker to refuse it with a
# message containing `expected`.
function(expect_refused case file text expected)
  set(root "${WORK}/${case}")
  write_tree("${root}")
  file(WRITE "${root}/${file}" "${text}")
  run_checker("${root}")
  if(passed)
    message(FATAL_ERROR "${case}: the checker passed a forbidden include in ${file}")
  endif()
  string(FIND "${output}" "${expected}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "${case}: expected \"${expected}\" in the checker's message:\n${output}")
  endif()
  message(STATUS "${case}: refused as expected")
endfunction()

write_tree("${WORK}/clean")
run_checker("${WORK}/clean")
if(NOT passed)
  message(FATAL_ERROR "clean: the checker refused a tree within its boundaries:\n${output}")
endif()
message(STATUS "clean: passed as expected")

expect_refused(upward src/a/bad.cc "#include \"b/b.h\"\n"
               "src/a/bad.cc: #include \"b/b.h\" — a builds on a only")
expect_refused(undeclared src/b/bad.h "#include \"c/c.h\"\n"
               "src/b/bad.h: #include \"c/c.h\" — b builds on b, a only")
expect_refused(test_upward tests/a/bad_test.cc "#include \"b/b.h\"\n"
               "tests/a/bad_test.cc: #include \"b/b.h\" — a builds on a only")
expect_refused(support_header tests/a/bad_test.cc "#include \"support/on_b.h\"\n"
               "tests/support/on_b.h (included by tests/a/bad_test.cc): #include \"b/b.h\" — a builds on a only")
expect_refused(nested_support tests/a/bad_test.cc "#include \"support/outer.h\"\n"
               "tests/support/on_b.h (included by tests/support/outer.h): #include \"b/b.h\"")
