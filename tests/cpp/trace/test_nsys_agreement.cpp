// The Nsight Systems reader against Nsight Systems itself, on the five real exports of
// tests/data/nsys: per-API call counts and total times, per-kernel and per-range totals and
// per-kind copy totals from the imported records equal what `nsys stats` reports on the same
// file (tests/data/nsys/expected, made by tests/nsys_expected.sh; the ctest
// nsys_stats_reference checks that they are still what the packaged nsys says).
// The differences are by definition, and each is applied here to nsys's side:
//   - cudaapisum strips only a 4-digit version suffix (_v3020, not _v11060): names are compared
//     without any, summing the rows that then share a name;
//   - cudaapisum also counts the copies of calls that --cudabacktrace records (eventClass 67),
//     which the reader counts once: the copies, read here straight from the file, are added
//     to the reader's sums;
//   - nvtxsum names each PyTorch op range apart ("aten::view, op_id = 314290"): summed by op,
//     as the reader names them.
// (The normalisations here are the test's own regular expressions, not the reader's code.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "trace/analyze/step_report.h"
#include "trace/import/nsys/sqlite_db.h"
#include "trace/import/trace_file.h"
#include "trace_test_util.h"

namespace {

struct Sum {
  uint64_t count = 0, total_ns = 0;
  bool operator==(const Sum& o) const { return count == o.count && total_ns == o.total_ns; }
};
std::ostream& operator<<(std::ostream& os, const Sum& s) {
  return os << s.count << " x, " << s.total_ns << " ns";
}
using Sums = std::map<std::string, Sum>;

std::string read_all(const std::string& path) {
  auto src = trace::open_byte_source(path);
  std::string out, chunk(1 << 16, '\0');
  for (size_t k; (k = src->read(chunk.data(), chunk.size())) > 0;) out.append(chunk.data(), k);
  return out;
}

// RFC 4180 rows (quoted fields with "" for a quote), the header row first.
std::vector<std::vector<std::string>> csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows(1);
  std::string field;
  bool quoted = false;
  rows.back().reserve(12);
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"')
        field += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        field += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      rows.back().push_back(field), field.clear();
    } else if (c == '\n') {
      rows.back().push_back(field), field.clear();
      rows.emplace_back();
    } else if (c != '\r') {
      field += c;
    }
  }
  if (!field.empty() || !rows.back().empty()) rows.back().push_back(field);
  if (rows.back().empty()) rows.pop_back();
  return rows;
}

// One nsys stats report of one export, summed by `name` (after `key`), or empty when nsys
// skipped the report (no data of its kind).
template <typename Key>
Sums report(const std::string& export_name, const std::string& which, const char* count_col,
            const char* name_col, Key key) {
  const auto rows =
      csv(read_all(tracetest::data("nsys/expected/" + export_name + "_" + which + ".csv.gz")));
  Sums out;
  if (rows.empty()) return out;
  const auto col = [&](const char* name) {
    for (size_t i = 0; i < rows[0].size(); ++i)
      if (rows[0][i] == name) return i;
    ADD_FAILURE() << which << ": no column " << name;
    return size_t{0};
  };
  const size_t total = col("Total Time (ns)"), count = col(count_col), name = col(name_col);
  for (size_t r = 1; r < rows.size(); ++r) {
    Sum& s = out[key(rows[r], rows[r][name])];
    s.count += std::stoull(rows[r][count]);
    s.total_ns += std::stoull(rows[r][total]);
  }
  return out;
}

std::string without_version(const std::string& api) {
  return std::regex_replace(api, std::regex("_v[0-9]+$"), "");
}
std::string op_of(const std::string& range) {
  return std::regex_replace(range.empty() ? "(unnamed)" : range,
                            std::regex(", (seq|op_id|sizes) = .*$"), "");
}

template <typename T>
void add(Sums* s, const std::string& key, const T& record) {
  ++(*s)[key].count;
  (*s)[key].total_ns += record.end_ns - record.start_ns;
}

const char* memcpy_label(trace::CopyKind k) {
  switch (k) {
    case trace::CopyKind::HtoD:
      return "[CUDA memcpy HtoD]";
    case trace::CopyKind::DtoH:
      return "[CUDA memcpy DtoH]";
    case trace::CopyKind::DtoD:
      return "[CUDA memcpy DtoD]";
    case trace::CopyKind::HtoH:
      return "[CUDA memcpy HtoH]";
    default:
      return "other";
  }
}

