// PyTorch profiler (Kineto) and Chrome Trace Event JSON -> the suite's records (records.h).
// Reads plain or gzip files (by content), streaming: memory holds the records, not the file.
// The suite's own --trace_dir files (chrome_trace.h) import too, back to the same records
// up to a shift of the clock origin.
//
// Categories: cuda_runtime / cuda_driver (and older Runtime / Driver) -> ApiRecord, classified
// by name (records.h classify_api; HIP names like hipLaunchKernel classify the same way);
// kernel / Kernel; gpu_memcpy / Memcpy (direction and host memory kind from
// "Memcpy DtoH (Device -> Pinned)"); gpu_memset / Memset; cuda_sync -> SyncRecord; cpu_op /
// Operator -> CpuOpRecord; user_annotation / gpu_user_annotation -> AnnotationRecord;
// ProfilerStep#N (any host category) -> StepRecord; our own "phase" -> HostRange;
// python_function (with_stack=True) -> PyFrameRecord, each distinct name once in frame_names.
// Times: Kineto's microseconds (integers, or decimals with ns resolution) are converted to
// integer ns from the number's text, exactly (no float multiply).
#pragma once

#include <cstdint>
#include <string>

#include "trace/import/byte_source.h"
#include "trace/model/imported_trace.h"

namespace trace {

struct ImportOptions {
  // Also list every event with a category, a start and a duration as the file wrote it
  // (ImportedTrace::listing; ./attribute --hta reads it).
  bool list_events = false;
  // With list_events, false lists the events and makes no records (ImportedTrace::records
  // stays empty): for HTA's frames, which read the listing alone, at a fraction of the
  // allocations. The file is checked as fully either way.
  bool records = true;
  unsigned threads = 0;  // parse workers (event_pipeline.h); 0: one per hardware thread
  // Kernel names (KernelRecord::name), hundreds of bytes each in a C++ build: nothing
  // ./attribute reports uses them, so it leaves them out (a third of a large trace's memory).
  bool kernel_names = true;
  // Without kernel_names: each distinct kernel name once, in RecordSet::kernel_names, each
  // kernel naming it by KernelRecord::name_id (the per-kernel table names kernels at the cost
  // of their distinct names only).
  bool kernel_name_ids = false;
  // traceEvents handed over in regions of whole events, found by their brackets alone
  // (json_event_stream.h), each parsed as one simdjson document, falling back to one document
  // per event (which names the first bad event) on any failure (event_parser.h). false: per
  // event only, the reference that the tests and the fuzz target hold the region parse to.
  bool region_parse = true;
  // Each region at least this long unless the input ends or the splitter's 1 MiB buffer
  // fills; the tests make it small to put region edges anywhere.
  size_t region_bytes = 256u << 10;
  // The phase that is one step of the program (RecordSet::step_phase; bench's "epoch",
  // capture/bench_names.h), "" for none: this library knows ProfilerStep#N and what its caller
  // names. Every reader sets it on its records.
  std::string step_phase;
  // An Nsight Systems export's NVTX ranges in this domain are also the program's phases
  // (HostRange; bench's "iris"), "" for none (nsys_import.h; a Kineto trace's phases are its
  // "phase" events).
  std::string phase_domain;
};

ImportedTrace import_trace(const std::string& path, const ImportOptions& options = {});
ImportedTrace import_trace(ByteSource& source, const std::string& name,
                           const ImportOptions& options = {});

}  // namespace trace
