# iris_trace: the torch-free trace library (src/README.md draws its layers): the
# records model, the importers, the analyses and the writers; no LibTorch, no CUDA, no CUPTI
# (tests/check_layers.py enforces it). bench links it through iris_core; ./attribute
# (tools/attribute.cpp) is built from it alone. Included by the root CMakeLists.txt before
# LibTorch is looked for, so -DIRIS_TRACE_ONLY=ON builds just this in seconds.
find_package(simdjson REQUIRED)   # Debian: libsimdjson-dev
find_package(ZLIB REQUIRED)       # Debian: zlib1g-dev

set(_t ${CMAKE_CURRENT_LIST_DIR})
add_library(iris_trace STATIC
  ${_t}/model/records.cpp
  ${_t}/import/byte_source.cpp
  ${_t}/import/kineto/json_event_stream.cpp
  ${_t}/import/kineto/kineto_import.cpp
  ${_t}/analyze/attribution.cpp
  ${_t}/analyze/blocking_calls.cpp
  ${_t}/analyze/sync_causes.cpp
  ${_t}/analyze/step_report.cpp
  ${_t}/analyze/hta_breakdown.cpp
  ${_t}/export/json_out.cpp
  ${_t}/export/chrome_trace.cpp
  ${_t}/export/report_json.cpp
  ${_t}/export/report_text.cpp
)
target_include_directories(iris_trace PUBLIC ${CMAKE_CURRENT_LIST_DIR}/..)
find_package(Threads REQUIRED)
target_link_libraries(iris_trace PUBLIC simdjson::simdjson ZLIB::ZLIB Threads::Threads)
target_compile_options(iris_trace PRIVATE -Wall -Wextra)
set_target_properties(iris_trace PROPERTIES POSITION_INDEPENDENT_CODE ON)

# ./attribute at the repository root forwards to build/attribute.
add_executable(attribute ${_t}/../../tools/attribute.cpp)
target_link_libraries(attribute PRIVATE iris_trace)
target_compile_options(attribute PRIVATE -Wall -Wextra)
set_target_properties(attribute PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})

# libFuzzer target on the importer (clang only): -DIRIS_FUZZ=ON with CXX=clang++.
option(IRIS_FUZZ "Build the libFuzzer target fuzz_kineto_import (needs clang)" OFF)
if(IRIS_FUZZ)
  add_executable(fuzz_kineto_import ${CMAKE_CURRENT_LIST_DIR}/../../tests/fuzz/fuzz_kineto_import.cpp)
  target_link_libraries(fuzz_kineto_import PRIVATE iris_trace)
  target_compile_options(fuzz_kineto_import PRIVATE -fsanitize=fuzzer)
  target_link_options(fuzz_kineto_import PRIVATE -fsanitize=fuzzer)
  target_compile_options(iris_trace PRIVATE -fsanitize=fuzzer-no-link)  # coverage for the fuzzer
endif()
