// The fused CPU step, vectorised over rows. Why it is written this way (each measured with
// Ladder/cpu-fused_cpu, see docs/machine-limit.md "How close to the machine"):
// - One pass per epoch over blocks of W rows (W = lanes of the widest vector the build
//   targets: 16 floats with AVX-512). Each block does forward, softmax cross-entropy and
//   backward in registers and adds its rows' gradients into 83 vector accumulators; no
//   intermediate [rows x 10] array is written and read back, no heap allocation per epoch.
// - Sizes are compile-time constants (4, 10, 3), so every loop over features, hidden units
//   and classes unrolls and the weights are broadcast straight from a stack array.
// - Rows are stored as structure of arrays padded to a whole block. Padding rows get a
//   weight of 0 in `scale`, so they add nothing to the loss or the gradients.
// - exp and log are vectorised here (range reduction + Taylor / atanh series) with enough
//   terms for the type: < 1e-7 relative for float, < 1e-15 for double. std::exp and
//   std::log are scalar calls: 480 of them would cost more than the rest of the epoch.
// - The SIMD is GCC/Clang vector extensions (`vector_size`): ordinary + - * / ?: on whole
//   vectors, compiled to whatever ISA -march selects (AVX-512, AVX2, SSE2, NEON) with no
//   library to install and one source for float and double. Intrinsics would tie the
//   source to one ISA; Highway or xsimd would add a dependency and their own idioms for
//   what five operators do here.
#include "train/fused_cpu.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>

#include "common/vector_isa.h"

namespace train {

namespace {

constexpr int kVecBytes = common::kVectorBytes;  // common/vector_isa.h: the width -march gives

// The vector of T (and the same-width integer vector, for bit tricks) with its constants.
template <typename T>
struct Simd;
template <>
struct Simd<float> {
  typedef float V __attribute__((vector_size(kVecBytes)));
  typedef int32_t I __attribute__((vector_size(kVecBytes)));
  static constexpr int kMantissaBits = 23, kBias = 127, kExpTerms = 7, kLogTerms = 6;
  static constexpr float kMinExpArg = -80.f;        // exp(-80) ~ 2e-35: 0 beside a sum >= 1
  static constexpr float kRoundMagic = 12582912.f;  // 1.5 * 2^23: adding it rounds to an integer
};
template <>
struct Simd<double> {
  typedef double V __attribute__((vector_size(kVecBytes)));
  typedef int64_t I __attribute__((vector_size(kVecBytes)));
  static constexpr int kMantissaBits = 52, kBias = 1023, kExpTerms = 13, kLogTerms = 11;
  static constexpr double kMinExpArg = -700.0;
  static constexpr double kRoundMagic = 6755399441055744.0;  // 1.5 * 2^52
};

// GCC's vector extension: a cast between same-sized vector types reinterprets the bits.
template <typename To, typename From>
To bits(From v) {
  static_assert(sizeof(To) == sizeof(From), "bit casts keep the size");
  return (To)v;
}

template <typename T, typename V = typename Simd<T>::V>
V vmax(V a, V b) {
  return a > b ? a : b;
}

// exp(x) for x <= 0: x = n ln2 + r with |r| <= ln2/2, exp(r) by its Taylor series (the
// last term kept is < 1e-8 (float), < 1e-17 (double) relative), times 2^n built from bits.
template <typename T, typename V = typename Simd<T>::V>
V vexp(V x) {
  using S = Simd<T>;
  using I = typename S::I;
  constexpr T kLog2e = T(1.4426950408889634), kLn2Hi = T(0.693145751953125),
              kLn2Lo = T(1.4286068203094173e-06);
  x = vmax<T>(x, V{} + S::kMinExpArg);
  const V shifted = x * kLog2e + S::kRoundMagic;  // n = round(x / ln2), in the low mantissa bits
  const V n = shifted - S::kRoundMagic;
  const V r = (x - n * kLn2Hi) - n * kLn2Lo;  // ln2 in two parts: r stays exact to the last bit
  V p = V{} + T(1);
  for (int k = S::kExpTerms; k >= 1; --k) p = p * (r * (T(1) / T(k))) + T(1);
  const I two_n = (bits<I>(shifted) - bits<I>(V{} + S::kRoundMagic) + S::kBias) << S::kMantissaBits;
  return p * bits<V>(two_n);
}

// log(x) for normal x > 0: x = m 2^e with m in [sqrt(1/2), sqrt(2)), log m = 2 atanh(f)
// with f = (m-1)/(m+1), |f| <= 0.172, by its series (terms to f^(2 kLogTerms + 1)).
template <typename T, typename V = typename Simd<T>::V>
V vlog(V x) {
  using S = Simd<T>;
  using I = typename S::I;
  constexpr T kLn2 = T(0.6931471805599453), kSqrt2 = T(1.4142135623730951);
  const I xb = bits<I>(x);
  const I mantissa_mask = (I{} + 1) << S::kMantissaBits;
  I e = (xb >> S::kMantissaBits) - S::kBias;
  V m = bits<V>((xb & (mantissa_mask - 1)) | bits<I>(V{} + T(1)));  // in [1, 2)
  const auto big = m > kSqrt2;  // all ones where true, as an integer vector
  m = big ? m * T(0.5) : m;
  e = e - big;  // -(-1) = +1 where m was halved
  const V f = (m - T(1)) / (m + T(1)), f2 = f * f;
  V series = V{} + T(1) / T(2 * S::kLogTerms + 1);
  for (int k = S::kLogTerms - 1; k >= 0; --k) series = series * f2 + T(1) / T(2 * k + 1);
  return __builtin_convertvector(e, V) * kLn2 + T(2) * f * series;
}

template <typename T, typename V = typename Simd<T>::V>
double hsum(V v) {
  T lanes[sizeof(V) / sizeof(T)];
  std::memcpy(lanes, &v, sizeof(V));
  T acc = 0;
  for (T lane : lanes) acc += lane;
  return acc;
}

constexpr int kI = MlpWeights<float>::kIn, kH = MlpWeights<float>::kHidden,
              kO = MlpWeights<float>::kOut;
// One flat parameter vector: w1 | b1 | w2 | b2 (83 numbers), gradients in the same layout.
constexpr int kW1 = 0, kB1 = kW1 + kH * kI, kW2 = kB1 + kH, kB2 = kW2 + kO * kH, kParams = kB2 + kO;

// The batch as structure of arrays, one vector per block of W rows and feature.
template <typename T>
struct Blocks {
  using V = typename Simd<T>::V;
  static constexpr int W = sizeof(V) / sizeof(T);
  size_t count = 0;
  std::vector<V> x[kI], onehot[kO];
  std::vector<V> scale;  // 1/rows for a real row, 0 for padding

