// The body of the hand-written MLP kernels (fused_mlp.cu), written once for two builds:
// nvcc compiles it as device code with Block = a CUDA thread block; the C++ compiler
// compiles it for tests/cpp/test_fused_mlp_emulated.cpp with Block = std::threads and a
// barrier, so the kernels' arithmetic, indexing and barrier placement are tested on a
// machine without a GPU. Block provides thread() (threadIdx.x), size() (blockDim.x) and
// sync() (__syncthreads()).
#pragma once

#include <math.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "cuda/fused_mlp_types.h"

#ifdef __CUDACC__
#define IRIS_BLOCK_FN __device__
#else
#define IRIS_BLOCK_FN
#endif

namespace cuda_kernels::body {

constexpr int I = 4, H = 10, O = 3;
// Parameters in one array, in the order the gradient threads own them.
constexpr int kW1 = 0, kB1 = kW1 + H * I, kW2 = kB1 + H, kB2 = kW2 + O * H,
              kParams = kB2 + O;      // 83
constexpr int kLossThread = kParams;  // thread 83 sums the loss while 0..82 sum gradients
static_assert(kThreads > kLossThread, "one thread per parameter plus one for the loss");
// Per-row values kept in shared memory between the two phases, structure of arrays
// ([feature][row]): x, the hidden activations, dL/dz, dL/dh (ReLU applied) and the loss.
constexpr int kRowFloats = I + H + O + H + 1;  // 28

// Dynamic shared memory for n rows; throws for n outside 1..kMaxRows (host side).
inline size_t row_bytes(int n) {
  if (n < 1 || n > kMaxRows)
    throw std::invalid_argument("fused MLP kernels: n = " + std::to_string(n) +
                                " rows; expected 1.." + std::to_string(kMaxRows) +
                                " (the rows live in one block's shared memory)");
  return static_cast<size_t>(kRowFloats) * static_cast<size_t>(n) * sizeof(float);
}

struct Rows {
  float *x, *h, *dz, *dh, *loss;
  IRIS_BLOCK_FN Rows(float* smem, int n)
      : x(smem), h(x + I * n), dz(h + H * n), dh(dz + O * n), loss(dh + H * n) {}
};

// One epoch in two phases, no atomics, so the summation order (and the result) is the
// same on every run:
//   1. a thread per row: forward, softmax cross-entropy, dz = (p - onehot) / n and
//      dh = (W2^T dz) * (h > 0), into shared memory;
//   2. a thread per parameter: its gradient summed over the rows in row order, then its
//      SGD update; one more thread sums the loss (written to *loss_out when non-null).
// Phase 2 reads only the row arrays, phase 1 only the parameters, so one barrier between
// them and one at the end (before the next epoch reads the updated parameters) suffice.
template <class Block>
IRIS_BLOCK_FN void one_epoch(const Block& block, float* p, const Rows& rows,
                             const int64_t* __restrict__ y, int n, float lr, float* loss_out) {
  const float inv_n = 1.f / static_cast<float>(n);
  for (int r = block.thread(); r < n; r += block.size()) {
    float h[H], z[O];
    for (int j = 0; j < H; ++j) {
      float a = p[kB1 + j];
      for (int k = 0; k < I; ++k) a += p[kW1 + j * I + k] * rows.x[k * n + r];
      h[j] = fmaxf(a, 0.f);
      rows.h[j * n + r] = h[j];
    }
    for (int o = 0; o < O; ++o) {
      float a = p[kB2 + o];
      for (int j = 0; j < H; ++j) a += p[kW2 + o * H + j] * h[j];
      z[o] = a;
    }
    const float m = fmaxf(z[0], fmaxf(z[1], z[2]));  // shifted by the max logit, as torch does
    float e[O], sum = 0.f;
    for (int o = 0; o < O; ++o) sum += (e[o] = expf(z[o] - m));
    const int label = static_cast<int>(y[r]);
    rows.loss[r] = logf(sum) + m - z[label];
    float dz[O];
    for (int o = 0; o < O; ++o)
      rows.dz[o * n + r] = dz[o] = (e[o] / sum - (o == label ? 1.f : 0.f)) * inv_n;
    for (int j = 0; j < H; ++j) {
      float dh = 0.f;
      for (int o = 0; o < O; ++o) dh += dz[o] * p[kW2 + o * H + j];
      rows.dh[j * n + r] = h[j] > 0.f ? dh : 0.f;  // ReLU's gradient is 0 at 0, as torch's
    }
  }
  block.sync();  // every row's values are in before any gradient is summed
  const int g = block.thread();
  if (g < kParams) {
    // The two row arrays this parameter's gradient multiplies (b null: a bias, times 1).
    const float* a;
    const float* b = nullptr;
    if (g < kB1) {
      a = rows.dh + (g / I) * n;
      b = rows.x + (g % I) * n;
    } else if (g < kW2) {
      a = rows.dh + (g - kB1) * n;
    } else if (g < kB2) {
      a = rows.dz + ((g - kW2) / H) * n;
      b = rows.h + ((g - kW2) % H) * n;
    } else {
      a = rows.dz + (g - kB2) * n;
    }
    float grad = 0.f;
    if (b)
      for (int r = 0; r < n; ++r) grad += a[r] * b[r];
    else
      for (int r = 0; r < n; ++r) grad += a[r];
    p[g] -= lr * grad;  // no thread reads p in this phase
  } else if (g == kLossThread) {
    float loss = 0.f;
    for (int r = 0; r < n; ++r) loss += rows.loss[r];
    if (loss_out) *loss_out = loss * inv_n;
  }
  block.sync();  // the next epoch reads the updated parameters and rewrites the rows
}

// Parameters from global memory into p; x [n x 4] into the rows' [feature][row] layout.
template <class Block>
IRIS_BLOCK_FN void load(const Block& block, float* p, const Rows& rows, const DeviceMlp& w,
                        const float* __restrict__ x, int n) {
  for (int i = block.thread(); i < H * I; i += block.size()) p[kW1 + i] = w.w1[i];
  for (int i = block.thread(); i < H; i += block.size()) p[kB1 + i] = w.b1[i];
  for (int i = block.thread(); i < O * H; i += block.size()) p[kW2 + i] = w.w2[i];
  for (int i = block.thread(); i < O; i += block.size()) p[kB2 + i] = w.b2[i];
  for (int i = block.thread(); i < n * I; i += block.size()) rows.x[(i % I) * n + i / I] = x[i];
  block.sync();
}

template <class Block>
IRIS_BLOCK_FN void store(const Block& block, const float* p, const DeviceMlp& w) {
  for (int i = block.thread(); i < H * I; i += block.size()) w.w1[i] = p[kW1 + i];
  for (int i = block.thread(); i < H; i += block.size()) w.b1[i] = p[kB1 + i];
  for (int i = block.thread(); i < O * H; i += block.size()) w.w2[i] = p[kW2 + i];
  for (int i = block.thread(); i < O; i += block.size()) w.b2[i] = p[kB2 + i];
}

// The fused-step kernel: one epoch per launch, parameters through global memory.
template <class Block>
IRIS_BLOCK_FN void fused_epoch(const Block& block, float* p, float* smem, const float* x,
                               const int64_t* y, int n, const DeviceMlp& w, float lr,
                               float* loss_out) {
  const Rows rows(smem, n);
  load(block, p, rows, w, x, n);
  one_epoch(block, p, rows, y, n, lr, loss_out);
  store(block, p, w);
}

// The persistent kernel: every epoch in one launch; the loss of every record_every-th
// epoch goes to losses[epoch / record_every - 1].
template <class Block>
IRIS_BLOCK_FN void persistent_train(const Block& block, float* p, float* smem, const float* x,
                                    const int64_t* y, int n, const DeviceMlp& w, float lr,
                                    int epochs, int record_every, float* losses) {
  const Rows rows(smem, n);
  load(block, p, rows, w, x, n);
  for (int epoch1 = 1; epoch1 <= epochs; ++epoch1) {
    const bool record = record_every > 0 && epoch1 % record_every == 0;
    one_epoch(block, p, rows, y, n, lr, record ? &losses[epoch1 / record_every - 1] : nullptr);
  }
  store(block, p, w);
}

}  // namespace cuda_kernels::body
