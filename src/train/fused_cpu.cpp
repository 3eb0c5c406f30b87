#include "train/fused_cpu.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace train {

namespace {

// Loops over the batch's rows. `omp simd reduction` lets the compiler reorder the sums so
// they vectorise (built with -fopenmp-simd: no threads).
template <typename T>
void axpy_rows(T a, const T* x, T* y, size_t n) {
  for (size_t r = 0; r < n; ++r) y[r] += a * x[r];
}
template <typename T>
T sum_rows(const T* x, size_t n) {
  T acc = 0;
#pragma omp simd reduction(+ : acc)
  for (size_t r = 0; r < n; ++r) acc += x[r];
  return acc;
}
template <typename T>
T dot_rows(const T* x, const T* y, size_t n) {
  T acc = 0;
#pragma omp simd reduction(+ : acc)
  for (size_t r = 0; r < n; ++r) acc += x[r] * y[r];
  return acc;
}

}  // namespace

// Structure of arrays: every quantity is a row vector over the batch ([feature][row]), so
// each inner loop runs over rows, contiguous and independent, and the compiler vectorises it.
template <typename T>
FusedRunResult fused_cpu_train(MlpWeights<T>& w, const std::vector<T>& x, const std::vector<int64_t>& labels,
                               int64_t epochs, T lr, int64_t record_every) {
  constexpr int I = MlpWeights<T>::kIn, H = MlpWeights<T>::kHidden, O = MlpWeights<T>::kOut;
  const int64_t n64 = static_cast<int64_t>(labels.size());
  if (n64 == 0 || static_cast<int64_t>(x.size()) != n64 * I)
    throw std::invalid_argument("fused_cpu_train: x must hold rows x 4 values for " + std::to_string(n64) + " labels");
  const size_t n = static_cast<size_t>(n64);
  std::vector<T> xt(I * n), onehot(O * n, T(0)), h(H * n), z(O * n), dz(O * n), dh(H * n), sum(n), zmax(n);
  for (size_t r = 0; r < n; ++r) {
    for (int k = 0; k < I; ++k) xt[k * n + r] = x[r * I + k];
    onehot[static_cast<size_t>(labels[r]) * n + r] = T(1);
  }
  const T inv_n = T(1) / static_cast<T>(n);
  FusedRunResult result;
  for (int64_t epoch1 = 1; epoch1 <= epochs; ++epoch1) {
    // Forward: h = relu(W1 x + b1), z = W2 h + b2.
    for (int j = 0; j < H; ++j) {
      T* hj = &h[j * n];
      for (size_t r = 0; r < n; ++r) hj[r] = w.b1[j];
      for (int k = 0; k < I; ++k) axpy_rows(w.w1[j * I + k], &xt[k * n], hj, n);
      for (size_t r = 0; r < n; ++r) hj[r] = hj[r] > T(0) ? hj[r] : T(0);
    }
    for (int o = 0; o < O; ++o) {
      T* zo = &z[o * n];
      for (size_t r = 0; r < n; ++r) zo[r] = w.b2[o];
      for (int j = 0; j < H; ++j) axpy_rows(w.w2[o * H + j], &h[j * n], zo, n);
    }
    // Softmax cross-entropy, shifted by the max logit (as torch does); dz = (p - onehot) / n.
    for (size_t r = 0; r < n; ++r) zmax[r] = std::max(z[r], std::max(z[n + r], z[2 * n + r]));
    for (size_t r = 0; r < n; ++r) sum[r] = T(0);
    for (int o = 0; o < O; ++o)
      for (size_t r = 0; r < n; ++r) sum[r] += (dz[o * n + r] = std::exp(z[o * n + r] - zmax[r]));
    double loss = 0;
    for (size_t r = 0; r < n; ++r) {
      T zy = 0;
      for (int o = 0; o < O; ++o) zy += onehot[o * n + r] * z[o * n + r];
      loss += static_cast<double>(std::log(sum[r]) + zmax[r] - zy);
    }
    loss /= static_cast<double>(n);
    for (int o = 0; o < O; ++o)
      for (size_t r = 0; r < n; ++r) dz[o * n + r] = (dz[o * n + r] / sum[r] - onehot[o * n + r]) * inv_n;
    // Backward through fc2, the ReLU and fc1; then SGD. The weights used by dh are the
    // ones of this epoch's forward pass, so every gradient is taken before any update.
    T gw1[H * I], gb1[H], gw2[O * H], gb2[O];
    for (int o = 0; o < O; ++o) {
      gb2[o] = sum_rows(&dz[o * n], n);
      for (int j = 0; j < H; ++j) gw2[o * H + j] = dot_rows(&dz[o * n], &h[j * n], n);
    }
    for (int j = 0; j < H; ++j) {
      T* dhj = &dh[j * n];
      const T* hj = &h[j * n];
      for (size_t r = 0; r < n; ++r) {
        const T g = dz[r] * w.w2[j] + dz[n + r] * w.w2[H + j] + dz[2 * n + r] * w.w2[2 * H + j];
        dhj[r] = hj[r] > T(0) ? g : T(0);  // the ReLU passes gradient only where it was on
      }
      gb1[j] = sum_rows(dhj, n);
      for (int k = 0; k < I; ++k) gw1[j * I + k] = dot_rows(dhj, &xt[k * n], n);
    }
    for (int i = 0; i < H * I; ++i) w.w1[i] -= lr * gw1[i];
    for (int i = 0; i < H; ++i) w.b1[i] -= lr * gb1[i];
    for (int i = 0; i < O * H; ++i) w.w2[i] -= lr * gw2[i];
    for (int i = 0; i < O; ++i) w.b2[i] -= lr * gb2[i];
    if (record_every > 0 && epoch1 % record_every == 0) result.recorded.push_back(loss);
    result.final_loss = loss;
  }
  return result;
}

template FusedRunResult fused_cpu_train<float>(MlpWeights<float>&, const std::vector<float>&,
                                               const std::vector<int64_t>&, int64_t, float, int64_t);
template FusedRunResult fused_cpu_train<double>(MlpWeights<double>&, const std::vector<double>&,
                                                const std::vector<int64_t>&, int64_t, double, int64_t);

}  // namespace train
