#include "train/fused_cpu.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace train {

template <typename T>
FusedRunResult fused_cpu_train(MlpWeights<T>& w, const std::vector<T>& x, const std::vector<int64_t>& labels,
                               int64_t epochs, T lr, int64_t record_every) {
  constexpr int I = MlpWeights<T>::kIn, H = MlpWeights<T>::kHidden, O = MlpWeights<T>::kOut;
  const int64_t n = static_cast<int64_t>(labels.size());
  if (n == 0 || static_cast<int64_t>(x.size()) != n * I)
    throw std::invalid_argument("fused_cpu_train: x must hold rows x 4 values for " + std::to_string(n) + " labels");
  FusedRunResult result;
  std::vector<T> hidden(static_cast<size_t>(n) * H);  // post-ReLU activations, kept for backward
  const T inv_n = T(1) / static_cast<T>(n);
  for (int64_t epoch1 = 1; epoch1 <= epochs; ++epoch1) {
    T gw1[H * I] = {}, gb1[H] = {}, gw2[O * H] = {}, gb2[O] = {};
    double loss = 0;
    for (int64_t r = 0; r < n; ++r) {
      const T* xr = &x[static_cast<size_t>(r) * I];
      T* hr = &hidden[static_cast<size_t>(r) * H];
      for (int j = 0; j < H; ++j) {
        T a = w.b1[j];
        for (int k = 0; k < I; ++k) a += w.w1[j * I + k] * xr[k];
        hr[j] = a > T(0) ? a : T(0);
      }
      T z[O];
      for (int o = 0; o < O; ++o) {
        T a = w.b2[o];
        for (int j = 0; j < H; ++j) a += w.w2[o * H + j] * hr[j];
        z[o] = a;
      }
      // Softmax cross-entropy, shifted by the max logit for stability (as torch does).
      const T m = std::max(z[0], std::max(z[1], z[2]));
      T e[O], sum = 0;
      for (int o = 0; o < O; ++o) sum += (e[o] = std::exp(z[o] - m));
      const int64_t y = labels[static_cast<size_t>(r)];
      loss += static_cast<double>(std::log(sum) + m - z[y]);
      // dL/dz = (softmax - onehot) / n; then back through fc2, ReLU, fc1.
      T dz[O];
      for (int o = 0; o < O; ++o) dz[o] = (e[o] / sum - (o == y ? T(1) : T(0))) * inv_n;
      for (int o = 0; o < O; ++o) {
        gb2[o] += dz[o];
        for (int j = 0; j < H; ++j) gw2[o * H + j] += dz[o] * hr[j];
      }
      for (int j = 0; j < H; ++j) {
        if (hr[j] <= T(0)) continue;  // ReLU gradient is 0 where the unit was off
        T dh = 0;
        for (int o = 0; o < O; ++o) dh += dz[o] * w.w2[o * H + j];
        gb1[j] += dh;
        for (int k = 0; k < I; ++k) gw1[j * I + k] += dh * xr[k];
      }
    }
    loss /= static_cast<double>(n);
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
