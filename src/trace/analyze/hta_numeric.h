// The arithmetic of numpy and pandas that Holistic Trace Analysis's figures go through, to the
// last bit: so that HTA's figures computed here equal the ones HTA's own DataFrames hold.
// File references are to numpy 2.4 and pandas 3.1 (the versions tests/data/hta_expected and
// tests/data/hta_frames were written with).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace trace {

constexpr double kHtaNaN = std::numeric_limits<double>::quiet_NaN();

// numpy/_core/src/umath/loops_utils.h.src, DOUBLE_pairwise_sum: what ndarray.sum() adds float64
// with (a contiguous array needs no buffering: one call over all of it).
double pairwise_sum(const double* a, size_t n);

// np.add.reduceat over one segment: its first value plus the pairwise sum of the rest (add's
// reduce loop). pandas 3.1's groupby mean sums so where the group codes are in order and no
// value is NaN (ops.py, _reduceat_aggregate); otherwise with KahanSum.
double reduceat_sum(const double* a, size_t n);

// pandas Series.sum() of a float64 column (nanops.nansum): NaN counted as 0, in place.
double nan_sum(std::vector<double> values);

// pandas' groupby sum of a float64 column holding a NaN (_libs/groupby.pyx, group_sum): Kahan
// summation, NaN skipped by the caller, and the compensation reset where it is NaN (an infinite
// value). Without a NaN, pandas 3.1 sums groups already in order with np.add.reduceat instead;
// HTA's idle gaps always hold one (each stream's first gap).
struct KahanSum {
  double sum = 0, compensation = 0;
  void add(double v);
};

// pandas' groupby std (_libs/groupby.pyx, group_var): Welford's update, value by value (the
// caller skips NaN), ddof 1; NaN for fewer than two values.
struct GroupVar {
  double nobs = 0, mean = 0, m2 = 0;
  void add(double v);
  double std() const;
};

// A numpy scalar: an integer of `bits` (8 to 64) or, bits 0, a float64, with numpy's promotion
// (the wider integer; an integer with a float gives a float). Why: HTA's "ts" column stays an
// integer when the file's timestamps are integers (or rounded), an int64 column sums exactly
// where float64 rounds beyond 2^53 (epoch-sized ts summed), and a narrow one wraps around.
struct HtaScalar {
  int bits = 0;
  int64_t i = 0;
  double d = 0;
  bool is_int() const { return bits != 0; }
  double f() const { return bits ? static_cast<double>(i) : d; }
  static HtaScalar of(double v, int bits);  // v holds an integer when bits is not 0
};
HtaScalar operator-(HtaScalar a, HtaScalar b);  // integers wrap around as in numpy
bool operator<=(HtaScalar a, HtaScalar b);      // as numpy compares them (NaN: false)

// Series.sum(): for an integer column (bits not 0) an int64, exact (wrapping around); for float64,
// nan_sum.
HtaScalar column_sum(const std::vector<double>& values, int bits);

// The smallest of int8, int16, int32, int64 holding [lo, hi], in bits: pandas'
// to_numeric(downcast="integer"), which HTA's parser applies to every integer column.
int downcast_bits(int64_t lo, int64_t hi);

// a + b in a column of `bits` (0: float64), wrapping around as numpy does; *wrapped notes a
// wrap. Both must fit int64 when bits is not 0 (the importer bounds every timestamp).
double column_op(double a, double b, int bits, bool* wrapped);

// numpy.percentile's default (method "linear", numpy's _lerp) over sorted values, p in %.
double linear_percentile(const std::vector<double>& sorted, double p);
// numpy.quantile's (Series.quantile's) likewise, q in [0, 1].
double linear_quantile(const std::vector<double>& sorted, double q);

// pandas Series.describe() of a float64 column (describe_numeric_1d): count of the values not
// NaN; mean (nanmean: NaN as 0 in a pairwise sum, over count); std with ddof 1 (nanvar's two
// passes; NaN below 2 values); min, 25/50/75 % (linear) and max of the values not NaN (NaN
// when there are none).
struct HtaDescribe {
  double count = 0, mean = kHtaNaN, std = kHtaNaN, min = kHtaNaN;
  double p25 = kHtaNaN, p50 = kHtaNaN, p75 = kHtaNaN, max = kHtaNaN;
};
HtaDescribe describe(const std::vector<double>& values);

// numpy.round(x, decimals) (PyArray_Round): rint(x * 10^d) / 10^d, halves to even.
double numpy_round(double x, int decimals);

// The row order of pandas' sort_values(by="ts") over `ts` (nargsort: the values that are not NaN
// sorted, NaN last), as positions into `ts`. `bits` is the column's type (0: float64). pandas
// sorts with numpy's quicksort, whose order among equal values is left open (numpy's SIMD sort
// picks it, and machines differ): each caller chooses, by passing one of these.
using HtaTsOrder =
    std::function<void(const std::vector<double>& ts, int bits, std::vector<size_t>* order)>;

// Equal values in their given order (a stable sort): ./attribute --hta's pin, one of the orders
// HTA's code allows.
void stable_ts_order(const std::vector<double>& ts, int bits, std::vector<size_t>* order);

}  // namespace trace
