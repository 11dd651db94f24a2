# CLI tests: run the real `ringlab` binary as a child process (bad input and a few good runs).
# Included from tests/CMakeLists.txt, after include(GoogleTest).
add_executable(ringlab_cli_tests cli_test.cpp)
target_link_libraries(ringlab_cli_tests PRIVATE ringlab_test_main)
target_compile_definitions(ringlab_cli_tests PRIVATE RINGLAB_BINARY="$<TARGET_FILE:ringlab_cli>")
target_compile_definitions(ringlab_cli_tests PRIVATE RINGLAB_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data")
add_dependencies(ringlab_cli_tests ringlab_cli)
gtest_discover_tests(ringlab_cli_tests DISCOVERY_TIMEOUT 60)

# Ranks as processes: the launcher, bench over shm and tcp, and their faults.
add_executable(ringlab_launch_tests launch_test.cpp)
target_link_libraries(ringlab_launch_tests PRIVATE ringlab_test_main)
target_compile_definitions(ringlab_launch_tests PRIVATE RINGLAB_BINARY="$<TARGET_FILE:ringlab_cli>")
target_compile_definitions(ringlab_launch_tests PRIVATE RINGLAB_MPI_FLAVOUR="${RINGLAB_DEFAULT_MPI}")
add_dependencies(ringlab_launch_tests ringlab_cli)
gtest_discover_tests(ringlab_launch_tests DISCOVERY_TIMEOUT 60)

# One command-line language: every command's --help walked (docs/cli.md's table).
add_executable(ringlab_vocabulary_tests vocabulary_test.cpp)
target_link_libraries(ringlab_vocabulary_tests PRIVATE ringlab_test_main)
target_compile_definitions(ringlab_vocabulary_tests PRIVATE RINGLAB_BINARY="$<TARGET_FILE:ringlab_cli>")
add_dependencies(ringlab_vocabulary_tests ringlab_cli)
gtest_discover_tests(ringlab_vocabulary_tests DISCOVERY_TIMEOUT 60)

# Progress lines: nothing on stderr when it is not a terminal; under a pseudo-terminal, one line
# redrawn in place that leaves the output as it is in a pipe (python's standard library only).
set(RINGLAB_PYTHON /usr/bin/python3 CACHE FILEPATH "python for the tests that need only its standard library")
add_test(NAME cli_progress_on_a_terminal_only
         COMMAND ${RINGLAB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/progress_terminal_test.py
                 $<TARGET_FILE:ringlab_cli> ${CMAKE_CURRENT_SOURCE_DIR}/data)
set_tests_properties(cli_progress_on_a_terminal_only PROPERTIES TIMEOUT 600)

# The README's examples that print the same on every machine (verify, model, topo show, plan)
# print what the README shows.
add_test(NAME readme_examples
         COMMAND ${RINGLAB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/readme_examples_test.py
                 ${PROJECT_SOURCE_DIR} $<TARGET_FILE_DIR:ringlab_cli>)
set_tests_properties(readme_examples PROPERTIES TIMEOUT 300)

# Inputs bounded before they are read: files, fields, shapes (docs/reliability.md).
add_executable(ringlab_inputs_cli_tests inputs_cli_test.cpp)
target_link_libraries(ringlab_inputs_cli_tests PRIVATE ringlab_test_main)
target_compile_definitions(ringlab_inputs_cli_tests PRIVATE RINGLAB_BINARY="$<TARGET_FILE:ringlab_cli>")
target_compile_definitions(ringlab_inputs_cli_tests PRIVATE RINGLAB_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data")
add_dependencies(ringlab_inputs_cli_tests ringlab_cli)
gtest_discover_tests(ringlab_inputs_cli_tests DISCOVERY_TIMEOUT 60)

# Faults made on purpose (RINGLAB_FAULT): the checks catch them, the right rank is blamed, by the
# deadline.
add_executable(ringlab_fault_tests fault_test.cpp)
target_link_libraries(ringlab_fault_tests PRIVATE ringlab_test_main)
target_compile_definitions(ringlab_fault_tests PRIVATE RINGLAB_BINARY="$<TARGET_FILE:ringlab_cli>")
add_dependencies(ringlab_fault_tests ringlab_cli)
gtest_discover_tests(ringlab_fault_tests DISCOVERY_TIMEOUT 60)

# bench/model_vs_measured.sh (docs/MODEL_VS_MEASURED.md): two small inproc runs end to end, its
# spread in closed form, an unknown transport refused.
add_test(NAME bench_model_vs_measured_harness
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/model_vs_measured_test.sh $<TARGET_FILE:ringlab_cli>)
set_tests_properties(bench_model_vs_measured_harness PROPERTIES TIMEOUT 60)

# shm's two-copy fallback when pidfd_getfd is refused: a seccomp filter refuses it for real.
add_executable(refuse_pidfd_getfd refuse_pidfd_getfd.cpp)
add_test(NAME shm_single_copy_refused
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/shm_single_copy_refused_test.sh
                 $<TARGET_FILE:ringlab_cli> $<TARGET_FILE:refuse_pidfd_getfd>)
set_tests_properties(shm_single_copy_refused PROPERTIES PROCESSORS 2 TIMEOUT 120 LABELS shm)
