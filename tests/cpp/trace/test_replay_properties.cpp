// Properties of the replay (analyze/replay/) that hold on any trace, checked on every real trace
// of tests/data/traces, on the Nsight Systems exports of tests/data/nsys (through their own
// reader) and on seeded random ones (random_trace.h):
//   shrinking any duration never lengthens a prediction;
//   a prediction never falls below the busiest resource's own work;
//   removing a sync that had nothing queued changes a step by no more than its own duration;
//   no kernel starts before its launch returns or overlaps another on its stream;
//   the graph has no cycle;
//   no what-if predicts a negative time; one that removes nothing predicts the replay; one on a
//   trace without what it removes says so and saves nothing.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "garbage_records.h"
#include "random_trace.h"
#include "trace/analyze/replay/graph_capture.h"
#include "trace/analyze/replay/replay_graph.h"
#include "trace/analyze/replay/transforms.h"
#include "trace/analyze/replay/what_if.h"
#include "trace/analyze/sync_causes.h"
#include "trace/import/trace_file.h"
#include "trace_test_util.h"

using namespace trace::replay;

namespace {

struct Case {
  std::string name;
  trace::RecordSet records;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char* f :
       {"a100-alexnet-syncs", "a100-cuda-graphs-6streams", "a100-event-sync-multistream",
        "a100-event-sync", "cpu-only", "gp100-steps-annotations", "mi250-rocm", "two-ranks/rank-0",
        "two-ranks/rank-1"})
    out.push_back(
        {f, trace::import_trace(tracetest::data(std::string("traces/") + f + ".json.gz")).records});
  // The Nsight Systems exports, through their own reader: the replay reads records, any importer's.
  for (const char* f : {"a100-saxpy-mpi", "gtx1060-concurrent-streams", "h100-pytorch-2gpu",
                        "rtx3080-small", "t4-power-iteration"})
    out.push_back(
        {std::string("nsys ") + f,
         trace::import_file(tracetest::data(std::string("nsys/") + f + ".sqlite.gz")).records});
  for (uint32_t seed = 1; seed <= 40; ++seed)
    out.push_back({"random seed " + std::to_string(seed), testdata::random_trace(seed)});
  return out;
}

const std::vector<Case>& all() {
  static const std::vector<Case> c = cases();
  return c;
}

// The graph with its steps' ends as nodes.
struct Replay {
  ReplayGraph placed;
  const Graph& g;
  const std::vector<PlacedStep>& steps;
  explicit Replay(const trace::RecordSet& r)
      : placed(build_replay_graph(r, measured_steps(r), {}, {})),
        g(placed.graph),
        steps(placed.steps) {}
  // When each step ends (from the recorded start of the trace), then the whole span. A step's
  // length alone is no prediction of the run: a step whose start moves up more than its end
  // (the time saved before it waits in it) gets longer while the run gets shorter.
  std::vector<int64_t> ends(const Timeline& t, const Scenario& s) const {
    std::vector<int64_t> out;
    for (const PlacedStep& w : steps)
      if (w.nodes.in_graph()) out.push_back(t.start[w.nodes.close]);
    out.push_back(lengths(t, s).back());
    return out;
  }
  // Each step's length, then the whole span as the last entry.
  std::vector<int64_t> lengths(const Timeline& t, const Scenario& s) const {
    std::vector<int64_t> out;
    for (const PlacedStep& w : steps)
      if (w.nodes.in_graph()) out.push_back(t.start[w.nodes.close] - t.start[w.nodes.open]);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (uint32_t v = 0; v < g.size(); ++v)
      if (!t.removed(v, s))
        lo = std::min(lo, t.start[v]), hi = std::max(hi, t.start[v] + t.duration[v]);
    out.push_back(hi - lo);
    return out;
  }
};

}  // namespace

TEST(ReplayProperties, TheGraphHasNoCycle) {
  for (const Case& c : all()) {
    const Replay r(c.records);
    EXPECT_EQ(r.g.stats.cycle_edges_dropped, 0u) << c.name;
    EXPECT_EQ(r.g.topo.size(), r.g.size()) << c.name;
  }
}