  Blocks(const std::vector<T>& xs, const std::vector<int64_t>& labels) {
    const size_t n = labels.size();
    count = (n + W - 1) / W;
    for (auto& v : x) v.assign(count, V{});
    for (auto& v : onehot) v.assign(count, V{});
    scale.assign(count, V{});
    for (size_t r = 0; r < n; ++r) {
      const size_t b = r / W, lane = r % W;
      for (int k = 0; k < kI; ++k) x[k][b][lane] = xs[r * kI + k];
      onehot[labels[r]][b][lane] = T(1);
      scale[b][lane] = T(1) / static_cast<T>(n);
    }
  }
};

// Forward, loss and backward for blocks [begin, end): the slice's gradient (already
// divided by the batch's rows) into grad[kParams] and its share of the mean loss.
template <typename T>
double slice_gradient(const T* p, const Blocks<T>& data, size_t begin, size_t end, T* grad) {
  using V = typename Simd<T>::V;
  V g[kParams] = {};
  V loss = {};
  for (size_t b = begin; b < end; ++b) {
    V x[kI], h[kH], z[kO], e[kO], dz[kO];
    for (int k = 0; k < kI; ++k) x[k] = data.x[k][b];
    for (int j = 0; j < kH; ++j) {  // h = relu(W1 x + b1)
      V a = V{} + p[kB1 + j];
      for (int k = 0; k < kI; ++k) a += p[kW1 + j * kI + k] * x[k];
      h[j] = vmax<T>(a, V{});
    }
    for (int o = 0; o < kO; ++o) {  // z = W2 h + b2
      V a = V{} + p[kB2 + o];
      for (int j = 0; j < kH; ++j) a += p[kW2 + o * kH + j] * h[j];
      z[o] = a;
    }
    // Softmax cross-entropy shifted by the max logit (as torch does); dz = (p - onehot) / n.
    const V zmax = vmax<T>(z[0], vmax<T>(z[1], z[2]));
    V sum = {}, zy = {};
    for (int o = 0; o < kO; ++o) {
      e[o] = vexp<T>(z[o] - zmax);
      sum += e[o];
      zy += data.onehot[o][b] * z[o];
    }
    const V s = data.scale[b];
    loss += (vlog<T>(sum) + zmax - zy) * s;
    const V inv = s / sum;
    for (int o = 0; o < kO; ++o) {
      dz[o] = e[o] * inv - data.onehot[o][b] * s;
      g[kB2 + o] += dz[o];
      for (int j = 0; j < kH; ++j) g[kW2 + o * kH + j] += dz[o] * h[j];
    }
    // Back through fc2 (this epoch's weights: every gradient is taken before any update),
    // the ReLU (gradient only where it was on) and fc1.
    for (int j = 0; j < kH; ++j) {
      V d = {};
      for (int o = 0; o < kO; ++o) d += dz[o] * p[kW2 + o * kH + j];
      d = h[j] > T(0) ? d : V{};
      g[kB1 + j] += d;
      for (int k = 0; k < kI; ++k) g[kW1 + j * kI + k] += d * x[k];
    }
  }
  for (int i = 0; i < kParams; ++i) grad[i] = static_cast<T>(hsum<T>(g[i]));
  return hsum<T>(loss);
}

// A reusable barrier for a fixed number of threads: spins briefly, then yields (the
// machine may be shared), so a thread that is descheduled does not stall the others long.
class SpinBarrier {
 public:
  explicit SpinBarrier(int n) : n_(n) {}
  void wait() {
    const unsigned gen = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == n_) {
      arrived_.store(0, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_acq_rel);
      return;
    }
    for (int spins = 0; generation_.load(std::memory_order_acquire) == gen; ++spins)
      if (spins > 1000) std::this_thread::yield();
  }

