// zlib's inflate behind Inflate (inflate.h): the fallback where ISA-L is missing.
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "trace/import/inflate.h"

namespace trace {
namespace {

class ZlibInflate : public Inflate {
 public:
  ZlibInflate() {
    std::memset(&z_, 0, sizeof z_);
    if (inflateInit2(&z_, 15 + 16) != Z_OK)
      throw std::runtime_error("cannot start zlib's gzip decompression");  // 16: gzip only
  }
  ~ZlibInflate() override { inflateEnd(&z_); }
  void feed(const char* in, size_t n) override {
    z_.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in));
    z_.avail_in = static_cast<uInt>(n);
  }
  size_t pending() const override { return z_.avail_in; }
  Step run(char* out, size_t n) override {
    z_.next_out = reinterpret_cast<Bytef*>(out);
    z_.avail_out = static_cast<uInt>(std::min<size_t>(n, 1u << 30));
    const int rc = inflate(&z_, Z_NO_FLUSH);
    Step s;
    s.written = static_cast<size_t>(reinterpret_cast<char*>(z_.next_out) - out);
    if (rc == Z_STREAM_END)
      s.member_end = true;
    else if (rc == Z_BUF_ERROR && z_.avail_in == 0) {
    }  // needs more input
    else if (rc != Z_OK)
      s.error = z_.msg ? z_.msg : "zlib error";
    return s;
  }
  void next_member() override {
    if (inflateReset(&z_) != Z_OK) throw std::runtime_error("zlib's gzip reset failed");
  }
  const char* name() const override { return "zlib"; }

 private:
  z_stream z_;
};

}  // namespace

std::unique_ptr<Inflate> make_zlib_inflate() { return std::make_unique<ZlibInflate>(); }

}  // namespace trace
