# ringlab._torch_backend: the "ringlab" torch.distributed backend (python/torch_backend/*.cpp),
# a C++ extension against Debian's libtorch-dev (torch 1.13) for the interpreter
# python/CMakeLists.txt found. python/ringlab/torch registers it with torch.distributed.
# Built when libtorch-dev and python3-torch are there; the tests run each job through torchrun.
find_package(Torch CONFIG QUIET)
find_library(RINGLAB_TORCH_PYTHON_LIBRARY torch_python)
if(NOT Torch_FOUND OR NOT RINGLAB_TORCH_PYTHON_LIBRARY OR NOT RINGLAB_PYTHON_HAS_TORCH)
  message(STATUS "ringlab torch backend: not built (needs libtorch-dev and python3-torch; "
                 "scripts/install-deps installs them)")
  return()
endif()
message(STATUS "ringlab torch backend: torch ${Torch_VERSION} from ${TORCH_INSTALL_PREFIX}")

pybind11_add_module(ringlab_torch_backend MODULE
  ${CMAKE_CURRENT_SOURCE_DIR}/torch_backend/module.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/torch_backend/collective_algorithm.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/torch_backend/process_group.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/torch_backend/process_group_composed.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/torch_backend/process_group_store.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/torch_backend/reduction.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/torch_backend/store_mailbox.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/torch_backend/work.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/torch_backend/tensors.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/torch_backend/shared_memory_pool.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/torch_backend/shared_tensors.cpp
  ${CMAKE_CURRENT_SOURCE_DIR}/torch_backend/store_adapter.cpp)
# Each file spends most of its compile time reading torch's headers: two batches of six read them
# twice instead of twelve times, and still keep both cores busy.
set_target_properties(ringlab_torch_backend PROPERTIES OUTPUT_NAME _torch_backend
                      LIBRARY_OUTPUT_DIRECTORY ${RINGLAB_PYTHON_DIR}/ringlab
                      UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 6)
target_compile_options(ringlab_torch_backend PRIVATE ${TORCH_CXX_FLAGS})
# torch's headers are not ours to warn about.
target_include_directories(ringlab_torch_backend SYSTEM PRIVATE ${TORCH_INCLUDE_DIRS})
# The transport table (ringlab_job) names MPI's entry too; a process group never connects over it,
# so the backend links the MPI transport that says "built without MPI" rather than an MPI library.
target_link_libraries(ringlab_torch_backend PRIVATE "$<LINK_GROUP:RESCAN,ringlab_job,ringlab_mpi_none>"
                      ${TORCH_LIBRARIES}
                      ${RINGLAB_TORCH_PYTHON_LIBRARY})

if(RINGLAB_BUILD_TESTS AND RINGLAB_PYTHON_HAS_PYTEST)
  # Each file starts its jobs with torchrun (2 or 3 processes) or torch.multiprocessing.
  foreach(test IN ITEMS test_torch_backend test_torch_backend_ddp test_torch_shared
                       test_torch_operations test_torch_ddp_hook test_torch_faults)
    ringlab_add_pytest(${test} ${PROJECT_SOURCE_DIR}/tests/python/${test}.py PROCESSORS 2
                       TIMEOUT 300 LABELS torch)
  endforeach()
  # COST (seconds, as measured in a fresh clone's make test): ctest starts the costliest tests
  # first, so that the long ones do not make a tail with idle cores at the end of the run, as they
  # did when they ran last, in the order they are declared (a fresh clone has no costs recorded).
  set_tests_properties(test_torch_shared PROPERTIES COST 33)
  set_tests_properties(test_torch_faults PROPERTIES COST 24)
  set_tests_properties(test_torch_ddp_hook PROPERTIES COST 21)
  set_tests_properties(test_torch_backend PROPERTIES COST 20)
  set_tests_properties(test_torch_operations PROPERTIES COST 11)
  # Two ranks too, but nothing in it is timed: it may share the cores with other tests.
  ringlab_add_pytest(test_torch_public_patterns
                     ${PROJECT_SOURCE_DIR}/tests/python/test_torch_public_patterns.py TIMEOUT 300
                     LABELS torch)
  set_tests_properties(test_torch_public_patterns PROPERTIES COST 14)
  # PyTorch's own distributed suite (its installed distributed_test.py), the part
  # tests/torch/distributed_suite_subset.txt lists, on ringlab at p = 2 and 3: fails when a test
  # that passes on gloo does not pass on ringlab. gloo's outcomes come from their record in
  # tests/data/torch_suite_gloo, or from a live gloo run where the installed torch is not the
  # version recorded there.
  add_test(NAME torch_distributed_suite
           COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/tests/torch/run_distributed_suite.py
                   --tests-file ${PROJECT_SOURCE_DIR}/tests/torch/distributed_suite_subset.txt
                   --gloo-results ${PROJECT_SOURCE_DIR}/tests/data/torch_suite_gloo
                   --out ${CMAKE_BINARY_DIR}/torch-distributed-suite)
  set_tests_properties(torch_distributed_suite PROPERTIES
    ENVIRONMENT "PYTHONPATH=${RINGLAB_PYTHON_DIR};OMP_NUM_THREADS=1" PROCESSORS 2 TIMEOUT 900
    LABELS "python;torch" COST 79)
  # The runner's use of that record, with the suite stood in for (under a second).
  ringlab_add_pytest(torch_distributed_suite_record
                     ${PROJECT_SOURCE_DIR}/tests/python/test_distributed_suite_record.py LABELS torch)
  # The fallback where peers may not map each other's memory, for real (tests/cli_tests.cmake).
  if(TARGET refuse_pidfd_getfd)
    set_property(TEST test_torch_shared APPEND PROPERTY ENVIRONMENT
                 "RINGLAB_REFUSE_PIDFD_GETFD=$<TARGET_FILE:refuse_pidfd_getfd>")
  endif()
endif()
