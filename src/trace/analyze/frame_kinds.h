// What a Python frame of a torch.profiler trace (records.h PyFrameRecord) is, from its name:
// the rules that pick a blocking call's caller frame (call_sites.h) out of its stack.
#pragma once

#include <cstdint>
#include <string_view>

namespace trace {

enum class FrameKind : uint8_t {
  Builtin,   // "<built-in method item of Tensor object>": a C function Python called
  Module,    // "nn.Module: Linear_0": a module's forward
  Torch,     // PyTorch's own package ("torch/..."), wherever it is installed
  Stdlib,    // Python's standard library ("threading.py", "multiprocessing/...", "<frozen os>")
  NotAFile,  // code with no file: "<string>", "<eval_with_key>.3", ...
  Code,      // everything else: the program's code, or a library that called into torch
};

FrameKind classify_frame(std::string_view name);

// "dir/file.py" of "dir/file.py(12): func"; empty when the name is not of that form.
std::string_view frame_file(std::string_view name);

// Code that is the user's own, where the name can say so: a script on a sys.path entry
// ("train.py(1): <module>") or an absolute path outside site-packages. The profiler writes
// paths relative to their sys.path entry, so a package of the user's own and an installed
// library (transformers/...) cannot be told apart: neither counts.
bool is_user_code(std::string_view name);

}  // namespace trace
