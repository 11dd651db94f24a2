# Finds the MPI implementations installed side by side (Debian packages Open MPI and MPICH so that
# both can be installed at once), so that ringlab's MPI transport can be built against each.
# FindMPI finds one MPI only, and on Debian which one depends on the alternatives system, so each
# implementation is instead found through its own compiler wrapper, which knows its flags:
# Open MPI's answers `--showme`, MPICH's (and Intel MPI's, MVAPICH's, Cray's) `-show`.
# Which implementation a wrapper belongs to is read from its mpi.h, not guessed from its name.
#
# Sets, in the including scope:
#   RINGLAB_MPI_FLAVOURS          the implementations found: openmpi and/or mpich
#   ringlab::mpi_<flavour>        an imported target with its include dirs and libraries
#   RINGLAB_MPIEXEC_<flavour>     its launcher (mpirun), where one was found
#   RINGLAB_MPI_VERSION_<flavour> its version, for the configure summary
#
# Options: -DRINGLAB_MPI=OFF builds without MPI; -DRINGLAB_MPI_WRAPPERS="/opt/mpi/bin/mpicc"
# names the wrappers to ask (a cluster's MPI module), instead of the default search.

set(RINGLAB_MPI AUTO CACHE STRING "MPI transport: AUTO builds against every MPI found, OFF against none")
set_property(CACHE RINGLAB_MPI PROPERTY STRINGS AUTO OFF)
set(RINGLAB_MPI_WRAPPERS "" CACHE STRING
    "MPI compiler wrappers to build against (default: mpicc.openmpi, mpicc.mpich, then mpicc)")

