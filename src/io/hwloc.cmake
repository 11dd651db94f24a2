# `ringlab topo detect` (io/topo_detect.cpp) reads the local machine through hwloc when it is
# installed (libhwloc-dev); without it io::detectLocalTopology says so. Included from
# src/CMakeLists.txt after the io layer is declared.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(HWLOC QUIET IMPORTED_TARGET hwloc)
endif()
if(HWLOC_FOUND)
  target_link_libraries(ringlab_io PRIVATE PkgConfig::HWLOC)
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/topo_detect.cpp PROPERTIES
                              COMPILE_DEFINITIONS RINGLAB_HAVE_HWLOC=1
                              SKIP_UNITY_BUILD_INCLUSION ON)
endif()
