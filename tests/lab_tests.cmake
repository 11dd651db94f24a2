# The web lab (apps/lab, web/). Included from tests/CMakeLists.txt, after include(GoogleTest).
#   ringlab_lab_tests  the JSON endpoints as functions (gtest)
#   lab_server_hostile slow clients, every /api/ error as JSON, --host (python, real sockets)
#   lab_http           `ringlab lab` over HTTP: bad requests, 404s, clean stop (node)
#   lab_browser        the page in headless Chromium with playwright-core (node); screenshots of
#                      each panel land in <build>/lab-screenshots
#   lab_visitor        the page as a first-time visitor meets it, at 1280x800 and 390x844 with
#                      touch: text sizes, palette, units, profiles, queued input, the overview
# node, chromium and tests/browser/node_modules come from scripts/install-deps.
add_executable(ringlab_lab_tests lab_api_test.cpp)
# The lab links the layers up to report: no transport table, and so no MPI transport either.
target_link_libraries(ringlab_lab_tests PRIVATE ringlab_lab ringlab_test_main)
target_compile_definitions(ringlab_lab_tests PRIVATE RINGLAB_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data")
target_include_directories(ringlab_lab_tests PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
gtest_discover_tests(ringlab_lab_tests DISCOVERY_TIMEOUT 60)

# The lab server under slow and hostile clients over real sockets (python's standard library).
add_test(NAME lab_server_hostile
         COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/lab_server_test.py $<TARGET_FILE:ringlab_cli>)
# COST: seconds, the costliest tests start first (python/torch_backend.cmake says why).
set_tests_properties(lab_server_hostile PROPERTIES TIMEOUT 120 COST 15)

find_program(RINGLAB_NODE node)
find_program(RINGLAB_CHROMIUM NAMES chromium chromium-browser)
set(browser_dir ${CMAKE_CURRENT_SOURCE_DIR}/browser)
if(RINGLAB_NODE)
  add_test(NAME lab_http COMMAND ${RINGLAB_NODE} --test ${browser_dir}/api.test.mjs)
  add_test(NAME lab_browser COMMAND ${RINGLAB_NODE} --test ${browser_dir}/lab.test.mjs)
  add_test(NAME lab_visitor COMMAND ${RINGLAB_NODE} --test ${browser_dir}/visitor.test.mjs)
  set_tests_properties(lab_http PROPERTIES TIMEOUT 120
    ENVIRONMENT "RINGLAB_BINARY=$<TARGET_FILE:ringlab_cli>")
  set_tests_properties(lab_browser lab_visitor PROPERTIES TIMEOUT 300
    ENVIRONMENT "RINGLAB_BINARY=$<TARGET_FILE:ringlab_cli>;RINGLAB_CHROMIUM=${RINGLAB_CHROMIUM};RINGLAB_SCREENSHOTS=${PROJECT_BINARY_DIR}/lab-screenshots")
  set_tests_properties(lab_visitor PROPERTIES COST 25)
  set_tests_properties(lab_browser PROPERTIES COST 10)
else()
  # Registered anyway, failing with the fix, so that a missing tool is never a silent skip.
  foreach(name lab_http lab_browser lab_visitor)
    add_test(NAME ${name} COMMAND sh -c "echo '${name}: node is not installed; run scripts/install-deps' >&2; exit 1")
  endforeach()
endif()
