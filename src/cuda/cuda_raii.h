// RAII owners for what the microbenchmarks create: streams, events, graphs, buffers.
// Destructors use the no-throw check: they run during unwinding too.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdlib>
#include <new>

#include "cuda/cuda_check.h"

namespace cuda_util {

class Stream {
 public:
  Stream() { CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~Stream() { CUDA_CHECK_NOTHROW(cudaStreamDestroy(s_)); }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class Event {
 public:
  explicit Event(unsigned flags = cudaEventDefault) {
    CUDA_CHECK(cudaEventCreateWithFlags(&e_, flags));
  }
  ~Event() { CUDA_CHECK_NOTHROW(cudaEventDestroy(e_)); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return e_; }
  void record(cudaStream_t s) { CUDA_CHECK(cudaEventRecord(e_, s)); }
  // Whether the GPU has reached this event yet (cudaEventQuery; never blocks).
  bool reached() const {
    const cudaError_t r = cudaEventQuery(e_);
    if (r == cudaErrorNotReady) return false;
    CUDA_CHECK(r);
    return true;
  }
  // Milliseconds from `start` to this event (both completed).
  float ms_since(const Event& start) const {
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

class Graph {
 public:
  Graph() = default;
  ~Graph() {
    if (exec_) CUDA_CHECK_NOTHROW(cudaGraphExecDestroy(exec_));
    if (graph_) CUDA_CHECK_NOTHROW(cudaGraphDestroy(graph_));
  }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
  void begin_capture(cudaStream_t s) {
    CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
  }
  void end_capture(cudaStream_t s) {
    CUDA_CHECK(cudaStreamEndCapture(s, &graph_));
    CUDA_CHECK(cudaGraphInstantiate(&exec_, graph_, 0));
  }
  void launch(cudaStream_t s) { CUDA_CHECK(cudaGraphLaunch(exec_, s)); }
  size_t nodes() const {
    size_t n = 0;
    CUDA_CHECK(cudaGraphGetNodes(graph_, nullptr, &n));
    return n;
  }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t bytes) { CUDA_CHECK(cudaMalloc(&p_, bytes)); }
  ~DeviceBuffer() { CUDA_CHECK_NOTHROW(cudaFree(p_)); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
};

// Host memory, page-locked (pinned) or ordinary (pageable).
class HostBuffer {
 public:
  HostBuffer(size_t bytes, bool pinned) : pinned_(pinned) {
    if (pinned)
      CUDA_CHECK(cudaMallocHost(&p_, bytes));
    else if (!(p_ = std::malloc(bytes)))
      throw std::bad_alloc();
  }
  ~HostBuffer() {
    if (pinned_)
      CUDA_CHECK_NOTHROW(cudaFreeHost(p_));
    else
      std::free(p_);
  }
  HostBuffer(const HostBuffer&) = delete;
  HostBuffer& operator=(const HostBuffer&) = delete;
  void* get() const { return p_; }

 private:
  void* p_ = nullptr;
  bool pinned_;
};

}  // namespace cuda_util
