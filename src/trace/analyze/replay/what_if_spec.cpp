// parse_what_if (what_if.h): the --what-if mini-language.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "trace/analyze/replay/what_if.h"

namespace trace::replay {

namespace {

[[noreturn]] void bad(const std::string& spec, const std::string& what) {
  throw std::invalid_argument("--what-if " + spec + ": " + what);
}

double positive_number(const std::string& spec, const std::string& text, const char* what) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0' || errno != 0 || !std::isfinite(v) || v < 0 || v > 1e6)
    bad(spec, std::string("expected ") + what + " (a number from 0 to 1e6), got '" + text + "'");
  return v;
}

// More worker processes than a machine runs for one loader would be a typo.
constexpr uint32_t kMaxWorkers = 1024;

uint32_t whole_number(const std::string& spec, const std::string& text, const char* what,
                      uint32_t max) {
  errno = 0;
  char* end = nullptr;
  const unsigned long v = std::strtoul(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || *end != '\0' || errno != 0 || v == 0 || v > max)
    bad(spec, std::string("expected ") + what + " (a whole number from 1 to " +
                  std::to_string(max) + "), got '" + text + "'");
  return static_cast<uint32_t>(v);
}

// graph-steps[:launch-us=US][:node-us=US], graph=REGION[:launch-us=US][:node-us=US]: the options
// are peeled off the end, since a region's name may hold ':' itself.
WhatIf parse_graph(const std::string& spec) {
  WhatIf w;
  w.text = spec;
  w.kind = WhatIf::Kind::GraphSteps;
  std::string rest = spec;
  for (;;) {
    const size_t colon = rest.rfind(':');
    if (colon == std::string::npos) break;
    const std::string option = rest.substr(colon + 1);
    int64_t* into = option.rfind("launch-us=", 0) == 0 ? &w.launch_ns
                    : option.rfind("node-us=", 0) == 0 ? &w.node_ns
                                                       : nullptr;
    if (!into) break;
    const size_t eq = option.find('=');
    if (*into >= 0) bad(spec, "':" + option.substr(0, eq) + "=' is given twice");
    const std::string what = option.substr(0, eq) + "=US";
    *into = static_cast<int64_t>(
        std::llround(positive_number(spec, option.substr(eq + 1), what.c_str()) * 1000.0));
    rest.erase(colon);
  }
  if (rest == "graph-steps") return w;
  if (rest.rfind("graph-steps", 0) == 0)
    bad(spec, "graph-steps takes no value (its options are :launch-us=US and :node-us=US)");
  w.region = rest.substr(6);  // after "graph="
  if (w.region.empty()) bad(spec, "expected graph=REGION, the name of a host range");
  return w;
}

// log-every's list: N, ... (N: 1, 2, ..., or never = 0).
std::vector<uint32_t> every_list(const std::string& spec, const std::string& arg) {
  if (arg.empty()) bad(spec, "expected log-every=N[,N...] (N: 1, 2, ..., or never)");
  std::vector<uint32_t> every;
  size_t from = 0;
  while (from <= arg.size()) {
    const size_t comma = arg.find(',', from);
    const std::string item =
        arg.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    if (item == "never") {
      every.push_back(0);
    } else {
      char* end = nullptr;
      errno = 0;
      const unsigned long n = item.empty() ? 0 : std::strtoul(item.c_str(), &end, 10);
      if (item.empty() || item[0] == '-' || *end != '\0' || errno != 0 || n == 0 ||
          n > 1000000000UL)
        bad(spec, "expected a positive whole number or 'never' in the list, got '" + item + "'");
      every.push_back(static_cast<uint32_t>(n));
    }
    if (comma == std::string::npos) break;
    from = comma + 1;
  }
  return every;
}

// A spec cut at its option (":op=", ":api=", ":name=", ...), the first of them: the option's
// value runs to the end, since op names hold ':' themselves.
struct SpecParts {
  std::string head, key, value;
};
SpecParts cut_option(const std::string& spec) {
  SpecParts p{spec, "", ""};
  size_t cut = std::string::npos;
  for (const char* k : {":op=", ":api=", ":site=", ":name=", ":gbps=", ":range="}) {
    const size_t at = spec.find(k);
    if (at != std::string::npos && at < cut)
      cut = at, p.key = std::string(k + 1, std::char_traits<char>::length(k) - 2);
  }
  if (cut != std::string::npos) {
    p.head = spec.substr(0, cut);
    p.value = spec.substr(cut + p.key.size() + 2);
    if (p.value.empty()) bad(spec, "':" + p.key + "=' needs a name");
  }
  return p;
}

}  // namespace

