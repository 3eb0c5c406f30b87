// Where each blocking call was made (call_sites.h, frame_kinds.h): hand-built frames with known
// answers, the Kineto import of python_function events, native stacks, the site= selector, and
// the advice built on them (advice.h).
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "synthetic_records.h"
#include "trace/analyze/advice.h"
#include "trace/analyze/call_sites.h"
#include "trace/analyze/frame_kinds.h"
#include "trace/analyze/replay/sites.h"
#include "trace/analyze/replay/what_if.h"
#include "trace/analyze/step_report.h"
#include "trace/import/byte_source.h"
#include "trace/import/kineto/kineto_import.h"
#include "trace_test_util.h"

namespace {

using testdata::api;
using testdata::kernel;
using trace::FrameKind;

constexpr uint64_t us = 1000;

uint32_t name(trace::RecordSet* r, const std::string& n) {
  for (uint32_t i = 0; i < r->frame_names.size(); ++i)
    if (r->frame_names[i] == n) return i;
  r->frame_names.push_back(n);
  return static_cast<uint32_t>(r->frame_names.size() - 1);
}

void frame(trace::RecordSet* r, const std::string& n, uint64_t s, uint64_t e) {
  r->py_frames.push_back({s, e, 7, name(r, n)});
}

// The article's loop on a GPU, three steps: each `.item()` of the log (and, in the last step,
// of the print) is a copy + a stream sync under aten::item, called from <module>; the
// optimiser's step reads a value twice inside torch/optim.
trace::RecordSet article_loop() {
  trace::RecordSet r;
  uint32_t corr = 1;
  frame(&r, "train.py(1): <module>", 0, 3000 * us);
  for (int s = 0; s < 3; ++s) {
    const uint64_t t = static_cast<uint64_t>(s) * 1000 * us;
    r.steps.push_back({t, t + 900 * us, "ProfilerStep#" + std::to_string(s)});
    r.api.push_back(api("cudaLaunchKernel", t + 10 * us, t + 15 * us, corr));
    r.kernels.push_back(kernel(t + 20 * us, t + 60 * us, corr++));
    // optimizer.step(): two .item() calls inside torch.
    frame(&r, "torch/optim/optimizer.py(480): wrapper", t + 100 * us, t + 300 * us);
    frame(&r, "torch/optim/adam.py(200): step", t + 110 * us, t + 290 * us);
    const auto item = [&](uint64_t at) {
      r.cpu_ops.push_back({at, at + 40 * us, 7, "aten::item"});
      r.cpu_ops.push_back({at + 1 * us, at + 39 * us, 7, "aten::_local_scalar_dense"});
      r.api.push_back(api("cudaMemcpyAsync", at + 2 * us, at + 5 * us, corr));
      r.memcpys.push_back({at + 4 * us, at + 5 * us, corr++, 0, 7, 4, trace::CopyKind::DtoH,
                           trace::MemoryKind::Device, trace::MemoryKind::Pinned});
      r.api.push_back(api("cudaStreamSynchronize", at + 5 * us, at + 30 * us, 0));
    };
    item(t + 120 * us);
    item(t + 200 * us);
    // losses.append(loss.item()), and the print's .item() in the last step.
    frame(&r, "<built-in method item of Tensor object>", t + 400 * us, t + 450 * us);
    item(t + 405 * us);
    if (s == 2) {
      frame(&r, "<built-in method item of Tensor object>", t + 500 * us, t + 550 * us);
      item(t + 505 * us);
    }
  }
  return r;
}

const trace::SiteRow* find(const trace::RecordSet& r, const trace::SiteReport& rep,
                           const std::string& label) {
  for (const auto& s : rep.sites)
    if (trace::site_label(r, s) == label) return &s;
  return nullptr;
}

}  // namespace

