// ./attribute's big arrays in 2 MiB pages: glibc's malloc asks the kernel for transparent huge
// pages only when its tunable glibc.malloc.hugetlb=1 is set, and it reads tunables once, when
// the process starts. So on a kernel that gives huge pages only to who asks (Debian's default,
// "madvise"), the tool starts itself again, once, with the tunable added.
//
// Why: a trace's records, indexes and orders are hundreds of MB written once into fresh memory,
// which the kernel faults in and zeroes a 4 KiB page at a time (what it saved is measured in
// docs/trace-tool.md, "Fresh memory"). The figures do not change: only where malloc's memory
// comes from.
//
// GLIBC_TUNABLES=glibc.malloc.hugetlb=0 turns it off (any setting of it is left as it is).
#pragma once

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

namespace huge_page_malloc {

inline constexpr const char* kMarker =
    "IRIS_ATTRIBUTE_HUGE_PAGES";  // set for the second start only
inline constexpr const char* kTunable = "glibc.malloc.hugetlb";

// The kernel's transparent huge page mode: "always", "madvise", "never", or "" if unknown.
inline std::string kernel_mode() {
  std::ifstream f("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string line;
  std::getline(f, line);
  const size_t a = line.find('['), b = line.find(']');
  return a != std::string::npos && b != std::string::npos && b > a ? line.substr(a + 1, b - a - 1)
                                                                   : "";
}

// Call first in main. Either starts the program again (and does not return) or returns what
// --time should say about huge pages.
inline std::string enable(char** argv) {
  if (std::getenv(kMarker)) {
    unsetenv(kMarker);  // not for the processes this one starts
    return "on (glibc.malloc.hugetlb=1)";
  }
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  const bool had_tunables = tunables != nullptr;
  const std::string current = had_tunables ? tunables : "";  // a copy: setenv may free the original
  if (current.find(kTunable) != std::string::npos) return "as GLIBC_TUNABLES sets them";
  const std::string mode = kernel_mode();
  if (mode == "always") return "on (the kernel gives them to every process)";
  if (mode != "madvise")
    return "off (the kernel's transparent huge pages are " + (mode.empty() ? "unknown" : mode) +
           ")";
  const std::string with = current + (current.empty() ? "" : ":") + kTunable + "=1";
  setenv("GLIBC_TUNABLES", with.c_str(), 1);
  setenv(kMarker, "1", 1);
  execv("/proc/self/exe", argv);
  const int err = errno;  // could not start again: run on, without them
  if (had_tunables)
    setenv("GLIBC_TUNABLES", current.c_str(), 1);
  else
    unsetenv("GLIBC_TUNABLES");
  unsetenv(kMarker);
  return std::string("off (could not restart with them: ") + std::strerror(err) + ")";
}

}  // namespace huge_page_malloc
