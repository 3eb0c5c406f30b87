#include "trace/analyze/replay/gpu_constants.h"

#include <cctype>
#include <string_view>

namespace trace::replay {

namespace {

// `word` is one of the name's words (split at anything but letters and digits), case aside.
bool has_word(std::string_view name, std::string_view word) {
  size_t i = 0;
  while (i < name.size()) {
    while (i < name.size() && !std::isalnum(static_cast<unsigned char>(name[i]))) ++i;
    size_t j = i;
    while (j < name.size() && std::isalnum(static_cast<unsigned char>(name[j]))) ++j;
    if (j - i == word.size()) {
      bool same = true;
      for (size_t k = 0; k < word.size() && same; ++k)
        same = std::toupper(static_cast<unsigned char>(name[i + k])) ==
               std::toupper(static_cast<unsigned char>(word[k]));
      if (same) return true;
    }
    i = j;
  }
  return false;
}

bool name_matches(std::string_view name, std::string_view words) {
  while (!words.empty()) {
    const size_t bar = words.find('|');
    if (has_word(name, words.substr(0, bar))) return true;
    if (bar == std::string_view::npos) break;
    words.remove_prefix(bar + 1);
  }
  return false;
}

const LinkRow* link_row(HostLink l) {
  for (const LinkRow& r : kLinks)
    if (r.link == l) return &r;
  return nullptr;
}

const LinkRow* slowest_link() {
  const LinkRow* out = &kLinks[0];
  for (const LinkRow& r : kLinks)
    if (r.gbps < out->gbps) out = &r;
  return out;
}

std::string described(const DeviceProperties& d) {
  std::string s = d.name.empty() ? "an unnamed GPU" : d.name;
  if (d.compute_major) {
    s += " (compute capability " + std::to_string(d.compute_major) + "." +
         std::to_string(d.compute_minor) + ")";
  }
  return s;
}

}  // namespace

GpuConstants gpu_constants(const DeviceProperties& d) {
  GpuConstants c;
  for (const GpuRow& r : kGpus)
    if (!d.name.empty() && name_matches(d.name, r.names)) {
      c.row = &r;
      c.why = described(d) + ": the " + r.gpu + " row";
      break;
    }
  // By compute capability only for an NVIDIA GPU (another vendor's numbering means something
  // else), and then the capability's slowest host link: an H800 or H20 is no GH200.
  const bool nvidia = d.name.empty() || name_matches(d.name, "NVIDIA|Tesla|Quadro|GeForce");
  if (!c.row && d.compute_major && nvidia) {
    for (const GpuRow& r : kGpus)
      if (r.compute_major == d.compute_major && r.compute_minor == d.compute_minor &&
          (!c.row || link_row(r.link)->gbps < link_row(c.row->link)->gbps))
        c.row = &r;
    if (c.row)
      c.why = described(d) + ": no row by name, the " + c.row->gpu +
              " row by compute capability (its most conservative host link)";
  }
  if (c.row) {
    c.link = link_row(c.row->link);
  } else {
    c.link = slowest_link();
    c.why = described(d) + ": no row fits, so the most conservative figures";
  }
  return c;
}

GpuConstants gpu_constants(const std::vector<DeviceProperties>& devices, uint32_t device) {
  for (const DeviceProperties& d : devices)
    if (d.id == device) return gpu_constants(d);
  if (!devices.empty()) return gpu_constants(devices.front());
  GpuConstants c;
  c.link = slowest_link();
  c.why = "the trace names no GPU, so the most conservative figures";
  return c;
}

int64_t conservative_kernel_ns(const char** source) {
  int64_t most = 0;
  for (const GpuRow& r : kGpus)
    for (int64_t ns : {r.stream_kernel_ns, r.graph_kernel_ns})
      if (ns > most) {
        most = ns;
        if (source) *source = r.kernel_source;
      }
  return most;
}

}  // namespace trace::replay