class NsysAgreement : public testing::TestWithParam<const char*> {
 protected:
  std::string path() const {
    return tracetest::data(std::string("nsys/") + GetParam() + ".sqlite.gz");
  }
};

TEST_P(NsysAgreement, ApiCallsAsCudaApiSum) {
  const auto t = trace::import_file(path());
  Sums ours;
  for (const auto& a : t.records.api) add(&ours, a.name, a);
  // The --cudabacktrace copies the reader counts once, straight from the file.
  std::string bytes = read_all(path());
  const auto db = trace::SqliteDb::open_bytes(std::move(bytes), path());
  if (db.columns("CUPTI_ACTIVITY_KIND_RUNTIME").count("eventClass")) {
    auto row = db.query(
        "SELECT r.rowid, s.value, r.start, r.end FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds "
        "s"
        " ON s.id = r.nameId WHERE r.eventClass = 67",
        "CUPTI_ACTIVITY_KIND_RUNTIME");
    while (row.next()) {
      Sum& s = ours[without_version(std::string(*row.opt_text(1, "value")))];
      ++s.count;
      s.total_ns += static_cast<uint64_t>(row.req_int(3, "end") - row.req_int(2, "start"));
    }
  }
  const Sums nsys = report(GetParam(), "cudaapisum", "Num Calls", "Name",
                           [](const auto&, const std::string& n) { return without_version(n); });
  ASSERT_FALSE(nsys.empty());
  EXPECT_EQ(ours, nsys);
}

TEST_P(NsysAgreement, KernelsAsGpuKernSum) {
  const auto t = trace::import_file(path());
  Sums ours;
  for (const auto& k : t.records.kernels) add(&ours, k.name, k);
  const Sums nsys = report(GetParam(), "gpukernsum", "Instances", "Name",
                           [](const auto&, const std::string& n) { return n; });
  ASSERT_FALSE(nsys.empty());
  EXPECT_EQ(ours, nsys);
}

TEST_P(NsysAgreement, RangesAsNvtxSum) {
  const auto t = trace::import_file(path());
  Sums ours;
  for (const auto& o : t.records.cpu_ops) add(&ours, "PushPop " + o.name, o);
  for (const auto& a : t.records.annotations) add(&ours, "StartEnd " + a.name, a);
  const Sums nsys = report(GetParam(), "nvtxsum", "Instances", "Range",
                           [](const auto& row, const std::string& n) {
                             return row[8] + " " + op_of(n);  // column 8: Style
                           });
  EXPECT_EQ(ours, nsys);
}

TEST_P(NsysAgreement, CopiesAndMemsetsAsGpuMemTimeSum) {
  const auto t = trace::import_file(path());
  Sums ours;
  for (const auto& m : t.records.memcpys) add(&ours, memcpy_label(m.kind), m);
  for (const auto& m : t.records.memsets) add(&ours, "[CUDA memset]", m);
  const Sums nsys = report(GetParam(), "gpumemtimesum", "Count", "Operation",
                           [](const auto&, const std::string& n) {
                             for (auto k : {trace::CopyKind::HtoD, trace::CopyKind::DtoH,
                                            trace::CopyKind::DtoD, trace::CopyKind::HtoH})
                               if (n == memcpy_label(k)) return n;
                             return std::string(n == "[CUDA memset]" ? n : "other");
                           });
  ASSERT_FALSE(nsys.empty());
  EXPECT_EQ(ours, nsys);
}

