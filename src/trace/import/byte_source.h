// Reads a trace file as a stream of bytes, decompressing gzip on the fly (by its magic
// number, not its name), so a 1 GB trace never has to sit in memory whole. The decoder is
// ISA-L's where the build has it, else zlib's (inflate.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

#include "trace/import/inflate.h"

namespace trace {

// Bad input: the message names the file and, where known, the byte offset or event index.
// Bytes that are not UTF-8 (a binary file's, quoted) are escaped as \x80, so that a terminal
// and Python (whose str() of the message would raise UnicodeDecodeError) show the message.
class InputError : public std::runtime_error {
 public:
  explicit InputError(const std::string& what);
};

// `s` with every byte that is not part of a well-formed UTF-8 sequence (as Python's strict
// decoder reads it: no overlong forms, no surrogates, nothing above U+10FFFF) written \xHH.
std::string escape_non_utf8(const std::string& s);

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Fills up to n bytes; returns how many (0 only at the end). Throws InputError.
  virtual size_t read(char* out, size_t n) = 0;
  virtual bool gzip() const = 0;
  virtual const char* inflater() const { return ""; }  // "ISA-L" or "zlib" for gzip input
  virtual uint64_t bytes_read_raw() const = 0;         // bytes taken from the file itself
};

// Opens path; throws InputError naming it when it cannot be opened. `inflater`: which gzip
// decoder (tests compare them); std::invalid_argument for ISA-L in a build without it.
std::unique_ptr<ByteSource> open_byte_source(const std::string& path,
                                             Inflater inflater = Inflater::Best);
// The same over bytes already in memory (the fuzz targets and unit tests); `max_read` > 0
// hands the decoder at most that many bytes at a time, so that tests split a gzip file anywhere.
std::unique_ptr<ByteSource> memory_byte_source(const char* data, size_t size, std::string name,
                                               Inflater inflater = Inflater::Best,
                                               size_t max_read = 0);

}  // namespace trace
