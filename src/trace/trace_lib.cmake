# iris_trace: the torch-free trace library (src/README.md draws its layers): the
# records model, the importers, the analyses and the writers; no LibTorch, no CUDA, no CUPTI
# (tests/check_layers.py enforces it). bench links it through iris_core; ./attribute
# (tools/attribute.cpp) is built from it alone. Included by the root CMakeLists.txt before
# LibTorch is looked for, so -DIRIS_TRACE_ONLY=ON builds just this in seconds.
find_package(simdjson REQUIRED)   # Debian: libsimdjson-dev
# zlib: the library by its soname first, so every machine links the same way as the GPU
# machine, which has libz.so.1 (every Python links it) but neither zlib's headers nor the
# libz.so link of zlib1g-dev (scripts/fetch_gpu_deps.sh carries the headers, without that link:
# Debian's points to an absolute path the machine does not have).
find_library(ZLIB_LIBRARY NAMES libz.so.1 z)
find_package(ZLIB REQUIRED)       # Debian: zlib1g-dev (headers)
# ISA-L's igzip inflates gzip traces ~10x faster than zlib (inflate.h); zlib is the fallback
# when it is missing. Debian: libisal-dev (runtime libisal2). Found by header and library, not
# pkg-config, so that a copy unpacked under CMAKE_PREFIX_PATH (the GPU machine's .deps) works.
# -DIRIS_WITH_ISAL=OFF builds without it.
option(IRIS_WITH_ISAL "Inflate gzip traces with ISA-L when found" ON)
if(IRIS_WITH_ISAL)
  find_path(ISAL_INCLUDE_DIR isa-l/igzip_lib.h)
  find_library(ISAL_LIBRARY isal)
endif()
if(IRIS_WITH_ISAL AND ISAL_INCLUDE_DIR AND ISAL_LIBRARY)
  add_library(iris::isal UNKNOWN IMPORTED)
  set_target_properties(iris::isal PROPERTIES IMPORTED_LOCATION ${ISAL_LIBRARY}
                        INTERFACE_INCLUDE_DIRECTORIES ${ISAL_INCLUDE_DIR})
  message(STATUS "iris: gzip traces inflate with ISA-L (${ISAL_LIBRARY})")
else()
  message(STATUS "iris: gzip traces inflate with zlib (ISA-L not found: Debian libisal-dev)")
endif()
find_package(SQLite3 REQUIRED)    # Debian: libsqlite3-dev (Nsight Systems exports)