TEST(FrameKinds, FromTheProfilersNames) {
  EXPECT_EQ(trace::classify_frame("<built-in method item of Tensor object>"), FrameKind::Builtin);
  EXPECT_EQ(trace::classify_frame("nn.Module: Linear_0"), FrameKind::Module);
  EXPECT_EQ(trace::classify_frame("torch/nn/modules/module.py(1732): _call_impl"),
            FrameKind::Torch);
  EXPECT_EQ(trace::classify_frame("/usr/lib/python3/dist-packages/torch/optim/adam.py(12): step"),
            FrameKind::Torch);
  EXPECT_EQ(trace::classify_frame("threading.py(1032): _bootstrap"), FrameKind::Stdlib);
  EXPECT_EQ(trace::classify_frame("multiprocessing/spawn.py(122): spawn_main"), FrameKind::Stdlib);
  EXPECT_EQ(trace::classify_frame("<frozen runpy>(88): _run_code"), FrameKind::Stdlib);
  EXPECT_EQ(trace::classify_frame("/usr/lib/python3.11/contextlib.py(81): inner"),
            FrameKind::Stdlib);
  EXPECT_EQ(trace::classify_frame("<string>(1): <module>"), FrameKind::NotAFile);
  EXPECT_EQ(trace::classify_frame("transformers/pipelines/base.py(1173): _ensure"),
            FrameKind::Code);
  EXPECT_EQ(trace::classify_frame("train.py(40): step"), FrameKind::Code);
  // A torch-like name that is not torch's package, and names of no known form.
  EXPECT_EQ(trace::classify_frame("torchvision/ops/boxes.py(10): nms"), FrameKind::Code);
  EXPECT_EQ(trace::classify_frame("no frame form at all"), FrameKind::NotAFile);
  EXPECT_EQ(trace::classify_frame("(12): x"), FrameKind::NotAFile);
  EXPECT_EQ(trace::classify_frame(""), FrameKind::NotAFile);

  EXPECT_TRUE(trace::is_user_code("train.py(40): step"));
  EXPECT_TRUE(trace::is_user_code("/home/me/proj/train.py(40): step"));
  EXPECT_FALSE(trace::is_user_code("transformers/pipelines/base.py(1173): _ensure"));
  EXPECT_FALSE(trace::is_user_code("/x/site-packages/transformers/a.py(1): f"));
  EXPECT_FALSE(trace::is_user_code("torch/optim/adam.py(12): step"));
}

// Ten `.item()` calls from one line in each of two steps: alike, they are one site; when the
// third of each step waits 500 us (behind the forward pass), it is its own site and the other
// nine fold into one row.
TEST(CallSites, AlikeOccurrencesFoldAndOneThatStandsOutStaysApart) {
  const auto loop = [](uint64_t third_us) {
    trace::RecordSet r;
    uint32_t corr = 1;
    frame(&r, "train.py(1): <module>", 0, 14000 * us);
    for (int s = 0; s < 2; ++s) {
      const uint64_t t = static_cast<uint64_t>(s) * 7000 * us;
      r.steps.push_back({t, t + 6900 * us, "ProfilerStep#" + std::to_string(s)});
      for (int k = 0; k < 10; ++k) {
        const uint64_t at = t + static_cast<uint64_t>(k) * 600 * us;
        const uint64_t wait = k == 2 ? third_us : 25;
        frame(&r, "<built-in method item of Tensor object>", at, at + (wait + 20) * us);
        r.cpu_ops.push_back({at + 1 * us, at + (wait + 19) * us, 7, "aten::item"});
        r.api.push_back(api("cudaMemcpyAsync", at + 2 * us, at + 5 * us, corr));
        r.memcpys.push_back({at + 4 * us, at + 5 * us, corr++, 0, 7, 4, trace::CopyKind::DtoH,
                             trace::MemoryKind::Device, trace::MemoryKind::Pinned});
        r.api.push_back(api("cudaStreamSynchronize", at + 5 * us, at + (wait + 5) * us, 0));
      }
    }
    return r;
  };
  const trace::RecordSet alike = loop(25);
  const auto one = trace::find_call_sites(alike, trace::find_syncs(alike));
  ASSERT_EQ(one.sites.size(), 1u);
  EXPECT_EQ(one.sites[0].calls, 20u);
  EXPECT_EQ(one.sites[0].order, 1u);
  EXPECT_EQ(trace::site_label(alike, one.sites[0]),
            "train.py(1): <module> -> <built-in method item of Tensor object>, aten::item");
  const trace::RecordSet apart = loop(500);
  const auto two = trace::find_call_sites(apart, trace::find_syncs(apart));
  ASSERT_EQ(two.sites.size(), 2u);
  EXPECT_EQ(trace::site_label(apart, two.sites[0]),
            "train.py(1): <module> -> <built-in method item of Tensor object>, aten::item "
            "(3rd in its step)");
  EXPECT_EQ(two.sites[0].calls, 2u);
  EXPECT_EQ(trace::site_label(apart, two.sites[1]),
            "train.py(1): <module> -> <built-in method item of Tensor object>, aten::item "
            "(the others in its step)");
  EXPECT_EQ(two.sites[1].calls, 18u);
  EXPECT_EQ(two.sites[1].occurrences, 18u);
  EXPECT_EQ(two.sites[1].steps, 2u);
}

