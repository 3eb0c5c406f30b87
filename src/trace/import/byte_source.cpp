#include "trace/import/byte_source.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace trace {

InputError::InputError(const std::string& what) : std::runtime_error(escape_non_utf8(what)) {}

namespace {

// The length of the well-formed UTF-8 sequence at s[i], or 0 (RFC 3629, table 3-7 of Unicode).
size_t utf8_length(const std::string& s, size_t i) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const auto cont = [&](size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return i + k < s.size() && b(k) >= lo && b(k) <= hi;
  };
  const unsigned c = b(0);
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return cont(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const bool second = c == 0xE0 ? cont(1, 0xA0) : c == 0xED ? cont(1, 0x80, 0x9F) : cont(1);
    return second && cont(2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const bool second = c == 0xF0 ? cont(1, 0x90) : c == 0xF4 ? cont(1, 0x80, 0x8F) : cont(1);
    return second && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

}  // namespace

std::string escape_non_utf8(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size();) {
    const size_t n = utf8_length(s, i);
    if (n) {
      out.append(s, i, n), i += n;
      continue;
    }
    static const char kHex[] = "0123456789abcdef";
    const auto c = static_cast<unsigned char>(s[i++]);
    out += "\\x", out += kHex[c >> 4], out += kHex[c & 15];
  }
  return out;
}

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
    if (got < n && std::ferror(f_))
      throw InputError(name_ + ": read error: " + std::strerror(errno));
    return got;
  }

 private:
  std::FILE* f_;
  std::string name_;
};

class MemoryRaw : public Raw {
 public:
  MemoryRaw(const char* p, size_t n, size_t max_read)
      : p_(p), left_(n), max_read_(max_read ? max_read : n) {}
  size_t read(char* out, size_t n) override {
    const size_t k = std::min({n, left_, max_read_});
    std::memcpy(out, p_, k);
    p_ += k, left_ -= k;
    return k;
  }

 private:
  const char* p_;
  size_t left_, max_read_;
};

class PlainSource : public ByteSource {
 public:
  PlainSource(std::unique_ptr<Raw> raw, std::string head)
      : raw_(std::move(raw)), head_(std::move(head)) {}
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
  GzipSource(std::unique_ptr<Raw> raw, std::string head, std::string name, Inflater which)
      : raw_(std::move(raw)), name_(std::move(name)), in_(1 << 20), inflate_(make_inflate(which)) {
    std::memcpy(in_.data(), head.data(), head.size());
    inflate_->feed(in_.data(), head.size());
    raw_bytes_ = head.size();
  }
  size_t read(char* out, size_t n) override {
    size_t k = 0;
    while (k < n && !done_) {
      if (inflate_->pending() == 0) {
        const size_t got = raw_->read(in_.data(), in_.size());
        raw_bytes_ += got;
        if (got == 0) {
          if (member_ended_) {
            done_ = true;
            break;
          }
          throw InputError(name_ + ": truncated gzip (the compressed stream ends at byte " +
                           std::to_string(raw_bytes_) + " before its end marker) at byte offset " +
                           std::to_string(out_bytes_ + k));
        }
        inflate_->feed(in_.data(), got);
      }
      if (member_ended_) {  // another gzip member follows (concatenated .gz files are legal)
        inflate_->next_member();
        member_ended_ = false;
      }
      const Inflate::Step step = inflate_->run(out + k, n - k);
      k += step.written;
      if (step.error)
        throw InputError(name_ + ": corrupt gzip data near compressed byte " +
                         std::to_string(raw_bytes_ - inflate_->pending()) + " (" + step.error +
                         ") at byte offset " + std::to_string(out_bytes_ + k));
      if (step.member_end) member_ended_ = true;
    }
    out_bytes_ += k;
    return k;
  }
  bool gzip() const override { return true; }
  const char* inflater() const override { return inflate_->name(); }
  uint64_t bytes_read_raw() const override { return raw_bytes_; }

 private:
  std::unique_ptr<Raw> raw_;
  std::string name_;
  std::vector<char> in_;
  std::unique_ptr<Inflate> inflate_;
  uint64_t raw_bytes_ = 0;
  uint64_t out_bytes_ = 0;  // decompressed bytes handed out: the offset an error names
  bool member_ended_ = false, done_ = false;
};

std::unique_ptr<ByteSource> make(std::unique_ptr<Raw> raw, const std::string& name,
                                 Inflater which) {
  std::string head(2, '\0');
  size_t got = 0;
  while (got < 2) {
    const size_t k = raw->read(&head[got], 2 - got);
    if (k == 0) break;
    got += k;
  }
  head.resize(got);
  if (got == 2 && static_cast<unsigned char>(head[0]) == 0x1f &&
      static_cast<unsigned char>(head[1]) == 0x8b)
    return std::make_unique<GzipSource>(std::move(raw), head, name, which);
  return std::make_unique<PlainSource>(std::move(raw), head);
}

}  // namespace

std::unique_ptr<ByteSource> open_byte_source(const std::string& path, Inflater inflater) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw InputError(path + ": cannot open (" + std::strerror(errno) + ")");
  return make(std::make_unique<FileRaw>(f, path), path, inflater);
}

std::unique_ptr<ByteSource> memory_byte_source(const char* data, size_t size, std::string name,
                                               Inflater inflater, size_t max_read) {
  return make(std::make_unique<MemoryRaw>(data, size, max_read), name, inflater);
}

}  // namespace trace
