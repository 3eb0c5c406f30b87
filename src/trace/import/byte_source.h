// Reads a trace file as a stream of bytes, decompressing gzip on the fly (by its magic
// number, not its name), so a 1 GB trace never has to sit in memory whole.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace trace {

// Bad input: the message names the file and, where known, the byte offset or event index.
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Fills up to n bytes; returns how many (0 only at the end). Throws InputError.
  virtual size_t read(char* out, size_t n) = 0;
  virtual bool gzip() const = 0;
  virtual uint64_t bytes_read_raw() const = 0;  // bytes taken from the file itself
};

// Opens path; throws InputError naming it when it cannot be opened.
std::unique_ptr<ByteSource> open_byte_source(const std::string& path);
// The same over bytes already in memory (the fuzz target and unit tests).
std::unique_ptr<ByteSource> memory_byte_source(const char* data, size_t size, std::string name);

}  // namespace trace
