# `ringlab plan` end to end: the real binary on the fixtures in tests/data/plan_*.
add_executable(ringlab_plan_cli_tests plan_cli_test.cpp)
target_link_libraries(ringlab_plan_cli_tests PRIVATE ringlab_test_main)
target_compile_definitions(ringlab_plan_cli_tests PRIVATE RINGLAB_BINARY="$<TARGET_FILE:ringlab_cli>"
                                                          RINGLAB_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data")
add_dependencies(ringlab_plan_cli_tests ringlab_cli)
gtest_discover_tests(ringlab_plan_cli_tests DISCOVERY_TIMEOUT 60)

# The recorder's and the DDP check's tests need the Python package: examples/python/examples.cmake.
