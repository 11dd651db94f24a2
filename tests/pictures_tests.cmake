# The pictures (--svg of bench, tune, sim, compare; plan's Gantt). Included from
# tests/CMakeLists.txt, after include(GoogleTest) and lab_tests.cmake (RINGLAB_NODE, RINGLAB_CHROMIUM).
#   ringlab_pictures_cli_tests  the real binary writes each picture; read back as XML (gtest)
#   pictures_browser            each picture rendered in headless Chromium: parsed, not blank, tick
#                               labels apart; screenshots land in <build>/picture-screenshots
add_executable(ringlab_pictures_cli_tests pictures_cli_test.cpp)
target_link_libraries(ringlab_pictures_cli_tests PRIVATE ringlab_test_main)
target_compile_definitions(ringlab_pictures_cli_tests PRIVATE RINGLAB_BINARY="$<TARGET_FILE:ringlab_cli>"
                                                              RINGLAB_TEST_DATA="${CMAKE_CURRENT_SOURCE_DIR}/data")
add_dependencies(ringlab_pictures_cli_tests ringlab_cli)
gtest_discover_tests(ringlab_pictures_cli_tests DISCOVERY_TIMEOUT 60)

if(RINGLAB_NODE)
  add_test(NAME pictures_browser COMMAND ${RINGLAB_NODE} --test ${CMAKE_CURRENT_SOURCE_DIR}/browser/pictures.test.mjs)
  set_tests_properties(pictures_browser PROPERTIES TIMEOUT 300
    ENVIRONMENT "RINGLAB_BINARY=$<TARGET_FILE:ringlab_cli>;RINGLAB_CHROMIUM=${RINGLAB_CHROMIUM};RINGLAB_SCREENSHOTS=${PROJECT_BINARY_DIR}/picture-screenshots"
    COST 8)
else()
  add_test(NAME pictures_browser COMMAND sh -c "echo 'pictures_browser: node is not installed; run scripts/install-deps' >&2; exit 1")
endif()
