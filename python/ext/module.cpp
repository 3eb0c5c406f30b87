// iris_trace._core: the trace library's entry points for the Python package (iris_trace/). Each
// call reads with the GIL released, so other Python threads (the package's rank readers, a
// notebook's Ctrl-C handler) run meanwhile; results come back as plain dicts of NumPy arrays,
// which pickle, so a Dask worker can return them.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <string>
#include <utility>
#include <vector>

#include "arrays.h"
#include "hta_frames_py.h"
#include "quiet_signals.h"
#include "rank_run.h"
#include "trace/export/json_out.h"
#include "trace/import/byte_source.h"
#include "what_if_run.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

nb::dict rank_dict(pyiris::RankRun&& r) {
  nb::dict d;
  d["file"] = r.file, d["rank"] = r.rank, d["format"] = r.format, d["bytes"] = r.bytes;
  d["text"] = std::move(r.text), d["json"] = std::move(r.json);
  nb::dict tables;
  for (auto& [name, t] : r.tables) tables[name.c_str()] = pyiris::table_to_python(std::move(t));
  d["tables"] = tables;
  return d;
}

}  // namespace

NB_MODULE(_core, m) {
  m.doc() = "The trace library of ./attribute (src/trace), for the iris_trace package.";
  // trace::InputError: bad input, named with its file (and byte offset where known).
  nb::exception<trace::InputError>(m, "InputError", PyExc_ValueError);
  m.attr("json_version") = IRIS_ATTRIBUTE_JSON_VERSION;

  m.def(
      "json_string", [](const std::string& s) { return "\"" + trace::json_escape(s) + "\""; },
      "text"_a, "A JSON string literal, written as ./attribute writes one.");

  m.def(
      "expand_paths",
      [](const std::vector<std::string>& paths) {
        nb::gil_scoped_release release;
        pyiris::QuietSignals quiet;
        return pyiris::expand_paths(paths);
      },
      "paths"_a, "The trace files a list of paths names, as ./attribute expands them.");

  m.def(
      "run_rank",
      [](const std::string& path, const std::string& step_range, int advice) {
        pyiris::RankRun r;
        {
          nb::gil_scoped_release release;
          pyiris::QuietSignals quiet;
          r = pyiris::run_rank(path, {step_range, advice});
        }
        return rank_dict(std::move(r));
      },
      "path"_a, "step_range"_a = "", "advice"_a = -1,
      "One trace's ./attribute figures: text, JSON and tables; its records are dropped.");

  m.def(
      "what_if_texts",
      [](const std::vector<std::string>& specs) { return pyiris::what_if_texts(specs); },
      "specs"_a);

  m.def(
      "run_what_if",
      [](const std::string& path, const std::vector<std::string>& specs,
         const std::string& step_range) {
        pyiris::WhatIfRun r;
        {
          nb::gil_scoped_release release;
          pyiris::QuietSignals quiet;
          r = pyiris::run_what_if(path, specs, {step_range});
        }
        nb::dict d;
        d["text"] = std::move(r.text), d["json"] = std::move(r.json);
        d["windows"] = pyiris::table_to_python(std::move(r.windows));
        return d;
      },
      "path"_a, "specs"_a, "step_range"_a = "", "./attribute --what-if on one trace.");

  pyiris::register_hta(m);
}
