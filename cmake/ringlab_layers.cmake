# One static library per layer of libringlab (docs/ARCHITECTURE.md), each seeing only its own
# headers and those of the layers below it, so that the layering is the build's, not a convention:
#
#   ringlab_layer(model SOURCES model/cost.cpp ... DEPENDS schedule)
#
# makes ringlab_model, linked PUBLIC to ringlab_schedule (and through it to what that depends on).
# Its include path is a folder of links made at configure time, <build>/layers/model/, holding
# include/ringlab/{model,schedule,core} and src/{model,schedule,core} and nothing else: an include
# of a higher layer's header, public or internal, fails with "No such file or directory", and a
# call into a higher layer would fail to link, since no lower library links a higher one.
#
# Top-level headers belong to a layer too: ringlab/version.hpp to core, ringlab/communicator.hpp
# to exec.
set(ringlab_top_level_header_version core)
set(ringlab_top_level_header_communicator exec)

# A unity build (CMake's UNITY_BUILD: a target's sources compiled in batches of 16, so the heavy
# headers, fmt, nlohmann/json, CLI11 and the standard library, are parsed once per batch) for the
# library and the CLI: `make run` on a fresh machine compiles the binary in well under half the
# time. Of the tests, the largest binary is batched (tests/CMakeLists.txt), the others stay one
# file per unit. -DRINGLAB_UNITY_BUILD=OFF gives one unit per file (quicker rebuilds after a
# one-file change, and a check that every file includes what it uses).
option(RINGLAB_UNITY_BUILD "Compile the library and the CLI in batches of files" ON)
function(ringlab_unity target)
  if(RINGLAB_UNITY_BUILD)
    set_target_properties(${target} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 16)
  endif()
endfunction()

function(ringlab_layer name)
  cmake_parse_arguments(LAYER "" "" "SOURCES;DEPENDS;LIBRARIES" ${ARGN})
  set(allowed ${name})
  foreach(dependency IN LISTS LAYER_DEPENDS)
    get_property(below GLOBAL PROPERTY ringlab_layer_${dependency}_sees)
    if(NOT below)
      message(FATAL_ERROR "layer ${name} depends on ${dependency}, which is not declared before it")
    endif()
    list(APPEND allowed ${below})
  endforeach()
  list(REMOVE_DUPLICATES allowed)
  set_property(GLOBAL PROPERTY ringlab_layer_${name}_sees ${allowed})

  set(view ${PROJECT_BINARY_DIR}/layers/${name})
  file(REMOVE_RECURSE ${view})
  file(MAKE_DIRECTORY ${view}/include/ringlab ${view}/src)
  foreach(layer IN LISTS allowed)
    if(EXISTS ${PROJECT_SOURCE_DIR}/include/ringlab/${layer})
      file(CREATE_LINK ${PROJECT_SOURCE_DIR}/include/ringlab/${layer}
           ${view}/include/ringlab/${layer} SYMBOLIC)
    endif()
    if(EXISTS ${PROJECT_SOURCE_DIR}/src/${layer})
      file(CREATE_LINK ${PROJECT_SOURCE_DIR}/src/${layer} ${view}/src/${layer} SYMBOLIC)
    endif()
    foreach(header version communicator)
      if(ringlab_top_level_header_${header} STREQUAL layer)
        file(CREATE_LINK ${PROJECT_SOURCE_DIR}/include/ringlab/${header}.hpp
             ${view}/include/ringlab/${header}.hpp SYMBOLIC)
      endif()
    endforeach()
  endforeach()

  add_library(ringlab_${name} STATIC ${LAYER_SOURCES})
  ringlab_unity(ringlab_${name})
  target_include_directories(ringlab_${name} PUBLIC $<BUILD_INTERFACE:${view}/include>
                             PRIVATE ${view}/src)
  list(TRANSFORM LAYER_DEPENDS PREPEND ringlab_ OUTPUT_VARIABLE below_targets)
  target_link_libraries(ringlab_${name} PUBLIC ${below_targets} ${LAYER_LIBRARIES})
  set_property(GLOBAL APPEND PROPERTY ringlab_layers ringlab_${name})
endfunction()

# Every library `target` links, directly or through another (its link closure), into `out`: what
# the layering probes (tests/style_tests.cmake) hold a front end's or a layer's links to.
function(ringlab_link_closure target out)
  set(seen "")
  set(pending ${target})
  while(pending)
    list(POP_FRONT pending current)
    if(NOT TARGET ${current} OR current IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${current})
    get_target_property(type ${current} TYPE)
    set(links "")
    if(NOT type STREQUAL "INTERFACE_LIBRARY")
      get_target_property(direct ${current} LINK_LIBRARIES)
      if(direct)
        list(APPEND links ${direct})
      endif()
    endif()
    get_target_property(interface ${current} INTERFACE_LINK_LIBRARIES)
    if(interface)
      list(APPEND links ${interface})
    endif()
    # A static library's private links reach its users as $<LINK_ONLY:...>: followed too.
    string(REGEX REPLACE "\\$<LINK_ONLY:([^>]*)>" "\\1" links "${links}")
    list(APPEND pending ${links})
  endwhile()
  list(REMOVE_ITEM seen ${target})
  set(${out} ${seen} PARENT_SCOPE)
endfunction()
