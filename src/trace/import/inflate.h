// The gzip decoders behind ByteSource (byte_source.cpp). Both stream, so memory stays bounded
// by their buffers whatever the file's size. ISA-L's igzip is the default where the build found
// it: on the 2-core development machine it inflated a 274 MB trace in 0.05 s of CPU against
// zlib's 0.75 s; zlib is the fallback and stays built in, so tests and the fuzz
// target can hold each to the other.
#pragma once

#include <cstddef>
#include <memory>

namespace trace {

enum class Inflater { Best, Zlib, Isal };  // Best: ISA-L when built in, else zlib

// True when this build has ISA-L (CMake found it: IRIS_HAVE_ISAL).
bool isal_built_in();

class Inflate {
 public:
  struct Step {
    size_t written = 0;           // bytes put in out
    bool member_end = false;      // a gzip member (and its CRC and length check) just ended
    const char* error = nullptr;  // corrupt input: what the decoder says, else nullptr
  };
  virtual ~Inflate() = default;
  // Next compressed bytes; the previous ones must all be taken (pending() == 0). Kept by pointer.
  virtual void feed(const char* in, size_t n) = 0;
  virtual size_t pending() const = 0;
  // Inflates into out[0, n) until either is used up or the member ends.
  virtual Step run(char* out, size_t n) = 0;
  // After member_end, with bytes pending: they start another member (concatenated .gz is legal).
  virtual void next_member() = 0;
  virtual const char* name() const = 0;  // "ISA-L" or "zlib"
};

// Throws std::invalid_argument for Inflater::Isal in a build without ISA-L.
std::unique_ptr<Inflate> make_inflate(Inflater which);
std::unique_ptr<Inflate> make_zlib_inflate();
std::unique_ptr<Inflate> make_isal_inflate();  // only where isal_built_in()

}  // namespace trace