 private:
  const int n_;
  std::atomic<int> arrived_{0};
  std::atomic<unsigned> generation_{0};
};

template <typename T>
void pack(const MlpWeights<T>& w, T* p) {
  std::copy(w.w1.begin(), w.w1.end(), p + kW1);
  std::copy(w.b1.begin(), w.b1.end(), p + kB1);
  std::copy(w.w2.begin(), w.w2.end(), p + kW2);
  std::copy(w.b2.begin(), w.b2.end(), p + kB2);
}
template <typename T>
void unpack(const T* p, MlpWeights<T>& w) {
  std::copy(p + kW1, p + kB1, w.w1.begin());
  std::copy(p + kB1, p + kW2, w.b1.begin());
  std::copy(p + kW2, p + kB2, w.w2.begin());
  std::copy(p + kB2, p + kParams, w.b2.begin());
}

}  // namespace

const char* fused_cpu_isa() { return common::kVectorIsa; }
int fused_cpu_float_lanes() { return Blocks<float>::W; }

template <typename T>
FusedRunResult fused_cpu_train(MlpWeights<T>& w, const std::vector<T>& x,
                               const std::vector<int64_t>& labels, int64_t epochs, T lr,
                               int64_t record_every, int threads) {
  const int64_t n = static_cast<int64_t>(labels.size());
  if (n == 0 || static_cast<int64_t>(x.size()) != n * kI)
    throw std::invalid_argument("fused_cpu_train: x must hold rows x 4 values for " +
                                std::to_string(n) + " labels");
  for (int64_t r = 0; r < n; ++r)
    if (labels[r] < 0 || labels[r] >= kO)
      throw std::invalid_argument("fused_cpu_train: label " + std::to_string(labels[r]) +
                                  " at row " + std::to_string(r) + " is not in {0, 1, 2}");
  if (threads < 1)
    throw std::invalid_argument("fused_cpu_train: threads must be >= 1, got " +
                                std::to_string(threads));
  if (w.w1.size() != size_t(kH * kI) || w.b1.size() != size_t(kH) ||
      w.w2.size() != size_t(kO * kH) || w.b2.size() != size_t(kO))
    throw std::invalid_argument("fused_cpu_train: weights must be 10x4, 10, 3x10 and 3");
  const Blocks<T> data(x, labels);
  const int nt = static_cast<int>(std::min<size_t>(static_cast<size_t>(threads), data.count));

  // Each thread writes its slice's gradient and loss into its row of a double buffer
  // (epoch parity), then, after the barrier, sums every row in thread order and updates
  // its own copy of the weights: identical on every thread, with one barrier per epoch.
  // A thread can only overwrite a buffer two epochs later, after the next barrier, which
  // every thread reaches only once it has read this one.
  struct Partial {
    T grad[kParams];
    double loss;
  };
  std::vector<Partial> partial(2 * static_cast<size_t>(nt));
  SpinBarrier barrier(nt);
  FusedRunResult result;
  const auto worker = [&](int t) {
    T p[kParams];
    pack(w, p);
    const size_t begin = data.count * t / nt, end = data.count * (t + 1) / nt;
    for (int64_t epoch1 = 1; epoch1 <= epochs; ++epoch1) {
      Partial* buf = &partial[static_cast<size_t>(epoch1 % 2) * nt];
      buf[t].loss = slice_gradient(p, data, begin, end, buf[t].grad);
      if (nt > 1) barrier.wait();
      double loss = 0;
      for (int i = 0; i < kParams; ++i) {
        T g = 0;
        for (int s = 0; s < nt; ++s) g += buf[s].grad[i];
        p[i] -= lr * g;
      }
      for (int s = 0; s < nt; ++s) loss += buf[s].loss;
      if (t == 0) {
        if (record_every > 0 && epoch1 % record_every == 0) result.recorded.push_back(loss);
        result.final_loss = loss;
      }
    }
    if (t == 0) unpack(p, w);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < nt; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (auto& th : pool) th.join();
  return result;
}

template FusedRunResult fused_cpu_train<float>(MlpWeights<float>&, const std::vector<float>&,
                                               const std::vector<int64_t>&, int64_t, float, int64_t,
                                               int);
template FusedRunResult fused_cpu_train<double>(MlpWeights<double>&, const std::vector<double>&,
                                                const std::vector<int64_t>&, int64_t, double,
                                                int64_t, int);

}  // namespace train
