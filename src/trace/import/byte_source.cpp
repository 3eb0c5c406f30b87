#include "trace/import/byte_source.h"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace trace {
namespace {

// Raw bytes: from a FILE* or from memory.
class Raw {
 public:
  virtual ~Raw() = default;
  virtual size_t read(char* out, size_t n) = 0;
};

class FileRaw : public Raw {
 public:
  FileRaw(std::FILE* f, std::string name) : f_(f), name_(std::move(name)) {}
  ~FileRaw() override { std::fclose(f_); }
  size_t read(char* out, size_t n) override {
    const size_t got = std::fread(out, 1, n, f_);
    if (got < n && std::ferror(f_)) throw InputError(name_ + ": read error: " + std::strerror(errno));
    return got;
  }

 private:
  std::FILE* f_;
  std::string name_;
};

class MemoryRaw : public Raw {
 public:
  MemoryRaw(const char* p, size_t n) : p_(p), left_(n) {}
  size_t read(char* out, size_t n) override {
    const size_t k = std::min(n, left_);
    std::memcpy(out, p_, k);
    p_ += k, left_ -= k;
    return k;
  }

 private:
  const char* p_;
  size_t left_;
};

class PlainSource : public ByteSource {
 public:
  PlainSource(std::unique_ptr<Raw> raw, std::string head) : raw_(std::move(raw)), head_(std::move(head)) {}
  size_t read(char* out, size_t n) override {
    size_t k = 0;
    if (head_pos_ < head_.size()) {  // the bytes sniffed for the gzip magic come first
      k = std::min(n, head_.size() - head_pos_);
      std::memcpy(out, head_.data() + head_pos_, k);
      head_pos_ += k;
    }
    while (k < n) {
      const size_t got = raw_->read(out + k, n - k);
      if (got == 0) break;
      k += got;
    }
    raw_bytes_ += k;
    return k;
  }
  bool gzip() const override { return false; }
  uint64_t bytes_read_raw() const override { return raw_bytes_; }

 private:
  std::unique_ptr<Raw> raw_;
  std::string head_;
  size_t head_pos_ = 0;
  uint64_t raw_bytes_ = 0;
};

class GzipSource : public ByteSource {
 public:
  GzipSource(std::unique_ptr<Raw> raw, std::string head, std::string name)
      : raw_(std::move(raw)), name_(std::move(name)), in_(1 << 20) {
    std::memset(&z_, 0, sizeof z_);
    if (inflateInit2(&z_, 15 + 16) != Z_OK) throw InputError(name_ + ": cannot start gzip decompression");
    std::memcpy(in_.data(), head.data(), head.size());
    z_.next_in = reinterpret_cast<Bytef*>(in_.data());
    z_.avail_in = static_cast<uInt>(head.size());
    raw_bytes_ = head.size();
  }
  ~GzipSource() override { inflateEnd(&z_); }
  size_t read(char* out, size_t n) override {
    size_t k = 0;
    while (k < n && !done_) {
      if (z_.avail_in == 0) {
        const size_t got = raw_->read(in_.data(), in_.size());
        raw_bytes_ += got;
        if (got == 0) {
          if (member_ended_) { done_ = true; break; }
          throw InputError(name_ + ": truncated gzip (the compressed stream ends at byte " +
                           std::to_string(raw_bytes_) + " before its end marker)");
        }
        z_.next_in = reinterpret_cast<Bytef*>(in_.data());
        z_.avail_in = static_cast<uInt>(got);
      }
      if (member_ended_) {  // another gzip member follows (concatenated .gz files are legal)
        if (inflateReset(&z_) != Z_OK) throw InputError(name_ + ": gzip reset failed");
        member_ended_ = false;
      }
      z_.next_out = reinterpret_cast<Bytef*>(out + k);
      z_.avail_out = static_cast<uInt>(std::min<size_t>(n - k, 1u << 30));
      const int rc = inflate(&z_, Z_NO_FLUSH);
      k = static_cast<size_t>(reinterpret_cast<char*>(z_.next_out) - out);
      if (rc == Z_STREAM_END) member_ended_ = true;
      else if (rc == Z_BUF_ERROR && z_.avail_in == 0) continue;  // needs more input
      else if (rc != Z_OK)
        throw InputError(name_ + ": corrupt gzip data near compressed byte " +
                         std::to_string(raw_bytes_ - z_.avail_in) + " (" + (z_.msg ? z_.msg : "zlib error") + ")");
    }
    return k;
  }
  bool gzip() const override { return true; }
  uint64_t bytes_read_raw() const override { return raw_bytes_; }

 private:
  std::unique_ptr<Raw> raw_;
  std::string name_;
  std::vector<char> in_;
  z_stream z_;
  uint64_t raw_bytes_ = 0;
  bool member_ended_ = false, done_ = false;
};

std::unique_ptr<ByteSource> make(std::unique_ptr<Raw> raw, const std::string& name) {
  std::string head(2, '\0');
  size_t got = 0;
  while (got < 2) {
    const size_t k = raw->read(&head[got], 2 - got);
    if (k == 0) break;
    got += k;
  }
  head.resize(got);
  if (got == 2 && static_cast<unsigned char>(head[0]) == 0x1f && static_cast<unsigned char>(head[1]) == 0x8b)
    return std::make_unique<GzipSource>(std::move(raw), head, name);
  return std::make_unique<PlainSource>(std::move(raw), head);
}

}  // namespace

std::unique_ptr<ByteSource> open_byte_source(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path + ": cannot open (" + std::strerror(errno) + ")");
  return make(std::make_unique<FileRaw>(f, path), path);
}

std::unique_ptr<ByteSource> memory_byte_source(const char* data, size_t size, std::string name) {
  return make(std::make_unique<MemoryRaw>(data, size), name);
}

}  // namespace trace
