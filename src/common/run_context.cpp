#include "common/run_context.h"

#include <ATen/Parallel.h>
#include <torch/cuda.h>
#include <torch/version.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <thread>

#if IRIS_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace common {
namespace {

std::string run_command(const std::string& cmd) {
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(popen(cmd.c_str(), "r"), pclose);
  if (!pipe) return "";
  std::string out;
  std::array<char, 256> buf{};
  while (fgets(buf.data(), buf.size(), pipe.get())) out += buf.data();
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon == std::string::npos) continue;
      // Trimmed both ends, as Python's str.strip() in experiments/python_eager.py does:
      // the analysis compares the two to keep one machine's runs in one folder.
      const auto first = line.find_first_not_of(" \t", colon + 1);
      const auto last = line.find_last_not_of(" \t\r");
      if (first != std::string::npos) return line.substr(first, last - first + 1);
    }
  }
  return "unknown";
}

std::string version_string(int v) {  // CUDA encodes 13.0 as 13000
  if (v <= 0) return "none";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

bool cuda_usable(std::string* why_not) {
#if !IRIS_HAVE_CUDA
  if (why_not) *why_not = "this bench was built without the CUDA toolkit";
  return torch::cuda::is_available();
#else
  if (torch::cuda::is_available()) return true;
  if (why_not) {
    int driver = 0;
    cudaDriverGetVersion(&driver);
    *why_not = driver == 0 ? "no CUDA driver on this machine (no GPU)"
                           : "torch::cuda::is_available() is false (driver " +
                                 version_string(driver) + ", no usable device)";
  }
  return false;
#endif
}

ContextEntries collect_run_context() {
  ContextEntries ctx;
  ctx.emplace_back("torch_version", TORCH_VERSION);
  const std::string dir = IRIS_SOURCE_DIR;
  // A commit the caller states wins over the copy's .git: the GPU machine's copy of the working
  // tree can carry a .git whose HEAD is not the tree that was sent (scripts/gpu_check.sh).
  const char* given = std::getenv("IRIS_GIT_COMMIT");
  std::string commit;
  if (given && *given)
    commit = std::string(given) + " (IRIS_GIT_COMMIT)";
  else if ((commit = run_command("git -C '" + dir + "' rev-parse --short=12 HEAD 2>/dev/null"))
               .empty())
    commit = "unknown";
  // Dirty means changed sources; results/ is rewritten by the very runs that record this.
  else if (!run_command(
                "git -C '" + dir +
                "' status --porcelain --untracked-files=no -- . ':(exclude)results' 2>/dev/null")
                .empty())
    commit += "-dirty";
  ctx.emplace_back("git_commit", commit);
  ctx.emplace_back("cpu_model", cpu_model());
  ctx.emplace_back("cpu_threads_torch", std::to_string(at::get_num_threads()));
  ctx.emplace_back("cpu_threads_hw", std::to_string(std::thread::hardware_concurrency()));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  ctx.emplace_back("hostname", host);

  std::string cuda_runtime = "none", cuda_driver = "none", gpu = "none", gpu_clock = "unknown";
#if IRIS_HAVE_CUDA
  int rt = 0, drv = 0;
  cudaRuntimeGetVersion(&rt);
  cudaDriverGetVersion(&drv);
  cuda_runtime = version_string(rt);
  cuda_driver = version_string(drv);
  int count = 0;
  if (drv > 0 && cudaGetDeviceCount(&count) == cudaSuccess && count > 0) {
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, 0) == cudaSuccess) gpu = prop.name;
    int khz = 0;
    if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0) == cudaSuccess && khz > 0)
      gpu_clock = std::to_string(khz / 1000) + " MHz";
  }
  cudaGetLastError();  // reading absent devices leaves an error we have already handled
#endif
  ctx.emplace_back("cuda_runtime", cuda_runtime);
  ctx.emplace_back("cuda_driver", cuda_driver);
  ctx.emplace_back("gpu_name", gpu);
  ctx.emplace_back("gpu_max_clock", gpu_clock);
  ctx.emplace_back("built_with_cuda", IRIS_HAVE_CUDA ? "yes" : "no");
  ctx.emplace_back("built_with_nvtx", IRIS_HAVE_NVTX ? "yes" : "no");
  return ctx;
}

}  // namespace common