TEST(CallSites, TheArticlesTwoItemSitesAndTheOptimisersApart) {
  const trace::RecordSet r = article_loop();
  const auto syncs = trace::find_syncs(r);
  const auto rep = trace::find_call_sites(r, syncs);
  EXPECT_EQ(rep.stacks, trace::SiteReport::Stacks::Python);
  ASSERT_EQ(rep.sites.size(), 3u);
  const auto* log =
      find(r, rep, "train.py(1): <module> -> <built-in method item of Tensor object>, aten::item");
  const auto* print = find(r, rep,
                           "train.py(1): <module> -> <built-in method item of Tensor object>, "
                           "aten::item (2nd in its step)");
  const auto* adam =
      find(r, rep, "train.py(1): <module> -> torch/optim/optimizer.py(480): wrapper, aten::item");
  ASSERT_TRUE(log && print && adam);
  EXPECT_EQ(log->calls, 3u);  // a stream sync per .item() (the pinned copy does not block)
  EXPECT_EQ(log->occurrences, 3u);
  EXPECT_EQ(log->steps, 3u);
  EXPECT_EQ(print->occurrences, 1u);
  EXPECT_EQ(print->steps, 1u);
  EXPECT_EQ(adam->calls, 6u);  // two .item() per optimiser step: one occurrence of wrapper
  EXPECT_EQ(adam->occurrences, 3u);
  EXPECT_EQ(adam->blocked_ns, 6 * 25 * us);
  EXPECT_NE(log->user, trace::kNoFrame);
  EXPECT_EQ(r.frame_names[log->user], "train.py(1): <module>");
  // Every call is in the row site_of_call names.
  for (size_t i = 0; i < syncs.calls.size(); ++i) {
    const auto& row = rep.sites[static_cast<size_t>(rep.site_of_call[i])];
    EXPECT_NE(std::find(row.members.begin(), row.members.end(), i), row.members.end());
  }
}

TEST(CallSites, CallsWithoutACallerFrameAreCountedNotGuessed) {
  trace::RecordSet r = article_loop();
  // Only torch's and builtin frames around a sync, and one sync with no frame at all.
  frame(&r, "torch/cuda/__init__.py(975): synchronize", 5000 * us, 5100 * us);
  r.api.push_back(api("cudaDeviceSynchronize", 5010 * us, 5020 * us, 0));
  r.api.push_back(api("cudaDeviceSynchronize", 6010 * us, 6020 * us, 0));
  const auto rep = trace::find_call_sites(r, trace::find_syncs(r));
  EXPECT_EQ(rep.without_caller, 1u);
  EXPECT_EQ(rep.without_stack, 1u);
  const auto* none = find(r, rep, "(no caller frame), cudaDeviceSynchronize");
  ASSERT_TRUE(none);
  EXPECT_EQ(none->calls, 2u);
}

TEST(CallSites, AMillionDeepStackIsCutNotACrash) {
  trace::RecordSet r;
  const uint64_t depth = 1000000;
  for (uint64_t d = 0; d < depth; ++d)
    frame(&r, d == 0 ? "train.py(1): <module>" : "torch/x.py(1): f", d, 4 * depth - d);
  r.api.push_back(api("cudaDeviceSynchronize", depth + 10, depth + 20, 0));
  const auto rep = trace::find_call_sites(r, trace::find_syncs(r));
  ASSERT_EQ(rep.calls.size(), 1u);
  EXPECT_TRUE(rep.calls[0].stack_cut);
  EXPECT_EQ(rep.calls[0].stack.size(), trace::kMaxStack);
  EXPECT_EQ(rep.calls[0].caller, -1);  // <module> was cut off with the outer frames
  EXPECT_EQ(rep.without_caller, 1u);
}

TEST(CallSites, OverlappingFramesAreSiblingsNotACycle) {
  trace::RecordSet r;
  frame(&r, "a.py(1): f", 0, 100);
  frame(&r, "b.py(1): g", 50, 150);  // overlaps f without nesting
  r.api.push_back(api("cudaDeviceSynchronize", 120, 130, 0));
  const auto rep = trace::find_call_sites(r, trace::find_syncs(r));
  ASSERT_EQ(rep.calls.size(), 1u);
  ASSERT_EQ(rep.calls[0].stack.size(), 1u);
  EXPECT_EQ(r.frame_names[rep.calls[0].stack[0]], "b.py(1): g");
}

