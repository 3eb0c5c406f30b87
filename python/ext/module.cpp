// iris_trace._core: the trace library's entry points for the Python package (iris_trace/). `run`
// is ./attribute's own run (trace/run/run.h) with the same options as keywords; each call reads
// with the GIL released, so other Python threads (the package's rank readers, a notebook's
// Ctrl-C handler) run meanwhile; results come back as plain dicts of NumPy arrays, which pickle,
// so a Dask worker can return them.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <utility>
#include <vector>

#include "arrays.h"
#include "capture/bench_names.h"
#include "hta_frames_py.h"
#include "quiet_signals.h"
#include "trace/export/json_out.h"
#include "trace/export/output_schema.h"
#include "trace/import/byte_source.h"
#include "trace/import/kineto/trace_folder.h"
#include "trace/run/run.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// iris_trace.attribute()'s keywords, as its _options() passes them: RunOptions' own names.
trace::RunOptions run_options(const std::vector<std::string>& inputs, const nb::dict& kw) {
  trace::RunOptions o;
  o.inputs = inputs;
  o.step_phase = bench::kStepPhase;  // bench's own files: each epoch is a step, as ./attribute
  o.phase_domain = bench::kPhaseDomain;
  for (const auto& [k, v] : kw) {
    const std::string key = nb::cast<std::string>(k);
    if (key == "step_range")
      o.step_range = nb::cast<std::string>(v);
    else if (key == "step_starts")
      o.step_starts = nb::cast<std::string>(v);
    else if (key == "step_every")
      o.step_every = nb::cast<int64_t>(v);
    else if (key == "hta")
      o.hta = nb::cast<bool>(v);
    else if (key == "hta_version")
      o.hta_version = nb::cast<std::string>(v);
    else if (key == "hta_no_rounding")
      o.hta_no_rounding = nb::cast<bool>(v);
    else if (key == "hta_max_queue")
      o.hta_max_queue = nb::cast<int64_t>(v);
    else if (key == "replay")
      o.replay = nb::cast<bool>(v);
    else if (key == "what_if")
      for (const auto& spec : nb::cast<std::vector<std::string>>(v))
        o.what_ifs.push_back(trace::replay::parse_what_if(spec));
    else if (key == "advice")  // -1: by the trace's size, 0: --no-advice, 1: --advice
      o.advice = nb::cast<int>(v) < 0 ? trace::AdviceMode::BySize
                 : nb::cast<int>(v)   ? trace::AdviceMode::On
                                      : trace::AdviceMode::Off;
    else if (key == "html")
      o.html = nb::cast<bool>(v);
    else if (key == "frames")
      o.frames = nb::cast<bool>(v);
    else if (key == "diff")
      o.diff = nb::cast<bool>(v);
    else
      throw std::invalid_argument("run: unknown option " + key);
  }
  return o;
}

nb::dict rank_dict(trace::RankOutput&& r) {
  nb::dict d;
  d["file"] = r.file, d["rank"] = r.rank, d["format"] = r.format, d["bytes"] = r.bytes;
  d["text"] = std::move(r.text), d["json"] = std::move(r.json);
  nb::dict tables;
  for (auto& [name, t] : r.frames) tables[name.c_str()] = pyiris::table_to_python(std::move(t));
  d["tables"] = tables;
  return d;
}

nb::dict run_dict(trace::RunOutput&& out) {
  nb::dict d;
  nb::list ranks;
  for (auto& r : out.ranks) ranks.append(rank_dict(std::move(r)));
  d["ranks"] = ranks;
  d["text"] = std::move(out.text), d["json"] = std::move(out.json);
  d["html"] = std::move(out.html);
  d["import_s"] = out.import_s, d["total_s"] = out.total_s, d["bytes"] = out.bytes;
  d["inflaters"] = std::move(out.inflaters);
  nb::dict tables;  // the diff's (each trace's are in its rank)
  for (auto& [name, t] : out.frames) tables[name.c_str()] = pyiris::table_to_python(std::move(t));
  d["tables"] = tables;
  return d;
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "The trace library of ./attribute (src/trace), for the iris_trace package.";
  // trace::InputError: bad input, named with its file (and byte offset where known).
  nb::exception<trace::InputError>(m, "InputError", PyExc_ValueError);
  m.attr("json_version") = trace::attribute_json_version();

  m.def(
      "json_string", [](const std::string& s) { return "\"" + trace::json_escape(s) + "\""; },
      "text"_a, "A JSON string literal, written as ./attribute writes one.");

  m.def(
      "expand_paths",
      [](const std::vector<std::string>& paths) {
        nb::gil_scoped_release release;
        pyiris::QuietSignals quiet;
        return trace::expand_trace_paths(paths);
      },
      "paths"_a, "The trace files a list of paths names, as ./attribute expands them.");

  m.def(
      "check_options",
      [](const std::vector<std::string>& inputs, const nb::dict& options) {
        return trace::check_options(run_options(inputs, options));
      },
      "inputs"_a, "options"_a,
      "'' when the options go together, else what is wrong (ValueError for a bad what-if).");

  m.def(
      "run",
      [](const std::vector<std::string>& inputs, const nb::dict& options) {
        const trace::RunOptions o = run_options(inputs, options);
        trace::RunOutput out;
        {
          nb::gil_scoped_release release;
          pyiris::QuietSignals quiet;
          out = trace::run(o);
        }
        return run_dict(std::move(out));
      },
      "inputs"_a, "options"_a,
      "./attribute's run (trace/run/run.h): text, JSON, the page and each trace's tables.");

  m.def(
      "document_json",
      [](const nb::dict& options, const std::vector<std::string>& entries) {
        return trace::document_json(run_options({}, options), entries);
      },
      "options"_a, "entries"_a, "The --json document around per-trace entries of separate runs.");

  m.def(
      "schema",
      [] {
        nb::list out;
        for (const auto& t : trace::schema::tables()) {
          nb::list fields;
          for (const auto& x : t.fields) {
            nb::dict d;
            d["key"] = x.key, d["kind"] = trace::schema::to_string(x.kind), d["unit"] = x.unit;
            d["meaning"] = trace::schema::meaning_of(t, x), d["of"] = x.of;
            d["same_as"] = x.same_as, d["optional"] = x.optional, d["nullable"] = x.nullable;
            fields.append(d);
          }
          nb::dict d;
          d["name"] = t.name, d["meaning"] = t.meaning, d["frame"] = t.frame;
          d["fields"] = fields;
          out.append(d);
        }
        return out;
      },
      "Every output table's declaration (trace/export/output_schema.h).");

  pyiris::register_hta(m);
}
