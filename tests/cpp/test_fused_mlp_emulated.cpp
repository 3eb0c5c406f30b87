// The hand-written CUDA kernels' own source (src/cuda/fused_mlp_body.h) run on the CPU:
// a block of 128 std::threads with a barrier for __syncthreads(). Checks the kernels'
// arithmetic, indexing and barrier placement against LibTorch float64 without a GPU; on
// the GPU the same code runs as CUDA (tests/cpp/test_ladder.cpp, under compute-sanitizer
// in scripts/gpu_check.sh).
#include <gtest/gtest.h>

#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "cuda/fused_mlp_body.h"
#include "iris/iris_data.h"
#include "train/ladder.h"

namespace {

namespace body = cuda_kernels::body;

// A reusable barrier for `count` threads (C++17 has no std::barrier).
class Barrier {
 public:
  explicit Barrier(int count) : count_(count) {}
  void wait() {
    std::unique_lock<std::mutex> lock(mutex_);
    const uint64_t generation = generation_;
    if (++waiting_ == count_) {
      waiting_ = 0;
      ++generation_;
      cv_.notify_all();
    } else {
      cv_.wait(lock, [&] { return generation_ != generation; });
    }
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  const int count_;
  int waiting_ = 0;
  uint64_t generation_ = 0;
};

struct EmulatedBlock {
  int tid, threads;
  Barrier* barrier;
  int thread() const { return tid; }
  int size() const { return threads; }
  void sync() const { barrier->wait(); }
};

// Runs fn(block) on every thread of one emulated block of kThreads threads.
template <class Fn>
void run_block(Fn fn) {
  Barrier barrier(cuda_kernels::kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < cuda_kernels::kThreads; ++t)
    threads.emplace_back([&, t] { fn(EmulatedBlock{t, cuda_kernels::kThreads, &barrier}); });
  for (auto& t : threads) t.join();
}

// "Global memory" for one emulated launch sequence: the batch, the weights, shared memory.
struct EmulatedDevice {
  std::vector<float> x;
  std::vector<int64_t> y;
  train::MlpWeights<float> w;
  std::vector<float> p = std::vector<float>(body::kParams);
  std::vector<float> smem;
  EmulatedDevice(const train::TrainData& data, uint64_t seed) : w(train::initial_weights(seed)) {
    const auto xs = data.x.contiguous();
    x.assign(xs.data_ptr<float>(), xs.data_ptr<float>() + xs.numel());
    y.assign(data.y.data_ptr<int64_t>(), data.y.data_ptr<int64_t>() + data.y.numel());
    smem.resize(body::row_bytes(rows()) / sizeof(float));
  }
  int rows() const { return static_cast<int>(y.size()); }
  cuda_kernels::DeviceMlp mlp() { return {w.w1.data(), w.b1.data(), w.w2.data(), w.b2.data()}; }
};

constexpr int kEpochs = 300, kEvery = 100;
constexpr float kLr = 0.01f;

const train::TrainData& iris_data() {
  static const auto d = train::make_train_data(iris::load_article_split(iris::default_data_dir()));
  return d;
}

std::vector<float> persistent(EmulatedDevice& dev, int epochs, int every) {
  std::vector<float> losses(every > 0 ? epochs / every : 0, -1.f);
  const auto mlp = dev.mlp();
  run_block([&](const EmulatedBlock& b) {
    body::persistent_train(b, dev.p.data(), dev.smem.data(), dev.x.data(), dev.y.data(), dev.rows(),
                           mlp, kLr, epochs, every, losses.data());
  });
  return losses;
}

}  // namespace

TEST(FusedMlpEmulated, PersistentKernelMatchesFloat64) {
  EmulatedDevice dev(iris_data(), 42);
  const auto losses = persistent(dev, kEpochs, kEvery);
  const auto ref = train::float64_reference(iris_data(), kEpochs, kEvery, 42);
  ASSERT_EQ(losses.size(), ref.recorded.size());
  // float32 against float64 over 300 epochs; a wrong index or gradient is off by far more.
  EXPECT_LT(train::max_loss_error(losses, ref.recorded), 1e-5);
  EXPECT_LT(train::max_weight_error(dev.w, ref.final_weights), 1e-4);
  EXPECT_LT(losses.back(), losses.front());
}

TEST(FusedMlpEmulated, OneLaunchPerEpochIsBitwiseThePersistentKernel) {
  // The same arithmetic in the same order; only the parameters' trip through global memory
  // between epochs differs, and it is exact.
  // (60 epochs: each emulated launch starts 128 threads.)
  constexpr int epochs = 60, every = 20;
  EmulatedDevice per_epoch(iris_data(), 42), whole(iris_data(), 42);
  std::vector<float> losses(epochs / every);
  const auto mlp = per_epoch.mlp();
  for (int e = 1; e <= epochs; ++e) {
    float* slot = e % every == 0 ? &losses[e / every - 1] : nullptr;
    run_block([&](const EmulatedBlock& b) {
      body::fused_epoch(b, per_epoch.p.data(), per_epoch.smem.data(), per_epoch.x.data(),
                        per_epoch.y.data(), per_epoch.rows(), mlp, kLr, slot);
    });
  }
  EXPECT_EQ(losses, persistent(whole, epochs, every));
  EXPECT_EQ(per_epoch.w.w1, whole.w.w1);
  EXPECT_EQ(per_epoch.w.b2, whole.w.b2);
}

TEST(FusedMlpEmulated, MoreRowsThanThreadsAreStrided) {
  // 200 Iris-like rows on 128 threads: each thread takes rows t and t + 128 in phase 1.
  const auto data = train::make_train_data(iris::load_article_split(iris::default_data_dir()), 200);
  EmulatedDevice dev(data, 7);
  const auto losses = persistent(dev, 50, 10);
  const auto ref = train::float64_reference(data, 50, 10, 7);
  EXPECT_LT(train::max_loss_error(losses, ref.recorded), 1e-5);
  EXPECT_LT(train::max_weight_error(dev.w, ref.final_weights), 1e-4);
}

TEST(FusedMlpEmulated, RowCountOutsideSharedMemoryIsRefused) {
  EXPECT_EQ(body::row_bytes(120), 120u * 28u * sizeof(float));
  for (int n : {0, cuda_kernels::kMaxRows + 1}) {
    try {
      body::row_bytes(n);
      FAIL() << "n = " << n << " accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("n = " + std::to_string(n) + " rows; expected 1..256"),
                std::string::npos)
          << e.what();
    }
  }
}
