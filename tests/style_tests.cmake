# Checks on the code itself, not its behaviour. Included from tests/CMakeLists.txt.

# `make test` fails on a file that clang-format would change.
find_program(RINGLAB_CLANG_FORMAT clang-format REQUIRED)
add_test(NAME format_check COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-format ${RINGLAB_CLANG_FORMAT})

# A layering probe: compiles tests/layering/<source> with `layer`'s include path (the folder of
# links cmake/ringlab_layers.cmake makes); with MISSING, it passes only when the compiler cannot
# find that header there.
function(ringlab_layering_probe name source layer)
  cmake_parse_arguments(PROBE "" "MISSING" "" ${ARGN})
  add_test(NAME ${name}
           COMMAND ${CMAKE_CXX_COMPILER} -std=c++20 -fsyntax-only
                   -I${PROJECT_BINARY_DIR}/layers/${layer}/include
                   ${CMAKE_CURRENT_SOURCE_DIR}/layering/${source})
  if(PROBE_MISSING)
    set_tests_properties(${name} PROPERTIES
      PASS_REGULAR_EXPRESSION "${PROBE_MISSING}: No such file or directory")
  endif()
endfunction()

# The build enforces the layers: the same file that includes a topo header compiles with the topo
# layer's include path and fails with the model layer's.
ringlab_layering_probe(layering_topo_header_from_topo includes_topology.cpp topo)
ringlab_layering_probe(layering_topo_header_from_model includes_topology.cpp model
                       MISSING ringlab/topo/topology.hpp)

# Bytes know no algorithm: the transport layer depends on no schedule, so the include fails there.
ringlab_layering_probe(layering_schedule_header_from_transport includes_schedule.cpp transport
                       MISSING ringlab/schedule/schedule.hpp)

# Reading and rendering records needs no transport: report sees no transport header, and neither
# the lab nor report links a library that moves bytes (their link closures, computed here).
ringlab_layering_probe(layering_transport_header_from_transport includes_transport.cpp transport)
ringlab_layering_probe(layering_transport_header_from_report includes_transport.cpp report
                       MISSING ringlab/transport/transport.hpp)
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
ringlab_layering_probe(communicator_header_without_json communicator_without_json.cpp exec)

# Transports are named in the transport table only (src/job/transports.cpp), as algorithms are in
# the registry: the check fails on a quoted transport name anywhere else in the code.
add_test(NAME transport_names_check COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-transport-names)

# The library speaks values: the check fails on a string literal in src/ or include/ that names a
# command-line flag (each front end passes its own names as labels).
add_test(NAME flag_literals_check COMMAND ${PROJECT_SOURCE_DIR}/scripts/check-flag-literals)
