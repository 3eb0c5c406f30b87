// ISA-L's igzip behind Inflate (inflate.h): built only where CMake found ISA-L (IRIS_HAVE_ISAL).
// The gzip header is read here and ISA-L gets the deflate data and the trailer: ISA-L 2.30's
// own header reader (crc_flag ISAL_GZIP) loses its place when a header with optional fields is
// split between two inputs (a FEXTRA + FNAME + FHCRC header split after byte 2 fails its CRC;
// split after byte 10 it reads a bad block), while its trailer check (ISAL_GZIP_NO_HDR_VER:
// CRC32 and length) streams correctly at any split.
#include <isa-l/igzip_lib.h>
#include <zlib.h>

#include <algorithm>
#include <cstdint>

#include "trace/import/inflate.h"

namespace trace {
namespace {

// One member's header (RFC 1952, 2.3), a byte at a time across inputs. It accepts and refuses
// what zlib does, with zlib's words, so that both inflaters agree on every file.
class GzipHeader {
 public:
  enum class Result { More, Done, Bad };
  Result take(const uint8_t** in, uint32_t* n, const char** error) {
    while (*n > 0) {
      const uint8_t c = **in;
      if (phase_ != Phase::Hcrc) crc_ = crc32(crc_, &c, 1);
      ++*in, --*n;
      switch (phase_) {
        case Phase::Fixed:  // magic (2), method, flags, mtime (4), extra flags, OS
          if ((at_ == 0 && c != 0x1f) || (at_ == 1 && c != 0x8b))
            return *error = "incorrect header check", Result::Bad;
          if (at_ == 2 && c != 8) return *error = "unknown compression method", Result::Bad;
          if (at_ == 3) {
            if (c & 0xe0) return *error = "unknown header flags set", Result::Bad;
            flags_ = c;
          }
          if (++at_ == 10) next(Phase::Fixed);
          break;
        case Phase::ExtraLen:
          extra_left_ |= static_cast<uint32_t>(c) << (8 * at_);
          if (++at_ == 2) {
            phase_ = Phase::Extra;
            if (extra_left_ == 0) next(Phase::Extra);
          }
          break;
        case Phase::Extra:
          if (--extra_left_ == 0) next(Phase::Extra);
          break;
        case Phase::Name:
          if (c == 0) next(Phase::Name);
          break;
        case Phase::Comment:
          if (c == 0) next(Phase::Comment);
          break;
        case Phase::Hcrc:
          hcrc_ |= static_cast<uint32_t>(c) << (8 * at_);
          if (++at_ == 2) {
            if (hcrc_ != (crc_ & 0xffff)) return *error = "header crc mismatch", Result::Bad;
            phase_ = Phase::Done;
          }
          break;
        case Phase::Done:
          break;
      }
      if (phase_ == Phase::Done) return Result::Done;
    }
    return phase_ == Phase::Done ? Result::Done : Result::More;
  }

 private:
  enum class Phase { Fixed, ExtraLen, Extra, Name, Comment, Hcrc, Done };
  static constexpr uint8_t kHcrc = 2, kExtra = 4, kName = 8, kComment = 16;  // FLG bits
  // The first optional field after `after` that the flags announce, else the end.
  void next(Phase after) {
    at_ = 0;
    constexpr Phase kField[] = {Phase::ExtraLen, Phase::Name, Phase::Comment, Phase::Hcrc};
    constexpr uint8_t kBit[] = {kExtra, kName, kComment, kHcrc};
    for (int i = 0; i < 4; ++i)
      if (kField[i] > after && (flags_ & kBit[i])) {
        phase_ = kField[i];
        return;
      }
    phase_ = Phase::Done;
  }
  Phase phase_ = Phase::Fixed;
  int at_ = 0;
  uint8_t flags_ = 0;
  uint32_t extra_left_ = 0, hcrc_ = 0;
  uLong crc_ = crc32(0, nullptr, 0);
};

const char* isal_error(int rc) {
  switch (rc) {
    case ISAL_INVALID_BLOCK:
      return "invalid deflate block";
    case ISAL_INVALID_SYMBOL:
      return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK:
      return "invalid distance too far back";
    case ISAL_INCORRECT_CHECKSUM:
      return "incorrect data check or length check";
    default:
      return "ISA-L inflate error";
  }
}

class IsalInflate : public Inflate {
 public:
  IsalInflate() { start(); }
  void feed(const char* in, size_t n) override {
    s_.next_in = reinterpret_cast<uint8_t*>(const_cast<char*>(in));
    s_.avail_in = static_cast<uint32_t>(n);
  }
  size_t pending() const override { return s_.avail_in; }
  Step run(char* out, size_t n) override {
    Step step;
    if (!in_body_) {
      const auto r =
          header_.take(const_cast<const uint8_t**>(&s_.next_in), &s_.avail_in, &step.error);
      if (r != GzipHeader::Result::Done) return step;  // an error, or more input needed
      in_body_ = true;
    }
    s_.next_out = reinterpret_cast<uint8_t*>(out);
    s_.avail_out = static_cast<uint32_t>(std::min<size_t>(n, 1u << 30));
    const uint32_t in_before = s_.avail_in;
    const int rc = isal_inflate(&s_);
    step.written = static_cast<size_t>(s_.next_out - reinterpret_cast<uint8_t*>(out));
    if (rc != ISAL_DECOMP_OK && rc != ISAL_END_INPUT && rc != ISAL_OUT_OVERFLOW)
      step.error = isal_error(rc);
    else if (s_.block_state == ISAL_BLOCK_FINISH)
      step.member_end = true;
    else if (step.written == 0 && s_.avail_in == in_before && in_before > 0)
      step.error = "ISA-L inflate made no progress";
    return step;
  }
  void next_member() override {
    uint8_t* in = s_.next_in;
    const uint32_t avail = s_.avail_in;
    start();
    s_.next_in = in, s_.avail_in = avail;
  }
  const char* name() const override { return "ISA-L"; }

 private:
  void start() {
    isal_inflate_init(&s_);
    s_.crc_flag = ISAL_GZIP_NO_HDR_VER;  // deflate data, then the CRC32 and length trailer checked
    header_ = GzipHeader();
    in_body_ = false;
  }
  inflate_state s_;
  GzipHeader header_;
  bool in_body_ = false;
};

}  // namespace

std::unique_ptr<Inflate> make_isal_inflate() { return std::make_unique<IsalInflate>(); }

}  // namespace trace
