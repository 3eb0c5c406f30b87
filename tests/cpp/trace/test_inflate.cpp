// The gzip decoders behind ByteSource (inflate.h): ISA-L's and zlib's give the same bytes for
// every real trace and for headers with every optional field, fed in pieces of any size
// (ISA-L 2.30's own header reader fails on a split header: inflate_isal.cpp); concatenated
// members; and the same refusals, naming the file and the compressed byte, for truncated and
// corrupt files, through the library and through ./attribute (exit 2, nothing written).
#include <dirent.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <zlib.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "trace/import/byte_source.h"
#include "trace/import/kineto/kineto_import.h"
#include "trace_test_util.h"

using trace::Inflater;
using tracetest::data;

namespace {

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<Inflater> inflaters() {
  std::vector<Inflater> v{Inflater::Zlib};
  if (trace::isal_built_in()) v.push_back(Inflater::Isal);
  return v;
}

const char* name_of(Inflater i) { return i == Inflater::Isal ? "ISA-L" : "zlib"; }

// Everything the source gives, asking for `out_piece` bytes a time; the decoder gets at most
// `in_piece` compressed bytes a time. Throws trace::InputError.
std::string read_all(const std::string& gz, Inflater which, size_t in_piece, size_t out_piece) {
  auto src = trace::memory_byte_source(gz.data(), gz.size(), "test.json.gz", which, in_piece);
  std::string out, buf(out_piece, '\0');
  while (const size_t k = src->read(&buf[0], buf.size())) out.append(buf.data(), k);
  return out;
}

std::string read_error(const std::string& gz, Inflater which, size_t in_piece = 0) {
  try {
    read_all(gz, which, in_piece, 1 << 16);
  } catch (const trace::InputError& e) {
    return e.what();
  }
  return "";
}

// A gzip member (RFC 1952) of `text` with the optional fields asked for; zlib deflates the body.
std::string gzip_member(const std::string& text, bool extra, bool name, bool comment, bool hcrc,
                        uint8_t extra_flags = 0) {
  std::string h = {'\x1f', '\x8b', 8, 0, 0, 0, 0, 0, 0, '\x03'};
  h[3] = static_cast<char>((extra ? 4 : 0) | (name ? 8 : 0) | (comment ? 16 : 0) | (hcrc ? 2 : 0) |
                           extra_flags);
  if (extra)
    h += std::string(
        "\x05\x00"
        "ab\x00"
        "cd",
        7);
  if (name) h += std::string("trace.json\0", 11);
  if (comment) h += std::string("a comment\0", 10);
  if (hcrc) {
    const uLong c = crc32(0, reinterpret_cast<const Bytef*>(h.data()), static_cast<uInt>(h.size()));
    h += static_cast<char>(c & 0xff), h += static_cast<char>((c >> 8) & 0xff);
  }
  z_stream z{};
  EXPECT_EQ(deflateInit2(&z, 9, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
  std::string body(deflateBound(&z, text.size()), '\0');
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  z.avail_in = static_cast<uInt>(text.size());
  z.next_out = reinterpret_cast<Bytef*>(&body[0]);
  z.avail_out = static_cast<uInt>(body.size());
  EXPECT_EQ(deflate(&z, Z_FINISH), Z_STREAM_END);
  body.resize(z.total_out);
  deflateEnd(&z);
  const uLong c =
      crc32(0, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size()));
  std::string trailer;
  for (uint32_t v : {static_cast<uint32_t>(c), static_cast<uint32_t>(text.size())})
    for (int i = 0; i < 4; ++i) trailer += static_cast<char>((v >> (8 * i)) & 0xff);
  return h + body + trailer;
}

}  // namespace

TEST(Inflate, BothDecodersGiveEachRealTraceWhateverThePieces) {
  std::vector<std::string> files;
  if (DIR* d = opendir(data("traces").c_str())) {
    while (dirent* e = readdir(d))
      if (std::string(e->d_name).find(".json.gz") != std::string::npos)
        files.push_back(data("traces/") + e->d_name);
    closedir(d);
  }
  ASSERT_GE(files.size(), 5u);
  for (const auto& f : files) {
    const std::string gz = slurp(f);
    const std::string want = read_all(gz, Inflater::Zlib, 0, 1 << 20);
    ASSERT_GT(want.size(), gz.size()) << f;
    for (Inflater i : inflaters())
      for (size_t in_piece : {size_t{0}, size_t{4093}, gz.size() < 30000 ? size_t{1} : size_t{65}})
        for (size_t out_piece : {size_t{1} << 20, want.size() < 200000 ? size_t{1} : size_t{4099}})
          ASSERT_EQ(read_all(gz, i, in_piece, out_piece), want)
              << f << " " << name_of(i) << " in " << in_piece << " out " << out_piece;
  }
}

TEST(Inflate, EveryOptionalHeaderFieldAndConcatenatedMembersSplitAnywhere) {
  const std::string a = R"({"traceEvents": [{"ph": "X", "ts": 1, "dur": 2}],)",
                    b = R"( "otherData": {}})";
  for (int fields = 0; fields < 16; ++fields) {
    const std::string gz = gzip_member(a, fields & 1, fields & 2, fields & 4, fields & 8) +
                           gzip_member(b, fields & 8, fields & 4, true, fields & 1) +
                           gzip_member("", false, false, false, false);  // an empty member too
    for (Inflater i : inflaters())
      for (size_t in_piece = 1; in_piece <= gz.size(); in_piece += in_piece < 40 ? 1 : 17)
        ASSERT_EQ(read_all(gz, i, in_piece, 7), a + b)
            << name_of(i) << " fields " << fields << " in " << in_piece;
  }
}

TEST(Inflate, BothRefuseTheSameTruncatedAndCorruptFilesNamingTheByte) {
  const std::string gz = gzip_member(std::string(3000, 'x') + "{}", true, true, true, true);
  for (size_t len = 2; len < gz.size(); ++len) {  // every truncation: the same message from both
    const std::string cut = gz.substr(0, len);
    const std::string want = "test.json.gz: truncated gzip (the compressed stream ends at byte " +
                             std::to_string(len) + " before its end marker) at byte offset ";
    std::string first;
    for (Inflater i : inflaters()) {
      const std::string e = read_error(cut, i);
      ASSERT_EQ(e.substr(0, want.size()), want) << name_of(i);
      if (first.empty()) first = e;
      ASSERT_EQ(e, first) << name_of(i) << ": the decompressed offset differs";
    }
  }
  std::string bad_hcrc = gzip_member("{}", false, true, false, true);
  bad_hcrc[bad_hcrc.find('\0') + 1] ^= 1;  // the byte after the name: the header CRC
  std::string bad_crc = gz, bad_length = gz;
  bad_crc[gz.size() - 8] ^= 1;
  bad_length[gz.size() - 1] ^= 1;
  const struct {
    std::string file, says;
  } cases[] = {{gzip_member("{}", false, false, false, false, 0x20), "unknown header flags set"},
               {bad_hcrc, "header crc mismatch"},
               {std::string("\x1f\x8b\x07", 3) + gz.substr(3), "unknown compression method"},
               {bad_crc, "check"},
               {bad_length, "check"},
               {gz + "\x1f\x8b\x08", "truncated gzip"},
               {gz + "garbage", "incorrect header check"}};
  for (const auto& c : cases)
    for (Inflater i : inflaters())
      for (size_t in_piece : {size_t{0}, size_t{1}, size_t{5}}) {
        const std::string e = read_error(c.file, i, in_piece);
        EXPECT_NE(e.find("test.json.gz: "), std::string::npos) << name_of(i) << ": " << e;
        EXPECT_NE(e.find(c.says), std::string::npos)
            << name_of(i) << " in " << in_piece << ": " << e << " (want " << c.says << ")";
        EXPECT_NE(e.find(" byte "), std::string::npos) << e;
      }
}

TEST(AttributeTool, TruncatedOrCorruptGzipExitsTwoWithTheOffsetAndTimeNamesTheDecoder) {
  const std::string whole = slurp(data("traces/a100-alexnet-syncs.json.gz"));
  const std::string dir = ::testing::TempDir();
  std::string corrupt = whole;
  corrupt[whole.size() - 6] ^= 0x40;  // the trailer's CRC32
  const struct {
    std::string file, text, says;
  } cases[] = {{dir + "/truncated.json.gz", whole.substr(0, whole.size() / 2),
                "truncated gzip (the compressed stream ends at byte " +
                    std::to_string(whole.size() / 2) + " "},
               {dir + "/corrupt.json.gz", corrupt, "corrupt gzip data near compressed byte "}};
  const std::string out = dir + "/attribute_gz.json", err = dir + "/attribute_gz.err";
  for (const auto& c : cases) {
    std::ofstream(c.file, std::ios::binary) << c.text;
    std::remove(out.c_str());
    const int rc = std::system(
        (std::string(ATTRIBUTE_BIN) + " --quiet --json " + out + " " + c.file + " 2>" + err)
            .c_str());
    ASSERT_TRUE(WIFEXITED(rc));
    EXPECT_EQ(WEXITSTATUS(rc), 2) << c.file;
    const std::string said = slurp(err);
    EXPECT_NE(said.find(c.file + ": " + c.says), std::string::npos) << said;
    EXPECT_FALSE(std::ifstream(out).good());
  }
  const std::string time = std::string(ATTRIBUTE_BIN) + " --quiet --time " +
                           data("traces/a100-alexnet-syncs.json.gz") + " 2>" + err;
  ASSERT_EQ(std::system(time.c_str()), 0);
  const std::string decoder =
      std::string("inflated by ") + (trace::isal_built_in() ? "ISA-L" : "zlib");
  EXPECT_NE(slurp(err).find(decoder), std::string::npos) << slurp(err);
}
