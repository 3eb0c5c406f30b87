# iris_trace: records, attribution, Chrome trace export and import, sync causes, the HTA
# mode; no LibTorch, no CUDA. bench links it through iris_core; ./attribute is built from it
# alone. Included by the root CMakeLists.txt before LibTorch is looked for, so
# -DIRIS_TRACE_ONLY=ON builds just this in seconds.
find_package(simdjson REQUIRED)   # Debian: libsimdjson-dev
find_package(ZLIB REQUIRED)       # Debian: zlib1g-dev

add_library(iris_trace STATIC
  ${CMAKE_CURRENT_LIST_DIR}/records.cpp
  ${CMAKE_CURRENT_LIST_DIR}/attribution.cpp
  ${CMAKE_CURRENT_LIST_DIR}/chrome_trace.cpp
  ${CMAKE_CURRENT_LIST_DIR}/byte_source.cpp
  ${CMAKE_CURRENT_LIST_DIR}/json_event_stream.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kineto_import.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sync_causes.cpp
  ${CMAKE_CURRENT_LIST_DIR}/step_report.cpp
  ${CMAKE_CURRENT_LIST_DIR}/hta_breakdown.cpp
  ${CMAKE_CURRENT_LIST_DIR}/json_out.cpp
)
target_include_directories(iris_trace PUBLIC ${CMAKE_CURRENT_LIST_DIR}/..)
find_package(Threads REQUIRED)
target_link_libraries(iris_trace PUBLIC simdjson::simdjson ZLIB::ZLIB Threads::Threads)
target_compile_options(iris_trace PRIVATE -Wall -Wextra)
set_target_properties(iris_trace PROPERTIES POSITION_INDEPENDENT_CODE ON)

# ./attribute at the repository root forwards to build/attribute.
add_executable(attribute ${CMAKE_CURRENT_LIST_DIR}/attribute_main.cpp)
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
