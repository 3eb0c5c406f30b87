#include <ATen/ThreadLocalState.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <stdexcept>
#include <thread>

#include "train/aten_op_counter.h"

// What LibTorch's autograd engine does for a CUDA backward: the work runs on another
// thread that adopts the caller's thread-local state (and so its RecordFunction callbacks).
// Those ops must land in the caller's count.
TEST(AtenOpCounter, CountsOpsRunOnAnotherThreadThatInheritsTheCallersState) {
  auto a = torch::ones({2});
  int64_t here = 0;
  {
    train::AtenOpCounter counter;
    (void)(a + a);
    here = counter.count();
    EXPECT_GE(here, 1);
    const at::ThreadLocalState state;
    std::thread worker([&] {
      at::ThreadLocalStateGuard guard(state);
      for (int i = 0; i < 5; ++i) (void)(a * a);
    });
    worker.join();
    EXPECT_GE(counter.count(), here + 5);
  }
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

TEST(AtenOpCounter, CountsABackwardPass) {
  auto w = torch::ones({3}, torch::requires_grad());
  int64_t forward = 0, both = 0;
  {
    train::AtenOpCounter counter;
    auto loss = (w * w).sum();
    forward = counter.count();
    loss.backward();
    both = counter.count();
  }
  EXPECT_GT(forward, 0);
  EXPECT_GT(both, forward);  // the backward's ops are counted too
}

TEST(AtenOpCounter, OneAtATime) {
  train::AtenOpCounter first;
  EXPECT_THROW(train::AtenOpCounter second, std::logic_error);
}
