#include "trace/analyze/hta_numeric.h"

#include <algorithm>
#include <cmath>

namespace trace {
namespace {

// DOUBLE_pairwise_sum itself (PW_BLOCKSIZE 128): a block under 8 starts from -0.0, so that a
// sum of -0.0 stays -0.0 there; 8 accumulators up to 128; halves (a multiple of 8) above.
double pairwise_block(const double* a, size_t n) {
  if (n < 8) {
    double res = -0.0;
    for (size_t i = 0; i < n; ++i) res += a[i];
    return res;
  }
  if (n <= 128) {
    double r[8];
    for (int j = 0; j < 8; ++j) r[j] = a[j];
    size_t i = 8;
    for (; i < n - (n % 8); i += 8)
      for (int j = 0; j < 8; ++j) r[j] += a[i + j];
    double res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += a[i];
    return res;
  }
  size_t n2 = n / 2;
  n2 -= n2 % 8;
  return pairwise_block(a, n2) + pairwise_block(a + n2, n - n2);
}

int64_t wrap_to(uint64_t u, int bits) {
  const int shift = 64 - bits;
  return static_cast<int64_t>(u << shift) >> shift;
}

}  // namespace

// np.add.reduce starts from add's identity, 0.0, then adds the pairwise sum of the whole array.
double pairwise_sum(const double* a, size_t n) { return 0.0 + pairwise_block(a, n); }

double reduceat_sum(const double* a, size_t n) {
  return n ? a[0] + pairwise_block(a + 1, n - 1) : 0.0;
}

double nan_sum(std::vector<double> values) {
  for (double& v : values)
    if (std::isnan(v)) v = 0;
  return pairwise_sum(values.data(), values.size());
}

void KahanSum::add(double v) {
  const double y = v - compensation, t = sum + y;
  compensation = t - sum - y;
  if (std::isnan(compensation)) compensation = 0;
  sum = t;
}

void GroupVar::add(double v) {
  nobs += 1;
  const double old = mean;
  mean += (v - old) / nobs;
  m2 += (v - mean) * (v - old);
}

double GroupVar::std() const { return nobs > 1 ? std::sqrt(m2 / (nobs - 1)) : kHtaNaN; }

HtaScalar HtaScalar::of(double v, int bits) {
  HtaScalar s;
  s.bits = bits;
  if (bits)
    s.i = static_cast<int64_t>(v);
  else
    s.d = v;
  return s;
}

HtaScalar operator-(HtaScalar a, HtaScalar b) {
  HtaScalar out;
  if (a.is_int() && b.is_int()) {
    out.bits = std::max(a.bits, b.bits);
    out.i = wrap_to(static_cast<uint64_t>(a.i) - static_cast<uint64_t>(b.i), out.bits);
  } else {
    out.d = a.f() - b.f();
  }
  return out;
}

bool operator<=(HtaScalar a, HtaScalar b) {
  return a.is_int() && b.is_int() ? a.i <= b.i : a.f() <= b.f();
}

// The importer bounds every timestamp to int64 nanoseconds, so each value converts to int64.
HtaScalar column_sum(const std::vector<double>& values, int bits) {
  if (!bits) return HtaScalar::of(nan_sum(values), 0);
  uint64_t s = 0;
  for (double x : values) s += static_cast<uint64_t>(static_cast<int64_t>(x));
  HtaScalar out;
  out.bits = 64, out.i = static_cast<int64_t>(s);
  return out;
}

int downcast_bits(int64_t lo, int64_t hi) {
  for (int bits : {8, 16, 32})
    if (lo >= -(int64_t{1} << (bits - 1)) && hi < (int64_t{1} << (bits - 1))) return bits;
  return 64;
}

double column_op(double a, double b, int bits, bool* wrapped) {
  if (!bits) return a + b;
  const int64_t exact = static_cast<int64_t>(a) + static_cast<int64_t>(b);
  const int64_t w = bits == 64 ? exact : wrap_to(static_cast<uint64_t>(exact), bits);
  if (w != exact) *wrapped = true;
  return static_cast<double>(w);
}

// numpy/lib/_function_base_impl.py: method "linear" (virtual index (n - 1) * q), _lerp.
double linear_percentile(const std::vector<double>& v, double p) {
  return linear_quantile(v, p / 100.0);
}

double linear_quantile(const std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  // numpy refuses q outside [0, 1] (so does the package, before this): the nearest end here, so
  // that no other caller reads out of range.
  q = q >= 0 ? std::min(q, 1.0) : 0.0;
  const double last = static_cast<double>(v.size() - 1);
  const double virt = last * q;
  const double below = std::floor(virt), gamma = virt - below;
  size_t lo = static_cast<size_t>(below), hi = lo + 1;
  if (virt >= last) lo = hi = v.size() - 1;
  const double a = v[lo], b = v[hi], diff = b - a;
  return gamma >= 0.5 ? b - diff * (1 - gamma) : a + diff * gamma;
}

// pandas/core/nanops.py: nanmean, nanvar (ddof 1), nanmin, nanmax; Series.quantile goes to
// numpy.percentile over the values that are not NaN.
HtaDescribe describe(const std::vector<double>& values) {
  HtaDescribe d;
  std::vector<double> filled = values, valid;
  for (double& v : filled) {
    if (std::isnan(v))
      v = 0;
    else
      valid.push_back(v);
  }
  const double count = static_cast<double>(valid.size());
  d.count = count;
  if (valid.empty()) return d;
  const double sum = pairwise_sum(filled.data(), filled.size());
  d.mean = sum / count;
  if (valid.size() > 1) {
    const double avg = sum / count;
    std::vector<double> sq(values.size());
    for (size_t i = 0; i < values.size(); ++i)
      sq[i] = std::isnan(values[i]) ? 0 : (avg - filled[i]) * (avg - filled[i]);
    d.std = std::sqrt(pairwise_sum(sq.data(), sq.size()) / (count - 1));
  }
  std::sort(valid.begin(), valid.end());
  d.min = valid.front(), d.max = valid.back();
  d.p25 = linear_percentile(valid, 25), d.p50 = linear_percentile(valid, 50);
  d.p75 = linear_percentile(valid, 75);
  return d;
}

double numpy_round(double x, int decimals) {
  const double scale = std::pow(10.0, decimals);
  return std::nearbyint(x * scale) / scale;
}

void stable_ts_order(const std::vector<double>& ts, int /*bits*/, std::vector<size_t>* order) {
  order->clear();
  for (size_t i = 0; i < ts.size(); ++i)
    if (!std::isnan(ts[i])) order->push_back(i);
  std::stable_sort(order->begin(), order->end(), [&](size_t a, size_t b) { return ts[a] < ts[b]; });
  for (size_t i = 0; i < ts.size(); ++i)
    if (std::isnan(ts[i])) order->push_back(i);
}

}  // namespace trace
