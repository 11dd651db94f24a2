# The ringlab package's tests (tests/python/test_*.py, except the torch backend's and the bucket
# plans', which their own cmake files register). Included from python/CMakeLists.txt.
if(NOT RINGLAB_PYTHON_HAS_NUMPY)
  message(STATUS "ringlab Python: numpy missing for ${Python3_EXECUTABLE}; its tests are skipped")
  return()
endif()
set(dir ${CMAKE_CURRENT_LIST_DIR})
ringlab_add_pytest(python_import ${dir}/test_import.py)
set_property(TEST python_import APPEND PROPERTY ENVIRONMENT "RINGLAB_CMAKE=${CMAKE_COMMAND}"
             "RINGLAB_BUILD_DIR=${CMAKE_BINARY_DIR}")
ringlab_add_pytest(python_collectives ${dir}/test_collectives.py PROCESSORS 2)
ringlab_add_pytest(python_reduce_broadcast_alltoall ${dir}/test_reduce_broadcast_alltoall.py
                   PROCESSORS 2)
ringlab_add_pytest(python_errors ${dir}/test_errors.py)
ringlab_add_pytest(python_tensors ${dir}/test_tensors.py)
ringlab_add_pytest(python_analysis ${dir}/test_analysis.py)
ringlab_add_pytest(python_typed_objects ${dir}/test_typed_objects.py)
ringlab_add_pytest(python_algorithm_registration ${dir}/test_algorithm_registration.py)
ringlab_add_pytest(python_gpu ${dir}/test_gpu.py)
ringlab_add_pytest(python_processes ${dir}/test_processes.py PROCESSORS 3)
# The MPI rank runs under Open MPI's launcher, the implementation the package links (ringlab_mpi).
if(TARGET ringlab_mpi_openmpi AND RINGLAB_MPIEXEC_openmpi)
  set_property(TEST python_processes APPEND PROPERTY ENVIRONMENT
               "RINGLAB_MPIEXEC=${RINGLAB_MPIEXEC_openmpi}")
endif()
