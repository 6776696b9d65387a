# write_if_changed(PATH TEXT): writes TEXT to PATH only when it differs from what PATH holds, so a
# regenerated file that did not change does not make its dependents rebuild.
function(write_if_changed path text)
  set(old "")
  if(EXISTS "${path}")
    file(READ "${path}" old)
  endif()
  if(NOT old STREQUAL text)
    file(WRITE "${path}" "${text}")
  endif()
endfunction()