TEST(CallSites, WouldSyncOnAGpuInATraceWithoutGpuWork) {
  trace::RecordSet r;
  frame(&r, "train.py(1): <module>", 0, 1000);
  frame(&r, "<built-in method item of Tensor object>", 100, 200);
  r.cpu_ops = {{110, 190, 7, "aten::item"},
               {120, 180, 7, "aten::_local_scalar_dense"},
               {300, 400, 7, "aten::nonzero"},
               {500, 600, 7, "aten::add"}};
  const auto rep = trace::find_call_sites(r, trace::find_syncs(r));
  EXPECT_FALSE(rep.gpu_work);
  ASSERT_EQ(rep.would_sync_sites.size(), 2u);
  EXPECT_EQ(trace::site_label(r, rep.would_sync_sites[1]),
            "train.py(1): <module> -> <built-in method item of Tensor object>, aten::item");
  EXPECT_EQ(rep.would_sync_sites[0].op, "aten::nonzero");
  EXPECT_EQ(rep.would_sync_sites[0].blocked_ns, 100u);
}

TEST(CallSites, NativeStacksNameTheProgramsFrame) {
  trace::RecordSet r;
  r.frame_names = {"0x7fd9",    "libcupti.so", "cudaMemcpy",   "/usr/lib/libcudart.so.12",
                   "main",      "/app/saxpy",  "__libc_start", "/lib64/libc-2.31.so",
                   "copy_back", "/app/saxpy"};
  r.api = {api("cudaMemcpy", 10, 90, 1)};
  r.memcpys = {{20, 80, 1, 0, 7, 4, trace::CopyKind::DtoH, trace::MemoryKind::Device,
                trace::MemoryKind::Pageable}};
  // Innermost first: libcupti (unresolved), cudaMemcpy (libcudart), copy_back, main, libc.
  r.call_stacks = {{0, {{0, 1, true}, {2, 3, false}, {8, 9, false}, {4, 5, false}, {6, 7, false}}}};
  const auto rep = trace::find_call_sites(r, trace::find_syncs(r));
  EXPECT_EQ(rep.stacks, trace::SiteReport::Stacks::Native);
  ASSERT_EQ(rep.sites.size(), 1u);
  EXPECT_EQ(trace::site_label(r, rep.sites[0]), "copy_back -> cudaMemcpy, cudaMemcpy");
}

TEST(CallSites, KinetoImportKeepsFramesOnePerNameWithoutAddresses) {
  const std::string json = R"({"traceEvents": [
    {"ph": "X", "cat": "python_function", "name": "train.py(1): <module>", "pid": 1, "tid": 7,
     "ts": 0, "dur": 100, "args": {"Python id": 1, "Python parent id": null}},
    {"ph": "X", "cat": "python_function", "name": "<built-in method item of Tensor object at 0x7f3a>",
     "pid": 1, "tid": 7, "ts": 10, "dur": 5, "args": {"Python id": 2, "Python parent id": 1}},
    {"ph": "X", "cat": "python_function", "name": "<built-in method item of Tensor object at 0x7f3b>",
     "pid": 1, "tid": 7, "ts": 20, "dur": 5, "args": {"Python id": 3, "Python parent id": 1}}
  ]})";
  for (bool regions : {true, false}) {
    trace::ImportOptions o;
    o.region_parse = regions;
    o.region_bytes = 64;  // region edges between the frames
    o.threads = 2;
    auto src = trace::memory_byte_source(json.data(), json.size(), "frames.json");
    const auto t = trace::import_trace(*src, "frames.json", o);
    ASSERT_EQ(t.records.py_frames.size(), 3u);
    ASSERT_EQ(t.records.frame_names.size(), 2u);
    EXPECT_EQ(t.records.frame_names[t.records.py_frames[1].name_id],
              "<built-in method item of Tensor object>");
    EXPECT_EQ(t.records.py_frames[1].name_id, t.records.py_frames[2].name_id);
    EXPECT_EQ(t.records.py_frames[1].start_ns, 10000u);
  }
}

