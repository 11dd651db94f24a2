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
