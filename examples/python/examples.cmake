# Bucket plans applied in PyTorch (python/ringlab/torch/buckets.py, timeline.py): their tests,
# the tools built on them, and the Python examples at their smallest. Included from
# python/CMakeLists.txt, which sets Python3_EXECUTABLE, RINGLAB_PYTHON_DIR and
# RINGLAB_PYTHON_HAS_TORCH and defines ringlab_add_pytest.
if(NOT RINGLAB_PYTHON_HAS_TORCH OR NOT RINGLAB_BUILD_TESTS)
  return()
endif()
set(_ringlab_python_env "PYTHONPATH=${RINGLAB_PYTHON_DIR};RINGLAB_BINARY=$<TARGET_FILE:ringlab_cli>")

if(RINGLAB_PYTHON_HAS_PYTEST)
  # Ranks are processes: p = 2 and 4 on gloo (and on ringlab's backend where it is built).
  ringlab_add_pytest(python_torch_buckets ${PROJECT_SOURCE_DIR}/tests/python/test_torch_buckets.py
                     PROCESSORS 2 LABELS torch)
endif()

# The recorder and the torch.profiler trace reader on a real PyTorch model.
add_test(NAME plan_torch_recorder_and_trace
         COMMAND ${PROJECT_SOURCE_DIR}/tests/plan_torch_test.sh $<TARGET_FILE:ringlab_cli> ${Python3_EXECUTABLE}
                 ${PROJECT_SOURCE_DIR})
# Ground truth on stock models: the trace reader against autograd hooks in the same run, and the
# ddp rows against the buckets DDP really reduces (tests/plan_trace_truth_test.py, one process).
add_test(NAME plan_trace_ground_truth
         COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/plan_trace_truth_test.py $<TARGET_FILE:ringlab_cli>)
# tools/ddp_bucket_check.py at its smallest (about 20 s): real DDP, 2 processes over gloo.
add_test(NAME plan_ddp_check_smoke
         COMMAND ${PROJECT_SOURCE_DIR}/tests/plan_ddp_check_test.sh $<TARGET_FILE:ringlab_cli> ${Python3_EXECUTABLE}
                 ${PROJECT_SOURCE_DIR})
# tools/bucket_apply_check.py at its smallest: the optimal plan applied against DDP, over gloo.
add_test(NAME bucket_apply_check_smoke
         COMMAND ${PROJECT_SOURCE_DIR}/tests/bucket_apply_check_test.sh ${Python3_EXECUTABLE}
                 ${PROJECT_SOURCE_DIR})
set_tests_properties(plan_torch_recorder_and_trace plan_trace_ground_truth plan_ddp_check_smoke bucket_apply_check_smoke PROPERTIES
                     ENVIRONMENT "${_ringlab_python_env}")
set_tests_properties(plan_ddp_check_smoke bucket_apply_check_smoke PROPERTIES TIMEOUT 300 PROCESSORS 2)
# Seconds in a fresh clone's make test: the costliest start first (python/torch_backend.cmake).
set_tests_properties(plan_ddp_check_smoke PROPERTIES COST 14)
set_tests_properties(plan_torch_recorder_and_trace PROPERTIES COST 10)
set_tests_properties(bucket_apply_check_smoke PROPERTIES COST 9)

# The examples at their smallest, under torchrun (`-r 1 -t 1`: Debian's torch 1.13 torchrun fails
# on Python 3.11 with its default redirects; --log_dir: the logs those redirects write go in the
# build tree, not in a new directory of /tmp per job). Not `--standalone`, whose rendezvous port is fixed
# (29400): two jobs at once (ctest -j) collide; port 0 lets the rendezvous store take a free one.
# The DDP example needs ringlab's backend: where it is not built, the example says so and the
# test is reported as skipped.
set(_ringlab_torchrun ${Python3_EXECUTABLE} -m torch.distributed.run --nnodes 1 --rdzv_backend c10d
    --rdzv_endpoint localhost:0 --nproc_per_node 2 -r 1 -t 1 --monitor_interval 0.2
    --log_dir ${CMAKE_CURRENT_BINARY_DIR}/torchrun-logs)
add_test(NAME example_python_record_plan_apply
         COMMAND ${_ringlab_torchrun} ${CMAKE_CURRENT_LIST_DIR}/record_plan_apply.py --width 64 --steps 3
                 --record-iterations 2 --rounds 2)
add_test(NAME example_python_ddp_ringlab
         COMMAND ${_ringlab_torchrun} ${CMAKE_CURRENT_LIST_DIR}/ddp_ringlab.py --steps 3 --width 64)
set_tests_properties(example_python_record_plan_apply example_python_ddp_ringlab PROPERTIES
                     ENVIRONMENT "${_ringlab_python_env}" PROCESSORS 2 TIMEOUT 300 LABELS "python;torch;example")
set_tests_properties(example_python_ddp_ringlab PROPERTIES
                     SKIP_REGULAR_EXPRESSION "torch.distributed backend is not built")
