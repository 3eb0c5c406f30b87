#include "trace/import/kineto/trace_folder.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstring>

#include "trace/import/byte_source.h"

namespace trace {

std::vector<std::string> expand_trace_paths(const std::vector<std::string>& args) {
  std::vector<std::string> files;
  for (const auto& a : args) {
    struct stat st;
    if (::stat(a.c_str(), &st) != 0) throw InputError(a + ": no such file or folder");
    if (!S_ISDIR(st.st_mode)) {
      files.push_back(a);
      continue;
    }
    std::vector<std::string> in_dir;
    if (DIR* d = ::opendir(a.c_str())) {
      while (dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        const auto ends = [&](const char* suffix) {
          const size_t k = std::strlen(suffix);
          return n.size() > k && n.compare(n.size() - k, k, suffix) == 0;
        };
        if (ends(".json") || ends(".json.gz")) in_dir.push_back(a + "/" + n);
      }
      ::closedir(d);
    }
    if (in_dir.empty()) throw InputError(a + ": folder holds no *.json or *.json.gz trace");
    std::sort(in_dir.begin(), in_dir.end());
    files.insert(files.end(), in_dir.begin(), in_dir.end());
  }
  return files;
}

}  // namespace trace
