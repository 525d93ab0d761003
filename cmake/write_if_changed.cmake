# write_if_changed(PATH TEXT): writes TEXT to PATH unless it already holds it, so that what
# depends on PATH is not rebuilt for nothing.
function(write_if_changed path text)
  set(previous "")
  if(EXISTS "${path}")
    file(READ "${path}" previous)
  endif()
  if(NOT previous STREQUAL text)
    file(WRITE "${path}" "${text}")
  endif()
endfunction()
