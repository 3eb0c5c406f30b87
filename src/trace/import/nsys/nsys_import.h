// Nsight Systems SQLite exports (`nsys export --type sqlite`) -> the suite's records, so that
// attribution, sync causes, steps and pages read them as they read a Kineto trace.
//
// Tables (../../../../docs/nsight-systems.md): CUPTI_ACTIVITY_KIND_RUNTIME (runtime and driver
// calls, eventClass 0/1; the copies made by --cudabacktrace, eventClass 67, are counted once)
// -> ApiRecord, its name without the entry point's version (cudaLaunchKernel_v7000 ->
// cudaLaunchKernel); _KERNEL (demangledName) -> KernelRecord; _MEMCPY -> MemcpyRecord;
// _MEMSET -> MemsetRecord; _SYNCHRONIZATION -> SyncRecord; NVTX_EVENTS push/pop ranges ->
// CpuOpRecord (the op a sync is charged to: PyTorch's NVTX emission names the aten:: op) and
// start/end ranges -> AnnotationRecord, named as `nsys stats` names them ("domain:text");
// ranges of the caller's NsysOptions::phase_domain (bench's "iris") are also its phases
// (HostRange), and those named NsysOptions::step_phase the steps; a range named ProfilerStep#N
// is a step, as in a Kineto trace.
// Ids: correlation ids are per process in an export of several processes, so each (process,
// id) gets an id of its own; a thread is its OS thread id (globalTid's low 24 bits) unless two
// processes share one. Times are the export's ns, shifted only if some are negative.
#pragma once

#include <cstdint>
#include <string>

#include "trace/import/nsys/sqlite_db.h"
#include "trace/model/imported_trace.h"

namespace trace {

struct NsysOptions {
  bool kernel_names = true;  // KernelRecord::name (./attribute leaves them out, as for Kineto)
  // As ImportOptions' (kineto_import.h): the phase that is one step, and the NVTX domain whose
  // ranges are the program's phases; "" for none.
  std::string step_phase;
  std::string phase_domain;
};

// A plain .sqlite file on disk.
ImportedTrace import_nsys_sqlite(const std::string& path, const NsysOptions& options = {});
// An opened export (a decompressed .sqlite.gz, the fuzz target); `bytes`: its size, reported.
ImportedTrace import_nsys_sqlite(const SqliteDb& db, uint64_t bytes,
                                 const NsysOptions& options = {});

}  // namespace trace
