# `ringlab plan` end to end: the real binary on the fixtures in tests/data/plan_*.
add_executable(ringlab_plan_cli_tests plan_cli_test.cpp)
target_link_libraries(ringlab_plan_cli_tests PRIVATE GTest::gtest_main)
target_compile_definitions(ringlab_plan_cli_tests PRIVATE RINGLAB_BINARY="$<TARGET_FILE:ringlab_cli>"
                                                          RINGLAB_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data")
add_dependencies(ringlab_plan_cli_tests ringlab_cli)
gtest_discover_tests(ringlab_plan_cli_tests DISCOVERY_TIMEOUT 60)

# The recorder and the torch.profiler trace reader on a real PyTorch model, where Debian's
# python3-torch is installed (the interpreter is /usr/bin/python3 by default).
set(RINGLAB_TORCH_PYTHON /usr/bin/python3 CACHE FILEPATH "python with torch, for the recorder's test")
execute_process(COMMAND ${RINGLAB_TORCH_PYTHON} -c "import torch" RESULT_VARIABLE ringlab_no_torch OUTPUT_QUIET ERROR_QUIET)
if(ringlab_no_torch EQUAL 0)
  add_test(NAME plan_torch_recorder_and_trace
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/plan_torch_test.sh $<TARGET_FILE:ringlab_cli> ${RINGLAB_TORCH_PYTHON}
                   ${PROJECT_SOURCE_DIR})
  # tools/ddp_bucket_check.py at its smallest (about 20 s): real DDP, 2 processes over gloo.
  add_test(NAME plan_ddp_check_smoke
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/plan_ddp_check_test.sh $<TARGET_FILE:ringlab_cli> ${RINGLAB_TORCH_PYTHON}
                   ${PROJECT_SOURCE_DIR})
  set_tests_properties(plan_ddp_check_smoke PROPERTIES TIMEOUT 300)
endif()
