// Writes the Chrome trace of testdata::one_epoch() to argv[1], for tests/smoke's parser
// test (ctest runs this first: FIXTURES_SETUP synthetic_trace).
#include <cstdio>
#include <exception>

#include "synthetic_records.h"
#include "trace/export/chrome_trace.h"
#include "trace/export/write_file.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_synthetic_trace OUT.trace.json\n");
    return 2;
  }
  try {
    trace::write_file_atomically(argv[1], trace::chrome_trace_json(testdata::one_epoch()));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_synthetic_trace: %s\n", e.what());
    return 1;
  }
  return 0;
}
