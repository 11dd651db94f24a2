# `ringlab tune` as one job under real launchers (tests/tune_under_a_launcher_test.sh): mpirun of
# the MPI this ringlab links, and torchrun. Each is added only where its launcher is installed, as
# the MPI tests are.
if(RINGLAB_DEFAULT_MPI AND RINGLAB_MPIEXEC_${RINGLAB_DEFAULT_MPI})
  add_test(NAME mpi_tune_under_mpirun
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tune_under_a_launcher_test.sh mpirun
                   $<TARGET_FILE:ringlab_cli> "${RINGLAB_DEFAULT_MPI}"
                   "${RINGLAB_MPIEXEC_${RINGLAB_DEFAULT_MPI}}")
  set_tests_properties(mpi_tune_under_mpirun PROPERTIES PROCESSORS 2 TIMEOUT 150 LABELS mpi)
endif()
find_program(RINGLAB_TORCHRUN torchrun)
if(RINGLAB_TORCHRUN)
  add_test(NAME tune_under_torchrun
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tune_under_a_launcher_test.sh torchrun
                   $<TARGET_FILE:ringlab_cli> ${RINGLAB_TORCHRUN})
  set_tests_properties(tune_under_torchrun PROPERTIES PROCESSORS 2 TIMEOUT 150 LABELS torch)
else()
  message(STATUS "ringlab tests: no torchrun; tune_under_torchrun is not run")
endif()
