#include "hta_frames_py.h"

#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <map>
#include <utility>

#include "arrays.h"
#include "quiet_signals.h"
#include "trace/analyze/hta_frames.h"
#include "trace/import/trace_file.h"

namespace pyiris {

nanobind::dict hta_frames_py(const std::vector<std::string>& paths, bool ns_rounding) {
  std::map<int64_t, trace::HtaFrame> frames;
  {
    nb::gil_scoped_release release;
    pyiris::QuietSignals quiet;
    trace::ImportOptions io;  // the listing alone: HTA's rows come from it (hta_rows.h)
    io.list_events = true, io.records = false;
    std::vector<trace::ImportedTrace> traces;
    for (const auto& p : paths) traces.push_back(trace::import_file(p, io));
    std::vector<const trace::ImportedTrace*> ptrs;
    for (const auto& t : traces) ptrs.push_back(&t);
    trace::HtaOptions opt;
    opt.ns_rounding = ns_rounding;
    frames = trace::hta_frames(ptrs, opt);
  }
  nb::dict out;
  for (auto& [rank, f] : frames) {
    nb::dict d;
    d["ts_bits"] = f.ts_bits, d["dur_bits"] = f.dur_bits;
    d["stream_bits"] = f.stream_bits, d["correlation_bits"] = f.correlation_bits;
    d["int_wrapped"] = f.int_wrapped;
    d["gpu_index"] = to_numpy(std::move(f.gpu_index));
    d["gpu_stream"] = to_numpy(std::move(f.gpu_stream));
    d["gpu_correlation"] = to_numpy(std::move(f.gpu_correlation));
    d["gpu_index_correlation"] = to_numpy(std::move(f.gpu_index_correlation));
    d["gpu_ts"] = to_numpy(std::move(f.gpu_ts)), d["gpu_dur"] = to_numpy(std::move(f.gpu_dur));
    d["gpu_kernel_cat"] = to_numpy(std::move(f.gpu_kernel_cat));
    d["gpu_compute"] = to_numpy(std::move(f.gpu_compute));
    d["runtime_index"] = to_numpy(std::move(f.runtime_index));
    d["runtime_ts"] = to_numpy(std::move(f.runtime_ts));
    d["launch_correlations"] = to_numpy(std::move(f.launch_correlations));
    d["cpu_correlation"] = to_numpy(std::move(f.cpu_correlation));
    d["cpu_ts"] = to_numpy(std::move(f.cpu_ts)), d["cpu_dur"] = to_numpy(std::move(f.cpu_dur));
    out[nb::int_(rank)] = d;
  }
  return out;
}

void register_hta(nb::module_& m) {
  using namespace nb::literals;
  m.def("hta_frames", &hta_frames_py, "paths"_a, "ns_rounding"_a = true,
        "HTA 0.5.0's loaded rows of every rank (trace/analyze/hta_frames.h), as arrays.");
}

}  // namespace pyiris
