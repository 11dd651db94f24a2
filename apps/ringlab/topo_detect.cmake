# `ringlab topo detect` reads the local machine through hwloc when it is installed (libhwloc-dev);
# without it the command says so. Included from apps/ringlab/CMakeLists.txt.
find_package(PkgConfig QUIET)
if(PkgConfig_FOUND)
  pkg_check_modules(HWLOC QUIET IMPORTED_TARGET hwloc)
endif()
target_sources(ringlab_cli PRIVATE ${CMAKE_CURRENT_LIST_DIR}/topo_detect.cpp)
if(HWLOC_FOUND)
  target_link_libraries(ringlab_cli PRIVATE PkgConfig::HWLOC)
  target_compile_definitions(ringlab_cli PRIVATE RINGLAB_HAVE_HWLOC=1)
endif()
