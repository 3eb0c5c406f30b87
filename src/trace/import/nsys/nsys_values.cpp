#include "trace/import/nsys/nsys_values.h"

#include <algorithm>

namespace trace::nsys {

std::string api_name(std::string_view s) {
  const size_t v = s.rfind("_v");
  if (v == std::string_view::npos || v == 0 || v + 2 == s.size()) return std::string(s);
  for (size_t i = v + 2; i < s.size(); ++i)
    if (s[i] < '0' || s[i] > '9') return std::string(s);
  return std::string(s.substr(0, v));
}

std::string op_name(std::string_view s) {
  size_t cut = s.size();
  for (std::string_view field : {", seq = ", ", op_id = ", ", sizes = "})
    cut = std::min(cut, s.find(field));
  return std::string(s.substr(0, cut));
}

std::string utf8(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    // Sequence length and the smallest second byte allowed after this lead byte (overlong
    // forms and surrogates excluded, as in the Unicode standard's table 3-7).
    size_t len = 0;
    unsigned char lo = 0x80, hi = 0xBF;
    if (c < 0x80)
      len = 1;
    else if (c >= 0xC2 && c <= 0xDF)
      len = 2;
    else if (c == 0xE0)
      len = 3, lo = 0xA0;
    else if (c >= 0xE1 && c <= 0xEC)
      len = 3;
    else if (c == 0xED)
      len = 3, hi = 0x9F;
    else if (c >= 0xEE && c <= 0xEF)
      len = 3;
    else if (c == 0xF0)
      len = 4, lo = 0x90;
    else if (c >= 0xF1 && c <= 0xF3)
      len = 4;
    else if (c == 0xF4)
      len = 4, hi = 0x8F;
    bool ok = len > 0 && i + len <= s.size();
    for (size_t k = 1; ok && k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      ok = k == 1 ? (b >= lo && b <= hi) : (b >= 0x80 && b <= 0xBF);
    }
    if (ok) {
      out.append(s.data() + i, len);
      i += len;
    } else {
      out += "\xEF\xBF\xBD";
      ++i;
    }
  }
  return out;
}

CopyKind copy_kind(int64_t v) {
  switch (v) {
    case 1:
      return CopyKind::HtoD;
    case 2:
      return CopyKind::DtoH;
    case 8:
      return CopyKind::DtoD;
    case 9:
      return CopyKind::HtoH;
    default:
      return CopyKind::Other;  // arrays, peer-to-peer, unified memory
  }
}

MemoryKind memory_kind(int64_t v) {
  switch (v) {
    case 0:
      return MemoryKind::Pageable;
    case 1:
      return MemoryKind::Pinned;
    case 2:
      return MemoryKind::Device;
    default:
      return MemoryKind::Other;
  }
}

SyncKind sync_kind_of_call(std::string_view api) {
  if (api == "cudaStreamSynchronize" || api == "cuStreamSynchronize") return SyncKind::Stream;
  if (api == "cudaEventSynchronize" || api == "cuEventSynchronize") return SyncKind::Event;
  if (api == "cudaStreamWaitEvent" || api == "cuStreamWaitEvent") return SyncKind::StreamWaitEvent;
  if (api == "cudaDeviceSynchronize" || api == "cudaThreadSynchronize" || api == "cuCtxSynchronize")
    return SyncKind::Context;
  return SyncKind::Other;
}

}  // namespace trace::nsys
