# Checks on the code itself, not its behaviour. Included from tests/CMakeLists.txt.

# `make test` fails on a file that clang-format would change.
find_program(RINGLAB_CLANG_FORMAT clang-format REQUIRED)
add_test(NAME format_check COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-format ${RINGLAB_CLANG_FORMAT})

# The build enforces the layers (cmake/ringlab_layers.cmake): the same file that includes a topo
# header compiles with the topo layer's include path and fails with the model layer's.
set(layering_probe ${CMAKE_CURRENT_SOURCE_DIR}/layering/includes_topology.cpp)
foreach(layer topo model)
  add_test(NAME layering_topo_header_from_${layer}
           COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -fsyntax-only
                   -I${PROJECT_BINARY_DIR}/layers/${layer}/include ${layering_probe})
endforeach()
set_tests_properties(layering_topo_header_from_model PROPERTIES
  PASS_REGULAR_EXPRESSION "ringlab/topo/topology.hpp: No such file or directory")

# Reading and rendering records needs no transport: report sees no transport header, and neither
# the lab nor report links a library that moves bytes (their link closures, computed here).
set(transport_probe ${CMAKE_CURRENT_SOURCE_DIR}/layering/includes_transport.cpp)
foreach(layer transport report)
  add_test(NAME layering_transport_header_from_${layer}
           COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -fsyntax-only
                   -I${PROJECT_BINARY_DIR}/layers/${layer}/include ${transport_probe})
endforeach()
set_tests_properties(layering_transport_header_from_report PROPERTIES
  PASS_REGULAR_EXPRESSION "ringlab/transport/transport.hpp: No such file or directory")
foreach(target ringlab_lab ringlab_report)
  ringlab_link_closure(${target} links)
  add_test(NAME layering_${target}_links_no_transport
           COMMAND ${CMAKE_COMMAND} -E echo "${target} links: ${links}")
  set_tests_properties(layering_${target}_links_no_transport PROPERTIES
    PASS_REGULAR_EXPRESSION "ringlab_record"
    FAIL_REGULAR_EXPRESSION "ringlab_(transport|exec|job|bootstrap|measure|mpi)")
endforeach()

# The Communicator's header declares the decision table rather than including its header, so that
# a program linking the Communicator does not parse nlohmann/json (the probe fails if it does).
# Bytes know no algorithm: the transport layer depends on no schedule, so the include fails there.
add_test(NAME layering_schedule_header_from_transport
         COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -fsyntax-only
                 -I${PROJECT_BINARY_DIR}/layers/transport/include
                 ${CMAKE_CURRENT_SOURCE_DIR}/layering/includes_schedule.cpp)
set_tests_properties(layering_schedule_header_from_transport PROPERTIES
  PASS_REGULAR_EXPRESSION "ringlab/schedule/schedule.hpp: No such file or directory")
add_test(NAME communicator_header_without_json
         COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -fsyntax-only
                 -I${PROJECT_BINARY_DIR}/layers/exec/include
                 ${CMAKE_CURRENT_SOURCE_DIR}/layering/communicator_without_json.cpp)

# Transports are named in the transport table only (src/job/transports.cpp), as algorithms are in
# the registry: the check fails on a quoted transport name anywhere else in the code.
add_test(NAME transport_names_check COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-transport-names)

# The library speaks values: the check fails on a string literal in src/ or include/ that names a
# command-line flag (each front end passes its own names as labels).
add_test(NAME flag_literals_check COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-flag-literals)
