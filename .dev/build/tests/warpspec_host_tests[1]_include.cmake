if(EXISTS "/tmp/bt/tests/warpspec_host_tests")
  if(NOT EXISTS "/tmp/bt/tests/warpspec_host_tests[1]_tests.cmake" OR
     NOT "/tmp/bt/tests/warpspec_host_tests[1]_tests.cmake" IS_NEWER_THAN "/tmp/bt/tests/warpspec_host_tests" OR
     NOT "/tmp/bt/tests/warpspec_host_tests[1]_tests.cmake" IS_NEWER_THAN "${CMAKE_CURRENT_LIST_FILE}")
    include("/usr/share/cmake-3.25/Modules/GoogleTestAddTests.cmake")
    gtest_discover_tests_impl(
      TEST_EXECUTABLE [==[/tmp/bt/tests/warpspec_host_tests]==]
      TEST_EXECUTOR [==[]==]
      TEST_WORKING_DIR [==[/tmp/bt/tests]==]
      TEST_EXTRA_ARGS [==[]==]
      TEST_PROPERTIES [==[LABELS;host;TIMEOUT;600]==]
      TEST_PREFIX [==[]==]
      TEST_SUFFIX [==[]==]
      TEST_FILTER [==[]==]
      NO_PRETTY_TYPES [==[FALSE]==]
      NO_PRETTY_VALUES [==[FALSE]==]
      TEST_LIST [==[warpspec_host_tests_TESTS]==]
      CTEST_FILE [==[/tmp/bt/tests/warpspec_host_tests[1]_tests.cmake]==]
      TEST_DISCOVERY_TIMEOUT [==[5]==]
      TEST_XML_OUTPUT_DIR [==[]==]
    )
  endif()
  include("/tmp/bt/tests/warpspec_host_tests[1]_tests.cmake")
else()
  add_test(warpspec_host_tests_NOT_BUILT warpspec_host_tests_NOT_BUILT)
endif()
