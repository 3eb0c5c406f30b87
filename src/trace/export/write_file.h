// The one way this project's C++ writes an output file: whole or not at all.
#pragma once

#include <string>

namespace trace {

// A regular file (or a new one) is written to path.tmp and renamed over `path`, so a reader
// never sees half of it and a failure leaves the old file; anything else that exists (/dev/null,
// a pipe) is written in place, since renaming over it would replace it. Throws
// std::runtime_error naming the path.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace trace
