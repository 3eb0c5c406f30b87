#include "trace/export/write_file.h"

#include <sys/stat.h>

#include <cstdio>
#include <stdexcept>

namespace trace {
namespace {

void write_whole(const std::string& path, const std::string& text) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) throw std::runtime_error("cannot write " + path);
  const bool ok = std::fwrite(text.data(), 1, text.size(), f) == text.size();
  if (std::fclose(f) != 0 || !ok) throw std::runtime_error("failed writing " + path);
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& text) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return write_whole(path, text);
  const std::string tmp = path + ".tmp";
  try {
    write_whole(tmp, text);
  } catch (...) {
    std::remove(tmp.c_str());
    throw;
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot rename " + tmp + " to " + path);
  }
}

}  // namespace trace
