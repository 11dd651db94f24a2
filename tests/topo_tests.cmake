# `ringlab topo` and `ringlab sim` through the real binary, and the emulated-network proof.
# Included from tests/CMakeLists.txt, after include(GoogleTest).
add_executable(ringlab_topo_cli_tests topo_cli_test.cpp)
target_link_libraries(ringlab_topo_cli_tests PRIVATE ringlab_test_main)
target_compile_definitions(ringlab_topo_cli_tests PRIVATE RINGLAB_BINARY="$<TARGET_FILE:ringlab_cli>"
                           RINGLAB_EXAMPLES="${PROJECT_SOURCE_DIR}/examples/topologies"
                           RINGLAB_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data")
add_dependencies(ringlab_topo_cli_tests ringlab_cli)
gtest_discover_tests(ringlab_topo_cli_tests DISCOVERY_TIMEOUT 60)

# Needs root (network namespaces); exits 77, reported by CTest as skipped, elsewhere. Runs alone:
# it measures, and other tests on the same cores would distort the measurement.
add_test(NAME netns_two_level_proof COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/netns/two_level.sh $<TARGET_FILE:ringlab_cli>)
set_tests_properties(netns_two_level_proof PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 180 RUN_SERIAL TRUE
                     COST 46)
