// ./attribute's front door: which reader takes a file, decided by its content, never its
// name: a PyTorch profiler / Chrome trace (JSON, plain or gzip) goes to kineto/, an Nsight
// Systems SQLite export (plain or gzip) to nsys/, and Nsight Systems' own report or raw stream
// to nsys/ through an `nsys export` (nsys/nsys_report.h).
#pragma once

#include <string>

#include "trace/import/kineto/kineto_import.h"
#include "trace/model/imported_trace.h"

namespace trace {

enum class TraceFormat { KinetoJson, NsysSqlite, NsysReport, NsysRawStream };

const char* to_string(TraceFormat f);

// From the first bytes (decompressed when gzip). Throws InputError when it cannot be read.
TraceFormat detect_format(const std::string& path);

// Reads the file with the reader for its format. ImportOptions::list_events lists a Kineto
// trace's events; an Nsight Systems export has records only (its listing stays unlisted, and
// ImportOptions::records does not apply).
ImportedTrace import_file(const std::string& path, const ImportOptions& options = {});

}  // namespace trace
