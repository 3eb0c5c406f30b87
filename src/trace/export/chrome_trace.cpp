#include "trace/export/chrome_trace.h"

#include <cstdio>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "trace/export/json_out.h"

namespace trace {
namespace {

constexpr int kCpuPid = 1;
constexpr int kGpuPidBase = 100;  // GPU device d is process 100 + d

class Writer {
 public:
  explicit Writer(uint64_t origin) : origin_(origin) {}
  void complete(const std::string& name, const char* cat, int pid, uint64_t tid, uint64_t start,
                uint64_t end, const std::string& args = "") {
    begin_event();
    out_ << "{\"name\":\"" << json_escape(name) << "\",\"cat\":\"" << cat
         << "\",\"ph\":\"X\",\"pid\":" << pid << ",\"tid\":" << tid << ",\"ts\":" << us(start)
         << ",\"dur\":" << dur(start, end);
    if (!args.empty()) out_ << ",\"args\":{" << args << "}";
    out_ << "}";
  }
  // Flow start binds to the enclosing slice at ts; flow end ("bp":"e") to the slice
  // starting at ts on the other track.
  void flow(uint32_t id, int pid_from, uint64_t tid_from, uint64_t ts_from, int pid_to,
            uint64_t tid_to, uint64_t ts_to) {
    begin_event();
    out_ << "{\"name\":\"launch\",\"cat\":\"flow\",\"ph\":\"s\",\"id\":" << id
         << ",\"pid\":" << pid_from << ",\"tid\":" << tid_from << ",\"ts\":" << us(ts_from) << "}";
    begin_event();
    out_ << "{\"name\":\"launch\",\"cat\":\"flow\",\"ph\":\"f\",\"bp\":\"e\",\"id\":" << id
         << ",\"pid\":" << pid_to << ",\"tid\":" << tid_to << ",\"ts\":" << us(ts_to) << "}";
  }
  void metadata(const char* what, int pid, uint64_t tid, const std::string& name) {
    begin_event();
    out_ << "{\"name\":\"" << what << "\",\"ph\":\"M\",\"pid\":" << pid << ",\"tid\":" << tid
         << ",\"args\":{\"name\":\"" << json_escape(name) << "\"}}";
  }
  std::string finish(const std::string& clock) {
    return "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"clock\":\"" + clock +
           "\",\"producer\":\"iris-gpu-overhead bench\"},\"traceEvents\":[\n" + out_.str() +
           "\n]}\n";
  }

 private:
  void begin_event() {
    if (!first_) out_ << ",\n";
    first_ = false;
  }
  std::string us(uint64_t t) const { return fixed3(t >= origin_ ? t - origin_ : 0); }
  static std::string dur(uint64_t s, uint64_t e) { return fixed3(e > s ? e - s : 0); }
  static std::string fixed3(uint64_t ns) {  // ns -> "us.nnn"
    char buf[32];
    std::snprintf(buf, sizeof buf, "%llu.%03llu", static_cast<unsigned long long>(ns / 1000),
                  static_cast<unsigned long long>(ns % 1000));
    return buf;
  }
  uint64_t origin_;
  bool first_ = true;
  std::ostringstream out_;
};

}  // namespace

std::string chrome_trace_json(const RecordSet& r, uint64_t from_ns, uint64_t to_ns) {
  const auto keep = [&](uint64_t t) { return t >= from_ns && (to_ns == 0 || t <= to_ns); };
  uint64_t origin = UINT64_MAX;
  const auto see = [&](uint64_t t) {
    if (keep(t)) origin = std::min(origin, t);
  };
  for (const auto& x : r.ranges) see(x.start_ns);
  for (const auto& x : r.api) see(x.start_ns);
  for (const auto& x : r.kernels) see(x.start_ns);
  for (const auto& x : r.memcpys) see(x.start_ns);
  for (const auto& x : r.memsets) see(x.start_ns);
  Writer w(origin == UINT64_MAX ? 0 : origin);

  std::set<uint32_t> cpu_threads;
  std::set<std::pair<uint32_t, uint32_t>> gpu_streams;
  for (const auto& h : r.ranges) {
    if (!keep(h.start_ns)) continue;
    cpu_threads.insert(h.thread_id);
    w.complete(h.name, "phase", kCpuPid, h.thread_id, h.start_ns, h.end_ns,
               "\"depth\":" + std::to_string(h.depth));
  }
  std::map<uint32_t, const ApiRecord*> calls;
  for (const auto& a : r.api) {
    if (!keep(a.start_ns)) continue;
    cpu_threads.insert(a.thread_id);
    calls[a.correlation_id] = &a;
    w.complete(a.name, a.driver ? "cuda_driver" : "cuda_runtime", kCpuPid, a.thread_id, a.start_ns,
               a.end_ns,
               "\"kind\":\"" + std::string(to_string(a.kind)) +
                   "\",\"correlation\":" + std::to_string(a.correlation_id));
  }
  const auto gpu_event = [&](const std::string& name, const char* cat, uint32_t device,
                             uint32_t stream, uint64_t s, uint64_t e, uint32_t corr,
                             const std::string& args) {
    gpu_streams.insert({device, stream});
    const int pid = kGpuPidBase + static_cast<int>(device);
    w.complete(name, cat, pid, stream, s, e,
               args + (args.empty() ? "" : ",") + "\"correlation\":" + std::to_string(corr));
    if (auto it = calls.find(corr); corr && it != calls.end())
      // Midpoints, so each end binds to the slice that encloses it whatever the rounding.
      w.flow(corr, kCpuPid, it->second->thread_id, (it->second->start_ns + it->second->end_ns) / 2,
             pid, stream, (s + e) / 2);
  };
  for (const auto& k : r.kernels)
    if (keep(k.start_ns))
      gpu_event(k.name, "kernel", k.device_id, k.stream_id, k.start_ns, k.end_ns, k.correlation_id,
                "");
  for (const auto& m : r.memcpys)
    if (keep(m.start_ns))
      gpu_event(std::string("Memcpy ") + to_string(m.kind), "memcpy", m.device_id, m.stream_id,
                m.start_ns, m.end_ns, m.correlation_id,
                "\"bytes\":" + std::to_string(m.bytes) + ",\"src\":\"" + to_string(m.src) +
                    "\",\"dst\":\"" + to_string(m.dst) + "\"");
  for (const auto& m : r.memsets)
    if (keep(m.start_ns))
      gpu_event("Memset", "memset", m.device_id, m.stream_id, m.start_ns, m.end_ns,
                m.correlation_id, "\"bytes\":" + std::to_string(m.bytes));

  w.metadata("process_name", kCpuPid, 0, "CPU");
  for (auto t : cpu_threads) w.metadata("thread_name", kCpuPid, t, "thread " + std::to_string(t));
  std::set<uint32_t> devices;
  for (auto [d, s] : gpu_streams) {
    devices.insert(d);
    w.metadata("thread_name", kGpuPidBase + static_cast<int>(d), s, "stream " + std::to_string(s));
  }
  for (auto d : devices)
    w.metadata("process_name", kGpuPidBase + static_cast<int>(d), 0, "GPU " + std::to_string(d));
  return w.finish(r.clock);
}

}  // namespace trace