set(_t ${CMAKE_CURRENT_LIST_DIR})
add_library(iris_trace STATIC
  ${_t}/model/records.cpp
  ${_t}/import/byte_source.cpp
  ${_t}/import/inflate.cpp
  ${_t}/import/inflate_zlib.cpp
  ${_t}/import/kineto/json_event_stream.cpp
  ${_t}/import/kineto/event_parser.cpp
  ${_t}/import/kineto/kineto_import.cpp
  ${_t}/import/kineto/kineto_numbers.cpp
  ${_t}/import/kineto/trace_folder.cpp
  ${_t}/import/common/finish_records.cpp
  ${_t}/import/nsys/sqlite_db.cpp
  ${_t}/import/nsys/nsys_schema.cpp
  ${_t}/import/nsys/nsys_values.cpp
  ${_t}/import/nsys/nsys_import.cpp
  ${_t}/import/nsys/nsys_report.cpp
  ${_t}/import/trace_file.cpp
  ${_t}/analyze/attribution.cpp
  ${_t}/analyze/launch_queue.cpp
  ${_t}/analyze/kernel_times.cpp
  ${_t}/analyze/blocking_calls.cpp
  ${_t}/analyze/sync_causes.cpp
  ${_t}/analyze/sync_drain.cpp
  ${_t}/analyze/frame_kinds.cpp
  ${_t}/analyze/call_sites.cpp
  ${_t}/analyze/graph_breaks.cpp
  ${_t}/analyze/advice.cpp
  ${_t}/analyze/program_words.cpp
  ${_t}/analyze/trace_diff.cpp
  ${_t}/analyze/range_queue.cpp
  ${_t}/analyze/step_report.cpp
  ${_t}/analyze/step_bounds.cpp
  ${_t}/analyze/hta_critical_path.cpp
  ${_t}/analyze/diagnosis.cpp
  ${_t}/analyze/steps_from_ranges.cpp
  ${_t}/analyze/hta_breakdown.cpp
  ${_t}/analyze/hta_comm.cpp
  ${_t}/analyze/hta_frames.cpp
  ${_t}/analyze/hta_idle.cpp
  ${_t}/analyze/hta_intervals.cpp
  ${_t}/analyze/hta_kernels.cpp
  ${_t}/analyze/hta_launch.cpp
  ${_t}/analyze/hta_memory.cpp
  ${_t}/analyze/hta_numeric.cpp
  ${_t}/analyze/hta_queue.cpp
  ${_t}/analyze/hta_rows.cpp
  ${_t}/analyze/hta_straggler.cpp
  ${_t}/analyze/hta_temporal.cpp
  ${_t}/analyze/replay/measured_steps.cpp
  ${_t}/analyze/replay/graph.cpp
  ${_t}/analyze/replay/host_chain.cpp
  ${_t}/analyze/replay/gpu_edges.cpp
  ${_t}/analyze/replay/sync_waits.cpp
  ${_t}/analyze/replay/simulate.cpp
  ${_t}/analyze/replay/sites.cpp
  ${_t}/analyze/replay/queue_waits.cpp
  ${_t}/analyze/replay/run_ahead.cpp
  ${_t}/analyze/replay/transforms.cpp
  ${_t}/analyze/replay/gpu_constants.cpp
  ${_t}/analyze/replay/graph_capture.cpp
  ${_t}/analyze/replay/log_every.cpp
  ${_t}/analyze/replay/what_if_spec.cpp
  ${_t}/analyze/replay/replay_graph.cpp
  ${_t}/analyze/replay/evaluate.cpp
  ${_t}/analyze/replay/accuracy.cpp
  ${_t}/analyze/replay/what_if.cpp
  ${_t}/analyze/replay/what_if_notes.cpp
  ${_t}/export/json_out.cpp
  ${_t}/export/chrome_trace.cpp
  ${_t}/export/report_json.cpp
  ${_t}/export/report_text.cpp
  ${_t}/export/hta_out.cpp
  ${_t}/export/call_sites_out.cpp
  ${_t}/export/graph_breaks_out.cpp
  ${_t}/export/advice_out.cpp
  ${_t}/export/diagnosis_out.cpp
  ${_t}/export/html_page.cpp
  ${_t}/export/replay_json.cpp
  ${_t}/export/replay_text.cpp
  ${_t}/export/diff_text.cpp
  ${_t}/export/diff_json.cpp
  ${_t}/export/frames.cpp
  ${_t}/export/output_schema.cpp
  ${_t}/export/write_file.cpp
  ${_t}/run/run.cpp
)
target_include_directories(iris_trace PUBLIC ${CMAKE_CURRENT_LIST_DIR}/..)
find_package(Threads REQUIRED)
target_link_libraries(iris_trace PUBLIC simdjson::simdjson ZLIB::ZLIB SQLite::SQLite3 Threads::Threads)
if(TARGET iris::isal)
  target_sources(iris_trace PRIVATE ${_t}/import/inflate_isal.cpp)
  target_link_libraries(iris_trace PRIVATE iris::isal)
  target_compile_definitions(iris_trace PRIVATE IRIS_HAVE_ISAL)
endif()
target_compile_options(iris_trace PRIVATE -Wall -Wextra)
# HTA's figures reproduce numpy's and pandas' arithmetic to the last bit (analyze/hta_numeric.h):
# numpy never fuses a*b+c, so neither may these files, whatever -march a build adds.
set_source_files_properties(
  ${_t}/analyze/hta_comm.cpp ${_t}/analyze/hta_frames.cpp ${_t}/analyze/hta_idle.cpp ${_t}/analyze/hta_intervals.cpp
  ${_t}/analyze/hta_launch.cpp ${_t}/analyze/hta_numeric.cpp ${_t}/analyze/hta_queue.cpp ${_t}/analyze/hta_temporal.cpp
  ${_t}/analyze/hta_straggler.cpp
  PROPERTIES COMPILE_OPTIONS -ffp-contract=off)