# The full compile-and-link command line a wrapper would run, or "" if it answers neither form.
function(_ringlab_mpi_command_line wrapper out)
  set(${out} "" PARENT_SCOPE)
  foreach(ask --showme -show)
    execute_process(COMMAND ${wrapper} ${ask} RESULT_VARIABLE rc OUTPUT_VARIABLE line
                    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE TIMEOUT 20)
    if(rc EQUAL 0 AND line MATCHES "-l")
      set(${out} "${line}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

# openmpi, mpich or "" from the mpi.h found in `dirs`.
function(_ringlab_mpi_flavour_of dirs out header_out)
  set(${out} "" PARENT_SCOPE)
  foreach(dir IN LISTS dirs)
    if(EXISTS "${dir}/mpi.h")
      file(STRINGS "${dir}/mpi.h" defines REGEX "#[ \t]*define[ \t]+(OPEN_MPI|MPICH_VERSION)[ \t]")
      set(${header_out} "${dir}/mpi.h" PARENT_SCOPE)
      if(defines MATCHES "OPEN_MPI")
        set(${out} openmpi PARENT_SCOPE)
      elseif(defines MATCHES "MPICH_VERSION")
        set(${out} mpich PARENT_SCOPE)
      endif()
      return()
    endif()
  endforeach()
endfunction()

function(_ringlab_mpi_from_wrapper wrapper)
  _ringlab_mpi_command_line(${wrapper} line)
  if(NOT line)
    message(STATUS "ringlab MPI: ${wrapper} answers neither --showme nor -show; skipped")
    return()
  endif()
  separate_arguments(tokens UNIX_COMMAND "${line}")
  list(POP_FRONT tokens)  # the underlying compiler
  set(incdirs "")
  set(libdirs "")
  set(libnames "")
  set(defines "")
  set(linkopts "")
  set(next "")
  foreach(token IN LISTS tokens)
    if(next STREQUAL "I")
      list(APPEND incdirs "${token}")
      set(next "")
    elseif(next STREQUAL "L")
      list(APPEND libdirs "${token}")
      set(next "")
    elseif(token STREQUAL "-I" OR token STREQUAL "-isystem")
      set(next "I")
    elseif(token STREQUAL "-L")
      set(next "L")
    elseif(token MATCHES "^-I(.+)")
      list(APPEND incdirs "${CMAKE_MATCH_1}")
    elseif(token MATCHES "^-L(.+)")
      list(APPEND libdirs "${CMAKE_MATCH_1}")
    elseif(token MATCHES "^-l(.+)")
      set(name "${CMAKE_MATCH_1}")
      # ringlab uses MPI's C API only: the C++ bindings' libraries are not needed.
      if(NOT name MATCHES "^(mpi_cxx|mpichcxx|mpicxx)$")
        list(APPEND libnames "${name}")
      endif()
    elseif(token MATCHES "^-D(.+)")
      list(APPEND defines "${CMAKE_MATCH_1}")
    elseif(token MATCHES "^-Wl," OR token STREQUAL "-pthread")
      list(APPEND linkopts "${token}")
    endif()
  endforeach()

  _ringlab_mpi_flavour_of("${incdirs}" flavour header)
  if(NOT flavour)
    message(STATUS "ringlab MPI: ${wrapper}: no mpi.h from Open MPI or MPICH in '${incdirs}'; skipped")
    return()
  endif()
  if(TARGET ringlab::mpi_${flavour})
    return()  # this implementation was already found through another wrapper
  endif()

  # Full paths, searched in the wrapper's own library directories first: on Debian the plain
  # libmpi.so in the default path is an alternatives link that may point at the other MPI.
  set(libraries "")
  foreach(name IN LISTS libnames)
    string(MAKE_C_IDENTIFIER "RINGLAB_MPI_${flavour}_LIB_${name}" var)
    find_library(${var} NAMES ${name} HINTS ${libdirs} NO_DEFAULT_PATH)
    if(NOT ${var})
      find_library(${var} NAMES ${name})
    endif()
    if(NOT ${var})
      message(STATUS "ringlab MPI: ${wrapper}: library ${name} not found in '${libdirs}'; skipped")
      return()
    endif()
    list(APPEND libraries "${${var}}")
  endforeach()

  add_library(ringlab::mpi_${flavour} INTERFACE IMPORTED GLOBAL)
  set_target_properties(ringlab::mpi_${flavour} PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${incdirs}"
    # mpi.h would otherwise pull in the deprecated C++ bindings and want their libraries.
    INTERFACE_COMPILE_DEFINITIONS "${defines};OMPI_SKIP_MPICXX=1;MPICH_SKIP_MPICXX=1"
    INTERFACE_LINK_LIBRARIES "${libraries}"
    INTERFACE_LINK_OPTIONS "${linkopts}")

  # The launcher that belongs to this implementation: a suffixed name first (Debian), then the
  # plain names beside the wrapper, checked by what they say they are.
  get_filename_component(bindir "${wrapper}" DIRECTORY)
  if(flavour STREQUAL "openmpi")
    set(names mpirun.openmpi mpiexec.openmpi)
    set(expect "Open MPI|OpenRTE|Open RTE")
  else()
    set(names mpirun.mpich mpiexec.mpich mpiexec.hydra)
    set(expect "HYDRA|MPICH|Intel")
  endif()
  set(mpiexec "")
  foreach(candidate IN LISTS names ITEMS "${bindir}/mpiexec" "${bindir}/mpirun")
    if(IS_ABSOLUTE "${candidate}")
      set(path "${candidate}")
    else()
      string(MAKE_C_IDENTIFIER "RINGLAB_MPI_EXE_${candidate}" var)
      find_program(${var} ${candidate})
      set(path "${${var}}")
    endif()
    if(path AND EXISTS "${path}")
      execute_process(COMMAND "${path}" --version RESULT_VARIABLE rc OUTPUT_VARIABLE said
                      ERROR_VARIABLE said TIMEOUT 20)
      if(said MATCHES "${expect}")
        set(mpiexec "${path}")
        break()
      endif()
    endif()
  endforeach()

  file(STRINGS "${header}" version_lines REGEX
       "#[ \t]*define[ \t]+(OMPI_MAJOR_VERSION|OMPI_MINOR_VERSION|OMPI_RELEASE_VERSION|MPICH_VERSION)[ \t]")
  set(version "")
  foreach(l IN LISTS version_lines)
    if(l MATCHES "MPICH_VERSION[ \t]+\"([^\"]+)\"")
      set(version "${CMAKE_MATCH_1}")
    elseif(l MATCHES "OMPI_[A-Z]+_VERSION[ \t]+([0-9]+)")
      string(APPEND version "${CMAKE_MATCH_1}.")
    endif()
  endforeach()
  string(REGEX REPLACE "\\.$" "" version "${version}")

  set(RINGLAB_MPI_FLAVOURS ${RINGLAB_MPI_FLAVOURS} ${flavour} PARENT_SCOPE)
  set(RINGLAB_MPIEXEC_${flavour} "${mpiexec}" PARENT_SCOPE)
  set(RINGLAB_MPI_VERSION_${flavour} "${version}" PARENT_SCOPE)
  message(STATUS "ringlab MPI: ${flavour} ${version} via ${wrapper}; launcher: ${mpiexec}")
endfunction()

set(RINGLAB_MPI_FLAVOURS "")
if(NOT RINGLAB_MPI STREQUAL "OFF")
  set(_ringlab_wrappers ${RINGLAB_MPI_WRAPPERS})
  if(NOT _ringlab_wrappers)
    foreach(_name mpicc.openmpi mpicc.mpich mpicc)
      string(MAKE_C_IDENTIFIER "RINGLAB_MPI_WRAPPER_${_name}" _var)
      find_program(${_var} ${_name})
      if(${_var})
        list(APPEND _ringlab_wrappers "${${_var}}")
      endif()
    endforeach()
  endif()
  foreach(_wrapper IN LISTS _ringlab_wrappers)
    _ringlab_mpi_from_wrapper("${_wrapper}")
  endforeach()
  if(NOT RINGLAB_MPI_FLAVOURS)
    message(STATUS "ringlab MPI: none found (install libopenmpi-dev and/or libmpich-dev); "
                   "the CLI's MPI transport will say so when asked for")
  endif()
endif()
