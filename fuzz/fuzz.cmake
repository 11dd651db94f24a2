# The libFuzzer targets, built with clang from Debian (clang, libclang-rt-14-dev) beside the main
# build, whatever compiler that uses: over the network parsers (fuzz/tcp_frame_fuzz.cpp; only the
# pure parser sources go in, so it needs none of the library), and over every file format
# (fuzz/file_formats_fuzz.cpp, one format per run). Ctests run each briefly; for a longer run, by
# hand:
#   ninja tcp_frame_fuzz && build/fuzz/tcp_frame_fuzz -max_total_time=300 build/fuzz/corpus
#   ninja file_formats_fuzz && RINGLAB_FUZZ_FORMAT=nccl_xml build/fuzz/file_formats/file_formats_fuzz \
#     -max_total_time=600 build/fuzz/corpus/nccl_xml build/fuzz/seeds/nccl_xml
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

    # The file formats' fuzzer (fuzz/file_formats_fuzz.cpp): its own build with clang
    # (fuzz/CMakeLists.txt), after the main build has generated the sources it shares.
    # The layers' sources as the main build lists them; of record, only its readers.
    set(layer_sources "")
    foreach(layer core schedule model topo gpu plan io)
      get_target_property(files ringlab_${layer} SOURCES)
      string(TOUPPER ${layer} upper)
      string(REPLACE ";" "|" files "${files}")
      list(APPEND layer_sources -DRINGLAB_${upper}_SOURCES=${files})
    endforeach()
    list(APPEND layer_sources
         "-DRINGLAB_RECORD_SOURCES=record/record.cpp|record/nccl_tests.cpp|record/nccl_tests_json.cpp|record/osu_log.cpp|record/log_lines.cpp|record/run_logs.cpp|record/statistics.cpp|record/log_figures.cpp")
    include(ExternalProject)
    ExternalProject_Add(file_formats_fuzz
      SOURCE_DIR ${PROJECT_SOURCE_DIR}/fuzz
      BINARY_DIR ${fuzz_dir}/file_formats
      LIST_SEPARATOR |
      CMAKE_ARGS -DCMAKE_CXX_COMPILER=${RINGLAB_FUZZ_CXX} -DCMAKE_BUILD_TYPE=
                 -DRINGLAB_SOURCE_DIR=${PROJECT_SOURCE_DIR} ${layer_sources}
      INSTALL_COMMAND ""
      BUILD_ALWAYS ON
      DEPENDS ringlab_version ringlab_model)
    # Each format's seeds are tests/data's real files of it (examples/ for topologies), copied
    # apart so that the corpus the fuzzer grows never lands in the source tree. A torch trace's
    # input is its parameter list, a form feed, then the trace.
    set(data ${PROJECT_SOURCE_DIR}/tests/data)
    file(GLOB seeds_logs ${data}/*.log ${data}/nccl_tests/* ${data}/osu/* ${data}/gpu_logs/*.log)
    file(GLOB seeds_record ${data}/plan_measured_*.json ${data}/bench_no_rows.json
         ${data}/nccl_tests/*.json)
    file(GLOB seeds_profile ${data}/profile_*.json ${data}/plan_profile_p2.json)
    file(GLOB seeds_decision_table ${data}/tune_table_*.json)
    file(GLOB seeds_timeline ${data}/plan_*.csv ${data}/plan_timeline.json)
    file(GLOB seeds_nccl_xml ${data}/nccl_topo/*.xml)
    file(GLOB seeds_topology ${PROJECT_SOURCE_DIR}/examples/topologies/*.json)
    set(formats logs record profile decision_table timeline nccl_xml topology torch_trace)
    foreach(format IN LISTS formats)
      file(MAKE_DIRECTORY ${fuzz_dir}/seeds/${format} ${fuzz_dir}/corpus/${format})
      if(seeds_${format})
        file(COPY ${seeds_${format}} DESTINATION ${fuzz_dir}/seeds/${format})
      endif()
    endforeach()
    file(GLOB traces ${data}/torch_traces/*_marked.json)
    string(ASCII 12 form_feed)
    foreach(trace IN LISTS traces)
      string(REGEX REPLACE "_marked.json$" "_params.csv" params ${trace})
      get_filename_component(model ${trace} NAME_WE)
      file(READ ${params} params_text)
      file(READ ${trace} trace_text)
      file(WRITE ${fuzz_dir}/seeds/torch_trace/${model} "${params_text}${form_feed}${trace_text}")
    endforeach()
    # In make test: each format a few seconds from its seeds (a bound in time, not a check of
    # speed: a finding fails the test whenever it is found).
    foreach(format IN LISTS formats)
      add_test(NAME file_formats_fuzz_${format}
               COMMAND ${fuzz_dir}/file_formats/file_formats_fuzz -max_total_time=4 -timeout=10
                       -rss_limit_mb=2048 -max_len=65536 -seed=1
                       ${fuzz_dir}/corpus/${format} ${fuzz_dir}/seeds/${format})
      set_tests_properties(file_formats_fuzz_${format} PROPERTIES TIMEOUT 120
                           ENVIRONMENT RINGLAB_FUZZ_FORMAT=${format})
    endforeach()
  else()
    message(STATUS "clang++ not found: the fuzz targets are not built")
  endif()
endif()