TEST(CallSites, MalformedFramesGiveAClearErrorOrNoCaller) {
  const auto frames = [](const std::string& events) {
    return R"({"traceEvents": [)" + events +
           R"(, {"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 1,
               "tid": 7, "ts": 10, "dur": 5, "args": {"correlation": 9}}]})";
  };
  // A name that is not a string, and a complete event without its duration: errors naming them.
  EXPECT_NE(
      tracetest::import_error(
          frames(
              R"({"ph": "X", "cat": "python_function", "name": 5, "tid": 7, "ts": 0, "dur": 9})"))
          .find("\"name\" is not a valid string"),
      std::string::npos);
  EXPECT_NE(tracetest::import_error(
                frames(R"({"ph": "X", "cat": "python_function", "name": "a.py(1): f", "ts": 0})"))
                .find("without \"dur\""),
            std::string::npos);
  // A frame without a line, one with an empty name, parent ids in a cycle (the stack follows
  // time, not the ids): the frame with a file is the caller, the empty one is none.
  const auto t = tracetest::import_text(frames(
      R"({"ph": "X", "cat": "python_function", "name": "a.py(): f", "tid": 7, "ts": 0, "dur": 90,
          "args": {"Python id": 1, "Python parent id": 2}},
         {"ph": "X", "cat": "python_function", "name": "", "tid": 7, "ts": 1, "dur": 80,
          "args": {"Python id": 2, "Python parent id": 1}})"));
  const auto rep = trace::find_call_sites(t.records, trace::find_syncs(t.records));
  ASSERT_EQ(rep.calls.size(), 1u);
  EXPECT_EQ(rep.calls[0].stack.size(), 2u);
  EXPECT_EQ(rep.calls[0].caller, 0);
  EXPECT_EQ(t.records.frame_names[rep.calls[0].stack[0]], "a.py(): f");
  EXPECT_EQ(rep.without_caller, 0u);
}

TEST(WhatIfSite, RemovesOneSitesCallsAndNamesTheSitesOnABadSelector) {
  trace::ImportedTrace t;
  t.records = article_loop();
  using trace::replay::parse_what_if;
  // site=1 is the most blocked: the optimiser's, one site per occurrence of its wrapper.
  const auto rep = trace::replay::replay_trace(
      t, {parse_what_if("no-syncs:site=1"), parse_what_if("no-syncs:site=2nd in its step"),
          parse_what_if("no-syncs")});
  ASSERT_EQ(rep.what_ifs.size(), 3u);
  EXPECT_EQ(rep.what_ifs[0].sites, 3u);
  EXPECT_EQ(rep.what_ifs[1].sites, 1u);
  const auto saving = [&](size_t i) {
    return rep.what_ifs[i].total.replayed_ns - rep.what_ifs[i].total.predicted_ns;
  };
  EXPECT_GT(saving(1), 0);
  EXPECT_GT(saving(0), saving(1));
  EXPECT_GT(saving(2), saving(0));  // every sync goes
  const auto error = [&](const std::string& spec) -> std::string {
    try {
      trace::replay::replay_trace(t, {parse_what_if(spec)});
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "";
  };
  const std::string several = error("no-syncs:site=aten::item");
  EXPECT_NE(several.find("give its number"), std::string::npos) << several;
  EXPECT_NE(several.find("3) train.py(1): <module>"), std::string::npos) << several;
  EXPECT_NE(error("no-syncs:site=9").find("no site numbered 9"), std::string::npos);
  EXPECT_NE(error("log-every=2:site=nothing like it").find("no site's label holds it"),
            std::string::npos);
  trace::ImportedTrace bare;
  bare.records = article_loop();
  bare.records.py_frames.clear();
  try {
    trace::replay::replay_trace(bare, {parse_what_if("no-syncs:site=1")});
    ADD_FAILURE() << "a trace without stacks has no sites";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("with_stack=True"), std::string::npos);
  }
}

