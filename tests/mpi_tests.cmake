# The MPI transport's tests: one binary per MPI implementation found, each run by CTest under that
# implementation's own launcher, one process per rank, at p = 2, 3 and 4 (more ranks than this
# machine's cores is part of the point: the transport must yield, not spin, when oversubscribed).
# Included from tests/CMakeLists.txt, after include(GoogleTest).
#
# Open MPI refuses to run as root unless told it may; the environment variables below say so and
# change nothing for other users. It also refuses more ranks than cores without --oversubscribe,
# and its shared-memory single-copy path (CMA) needs ptrace rights that containers often withhold,
# so the tests take the copy-in/copy-out path that works everywhere.
foreach(flavour IN LISTS RINGLAB_MPI_FLAVOURS)
  set(binary ringlab_mpi_tests_${flavour})
  add_executable(${binary} mpi_contract_test.cpp)
  target_link_libraries(${binary} PRIVATE ringlab ringlab_mpi_${flavour} GTest::gtest)
  if(NOT RINGLAB_MPIEXEC_${flavour})
    message(STATUS "ringlab MPI: no launcher for ${flavour}; ${binary} is built but not run by CTest")
    continue()
  endif()
  if(flavour STREQUAL "openmpi")
    set(launch_options --oversubscribe --bind-to none)
    set(environment OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
                    OMPI_MCA_btl_vader_single_copy_mechanism=none)
  else()
    set(launch_options "")
    set(environment "")
  endif()
  foreach(ranks 2 3 4)
    set(name mpi_${flavour}_p${ranks})
    add_test(NAME ${name}
             COMMAND ${RINGLAB_MPIEXEC_${flavour}} -np ${ranks} ${launch_options}
                     $<TARGET_FILE:${binary}>)
    set_tests_properties(${name} PROPERTIES PROCESSORS ${ranks} TIMEOUT 120 LABELS mpi
                                            ENVIRONMENT "${environment}")
  endforeach()
endforeach()

# `ringlab bench` under mpirun without --transport: one MPI job under the launcher of the MPI the
# binary links, a refusal naming the flag under the other's (tests/bench_under_mpirun_test.sh).
if(RINGLAB_MPI_FLAVOURS)
  add_test(NAME mpi_bench_picks_the_launchers_transport
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/bench_under_mpirun_test.sh $<TARGET_FILE:ringlab_cli>
                   "${RINGLAB_DEFAULT_MPI}" "${RINGLAB_MPIEXEC_openmpi}" "${RINGLAB_MPIEXEC_mpich}")
  set_tests_properties(mpi_bench_picks_the_launchers_transport PROPERTIES PROCESSORS 2 TIMEOUT 300
                                                                          LABELS mpi)
endif()

# `ringlab calibrate` under mpirun without --transport: one calibration over MPI, its profile
# stamped with transport mpi and p (tests/calibrate_under_mpirun_test.sh).
if(RINGLAB_DEFAULT_MPI AND RINGLAB_MPIEXEC_${RINGLAB_DEFAULT_MPI})
  add_test(NAME mpi_calibrate_under_mpirun
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/calibrate_under_mpirun_test.sh
                   $<TARGET_FILE:ringlab_cli> "${RINGLAB_DEFAULT_MPI}"
                   "${RINGLAB_MPIEXEC_${RINGLAB_DEFAULT_MPI}}")
  set_tests_properties(mpi_calibrate_under_mpirun PROPERTIES PROCESSORS 2 TIMEOUT 150 LABELS mpi)
endif()

# The MPI exports of `ringlab tune` (Open MPI rules, MPICH's selection file) applied by the
# installed libraries: each size band runs the algorithm the file names, seen in what the library
# sends (tests/mpi_exports/mpi_export_test.py).
foreach(flavour IN LISTS RINGLAB_MPI_FLAVOURS)
  add_executable(ringlab_allreduce_probe_${flavour} mpi_exports/allreduce_probe.cpp)
  target_link_libraries(ringlab_allreduce_probe_${flavour} PRIVATE ringlab::mpi_${flavour}
                                                                   ${CMAKE_DL_LIBS})
  add_executable(ringlab_where_probe_${flavour} mpi_exports/where_probe.cpp)
  target_link_libraries(ringlab_where_probe_${flavour} PRIVATE ringlab::mpi_${flavour})
endforeach()
if(TARGET ringlab_allreduce_probe_openmpi AND RINGLAB_MPIEXEC_openmpi)
  add_test(NAME mpi_export_openmpi_rules
           COMMAND ${RINGLAB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/mpi_exports/mpi_export_test.py
                   openmpi $<TARGET_FILE:ringlab_cli> $<TARGET_FILE:ringlab_allreduce_probe_openmpi>
                   ${RINGLAB_MPIEXEC_openmpi})
  set_tests_properties(mpi_export_openmpi_rules PROPERTIES PROCESSORS 2 TIMEOUT 300 LABELS mpi)
endif()
if(TARGET ringlab_allreduce_probe_mpich AND RINGLAB_MPIEXEC_mpich)
  add_library(ringlab_ucx_send_counter MODULE mpi_exports/ucx_send_counter.cpp)
  target_link_libraries(ringlab_ucx_send_counter PRIVATE ${CMAKE_DL_LIBS})
  add_test(NAME mpi_export_mpich_selection
           COMMAND ${RINGLAB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/mpi_exports/mpi_export_test.py
                   mpich $<TARGET_FILE:ringlab_cli> $<TARGET_FILE:ringlab_allreduce_probe_mpich>
                   ${RINGLAB_MPIEXEC_mpich} $<TARGET_FILE:ringlab_ucx_send_counter>)
  set_tests_properties(mpi_export_mpich_selection PROPERTIES PROCESSORS 2 TIMEOUT 300 LABELS mpi)
endif()
# The rankfile and machinefile of `ringlab topo search`, with the user's hosts, taken by mpirun
# and mpiexec, and the ranks placed as written (tests/mpi_exports/rank_placement_test.py).
if(TARGET ringlab_where_probe_openmpi AND RINGLAB_MPIEXEC_openmpi)
  set(mpich_args "")
  if(TARGET ringlab_where_probe_mpich AND RINGLAB_MPIEXEC_mpich)
    set(mpich_args $<TARGET_FILE:ringlab_where_probe_mpich> ${RINGLAB_MPIEXEC_mpich})
  endif()
  add_test(NAME mpi_export_rank_placement
           COMMAND ${RINGLAB_PYTHON} ${CMAKE_CURRENT_SOURCE_DIR}/mpi_exports/rank_placement_test.py
                   $<TARGET_FILE:ringlab_cli> $<TARGET_FILE:ringlab_where_probe_openmpi>
                   ${RINGLAB_MPIEXEC_openmpi} ${mpich_args})
  set_tests_properties(mpi_export_rank_placement PROPERTIES PROCESSORS 2 TIMEOUT 300 LABELS mpi
                                                            SKIP_RETURN_CODE 77)
endif()