const char* const kWhatIfSpecs =
    "  no-syncs[:op=NAME|:api=NAME]   remove the blocking syncs\n"
    "  log-every=N,...,never[:op=NAME|:api=NAME]  keep every N-th\n"
    "  scale-kernels=F[:name=PART]    kernels take F times as long\n"
    "  scale-launches=F               launch calls take F times as long\n"
    "  graph-steps[:launch-us=US][:node-us=US]  each step's launches\n"
    "       captured in a CUDA graph: their host work one graph launch\n"
    "  graph=REGION[:launch-us=US][:node-us=US]  each host range REGION\n"
    "       (\"Torch-Compiled Region\") captured so\n"
    "  pin-copies[:gbps=N]            pageable copies pinned and async\n"
    "  stream-syncs                   device syncs wait for one stream\n"
    "  scale-host=F:range=NAME        host time inside each range NAME\n"
    "       takes F times as long (0: as if overlapped, as DataLoader\n"
    "       workers would; '#' in NAME stands for a number: \"IO #\")\n"
    "  workers=N:range=NAME           each range NAME run ahead by N\n"
    "       worker processes, as DataLoader(num_workers=N) runs its\n"
    "       loading: the host waits only for what they have not done\n";

WhatIf parse_what_if(const std::string& spec) {
  if (spec.rfind("graph-steps", 0) == 0 || spec.rfind("graph=", 0) == 0) return parse_graph(spec);
  WhatIf w;
  w.text = spec;
  const SpecParts parts = cut_option(spec);
  const std::string &head = parts.head, &key = parts.key, &value = parts.value;
  const size_t eq = head.find('=');
  const std::string name = head.substr(0, eq),
                    arg = eq == std::string::npos ? "" : head.substr(eq + 1);
  const bool has_arg = eq != std::string::npos;
  const auto sites_option = [&] {
    if (key == "op")
      w.sites = {SiteSelector::By::Op, value};
    else if (key == "api")
      w.sites = {SiteSelector::By::Api, value};
    else if (key == "site")
      w.sites = {SiteSelector::By::Site, value};
    else if (!key.empty())
      bad(spec, name + " takes :op=NAME, :api=NAME or :site=SITE, not :" + key + "=");
  };
  if (name == "no-syncs") {
    w.kind = WhatIf::Kind::NoSyncs;
    if (has_arg) bad(spec, "no-syncs takes no value");
    sites_option();
  } else if (name == "log-every") {
    w.kind = WhatIf::Kind::LogEvery;
    w.every = every_list(spec, arg);
    sites_option();
  } else if (name == "scale-kernels") {
    w.kind = WhatIf::Kind::ScaleKernels;
    w.factor = positive_number(spec, arg, "scale-kernels=FACTOR");
    if (!key.empty() && key != "name")
      bad(spec, "scale-kernels takes :name=PART, not :" + key + "=");
    w.pattern = value;
  } else if (name == "scale-launches") {
    w.kind = WhatIf::Kind::ScaleLaunches;
    w.factor = positive_number(spec, arg, "scale-launches=FACTOR");
    if (!key.empty()) bad(spec, "scale-launches takes no option");
  } else if (name == "stream-syncs") {
    w.kind = WhatIf::Kind::StreamSyncs;
    if (has_arg || !key.empty()) bad(spec, "stream-syncs takes no value or option");
  } else if (name == "pin-copies") {
    w.kind = WhatIf::Kind::PinCopies;
    if (has_arg) bad(spec, "pin-copies takes no value (its option is :gbps=N)");
    if (!key.empty() && key != "gbps") bad(spec, "pin-copies takes :gbps=N, not :" + key + "=");
    if (!value.empty()) {
      w.gbps = positive_number(spec, value, "gbps=N");
      if (w.gbps <= 0) bad(spec, "gbps=N: the bandwidth must be above 0");
    }
  } else if (name == "scale-host") {
    w.kind = WhatIf::Kind::ScaleHost;
    w.factor = positive_number(spec, arg, "scale-host=FACTOR");
    if (key != "range") bad(spec, "scale-host=F takes :range=NAME, the host range to scale");
    w.region = value;
  } else if (name == "workers") {
    w.kind = WhatIf::Kind::Workers;
    w.workers = whole_number(spec, arg, "workers=N", kMaxWorkers);
    if (key != "range") bad(spec, "workers=N takes :range=NAME, the host range the workers run");
    w.region = value;
  } else {
    bad(spec,
        "expected no-syncs, log-every=N,..., scale-kernels=F, scale-launches=F, graph-steps, "
        "graph=REGION, pin-copies, stream-syncs, scale-host=F:range=NAME or workers=N:range=NAME");
  }
  return w;
}

}  // namespace trace::replay
