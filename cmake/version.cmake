# Writes version.cpp with `git describe` of the source tree; rewritten only when it changes so
# that an unchanged tree does not relink.
execute_process(
  COMMAND git describe --always --dirty --tags
  WORKING_DIRECTORY ${SOURCE_DIR}
  OUTPUT_VARIABLE describe
  OUTPUT_STRIP_TRAILING_WHITESPACE
  ERROR_QUIET)
if(NOT describe)
  set(describe "unknown")
endif()
set(content "#include \"ringlab/version.hpp\"\nconst char* ringlab::version() { return \"${describe}\"; }\n")
if(EXISTS ${OUTPUT})
  file(READ ${OUTPUT} old)
endif()
if(NOT "${old}" STREQUAL "${content}")
  file(WRITE ${OUTPUT} "${content}")
endif()
