// Interval estimates for the Paired rows (paired.cpp): the 20 % trimmed mean of per-round
// samples and its 95 % confidence interval (Yuen's: the winsorized variance, Student's t with
// the trimmed count's degrees of freedom), for each configuration's per-epoch time and for the
// per-round difference of two configurations run back to back (Yuen's paired interval: the
// machine's drift, which moves both alike within a round, cancels in the difference). Why
// trimmed: a short run now and then stalls for tens of milliseconds (a page fault storm, the
// host taking the core), and one such run moves a plain mean and its interval far; trimming
// a fifth of each tail keeps the estimate on the typical run, and the same noise in both
// configurations leaves a difference unbiased.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace bench {

struct Interval {
  double mean = 0, lo = 0, hi = 0;  // lo == hi == mean below two samples
  size_t n = 0;
  double half_width() const { return (hi - lo) / 2; }
};

// The 0.975 quantile of Student's t with `df` degrees of freedom: scipy's to five decimals for
// df < 30 (a table), Cornish-Fisher's expansion above (error under 0.0002 there).
inline double t975(size_t df) {
  static const double table[] = {
      0,       12.70620, 4.30265, 3.18245, 2.77645, 2.57058, 2.44691, 2.36462, 2.30600, 2.26216,
      2.22814, 2.20099,  2.17881, 2.16037, 2.14479, 2.13145, 2.11991, 2.10982, 2.10092, 2.09302,
      2.08596, 2.07961,  2.07387, 2.06866, 2.06390, 2.05954, 2.05553, 2.05183, 2.04841, 2.04523};
  if (df == 0) return INFINITY;
  if (df < sizeof table / sizeof table[0]) return table[df];
  const double z = 1.959964, d = static_cast<double>(df);
  return z + (z * z * z + z) / (4 * d) +
         (5 * std::pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * d * d);
}

constexpr double kTrim = 0.2;  // of each tail

// The trimmed mean and Yuen's 95 % interval (trim 0: the plain mean and Student's t interval).
inline Interval mean_interval(std::vector<double> x, double trim = kTrim) {
  Interval r;
  r.n = x.size();
  if (x.empty()) return r;
  std::sort(x.begin(), x.end());
  const size_t n = x.size(), g = static_cast<size_t>(std::floor(trim * static_cast<double>(n)));
  const size_t h = n - 2 * g;  // the samples the trimmed mean keeps
  double sum = 0;
  for (size_t i = g; i < n - g; ++i) sum += x[i];
  r.mean = sum / static_cast<double>(h);
  r.lo = r.hi = r.mean;
  if (h < 2) return r;
  // Winsorized: the g smallest set to the (g+1)-th, the g largest to the (n-g)-th.
  const auto w = [&](size_t i) { return x[std::min(std::max(i, g), n - g - 1)]; };
  double wsum = 0;
  for (size_t i = 0; i < n; ++i) wsum += w(i);
  const double wmean = wsum / static_cast<double>(n);
  double ss = 0;
  for (size_t i = 0; i < n; ++i) ss += (w(i) - wmean) * (w(i) - wmean);
  // Yuen: se^2 = (n - 1) s_w^2 / (h (h - 1)), s_w^2 the winsorized variance.
  const double se = std::sqrt(ss / (static_cast<double>(h) * static_cast<double>(h - 1)));
  const double half = t975(h - 1) * se;
  r.lo = r.mean - half, r.hi = r.mean + half;
  return r;
}

// b[i] - a[i] over the rounds both hold.
inline std::vector<double> differences(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> d;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) d.push_back(b[i] - a[i]);
  return d;
}

}  // namespace bench
