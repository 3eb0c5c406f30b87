#include "trace/analyze/program_words.h"

#include <algorithm>
#include <set>
#include <string>
#include <unordered_map>

namespace trace {
namespace {

// C++, CUDA and library words that any two programs' kernel names share.
bool generic_word(const std::string& w) {
  static const std::set<std::string> kWords = {
      "void", "native", "anonymous", "namespace", "kernel", "kernels", "float", "half", "bfloat",
      "int", "long", "unsigned", "char", "const", "std", "array", "lambda", "operator", "functor",
      "impl", "cuda", "cudnn", "cublas", "cublaslt", "cutlass", "triton", "per", "poi", "red",
      "fused", "vectorized", "elementwise", "unrolled", "params", "param", "true", "false",
      "tensor", "iterator", "base", "launch", "bounds", "detail", "memory", "offset", "calc",
      "loads", "trivial", "stage", "warpsize", "tilesize", "execute", "align", "aligna", "alignc",
      "ffma", "xmma", "split", "splitk", "reduce", "simt", "ampere", "volta", "hopper", "generic",
      "dim", "type", "types", "value", "values", "input", "output", "func", "function", "apply",
      "multi", "list", "metadata", "unary", "binary", "internal", "opmath", "size", "sizes",
      "strided", "batched", "small", "cast", "hip", "rocm", "amd", "ptr", "pointer", "aten",
      // torch.compile's and the profiler's own ranges, in any compiled program's ops
      "torch", "compiled", "region", "dynamo", "cache", "lookup", "profiler", "step"};
  return kWords.count(w) > 0;
}

// A name's words: letter runs split before a capital that starts a lower-case run
// ("GeluCUDAKernelImpl": gelu, cuda, kernel, impl), lower case, 3 letters or more.
std::set<std::string> words_of(const std::string& name) {
  std::set<std::string> out;
  const auto upper = [](char c) { return c >= 'A' && c <= 'Z'; };
  const auto lower = [](char c) { return c >= 'a' && c <= 'z'; };
  const auto emit = [&](size_t from, size_t to) {
    if (to - from < 3) return;
    std::string w = name.substr(from, to - from);
    for (char& c : w) c = static_cast<char>(upper(c) ? c - 'A' + 'a' : c);
    // A library's GEMM by precision (sgemm, hgemm) or as a product with a vector (gemv).
    if (w == "sgemm" || w == "hgemm" || w == "dgemm" || w == "gemv") w = "gemm";
    if (!generic_word(w)) out.insert(std::move(w));
  };
  for (size_t i = 0; i < name.size();) {
    if (upper(name[i])) {
      size_t j = i;
      while (j < name.size() && upper(name[j])) ++j;
      if (j < name.size() && lower(name[j])) {  // the last capital starts the next word
        if (j - 1 > i) emit(i, j - 1);
        size_t k = j;
        while (k < name.size() && lower(name[k])) ++k;
        emit(j - 1, k), i = k;
      } else {
        emit(i, j), i = j;
      }
    } else if (lower(name[i])) {
      size_t k = i;
      while (k < name.size() && lower(name[k])) ++k;
      emit(i, k), i = k;
    } else {
      ++i;
    }
  }
  return out;
}

// Each name's time spread over its words: kernels by name, or host ops when a trace has none.
std::unordered_map<std::string, double> word_times(const TraceReport& r, bool kernels) {
  std::unordered_map<std::string, double> by_name;
  if (kernels) {
    for (const auto& k : r.kernels.by_name)
      by_name[k.name] += static_cast<double>(std::max<uint64_t>(k.kernel.total_ns, 1));
  } else {
    for (const auto& op : r.trace->records.cpu_ops)
      by_name[op.name] += static_cast<double>(std::max<uint64_t>(op.end_ns - op.start_ns, 1));
  }
  std::unordered_map<std::string, double> out;
  for (const auto& [name, t] : by_name) {
    const auto words = words_of(name);
    for (const auto& w : words) out[w] += t / static_cast<double>(words.size());
  }
  return out;
}

double share_in(const std::unordered_map<std::string, double>& of,
                const std::unordered_map<std::string, double>& other) {
  double all = 0, common = 0;
  for (const auto& [word, t] : of) {
    all += t;
    if (other.count(word)) common += t;
  }
  return all > 0 ? common / all : 1.0;
}

}  // namespace

double words_in_common(const TraceReport& a, const TraceReport& b) {
  const bool kernels = !a.kernels.by_name.empty() && !b.kernels.by_name.empty();
  const auto wa = word_times(a, kernels), wb = word_times(b, kernels);
  if (wa.empty() && wb.empty()) return 1.0;
  return std::min(share_in(wa, wb), share_in(wb, wa));
}

}  // namespace trace
