#include "trace/export/diff_out.h"
#include "trace/export/json_out.h"

namespace trace {
namespace {

void optional_number(JsonOut& j, std::optional<double> v) {
  if (v)
    j.value(*v);
  else
    j.null();
}

}  // namespace

std::string diff_json(const DiffInputs& in, const TraceDiff& d, int version) {
  JsonOut j;
  j.begin_object().key("tool").value("attribute").key("version").value(version);
  j.key("diff").begin_object();
  j.key("a").value(in.a).key("b").value(in.b);
  j.key("match").value(d.match);
  j.key("a_steps").value(static_cast<uint64_t>(d.a_steps));
  j.key("b_steps").value(static_cast<uint64_t>(d.b_steps));
  j.key("matched_steps").value(static_cast<uint64_t>(d.pairs.size()));
  j.key("words_in_common").value(d.words_in_common);
  j.key("a_verdict").value(d.a_verdict).key("b_verdict").value(d.b_verdict);
  j.key("sections").begin_array();
  for (const auto& s : d.sections) {
    j.begin_object().key("name").value(s.name).key("meaning").value(s.meaning);
    j.key("rows").begin_array();
    for (const auto& r : s.rows) {
      j.begin_object().key("item").value(r.item).key("figure").value(r.figure);
      j.key("a").value(r.a).key("b").value(r.b).key("diff").value(r.diff()).key("ratio");
      optional_number(j, r.ratio());
      j.end_object();
    }
    j.end_array().end_object();
  }
  j.end_array();
  j.key("what_if").begin_array();
  for (const auto& w : in.what_ifs) j.value(w);
  j.end_array();
  j.key("predictions").begin_array();
  for (const auto& p : d.predictions) {
    j.begin_object().key("scenario").value(p.scenario).key("window").value(p.window);
    j.key("a_measured_us").value(p.a_measured_us).key("predicted_us").value(p.predicted_us);
    j.key("b_measured_us").value(p.b_measured_us).key("error");
    optional_number(j, p.error());
    j.end_object();
  }
  j.end_array();
  j.key("notes").begin_array();
  for (const auto& n : d.notes) j.value(n);
  j.end_array();
  j.end_object().end_object();
  return j.str() + "\n";
}

}  // namespace trace
