#include "trace/import/trace_file.h"

#include <sys/stat.h>

#include <cstring>
#include <string_view>

#include "trace/import/nsys/nsys_import.h"
#include "trace/import/nsys/nsys_report.h"

namespace trace {

namespace {

constexpr std::string_view kSqliteMagic("SQLite format 3\0", 16);
constexpr std::string_view kReportMagic = "NVIDIA Tegra Profiler Report";  // .nsys-rep, .qdrep
constexpr std::string_view kStreamMark = "NVIDIA Nsight Systems Stream";  // .qdstrm, a few bytes in

// Up to n bytes from the start of a source (decompressed if gzip).
std::string head(ByteSource& s, size_t n) {
  std::string h(n, '\0');
  size_t got = 0;
  while (got < n) {
    const size_t k = s.read(&h[got], n - got);
    if (k == 0) break;
    got += k;
  }
  h.resize(got);
  return h;
}

// A gzip-compressed SQLite export, decompressed into memory (SQLite reads pages at random).
ImportedTrace import_sqlite_gz(const std::string& path, const NsysOptions& options) {
  auto source = open_byte_source(path);
  std::string bytes;
  std::string chunk(1 << 20, '\0');
  for (size_t k; (k = source->read(chunk.data(), chunk.size())) > 0;) bytes.append(chunk.data(), k);
  const uint64_t size = bytes.size();
  return import_nsys_sqlite(SqliteDb::open_bytes(std::move(bytes), path), size, options);
}

uint64_t source_bytes(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

}  // namespace

const char* to_string(TraceFormat f) {
  switch (f) {
    case TraceFormat::KinetoJson:
      return "Kineto / Chrome trace JSON";
    case TraceFormat::NsysSqlite:
      return "Nsight Systems SQLite export";
    case TraceFormat::NsysReport:
      return "Nsight Systems report";
    case TraceFormat::NsysRawStream:
      return "Nsight Systems raw stream (.qdstrm)";
  }
  return "?";
}

TraceFormat detect_format(const std::string& path) {
  auto source = open_byte_source(path);
  const std::string h = head(*source, 64);
  if (h.compare(0, kSqliteMagic.size(), kSqliteMagic) == 0) return TraceFormat::NsysSqlite;
  if (source->gzip()) return TraceFormat::KinetoJson;
  if (h.compare(0, kReportMagic.size(), kReportMagic) == 0) return TraceFormat::NsysReport;
  if (h.find(kStreamMark) != std::string::npos) return TraceFormat::NsysRawStream;
  return TraceFormat::KinetoJson;  // the JSON reader says what is wrong with anything else
}

ImportedTrace import_file(const std::string& path, const ImportOptions& options) {
  const TraceFormat format = detect_format(path);
  if (format == TraceFormat::KinetoJson) return import_trace(path, options);
  NsysOptions nsys;
  nsys.kernel_names = options.kernel_names || options.kernel_name_ids;
  nsys.step_phase = options.step_phase;
  nsys.phase_domain = options.phase_domain;
  if (format == TraceFormat::NsysSqlite) {
    auto source = open_byte_source(path);
    if (source->gzip()) return import_sqlite_gz(path, nsys);
    return import_nsys_sqlite(path, nsys);
  }
  const NsysExport exported(path, format == TraceFormat::NsysRawStream);
  const auto db = SqliteDb::open_file(exported.sqlite(), path + " (as exported by nsys)");
  ImportedTrace t = import_nsys_sqlite(db, source_bytes(exported.sqlite()), nsys);
  t.file = path;  // the user's file, not the temporary export
  return t;
}

}  // namespace trace
