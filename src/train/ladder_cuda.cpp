// The CUDA rungs of the ladder (ladder.h). Built only with the CUDA toolkit.
#include <ATen/cuda/CUDAContext.h>
#include <ATen/cuda/CUDAEvent.h>
#include <ATen/cuda/CUDAGraph.h>
#include <c10/cuda/CUDAGuard.h>

#include <chrono>
#include <stdexcept>

#include "cuda/cuda_check.h"
#include "cuda/fused_mlp.h"
#include "train/ladder.h"

namespace train {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

struct CudaSetup {
  IrisMLP model;
  torch::Tensor x, y;
  std::unique_ptr<torch::optim::SGD> opt;
  CudaSetup(const TrainData& data, uint64_t seed) {
    const auto w0 = initial_weights(seed);
    model = IrisMLP();
    set_weights(model, w0);
    model->to(torch::kCUDA);
    x = data.x.to(torch::kCUDA);
    y = data.y.to(torch::kCUDA);
    opt = std::make_unique<torch::optim::SGD>(model->parameters(), torch::optim::SGDOptions(0.01));
  }
  torch::Tensor step() {
    auto loss = torch::nn::functional::cross_entropy(model->forward(x), y);
    opt->zero_grad();
    loss.backward();
    opt->step();
    return loss;
  }
};

LadderResult finish(LadderResult out, CudaSetup& s, const torch::Tensor& losses_on_device) {
  const auto host = losses_on_device.cpu();
  out.recorded.assign(host.data_ptr<float>(), host.data_ptr<float>() + host.numel());
  out.final_weights = weights_of(s.model);
  return out;
}

// Losses copied into a device tensor, read back once: no sync inside the loop.
LadderResult device_log(const TrainData& data, int64_t epochs, int64_t every, uint64_t seed) {
  CudaSetup s(data, seed);
  auto losses = torch::empty({every > 0 ? epochs / every : 0},
                             torch::dtype(torch::kFloat32).device(torch::kCUDA));
  LadderResult out;
  const auto t0 = Clock::now();
  for (int64_t e = 1; e <= epochs; ++e) {
    auto loss = s.step();
    if (every > 0 && e % every == 0) losses.select(0, e / every - 1).copy_(loss.detach());
  }
  torch::cuda::synchronize();
  out.seconds = seconds_since(t0);
  out.host_syncs = 1;
  return finish(out, s, losses);
}

// Each record copied without blocking into pinned host memory; one event wait at the end.
LadderResult pinned_event(const TrainData& data, int64_t epochs, int64_t every, uint64_t seed) {
  CudaSetup s(data, seed);
  auto losses = torch::empty({every > 0 ? epochs / every : 0},
                             torch::dtype(torch::kFloat32).pinned_memory(true));
  at::cuda::CUDAEvent done;
  LadderResult out;
  const auto t0 = Clock::now();
  for (int64_t e = 1; e <= epochs; ++e) {
    auto loss = s.step();
    if (every > 0 && e % every == 0)
      losses.select(0, e / every - 1).copy_(loss.detach(), /*non_blocking=*/true);
  }
  done.record();
  done.synchronize();  // the copies are complete and the last epoch ran
  out.seconds = seconds_since(t0);
  out.host_syncs = 1;
  out.recorded.assign(losses.data_ptr<float>(), losses.data_ptr<float>() + losses.numel());
  out.final_weights = weights_of(s.model);
  return out;
}

// The whole step captured once (PyTorch's whole-network capture recipe: warm up on a
// side stream, grads set to None before capture so backward allocates them from the
// graph's pool, then capture forward+loss+backward+step) and replayed per epoch.
LadderResult cuda_graph(const TrainData& data, int64_t epochs, int64_t every, uint64_t seed) {
  CudaSetup s(data, seed);
  const auto w0 = initial_weights(seed);
  auto losses = torch::empty({every > 0 ? epochs / every : 0},
                             torch::dtype(torch::kFloat32).device(torch::kCUDA));
  auto side = at::cuda::getStreamFromPool();
  at::cuda::CUDAEvent ready;  // the side stream starts after the set-up copies
  ready.record(at::cuda::getCurrentCUDAStream());
  ready.block(side);
  torch::Tensor static_loss;
  at::cuda::CUDAGraph graph;
  {
    c10::cuda::CUDAStreamGuard guard(side);
    for (int i = 0; i < 3; ++i) s.step();  // warm-up: cuBLAS handles, allocator, autograd
    torch::cuda::synchronize();
    set_weights(s.model, w0);  // back to the same start as every other rung
    s.opt->zero_grad(/*set_to_none=*/true);
    graph.capture_begin();
    static_loss = torch::nn::functional::cross_entropy(s.model->forward(s.x), s.y);
    static_loss.backward();
    s.opt->step();
    graph.capture_end();
  }
  torch::cuda::synchronize();
  LadderResult out;
  const auto t0 = Clock::now();
  for (int64_t e = 1; e <= epochs; ++e) {
    graph.replay();
    if (every > 0 && e % every == 0) losses.select(0, e / every - 1).copy_(static_loss.detach());
  }
  torch::cuda::synchronize();
  out.seconds = seconds_since(t0);
  out.host_syncs = 1;
  return finish(out, s, losses);
}

cuda_kernels::DeviceMlp device_mlp(IrisMLP& m) {
  return {m->fc1->weight.data_ptr<float>(), m->fc1->bias.data_ptr<float>(),
          m->fc2->weight.data_ptr<float>(), m->fc2->bias.data_ptr<float>()};
}

LadderResult fused_kernels(bool persistent, const TrainData& data, int64_t epochs, int64_t every,
                           uint64_t seed) {
  CudaSetup s(data, seed);
  torch::NoGradGuard no_grad;
  auto losses = torch::zeros({every > 0 ? epochs / every : 0},
                             torch::dtype(torch::kFloat32).device(torch::kCUDA));
  const auto stream = at::cuda::getCurrentCUDAStream().stream();
  const int n = static_cast<int>(s.x.size(0));
  auto w = device_mlp(s.model);
  LadderResult out;
  torch::cuda::synchronize();
  const auto t0 = Clock::now();
  if (persistent) {
    cuda_kernels::launch_persistent_train(s.x.data_ptr<float>(), s.y.data_ptr<int64_t>(), n, w,
                                          0.01f, static_cast<int>(epochs), static_cast<int>(every),
                                          losses.data_ptr<float>(), stream);
  } else {
    for (int64_t e = 1; e <= epochs; ++e) {
      float* slot =
          every > 0 && e % every == 0 ? losses.data_ptr<float>() + (e / every - 1) : nullptr;
      cuda_kernels::launch_fused_epoch(s.x.data_ptr<float>(), s.y.data_ptr<int64_t>(), n, w, 0.01f,
                                       slot, stream);
    }
  }
  CUDA_CHECK(cudaStreamSynchronize(stream));
  out.seconds = seconds_since(t0);
  out.host_syncs = 1;
  return finish(out, s, losses);
}

}  // namespace

LadderResult run_cuda_rung(Rung rung, const TrainData& data, int64_t epochs, int64_t every,
                           uint64_t seed) {
  switch (rung) {
    case Rung::DeviceLog:
      return device_log(data, epochs, every, seed);
    case Rung::PinnedEvent:
      return pinned_event(data, epochs, every, seed);
    case Rung::CudaGraph:
      return cuda_graph(data, epochs, every, seed);
    case Rung::FusedStepKernel:
      return fused_kernels(false, data, epochs, every, seed);
    case Rung::PersistentKernel:
      return fused_kernels(true, data, epochs, every, seed);
    default:
      throw std::invalid_argument(std::string("not a CUDA rung: ") + rung_name(rung));
  }
}

}  // namespace train
