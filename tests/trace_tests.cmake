# Tests of iris_trace alone (no LibTorch): included by tests/CMakeLists.txt in the full build
# and by the root CMakeLists.txt with -DIRIS_TRACE_ONLY=ON.
include(GoogleTest)
add_executable(trace_tests
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_kineto_import.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_import_pipeline.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_inflate.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_sync_causes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_call_sites.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_graph_breaks.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_hta_breakdown.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_hta_critical_path.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_hta_numeric.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_hta_straggler.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_diagnosis.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_hta_records.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_roundtrip.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_attribution.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_launch_queue.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_sync_drain.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_kernel_times.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_nsys_import.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_nsys_agreement.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_replay_rules.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_replay_what_if.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_gpu_constants.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_replay_properties.cpp
  ${CMAKE_CURRENT_LIST_DIR}/cpp/trace/test_trace_diff.cpp
)
target_link_libraries(trace_tests PRIVATE iris_trace GTest::gtest_main)
target_compile_definitions(trace_tests PRIVATE IRIS_TRACE_DATA="${CMAKE_CURRENT_LIST_DIR}/data")
gtest_discover_tests(trace_tests DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60)
target_include_directories(trace_tests PRIVATE ${CMAKE_CURRENT_LIST_DIR}/cpp/trace)
target_compile_definitions(trace_tests PRIVATE ATTRIBUTE_BIN="$<TARGET_FILE:attribute>")
add_dependencies(trace_tests attribute)

# The layering of src/trace, src/capture and tools/ (tests/check_layers.py), and its self-test.
find_package(Python3 REQUIRED COMPONENTS Interpreter)
add_test(NAME trace_layers COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_layers.py --root ${CMAKE_CURRENT_LIST_DIR}/..)
add_test(NAME trace_layers_self_test COMMAND ${Python3_EXECUTABLE} ${CMAKE_CURRENT_LIST_DIR}/check_layers.py --self-test)

# Nsight Systems: the committed `nsys stats` reports of tests/data/nsys (the reference of
# trace_tests' NsysAgreement) are still what the packaged nsys says. Skipped, with the reason
# in its output, where scripts/nsys_setup.sh could not unpack one.
add_test(NAME nsys_stats_reference
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/nsys_expected.sh --check ${CMAKE_CURRENT_LIST_DIR}/data/nsys/expected)
set_tests_properties(nsys_stats_reference PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300)
