// CUPTI structs built by hand (no GPU, no CUPTI calls) -> plain records.
#include <gtest/gtest.h>

#include <cstring>

#include "capture/cupti_records.h"
#include "trace/analyze/attribution.h"

namespace {
const trace::ApiNameFn kNames = [](bool driver, uint32_t cbid) {
  return std::string(driver      ? "cuLaunchKernel"
                     : cbid == 1 ? "cudaStreamSynchronize"
                                 : "cudaLaunchKernel");
};
template <typename T>
T zeroed(CUpti_ActivityKind kind) {
  T t;
  std::memset(&t, 0, sizeof t);
  t.kind = kind;
  return t;
}
}  // namespace

TEST(CuptiRecords, KernelMemcpyMemsetSyncAndApiAreTranslated) {
  trace::RecordSet out;
  auto k = zeroed<CUpti_ActivityKernel10>(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  k.start = 100, k.end = 300, k.correlationId = 5, k.streamId = 7, k.deviceId = 0, k.name = "gemm";
  auto m = zeroed<CUpti_ActivityMemcpy6>(CUPTI_ACTIVITY_KIND_MEMCPY);
  m.start = 400, m.end = 410, m.bytes = 4, m.correlationId = 6, m.streamId = 7;
  m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, m.srcKind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
  m.dstKind = CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
  auto s = zeroed<CUpti_ActivityMemset4>(CUPTI_ACTIVITY_KIND_MEMSET);
  s.start = 50, s.end = 60, s.bytes = 64, s.correlationId = 4;
  auto y = zeroed<CUpti_ActivitySynchronization2>(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
  y.start = 410, y.end = 500, y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE,
  y.streamId = 7;
  auto a = zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
  a.start = 10, a.end = 20, a.correlationId = 5, a.threadId = 99, a.cbid = 0;
  auto sync_api = zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_RUNTIME);
  sync_api.start = 405, sync_api.end = 505, sync_api.cbid = 1, sync_api.threadId = 99;
  auto d = zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_DRIVER);
  d.start = 12, d.end = 18, d.correlationId = 8, d.threadId = 99;

  for (const CUpti_Activity* r :
       {reinterpret_cast<const CUpti_Activity*>(&k), reinterpret_cast<const CUpti_Activity*>(&m),
        reinterpret_cast<const CUpti_Activity*>(&s), reinterpret_cast<const CUpti_Activity*>(&y),
        reinterpret_cast<const CUpti_Activity*>(&a),
        reinterpret_cast<const CUpti_Activity*>(&sync_api),
        reinterpret_cast<const CUpti_Activity*>(&d)})
    EXPECT_TRUE(trace::append_cupti_record(r, kNames, out));

  ASSERT_EQ(out.kernels.size(), 1u);
  EXPECT_EQ(out.kernels[0].name, "gemm");
  EXPECT_EQ(out.kernels[0].stream_id, 7u);
  ASSERT_EQ(out.memcpys.size(), 1u);
  EXPECT_EQ(out.memcpys[0].kind, trace::CopyKind::DtoH);
  EXPECT_EQ(out.memcpys[0].dst, trace::MemoryKind::Pinned);
  EXPECT_EQ(out.memsets[0].bytes, 64u);
  EXPECT_EQ(out.syncs[0].kind, trace::SyncKind::Stream);
  ASSERT_EQ(out.api.size(), 3u);
  EXPECT_EQ(out.api[0].kind, trace::ApiKind::Launch);
  EXPECT_EQ(out.api[1].kind, trace::ApiKind::Sync);
  EXPECT_TRUE(out.api[2].driver);

  const auto attr = trace::attribute(out);
  EXPECT_EQ(attr.launches, 1u);  // the driver call sits inside the runtime call
  EXPECT_EQ(attr.sync_api_ns, 100u);
  EXPECT_EQ(attr.launch_delay.count, 1u);
  EXPECT_DOUBLE_EQ(attr.launch_delay.p50, 80);
}

TEST(CuptiRecords, OtherKindsAreIgnored) {
  trace::RecordSet out;
  auto k = zeroed<CUpti_ActivityAPI>(CUPTI_ACTIVITY_KIND_OVERHEAD);
  EXPECT_FALSE(
      trace::append_cupti_record(reinterpret_cast<const CUpti_Activity*>(&k), kNames, out));
  EXPECT_TRUE(out.api.empty());
}
