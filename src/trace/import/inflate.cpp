// Which gzip decoder a ByteSource gets (inflate.h).
#include "trace/import/inflate.h"

#include <stdexcept>

namespace trace {

bool isal_built_in() {
#ifdef IRIS_HAVE_ISAL
  return true;
#else
  return false;
#endif
}

std::unique_ptr<Inflate> make_inflate(Inflater which) {
  if (which == Inflater::Best) which = isal_built_in() ? Inflater::Isal : Inflater::Zlib;
  if (which == Inflater::Zlib) return make_zlib_inflate();
#ifdef IRIS_HAVE_ISAL
  return make_isal_inflate();
#else
  throw std::invalid_argument("this build has no ISA-L inflater (CMake did not find libisal-dev)");
#endif
}

}  // namespace trace
