# nccl-tests parity: a reader written from nccl-tests' documented columns (tests/nccl_tests_reader.py,
# independent of ringlab's own parser) fed `ringlab bench`'s table and JSON. Included from
# tests/CMakeLists.txt.
foreach(check average linear all check)
  add_test(NAME nccl_tests_reader_${check}
           COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/nccl_tests_reader.py
                   $<TARGET_FILE:ringlab_cli> ${check})
endforeach()
