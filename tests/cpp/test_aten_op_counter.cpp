#include <ATen/ThreadLocalState.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>

#include "iris/iris_data.h"
#include "train/aten_op_counter.h"
#include "train/ladder.h"
#include "train/trainer.h"

namespace {
// Counted with torch 2.11.0 (requirements.txt) on the CPU; the lists are printed on a mismatch.
constexpr int64_t kBackwardTop = 8, kBackwardAll = 15, kEpochTop = 37, kEpochAll = 86;
std::vector<std::string> top_level(const std::vector<std::string>& names) {
  std::vector<std::string> out;
  for (const auto& n : names)
    if (n.rfind("  ", 0) != 0) out.push_back(n);
  return out;
}
std::string joined(const std::vector<std::string>& names) {
  return std::accumulate(names.begin(), names.end(), std::string(),
                         [](std::string a, const std::string& b) { return a + "\n" + b; });
}
}  // namespace

// What LibTorch's autograd engine does for a CUDA backward: the work runs on another
// thread that adopts the caller's thread-local state (and so its RecordFunction callbacks).
// Those ops must land in the caller's count.
TEST(AtenOpCounter, CountsOpsRunOnAnotherThreadThatInheritsTheCallersState) {
  auto a = torch::ones({2});
  train::AtenOpCounter counter;
  (void)(a + a);
  ASSERT_EQ(counter.top_level(), 1) << joined(counter.names());
  EXPECT_EQ(counter.names().front(), "aten::add");
  const auto here = counter.count();
  const at::ThreadLocalState state;
  std::thread worker([&] {
    at::ThreadLocalStateGuard guard(state);
    for (int i = 0; i < 5; ++i) (void)(a * a);
  });
  worker.join();
  EXPECT_EQ(counter.top_level(), 6) << joined(counter.names());
  EXPECT_EQ(counter.count(), here + 5 * here)
      << joined(counter.names());  // a * a nests as a + a does
}

TEST(AtenOpCounter, IgnoresThreadsThatDidNotInheritTheState) {
  auto a = torch::ones({2});
  train::AtenOpCounter counter;
  std::thread stranger([&] {
    for (int i = 0; i < 5; ++i) (void)(a * a);
  });
  stranger.join();
  EXPECT_EQ(counter.count(), 0);
}

// A backward pass runs autograd nodes, each inside an "autograd::engine::evaluate_function"
// record that is not an operator: only the operators the nodes call are counted.
TEST(AtenOpCounter, CountsTheBackwardsOperatorsNotAutogradsNodeRecords) {
  auto w = torch::ones({3}, torch::requires_grad());
  train::AtenOpCounter counter;
  auto loss = (w * w).sum();
  const auto forward = top_level(counter.names());
  loss.backward();
  const auto all = counter.names();
  EXPECT_EQ(forward, (std::vector<std::string>{"aten::mul", "aten::sum"})) << joined(forward);
  for (const auto& n : all)
    EXPECT_EQ(n.find("evaluate_function"), std::string::npos) << joined(all);
  // backward() seeds the gradient (ones_like), SumBackward0 expands it, MulBackward0 multiplies
  // it twice and adds the two (w * w: both inputs are w), AccumulateGrad keeps it (detach): 8
  // outermost calls, 15 with the nested ones; pinned, so a change in what counts shows here.
  EXPECT_EQ(counter.top_level(), kBackwardTop) << joined(all);
  EXPECT_EQ(counter.count(), kBackwardAll) << joined(all);
}

// One epoch of the article's loop on the CPU (what Dispatch/cpu-train_step counts), pinned
// exactly: forward (t + addmm twice, relu), cross_entropy, zero_grad, backward, SGD's update of
// the 4 parameters: 37 outermost operator calls, 86 with the nested ones. Counting autograd's
// evaluate_function records as well gave 104.
TEST(AtenOpCounter, OneEpochOfTheArticlesLoop) {
  const auto data = train::make_train_data(iris::load_article_split(iris::default_data_dir()));
  train::Trainer trainer(data, torch::kCPU, 42);
  trainer.run(2, train::LoggingPolicy{0, false});  // warm-up, as Dispatch does
  train::AtenOpCounter counter;
  trainer.run(1, train::LoggingPolicy{0, false});
  EXPECT_EQ(counter.top_level(), kEpochTop) << joined(counter.names());
  EXPECT_EQ(counter.count(), kEpochAll) << joined(counter.names());
}

TEST(AtenOpCounter, OneAtATime) {
  train::AtenOpCounter first;
  EXPECT_THROW(train::AtenOpCounter second, std::logic_error);
}