TEST(ReplayProperties, ShrinkingAnyDurationNeverLengthensAPrediction) {
  std::mt19937 rng(7);
  for (const Case& c : all()) {
    const Replay r(c.records);
    const Scenario none;
    const auto base = r.ends(simulate(r.g), none);
    for (int trial = 0; trial < 6; ++trial) {
      Scenario s;
      s.flags.assign(r.g.size(), 0);
      s.cpu_scale = std::uniform_real_distribution<double>(0, 1)(rng);
      s.kernel_scale = std::uniform_real_distribution<double>(0, 1)(rng);
      s.launch_scale = trial % 2 ? 1.0 : s.cpu_scale;
      const double share = trial < 2 ? 1.0 : 0.2;
      for (auto& f : s.flags)
        if (std::uniform_real_distribution<double>(0, 1)(rng) < share) f = kScaled;
      const auto shrunk = r.ends(simulate(r.g, s), s);
      for (size_t i = 0; i < base.size(); ++i)
        EXPECT_LE(shrunk[i], base[i]) << c.name << " step " << i << " trial " << trial;
    }
  }
}

TEST(ReplayProperties, APredictionNeverFallsBelowTheBusiestResourcesOwnWork) {
  for (const Case& c : all()) {
    const Replay r(c.records);
    for (const bool typical : {false, true}) {
      Scenario s;
      s.typical_delays = typical;
      const Timeline t = simulate(r.g, s);
      const auto len = r.lengths(t, s);
      // A step: the CPU work of its thread between its ends (the chain edges' weights).
      size_t k = 0;
      for (size_t i = 0; i < r.steps.size(); ++i) {
        const SpanNodes& ends = r.steps[i].nodes;
        if (!ends.in_graph()) continue;
        int64_t own = 0;
        for (uint32_t v = ends.open + 1; v <= ends.close; ++v)
          if (r.g.first_is_chain[v] && r.g.in[r.g.in_begin[v]].kind != EdgeKind::SyncCall)
            own += r.g.in[r.g.in_begin[v]].delay;
        EXPECT_GE(len[k++], own) << c.name << " step " << i;
      }
      // The whole span: any stream's work, any thread's CPU work.
      std::map<uint32_t, int64_t> work;
      for (uint32_t v = 0; v < r.g.size(); ++v) {
        if (v >= r.g.host_count)
          work[r.g.resource[v]] += t.duration[v];
        else if (r.g.first_is_chain[v])
          work[r.g.resource[v]] += r.g.in[r.g.in_begin[v]].kind == EdgeKind::SyncCall
                                       ? 0
                                       : r.g.in[r.g.in_begin[v]].delay;
      }
      for (const auto& [res, ns] : work)
        EXPECT_GE(len.back(), ns) << c.name << " " << r.g.resources[res].label();
    }
  }
}

TEST(ReplayProperties, RemovingASyncWithNothingQueuedChangesAStepByNoMoreThanItsDuration) {
  size_t tried = 0;
  for (const Case& c : all()) {
    const Replay r(c.records);
    const auto syncs = trace::find_syncs(c.records);
    const auto sites = find_sites(c.records, syncs, {});
    const Scenario none;
    const auto base = r.lengths(simulate(r.g), none);
    size_t here = 0;
    for (const Site& site : sites) {
      if (site.queued_ns > 0 || here >= 12) continue;
      ++here, ++tried;
      Scenario s;
      remove_site(r.g, {site, {}}, &s);
      const auto after = r.lengths(simulate(r.g, s), s);
      for (size_t i = 0; i + 1 < base.size(); ++i)
        EXPECT_LE(std::abs(base[i] - after[i]), static_cast<int64_t>(site.blocked_ns))
            << c.name << " step " << i;
    }
  }
  EXPECT_GT(tried, 20u);  // the property was exercised
}

