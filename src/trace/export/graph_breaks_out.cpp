#include "trace/export/graph_breaks_out.h"

#include <cstdio>

#include "trace/model/units.h"

namespace trace {

namespace {

// "inside Torch-Compiled Region: 0/0, resumed in Torch-Compiled Region: 1/0".
std::string around(const GraphBreakRow& row) {
  return row.inside ? "inside " + row.before + ", resumed in " + row.after
                    : "between " + row.before + " and " + row.after;
}

}  // namespace

std::string graph_breaks_text(const TraceReport& rep) {
  const GraphBreakReport& g = rep.graph_breaks;
  if (g.rows.empty()) return "";
  std::string out;
  char line[1024];
  std::snprintf(line, sizeof line,
                "\n  graph breaks (torch.compile; %llu compiled regions in the trace): a %s inside "
                "or between compiled regions splits the compiled code; removing it would also "
                "merge them, saving the next region's entry (its guards and wrappers, up to its "
                "first op) beyond the sync itself:\n",
                static_cast<unsigned long long>(g.regions),
                rep.sites.gpu_work ? "blocking call" : "value read (it would block on a GPU)");
  out += line;
  std::snprintf(line, sizeof line, "    %6s %7s %12s %12s  %s\n", "breaks", "steps", "entry us",
                "entry p50 us", "where (site, or op), and the regions around it");
  out += line;
  const double steps = static_cast<double>(rep.steps.size());
  for (const GraphBreakRow& row : g.rows) {
    std::snprintf(line, sizeof line, "    %6llu %6.0f%% %12.1f %12.1f  %s\n",
                  static_cast<unsigned long long>(row.breaks),
                  steps > 0 ? 100.0 * static_cast<double>(row.steps) / steps : 100.0,
                  us(row.entry_ns), us(row.entry_median_ns), row.where.c_str());
    out += line;
    out += "                                                 " + around(row) + "\n";
  }
  return out;
}

void write_graph_breaks_json(JsonOut& o, const TraceReport& rep) {
  const GraphBreakReport& g = rep.graph_breaks;
  o.key("graph_breaks").begin_object();
  o.key("regions").value(g.regions);
  o.key("breaks").begin_array();
  for (const GraphBreakRow& row : g.rows) {
    o.begin_object();
    o.key("where").value(row.where);
    o.key("inside").value(row.inside);
    o.key("before").value(row.before).key("after").value(row.after);
    o.key("breaks").value(row.breaks).key("steps").value(row.steps);
    o.key("entry_us").value(us(row.entry_ns)).key("entry_median_us").value(us(row.entry_median_ns));
    o.end_object();
  }
  o.end_array();
  o.end_object();
}

}  // namespace trace
