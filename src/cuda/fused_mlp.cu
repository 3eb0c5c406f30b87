#include "cuda/cuda_check.h"
#include "cuda/fused_mlp.h"

namespace cuda_kernels {
namespace {

constexpr int I = 4, H = 10, O = 3;
constexpr int kGrads = H * I + H + O * H + O;  // 83 accumulators: gw1, gb1, gw2, gb2

// Parameters live in shared memory for the whole kernel; gradients are accumulated in
// shared memory with atomics (83 floats, 120 rows: contention is negligible). The
// summation order therefore varies run to run, within float32 rounding.
struct Shared {
  float w1[H * I], b1[H], w2[O * H], b2[O];
  float grad[kGrads];
  float loss;
};

__device__ void one_epoch(Shared& s, const float* __restrict__ x, const int64_t* __restrict__ y, int n, float lr) {
  float* gw1 = s.grad;
  float* gb1 = gw1 + H * I;
  float* gw2 = gb1 + H;
  float* gb2 = gw2 + O * H;
  for (int i = threadIdx.x; i < kGrads; i += blockDim.x) s.grad[i] = 0.f;
  if (threadIdx.x == 0) s.loss = 0.f;
  __syncthreads();
  const float inv_n = 1.f / static_cast<float>(n);
  for (int r = threadIdx.x; r < n; r += blockDim.x) {
    float xr[I], h[H], z[O];
    for (int k = 0; k < I; ++k) xr[k] = x[r * I + k];
    for (int j = 0; j < H; ++j) {
      float a = s.b1[j];
      for (int k = 0; k < I; ++k) a += s.w1[j * I + k] * xr[k];
      h[j] = fmaxf(a, 0.f);
    }
    for (int o = 0; o < O; ++o) {
      float a = s.b2[o];
      for (int j = 0; j < H; ++j) a += s.w2[o * H + j] * h[j];
      z[o] = a;
    }
    const float m = fmaxf(z[0], fmaxf(z[1], z[2]));
    float e[O], sum = 0.f;
    for (int o = 0; o < O; ++o) sum += (e[o] = __expf(z[o] - m));
    const int label = static_cast<int>(y[r]);
    atomicAdd(&s.loss, (logf(sum) + m - z[label]) * inv_n);
    float dz[O];
    for (int o = 0; o < O; ++o) dz[o] = (e[o] / sum - (o == label ? 1.f : 0.f)) * inv_n;
    for (int o = 0; o < O; ++o) {
      atomicAdd(&gb2[o], dz[o]);
      for (int j = 0; j < H; ++j) atomicAdd(&gw2[o * H + j], dz[o] * h[j]);
    }
    for (int j = 0; j < H; ++j) {
      if (h[j] <= 0.f) continue;
      float dh = 0.f;
      for (int o = 0; o < O; ++o) dh += dz[o] * s.w2[o * H + j];
      atomicAdd(&gb1[j], dh);
      for (int k = 0; k < I; ++k) atomicAdd(&gw1[j * I + k], dh * xr[k]);
    }
  }
  __syncthreads();  // every row's gradient is in before anyone updates a weight
  for (int i = threadIdx.x; i < H * I; i += blockDim.x) s.w1[i] -= lr * gw1[i];
  for (int i = threadIdx.x; i < H; i += blockDim.x) s.b1[i] -= lr * gb1[i];
  for (int i = threadIdx.x; i < O * H; i += blockDim.x) s.w2[i] -= lr * gw2[i];
  for (int i = threadIdx.x; i < O; i += blockDim.x) s.b2[i] -= lr * gb2[i];
  __syncthreads();  // the next epoch reads the updated weights
}

__device__ void load(Shared& s, const DeviceMlp& w) {
  for (int i = threadIdx.x; i < H * I; i += blockDim.x) s.w1[i] = w.w1[i];
  for (int i = threadIdx.x; i < H; i += blockDim.x) s.b1[i] = w.b1[i];
  for (int i = threadIdx.x; i < O * H; i += blockDim.x) s.w2[i] = w.w2[i];
  for (int i = threadIdx.x; i < O; i += blockDim.x) s.b2[i] = w.b2[i];
  __syncthreads();
}

__device__ void store(const Shared& s, DeviceMlp& w) {
  for (int i = threadIdx.x; i < H * I; i += blockDim.x) w.w1[i] = s.w1[i];
  for (int i = threadIdx.x; i < H; i += blockDim.x) w.b1[i] = s.b1[i];
  for (int i = threadIdx.x; i < O * H; i += blockDim.x) w.w2[i] = s.w2[i];
  for (int i = threadIdx.x; i < O; i += blockDim.x) w.b2[i] = s.b2[i];
}

__global__ void fused_epoch_kernel(const float* x, const int64_t* y, int n, DeviceMlp w, float lr, float* loss_out) {
  __shared__ Shared s;
  load(s, w);
  one_epoch(s, x, y, n, lr);
  store(s, w);
  if (loss_out && threadIdx.x == 0) *loss_out = s.loss;
}

__global__ void persistent_train_kernel(const float* x, const int64_t* y, int n, DeviceMlp w, float lr, int epochs,
                                        int record_every, float* losses) {
  __shared__ Shared s;
  load(s, w);
  for (int epoch1 = 1; epoch1 <= epochs; ++epoch1) {
    one_epoch(s, x, y, n, lr);
    // s.loss is stable until the next epoch zeroes it after its first __syncthreads.
    if (record_every > 0 && epoch1 % record_every == 0 && threadIdx.x == 0) losses[epoch1 / record_every - 1] = s.loss;
  }
  store(s, w);
}

}  // namespace

void launch_fused_epoch(const float* x, const int64_t* y, int n, DeviceMlp w, float lr, float* loss_out,
                        cudaStream_t stream) {
  fused_epoch_kernel<<<1, kThreads, 0, stream>>>(x, y, n, w, lr, loss_out);
  CUDA_CHECK(cudaGetLastError());
}

void launch_persistent_train(const float* x, const int64_t* y, int n, DeviceMlp w, float lr, int epochs,
                             int record_every, float* losses, cudaStream_t stream) {
  persistent_train_kernel<<<1, kThreads, 0, stream>>>(x, y, n, w, lr, epochs, record_every, losses);
  CUDA_CHECK(cudaGetLastError());
}

}  // namespace cuda_kernels