set_target_properties(iris_trace PROPERTIES POSITION_INDEPENDENT_CODE ON)

# ./attribute at the repository root forwards to build/attribute.
# Its flags are parsed by CLI11 (Debian: libcli11-dev, header-only), as bench's are.
find_package(CLI11 CONFIG REQUIRED)
add_executable(attribute ${_t}/../../tools/attribute.cpp)
target_link_libraries(attribute PRIVATE iris_trace CLI11::CLI11)
# Its --help, kept as text beside it (tools/attribute_usage.txt), compiled in as a string.
set(_usage_txt ${_t}/../../tools/attribute_usage.txt)
file(READ ${_usage_txt} IRIS_ATTRIBUTE_USAGE)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_usage_txt})
file(CONFIGURE OUTPUT ${CMAKE_BINARY_DIR}/generated/attribute_usage.h
     CONTENT "#pragma once\nconstexpr const char* kUsageText = R\"usage(${IRIS_ATTRIBUTE_USAGE})usage\";\n"
     @ONLY)
target_include_directories(attribute PRIVATE ${CMAKE_BINARY_DIR}/generated)
target_compile_options(attribute PRIVATE -Wall -Wextra)
# The version of ./attribute's JSON, written once for the writer and for its reader
# (run/run.cpp stamps it; the package and the analysis read it from there).
set(_version_file ${_t}/export/attribute_json_version.txt)
file(STRINGS ${_version_file} IRIS_ATTRIBUTE_JSON_VERSION LIMIT_COUNT 1)
if(NOT IRIS_ATTRIBUTE_JSON_VERSION MATCHES "^[0-9]+$")
  message(FATAL_ERROR "${_version_file}: expected one line holding a whole number, got "
                      "'${IRIS_ATTRIBUTE_JSON_VERSION}'")
endif()
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${_version_file})
set_source_files_properties(${_t}/run/run.cpp PROPERTIES COMPILE_DEFINITIONS
                            IRIS_ATTRIBUTE_JSON_VERSION=${IRIS_ATTRIBUTE_JSON_VERSION})
set_target_properties(attribute PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})

# libFuzzer targets (clang only): -DIRIS_FUZZ=ON with CXX=clang++. fuzz_kineto_import and
# fuzz_nsys_import: the importers; fuzz_inflate: ISA-L's and zlib's gzip decoders against each
# other; fuzz_replay: the replay (analyze/replay/) on imported JSON or on records made from the
# bytes directly (tests/cpp/trace/garbage_records.h).
option(IRIS_FUZZ "Build the libFuzzer targets fuzz_kineto_import, fuzz_nsys_import, fuzz_inflate and fuzz_replay (need clang)" OFF)
if(IRIS_FUZZ)
  foreach(_fuzz fuzz_kineto_import fuzz_nsys_import fuzz_inflate fuzz_replay)
    add_executable(${_fuzz} ${CMAKE_CURRENT_LIST_DIR}/../../tests/fuzz/${_fuzz}.cpp)
    target_link_libraries(${_fuzz} PRIVATE iris_trace)
    target_compile_options(${_fuzz} PRIVATE -fsanitize=fuzzer)
    target_link_options(${_fuzz} PRIVATE -fsanitize=fuzzer)
  endforeach()
  target_include_directories(fuzz_replay PRIVATE ${CMAKE_CURRENT_LIST_DIR}/../../tests/cpp/trace)
  target_compile_options(iris_trace PRIVATE -fsanitize=fuzzer-no-link)  # coverage for the fuzzers
endif()

# The parse limit ./attribute is measured against: simdjson alone over a trace's events, on
# every core (experiments/attribute_speed.py).
add_executable(json_parse_limit ${_t}/../../tools/json_parse_limit.cpp)
target_link_libraries(json_parse_limit PRIVATE iris_trace)
target_compile_options(json_parse_limit PRIVATE -Wall -Wextra)
set_target_properties(json_parse_limit PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