TEST(ReplayProperties, NoKernelStartsBeforeItsLaunchReturnsOrOverlapsAnotherOnItsStream) {
  for (const Case& c : all()) {
    const Replay r(c.records);
    const Graph& g = r.g;
    const auto syncs = trace::find_syncs(c.records);
    const auto sites = find_sites(c.records, syncs, {});
    Scenario no_syncs;
    for (const Site& site : sites) remove_site(g, {site, {}}, &no_syncs);
    std::vector<std::pair<uint64_t, uint64_t>> spans;
    for (const PlacedStep& w : r.steps) spans.push_back({w.step.start_ns, w.step.end_ns});
    Scenario typical;
    typical.typical_delays = true;
    const Scenario plain;
    for (const Scenario* s : {&plain, static_cast<const Scenario*>(&no_syncs),
                              static_cast<const Scenario*>(&typical)}) {
      const Scenario& sc = *s;
      const Timeline t = simulate(g, sc);
      for (uint32_t v = g.host_count; v < g.size(); ++v) {
        if (t.removed(v, sc)) continue;
        for (uint32_t e = g.in_begin[v]; e < g.in_begin[v + 1]; ++e) {
          const Edge& x = g.in[e];
          if (x.kind == EdgeKind::Stream && !t.removed(x.from, sc))
            EXPECT_GE(t.start[v], t.start[x.from] + t.duration[x.from]) << c.name << " node " << v;
          if (x.kind == EdgeKind::Launch)
            EXPECT_GE(t.start[v], t.start[x.from]) << c.name << " node " << v;
        }
      }
    }
    const Scenario graphs = capture_graphs(g, c.records, step_captures(g, spans), {}, nullptr);
    const Timeline t = simulate(g, graphs);
    for (uint32_t v = g.host_count; v < g.size(); ++v)
      if (graphs.launch_from[v] != kNone)
        EXPECT_GE(t.start[v], t.start[graphs.launch_from[v]]) << c.name;
  }
}

TEST(ReplayProperties, RandomTracesReplayWhereTheyWereRecorded) {
  // The generator's traces are consistent, so the unchanged replay puts every step where it was.
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    trace::ImportedTrace t;
    t.records = testdata::random_trace(seed);
    const auto rep = replay_trace(t, {});
    EXPECT_EQ(rep.max_error, 0.0) << "seed " << seed;
  }
}

TEST(ReplayProperties, InconsistentRecordsNeverBreakTheReplay) {
  // Records from random bytes (garbage_records.h: anything out of order, dangling or shared):
  // every what-if runs, the graph always orders every node, every prediction is finite.
  std::mt19937 rng(11);
  const std::vector<WhatIf> what_ifs = {parse_what_if("no-syncs"),
                                        parse_what_if("log-every=1,3,never"),
                                        parse_what_if("no-syncs:op=aten::item"),
                                        parse_what_if("graph-steps"),
                                        parse_what_if("graph=aten::mm"),
                                        parse_what_if("pin-copies"),
                                        parse_what_if("stream-syncs"),
                                        parse_what_if("scale-kernels=0.3:name=k"),
                                        parse_what_if("scale-launches=2")};
  size_t cycles = 0;
  for (int i = 0; i < 300; ++i) {
    std::vector<uint8_t> bytes(std::uniform_int_distribution<size_t>(0, 600)(rng));
    for (auto& b : bytes) b = static_cast<uint8_t>(rng());
    trace::ImportedTrace t;
    t.records = testdata::garbage_records(bytes.data(), bytes.size());
    const Graph g = build_graph(t.records);
    ASSERT_EQ(g.topo.size(), g.size());
    cycles += g.stats.cycle_edges_dropped > 0;
    const auto rep = replay_trace(t, what_ifs);
    for (const auto& s : rep.what_ifs)
      for (const auto& w : s.steps) ASSERT_GT(w.predicted_ns, INT64_MIN / 8) << i;
  }
  EXPECT_GT(cycles, 0u);  // the cycle breaker was exercised
}

namespace {

// Every what-if, each kind at least once, with values that change something where they can.
std::vector<WhatIf> every_what_if() {
  std::vector<WhatIf> out;
  for (const char* spec :
       {"no-syncs", "no-syncs:op=aten::item", "no-syncs:api=cudaStreamSynchronize",
        "log-every=1,2,never", "scale-kernels=0", "scale-kernels=3:name=k1", "scale-launches=0",
        "graph-steps", "graph-steps:launch-us=0:node-us=0", "graph=Torch-Compiled Region",
        "graph=aten::op0", "pin-copies", "pin-copies:gbps=0.001", "stream-syncs"})
    out.push_back(parse_what_if(spec));
  return out;
}

bool has_pageable_copy(const trace::RecordSet& r) {
  for (const auto& m : r.memcpys)
    if ((m.kind == trace::CopyKind::HtoD && m.src == trace::MemoryKind::Pageable) ||
        (m.kind == trace::CopyKind::DtoH && m.dst == trace::MemoryKind::Pageable))
      return true;
  return false;
}

void expect_no_saving(const ScenarioResult& x, const std::string& what) {
  for (const auto& w : x.steps) {
    EXPECT_EQ(w.predicted_ns, w.replayed_ns) << what << " " << w.name;
    EXPECT_EQ(w.predicted_pace_ns, w.replayed_pace_ns) << what << " " << w.name;
  }
  EXPECT_EQ(x.total.predicted_ns, x.total.replayed_ns) << what;
}

}  // namespace

