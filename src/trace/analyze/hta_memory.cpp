#include "trace/analyze/hta_memory.h"

#include <map>
#include <string_view>

#include "trace/analyze/hta_kernels.h"

// File references below are to HolisticTraceAnalysis 0.5.0.
namespace trace {
namespace {

// utils.py, get_memory_kernel_type.
std::string memory_kernel_type(std::string_view n) {
  if (n.substr(0, 6) == "Memset") return "Memset";
  if (n.substr(0, 6) != "Memcpy") return "Memcpy Unknown";
  return std::string(n.substr(0, 11));
}

}  // namespace

HtaMemoryBw hta_memory_bw(const HtaFrame& f, const HtaTsOrder& order) {
  HtaMemoryBw out;
  std::vector<size_t> rows;
  for (size_t g = 0; g < f.gpu_ts.size(); ++g)
    if (hta_memory_kernel(f, g)) rows.push_back(g);
  // pd.concat of the starts (ts) and the ends (ts + dur): the wider integer type, or float64.
  out.ts_bits = f.ts_bits && f.end_bits() ? f.end_bits() : 0;
  std::vector<double> ts, bw;
  std::vector<size_t> gpu;
  bool wrapped = false;
  for (size_t g : rows)
    ts.push_back(f.gpu_ts[g]), bw.push_back(f.gpu_memory_bw[g]), gpu.push_back(g);
  for (size_t g : rows) {
    const double dur = f.gpu_dur[g] == 0 ? 1 : f.gpu_dur[g];  // HTA takes a 0 us copy as 1 us
    ts.push_back(column_op(f.gpu_ts[g], dur, f.end_bits(), &wrapped));
    bw.push_back(-f.gpu_memory_bw[g]), gpu.push_back(g);
  }
  std::vector<size_t> by_ts;
  order(ts, out.ts_bits, &by_ts);
  std::map<std::string, std::vector<size_t>> groups;  // groupby("name"): names sorted
  for (size_t k : by_ts) groups[memory_kernel_type(f.gpu_names[f.gpu_name[gpu[k]]])].push_back(k);
  for (const auto& [name, ks] : groups) {
    double running = 0;
    std::vector<double> positive;
    for (size_t k : ks) {
      running += bw[k];
      out.label.push_back(static_cast<int64_t>(k)), out.ts.push_back(ts[k]);
      out.bw.push_back(running), out.name.push_back(name), out.gpu.push_back(gpu[k]);
      if (running > 0) positive.push_back(running);
    }
    if (positive.empty()) continue;
    out.summary_name.push_back(name);
    out.summary.push_back(describe(positive));
  }
  return out;
}

}  // namespace trace
