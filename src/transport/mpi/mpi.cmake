# The MPI transport, built once per MPI implementation that cmake/ringlab_mpi.cmake found, so that
# libringlab itself never depends on MPI and both Open MPI and MPICH are tested:
#   ringlab_mpi_openmpi, ringlab_mpi_mpich   the transport against each implementation
#   ringlab_mpi_none                         the same functions, throwing "built without MPI"
#   ringlab_mpi                              what programs link: Open MPI's, else MPICH's, else none
# A program links one of them, never two: they define the same functions over different MPIs.
# Included from src/CMakeLists.txt.
foreach(flavour IN LISTS RINGLAB_MPI_FLAVOURS)
  add_library(ringlab_mpi_${flavour} STATIC
    ${CMAKE_CURRENT_LIST_DIR}/mpi_runtime.cpp
    ${CMAKE_CURRENT_LIST_DIR}/mpi_transport.cpp
    ${CMAKE_CURRENT_LIST_DIR}/mpi_collective.cpp)
  target_link_libraries(ringlab_mpi_${flavour} PUBLIC ringlab_transport PRIVATE ringlab::mpi_${flavour})
endforeach()

add_library(ringlab_mpi_none STATIC ${CMAKE_CURRENT_LIST_DIR}/mpi_none.cpp)
target_link_libraries(ringlab_mpi_none PUBLIC ringlab_transport)

# RINGLAB_DEFAULT_MPI names it ("" for none), for the tests that run the ringlab binary under a
# launcher.
if(TARGET ringlab_mpi_openmpi)
  set(RINGLAB_DEFAULT_MPI openmpi CACHE INTERNAL "the MPI ringlab_mpi builds against")
elseif(TARGET ringlab_mpi_mpich)
  set(RINGLAB_DEFAULT_MPI mpich CACHE INTERNAL "the MPI ringlab_mpi builds against")
else()
  set(RINGLAB_DEFAULT_MPI "" CACHE INTERNAL "the MPI ringlab_mpi builds against")
endif()
if(RINGLAB_DEFAULT_MPI)
  add_library(ringlab_mpi ALIAS ringlab_mpi_${RINGLAB_DEFAULT_MPI})
else()
  add_library(ringlab_mpi ALIAS ringlab_mpi_none)
endif()