TEST(ReplayProperties, NoWhatIfPredictsANegativeTime) {
  const auto what_ifs = every_what_if();
  for (const Case& c : all()) {
    trace::ImportedTrace t;
    t.records = c.records;
    const auto rep = replay_trace(t, what_ifs);
    for (const auto& x : rep.what_ifs) {
      for (const auto& w : x.steps) {
        EXPECT_GE(w.predicted_ns, 0) << c.name << " " << x.name << " " << w.name;
        EXPECT_GE(w.predicted_pace_ns, 0) << c.name << " " << x.name << " " << w.name;
      }
      EXPECT_GE(x.total.predicted_ns, 0) << c.name << " " << x.name;
    }
    for (const auto& curve : rep.curves)
      for (const auto& p : curve.points)
        EXPECT_GE(p.predicted_ns, 0) << c.name << " " << curve.text;
  }
}

TEST(ReplayProperties, RemovingNothingPredictsTheReplay) {
  const std::vector<WhatIf> nothing = {
      parse_what_if("scale-kernels=1"), parse_what_if("scale-launches=1"),
      parse_what_if("no-syncs:op=no such op"), parse_what_if("graph=no such range"),
      parse_what_if("scale-kernels=0.5:name=no such kernel")};
  for (const Case& c : all()) {
    trace::ImportedTrace t;
    t.records = c.records;
    const auto rep = replay_trace(t, nothing);
    ASSERT_EQ(rep.what_ifs.size(), nothing.size());
    for (const auto& x : rep.what_ifs) expect_no_saving(x, c.name + " " + x.name);
    // The ones that name what they found nothing of say so.
    for (size_t i = 2; i < rep.what_ifs.size(); ++i)
      EXPECT_EQ(rep.what_ifs[i].note.rfind("nothing to ", 0), 0u)
          << c.name << " " << rep.what_ifs[i].name << ": " << rep.what_ifs[i].note;
  }
}

TEST(ReplayProperties, AWhatIfOnATraceWithoutWhatItRemovesSaysSoAndSavesNothing) {
  // Each what-if, on every trace that lacks what it removes: its note says "nothing to ..." and
  // no step moves; on a trace that has it, the note says what it did instead.
  size_t lacking = 0, having = 0;
  for (const Case& c : all()) {
    const trace::RecordSet& r = c.records;
    trace::ImportedTrace t;
    t.records = r;
    const auto syncs = trace::find_syncs(r);
    bool device_sync = false;
    for (const auto& call : syncs.calls)
      device_sync |= call.api.find("DeviceSynchronize") != std::string::npos ||
                     call.api.find("CtxSynchronize") != std::string::npos;
    bool launches = false;
    for (const auto& a : r.api) launches |= a.kind == trace::ApiKind::Launch;
    const struct {
      const char* spec;
      bool has;
    } checks[] = {{"no-syncs", !syncs.calls.empty()},
                  {"pin-copies", has_pageable_copy(r)},
                  {"stream-syncs", device_sync},
                  {"graph-steps", launches || !r.memcpys.empty() || !r.memsets.empty()}};
    std::vector<WhatIf> what_ifs;
    for (const auto& k : checks) what_ifs.push_back(parse_what_if(k.spec));
    const auto rep = replay_trace(t, what_ifs);
    for (size_t i = 0; i < std::size(checks); ++i) {
      const ScenarioResult& x = rep.what_ifs[i];
      const bool says_nothing = x.note.rfind("nothing to ", 0) == 0;
      if (!checks[i].has) {
        ++lacking;
        EXPECT_TRUE(says_nothing) << c.name << " " << x.name << ": " << x.note;
        expect_no_saving(x, c.name + " " + x.name);
      } else if (!says_nothing) {
        ++having;
      }
    }
  }
  EXPECT_GT(lacking, 20u);  // both sides were exercised
  EXPECT_GT(having, 20u);
}
