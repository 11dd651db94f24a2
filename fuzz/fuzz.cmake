# The libFuzzer target over the network parsers (fuzz/tcp_frame_fuzz.cpp), built with clang from
# Debian (clang, libclang-rt-14-dev) beside the main build, whatever compiler that uses. Only the
# pure parser sources go in, so the fuzzer needs none of the library. A ctest runs it briefly
# over a fixed number of inputs; for a longer run, by hand:
#   ninja tcp_frame_fuzz && build/fuzz/tcp_frame_fuzz -max_total_time=300 build/fuzz/corpus
option(RINGLAB_BUILD_FUZZ "Build the libFuzzer target when clang++ is available" ON)
if(RINGLAB_BUILD_FUZZ)
  find_program(RINGLAB_FUZZ_CXX NAMES clang++ clang++-14)
  if(RINGLAB_FUZZ_CXX)
    set(fuzz_dir ${PROJECT_BINARY_DIR}/fuzz)
    set(fuzz_sources
      ${PROJECT_SOURCE_DIR}/fuzz/tcp_frame_fuzz.cpp
      ${PROJECT_SOURCE_DIR}/src/bootstrap/wire.cpp
      ${PROJECT_SOURCE_DIR}/src/transport/tcp/frame.cpp)
    add_custom_command(
      OUTPUT ${fuzz_dir}/tcp_frame_fuzz
      COMMAND ${CMAKE_COMMAND} -E make_directory ${fuzz_dir}/corpus
      COMMAND ${RINGLAB_FUZZ_CXX} -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined
              -fno-sanitize-recover=undefined
              -I${PROJECT_SOURCE_DIR}/include -I${PROJECT_SOURCE_DIR}/src
              ${fuzz_sources} -o ${fuzz_dir}/tcp_frame_fuzz
      DEPENDS ${fuzz_sources}
              ${PROJECT_SOURCE_DIR}/src/bootstrap/wire.hpp
              ${PROJECT_SOURCE_DIR}/src/transport/tcp/frame.hpp
              ${PROJECT_SOURCE_DIR}/include/ringlab/transport/transport.hpp
      COMMENT "libFuzzer target tcp_frame_fuzz (clang)")
    add_custom_target(tcp_frame_fuzz ALL DEPENDS ${fuzz_dir}/tcp_frame_fuzz)
    add_test(NAME tcp_frame_fuzz_smoke
             COMMAND ${fuzz_dir}/tcp_frame_fuzz -runs=200000 -seed=1 -max_len=4096)
    set_tests_properties(tcp_frame_fuzz_smoke PROPERTIES TIMEOUT 120)
  else()
    message(STATUS "clang++ not found: the fuzz target tcp_frame_fuzz is not built")
  endif()
endif()