// A pageable copy whose call waits out a long kernel: pinned, the call returns at once and the
// next sync on the stream waits for the copy instead.
TEST(WhatIfPinCopies, AnAsyncPinnedCopyMovesItsWaitToTheNextSync) {
  trace::ImportedTrace t;
  auto& r = t.records;
  r.api = {api("cudaLaunchKernel", 0, 5 * us, 1), api("cudaMemcpyAsync", 10 * us, 1010 * us, 2),
           api("cudaLaunchKernel", 1015 * us, 1020 * us, 3),
           api("cudaStreamSynchronize", 2000 * us, 2300 * us, 0)};
  r.kernels = {kernel(6 * us, 900 * us, 1), kernel(1021 * us, 2290 * us, 3)};
  // 100 MB device -> pageable host at 1 GB/s, after the kernel; a pinned 10 MB copy at 10 GB/s.
  r.memcpys = {{900 * us, 1000 * us, 2, 0, 7, 100000000, trace::CopyKind::DtoH,
                trace::MemoryKind::Device, trace::MemoryKind::Pageable}};
  r.api.push_back(api("cudaMemcpyAsync", 2400 * us, 2405 * us, 4));
  r.memcpys.push_back({2410 * us, 3410 * us, 4, 0, 7, 10000000, trace::CopyKind::DtoH,
                       trace::MemoryKind::Device, trace::MemoryKind::Pinned});
  const auto rep =
      trace::replay::replay_trace(t, {trace::replay::parse_what_if("pin-copies"),
                                      trace::replay::parse_what_if("pin-copies:gbps=1000")});
  ASSERT_EQ(rep.what_ifs.size(), 2u);
  const auto& pinned = rep.what_ifs[0];
  EXPECT_NE(pinned.note.find("1 pageable copies (100.0 MB)"), std::string::npos) << pinned.note;
  EXPECT_NE(pinned.note.find("the trace's 1 pinned copies"), std::string::npos) << pinned.note;
  EXPECT_NE(pinned.note.find("5.0 us of host time (median of the trace's 1"), std::string::npos)
      << pinned.note;
  // The copy no longer holds the host for the kernel: the host launches the second kernel at
  // once, and the sync waits for the copy (10 ms at the trace's pinned 10 GB/s) behind both.
  EXPECT_LT(pinned.total.predicted_ns, pinned.total.replayed_ns);
  EXPECT_NE(rep.what_ifs[1].note.find("as given"), std::string::npos);
}

TEST(WhatIfStreamSyncs, ADeviceSyncWaitsForItsThreadsStreamOnly) {
  trace::ImportedTrace t;
  auto& r = t.records;
  // Thread 7 queues short work on stream 7; thread 8 a long kernel on stream 9; thread 7's device
  // sync waits for stream 9's kernel.
  // A sync with nothing queued first: a sync's own price in this trace is then 1 us.
  r.api = {api("cudaLaunchKernel", 0, 5 * us, 1, false, 8),
           api("cudaStreamSynchronize", 8 * us, 9 * us, 0, false, 7),
           api("cudaLaunchKernel", 10 * us, 15 * us, 2, false, 7),
           api("cudaDeviceSynchronize", 20 * us, 1000 * us, 0, false, 7),
           api("cudaLaunchKernel", 1005 * us, 1010 * us, 3, false, 7)};
  r.kernels = {kernel(6 * us, 995 * us, 1, 9), kernel(16 * us, 30 * us, 2, 7),
               kernel(1011 * us, 1020 * us, 3, 7)};
  // Thread 7's step, as the profiler writes it (the annotation gives the step its thread).
  r.steps = {{10 * us, 1010 * us, "ProfilerStep#0"}};
  r.annotations = {{10 * us, 1010 * us, 7, false, "ProfilerStep#0"}};
  const auto rep = trace::replay::replay_trace(t, {trace::replay::parse_what_if("stream-syncs")});
  ASSERT_EQ(rep.what_ifs.size(), 1u);
  EXPECT_NE(rep.what_ifs[0].note.find("1 device-wide sync waits"), std::string::npos);
  // Thread 7 now goes on after its own kernel (30 us), not stream 9's (995 us).
  const auto& step = rep.what_ifs[0].steps.at(0);
  EXPECT_LT(step.predicted_ns, step.replayed_ns - 900 * static_cast<int64_t>(us));
}

TEST(Advice, TheArticlesLoopGetsItsSitesAdvice) {
  trace::ImportedTrace t;
  t.records = article_loop();
  auto report = trace::build_report(t);
  const auto advice = trace::advise(report);
  ASSERT_FALSE(advice.empty());
  bool value_read = false;
  for (const auto& f : advice) {
    EXPECT_GT(f.saving_ns, 0);
    EXPECT_GE(static_cast<double>(f.saving_ns), 0.01 * static_cast<double>(f.total_ns));
    value_read |=
        f.kind == trace::Finding::Kind::ValueRead && f.what_if.rfind("no-syncs:site=", 0) == 0;
  }
  EXPECT_TRUE(value_read);
  // A bar the replay cannot reach gives no advice at all.
  trace::AdviceOptions strict;
  strict.min_share = 0.99;
  EXPECT_TRUE(trace::advise(report, strict).empty());
}
