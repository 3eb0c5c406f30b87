// Seeded random traces for the replay's property tests: a small "machine" runs a made-up
// training loop (host threads queueing kernels and copies on streams, `.item()`-style syncs,
// device and event syncs, cross-stream event waits, a backward handed to a second thread, the
// forward in a torch.compile region or not) and
// records what happened, so every trace is consistent: GPU work starts after it was queued and
// its stream is free, a sync returns after what it waits for. Kineto's cuda_sync rows are
// written for some syncs and left out for others, as real traces do.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "trace/model/records.h"

namespace testdata {

class RandomTrace {
 public:
  explicit RandomTrace(uint32_t seed) : rng_(seed) {}

  trace::RecordSet make() {
    const int streams = pick(1, 3), steps = pick(2, 5);
    const bool autograd = pick(0, 1) == 1;
    free_.assign(static_cast<size_t>(streams), 0);
    uint64_t t = 1000;
    const bool compiled = pick(0, 1) == 1;  // the forward in a torch.compile region
    for (int step = 0; step < steps; ++step) {
      const uint64_t start = t;
      const uint64_t region = t;
      t = forward(t, kMain, streams);
      if (compiled) r_.cpu_ops.push_back({region, t, kMain, "Torch-Compiled Region: 0/0"});
      if (autograd) {
        // The main thread hands the backward to thread 2 and waits, idle, until it is done.
        const uint64_t handed = t + us(pick(1, 5));
        const uint64_t done = forward(handed + us(pick(20, 80)), kAutograd, streams);
        t = done + us(pick(10, 60));
      }
      t = item(t + us(pick(1, 20)), pick(0, streams - 1));
      r_.annotations.push_back({start, t, kMain, false, "ProfilerStep#" + std::to_string(step)});
      r_.steps.push_back({start, t, "ProfilerStep#" + std::to_string(step)});
      t += us(pick(1, 30));
    }
    return r_;
  }

 private:
  static constexpr uint32_t kMain = 1, kAutograd = 2;
  static uint64_t us(int n) { return static_cast<uint64_t>(n) * 1000; }
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  uint32_t stream_id(int s) const { return 7 + static_cast<uint32_t>(s); }

  // GPU work queued at `queued` on stream s, not before `after`: its start and end.
  std::pair<uint64_t, uint64_t> run(int s, uint64_t queued, uint64_t after, uint64_t dur) {
    const uint64_t begin = std::max({queued + us(pick(2, 8)), free_[s], after});
    free_[s] = begin + dur;
    return {begin, free_[s]};
  }

  // A few ops, each with CPU time and maybe a launch, an event wait or a device sync.
  uint64_t forward(uint64_t t, uint32_t thread, int streams) {
    const int ops = pick(3, 12);
    for (int i = 0; i < ops; ++i) {
      const uint64_t op = t;
      t += us(pick(1, 40));  // dispatch
      const int what = pick(0, 9);
      const int s = pick(0, streams - 1);
      if (what <= 6) {
        const uint32_t c = ++corr_;
        const uint64_t end = t + us(pick(3, 12));
        r_.api.push_back({t, end, c, thread, trace::ApiKind::Launch, false, "cudaLaunchKernel"});
        const auto [k0, k1] = run(s, end, 0, us(pick(1, 200)));
        r_.kernels.push_back({k0, k1, c, 0, stream_id(s), "k" + std::to_string(c)});
        t = end;
      } else if (what == 7 && streams > 1) {
        // Stream s2 waits for what is queued on s so far (cudaEventRecord + cudaStreamWaitEvent).
        const int s2 = (s + 1) % streams;
        const uint32_t rec = ++corr_, wait = ++corr_;
        r_.api.push_back(
            {t, t + us(1), rec, thread, trace::ApiKind::Other, false, "cudaEventRecord"});
        r_.api.push_back({t + us(1), t + us(2), wait, thread, trace::ApiKind::Other, false,
                          "cudaStreamWaitEvent"});
        if (pick(0, 1)) {
          trace::SyncRecord y{t + us(1), t + us(2), wait, stream_id(s2),
                              trace::SyncKind::StreamWaitEvent};
          y.wait_stream = stream_id(s), y.wait_record_correlation = rec;
          r_.syncs.push_back(y);
        }
        free_[s2] = std::max(free_[s2], free_[s]);  // the next work on s2 waits for s's
        t += us(2);
      } else if (what == 8) {
        // A device sync: returns after every stream's queued work, plus a wake-up.
        const uint32_t c = ++corr_;
        uint64_t last = 0;
        for (uint64_t f : free_) last = std::max(last, f);
        const uint64_t end = std::max(t + us(pick(2, 5)), last + us(pick(1, 4)));
        r_.api.push_back({t, end, c, thread, trace::ApiKind::Sync, false, "cudaDeviceSynchronize"});
        if (pick(0, 1)) r_.syncs.push_back({t, end, c, trace::kNoStream, trace::SyncKind::Context});
        t = end;
      }
      t += us(pick(0, 5));
      r_.cpu_ops.push_back({op, t, thread, "aten::op" + std::to_string(what)});
      t += us(pick(0, 3));
    }
    return t;
  }

  // `.item()`: a copy to pinned memory and a stream sync (with or without its cuda_sync row).
  uint64_t item(uint64_t t, int s) {
    const uint64_t op = t;
    const uint32_t copy = ++corr_, sync = ++corr_;
    r_.api.push_back({t, t + us(4), copy, kMain, trace::ApiKind::Memcpy, false, "cudaMemcpyAsync"});
    const auto [m0, m1] = run(s, t + us(1), 0, us(pick(1, 3)));
    r_.memcpys.push_back({m0, m1, copy, 0, stream_id(s), 4, trace::CopyKind::DtoH,
                          trace::MemoryKind::Device, trace::MemoryKind::Pinned});
    t += us(4);
    const uint64_t end = std::max(t + us(pick(3, 6)), m1 + us(pick(2, 5)));
    r_.api.push_back({t, end, sync, kMain, trace::ApiKind::Sync, false, "cudaStreamSynchronize"});
    if (pick(0, 1)) r_.syncs.push_back({t, end, sync, stream_id(s), trace::SyncKind::Stream});
    t = end + us(pick(1, 3));
    r_.cpu_ops.push_back({op, t, kMain, "aten::item"});
    return t;
  }

  std::mt19937 rng_;
  trace::RecordSet r_;
  std::vector<uint64_t> free_;
  uint32_t corr_ = 0;
};

inline trace::RecordSet random_trace(uint32_t seed) { return RandomTrace(seed).make(); }

}  // namespace testdata