// Per kernel name, API / queue / kernel time as Nsight Systems' cuda_kern_exec_sum defines them
// (the packaged nsys, 2022.4, has no such report): each kernel joined in SQL to the runtime
// call of its process with its correlation id; API = call end - start, queue = kernel start -
// call end when positive, kernel = end - start (a call's --cudabacktrace copy left out); counts,
// totals, extremes and medians computed here from those rows, against ./attribute's table
// (kernel_times.h).
TEST_P(NsysAgreement, KernelTimesAsCudaKernExecSumBySql) {
  const auto t = trace::import_file(path());
  const auto rep = trace::build_report(t);
  std::string bytes = read_all(path());
  const auto db = trace::SqliteDb::open_bytes(std::move(bytes), path());
  struct Rows {
    std::vector<uint64_t> api, queue, kernel;
  };
  std::map<std::string, Rows> sql;
  // A call's --cudabacktrace copy (eventClass 67) is the same call: left out, as the reader does.
  const bool copies = db.columns("CUPTI_ACTIVITY_KIND_RUNTIME").count("eventClass") > 0;
  auto row = db.query(
      "SELECT k.rowid, s.value, r.start, r.end, k.start, k.end FROM CUPTI_ACTIVITY_KIND_KERNEL k "
      "JOIN CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId AND "
      "r.globalTid / 16777216 = k.globalPid / 16777216 JOIN StringIds s ON s.id = k.demangledName" +
          std::string(copies ? " WHERE r.eventClass IS NOT 67" : ""),
      "CUPTI_ACTIVITY_KIND_KERNEL");
  uint64_t joined = 0;
  while (row.next()) {
    Rows& r = sql[std::string(*row.opt_text(1, "value"))];
    const int64_t call_start = row.req_int(2, "start"), call_end = row.req_int(3, "end");
    const int64_t start = row.req_int(4, "start"), end = row.req_int(5, "end");
    r.api.push_back(static_cast<uint64_t>(call_end - call_start));
    if (start > call_end) r.queue.push_back(static_cast<uint64_t>(start - call_end));
    r.kernel.push_back(static_cast<uint64_t>(end - start));
    ++joined;
  }
  ASSERT_GT(joined, 0u);
  EXPECT_EQ(joined + rep.kernels.kernels_without_call, t.records.kernels.size());
  const auto expect_stats = [](std::vector<uint64_t> v, const trace::TimeStats& s,
                               const std::string& what) {
    std::sort(v.begin(), v.end());
    ASSERT_EQ(s.count, v.size()) << what;
    if (v.empty()) return;
    uint64_t total = 0;
    for (uint64_t x : v) total += x;
    EXPECT_EQ(s.total_ns, total) << what;
    EXPECT_EQ(s.min_ns, v.front()) << what;
    EXPECT_EQ(s.max_ns, v.back()) << what;
    const size_t n = v.size();
    EXPECT_DOUBLE_EQ(s.median_ns, n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0) << what;
  };
  ASSERT_EQ(rep.kernels.by_name.size(), sql.size());
  for (const auto& k : rep.kernels.by_name) {
    const auto it = sql.find(k.name);
    ASSERT_NE(it, sql.end()) << k.name;
    expect_stats(it->second.api, k.api, k.name + " API");
    expect_stats(it->second.queue, k.queue, k.name + " queue");
    expect_stats(it->second.kernel, k.kernel, k.name + " kernel");
  }
}

// ./attribute itself on the export: a sync table with every blocking call, exit 0.
TEST_P(NsysAgreement, AttributePrintsItsSyncTable) {
  const auto t = trace::import_file(path());
  const auto rep = trace::build_report(t);
  EXPECT_FALSE(rep.syncs.calls.empty());
  const std::string cmd = std::string(ATTRIBUTE_BIN) + " " + path() + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  std::string out;
  char buf[4096];
  for (size_t k; (k = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, k);
  EXPECT_EQ(pclose(p), 0) << out;
  EXPECT_EQ(rep.syncs.syncs + rep.syncs.blocking_copies, rep.syncs.calls.size());
  EXPECT_NE(out.find("blocking calls, by the innermost op that issued them: " +
                     std::to_string(rep.syncs.syncs) + " syncs ("),
            std::string::npos)
      << out;
  EXPECT_NE(out.find(" + " + std::to_string(rep.syncs.blocking_copies) + " blocking copies ("),
            std::string::npos)
      << out;
}

INSTANTIATE_TEST_SUITE_P(RealExports, NsysAgreement,
                         testing::Values("a100-saxpy-mpi", "gtx1060-concurrent-streams",
                                         "h100-pytorch-2gpu", "rtx3080-small",
                                         "t4-power-iteration"),
                         [](const testing::TestParamInfo<const char*>& i) {
                           std::string n = i.param;
                           for (char& c : n)
                             if (c == '-') c = '_';
                           return n;
                         });

}  // namespace
