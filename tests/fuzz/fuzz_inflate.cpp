// libFuzzer target: the two gzip decoders (inflate.h) held to each other. Any bytes, read
// through ISA-L's and through zlib's ByteSource, each in pieces of a size the input picks: both
// must give the same bytes, or both refuse (trace::InputError). A difference aborts, and the
// fuzzer keeps the input. In a build without ISA-L only zlib's side runs (nothing to compare).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "trace/import/byte_source.h"

namespace {

// Appends everything the source gives to *out; false when the source refuses the input.
bool read_all(const uint8_t* data, size_t size, trace::Inflater which, size_t in_piece,
              std::string* out) {
  try {
    auto src = trace::memory_byte_source(reinterpret_cast<const char*>(data), size, "fuzz input",
                                         which, in_piece);
    char buf[4096];
    while (const size_t k = src->read(buf, sizeof buf)) {
      out->append(buf, k);
      if (out->size() > (size_t{64} << 20)) return true;  // a gzip bomb: enough compared
    }
    return true;
  } catch (const trace::InputError&) {
    return false;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The last byte picks the piece size the decoders are fed (0: all at once), and is not input.
  if (size == 0) return 0;
  const size_t in_piece = data[size - 1] % 64;
  --size;
  std::string by_zlib, by_isal;
  const bool zlib_ok = read_all(data, size, trace::Inflater::Zlib, in_piece, &by_zlib);
  if (!trace::isal_built_in()) return 0;
  const bool isal_ok = read_all(data, size, trace::Inflater::Isal, in_piece, &by_isal);
  if (zlib_ok != isal_ok || (zlib_ok && by_zlib != by_isal)) {
    std::fprintf(stderr, "fuzz_inflate: zlib %s (%zu bytes), ISA-L %s (%zu bytes)\n",
                 zlib_ok ? "read it" : "refused it", by_zlib.size(),
                 isal_ok ? "read it" : "refused it", by_isal.size());
    std::abort();
  }
  return 0;
}
