#include "trace/import/nsys/nsys_report.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "trace/import/byte_source.h"

extern char** environ;

namespace trace {

namespace {

bool executable(const std::string& p) {
  struct stat st;
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

// Runs argv[0] (a path) with stdout and stderr into `log`; its exit status, or -1.
int run(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t io;
  posix_spawn_file_actions_init(&io);
  posix_spawn_file_actions_addopen(&io, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&io, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_adddup2(&io, 1, 2);
  pid_t pid;
  const int rc = posix_spawn(&pid, args[0], &io, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&io);
  if (rc != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The end of a log, for an error message: what nsys said last.
std::string tail(const std::string& log) {
  std::ifstream in(log, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  std::string s = ss.str();
  if (s.size() > 600) s = "..." + s.substr(s.size() - 600);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s.empty() ? "(no output)" : s;
}

void copy_file(const std::string& from, const std::string& to) {
  std::ifstream in(from, std::ios::binary);
  std::ofstream out(to, std::ios::binary);
  if (!in || !out) throw InputError(from + ": cannot copy it to " + to);
  out << in.rdbuf();
  if (!out.flush()) throw InputError(from + ": cannot copy it to " + to);
}

// The QdstrmImporter of an nsys install lies in host-linux-x64 beside nsys's folder
// (target-linux-x64), in Nsight Systems' and in Nsight Compute's layouts alike.
std::optional<std::string> find_importer(const std::string& nsys) {
  char real[PATH_MAX];
  if (!::realpath(nsys.c_str(), real)) return std::nullopt;
  std::string dir = real;
  dir = dir.substr(0, dir.rfind('/'));
  for (const std::string& c : {dir + "/../host-linux-x64/QdstrmImporter", dir + "/QdstrmImporter"})
    if (executable(c)) return c;
  return std::nullopt;
}

}  // namespace

std::optional<std::string> find_nsys(std::string* why) {
  if (const char* e = std::getenv("IRIS_NSYS"); e && *e) {
    if (executable(e)) return std::string(e);
    *why = std::string("IRIS_NSYS=") + e + " is not an executable file";
    return std::nullopt;
  }
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "");
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty() && executable(d + "/nsys")) return d + "/nsys";
  *why = "no nsys on PATH and IRIS_NSYS is not set";
  return std::nullopt;
}

NsysExport::NsysExport(const std::string& report, bool raw_stream) {
  std::string why;
  const auto nsys = find_nsys(&why);
  if (!nsys)
    throw InputError(report + ": an Nsight Systems " +
                     (raw_stream ? "raw stream (.qdstrm)" : "report") +
                     ", which only Nsight Systems reads, and " + why +
                     " (scripts/nsys_setup.sh installs one; or give ./attribute the .sqlite of "
                     "`nsys export --type sqlite`)");
  const char* tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/attribute-nsys-XXXXXX";
  if (!::mkdtemp(templ.data()))
    throw InputError(report + ": cannot make a temporary folder in " + templ);
  dir_ = templ;
  try {
    make(report, raw_stream, *nsys);
  } catch (...) {
    remove_dir();
    throw;
  }
}

void NsysExport::make(const std::string& report, bool raw_stream, const std::string& nsys) {
  const std::string log = dir_ + "/nsys.log";
  std::string rep = report;
  if (raw_stream) {
    const auto importer = find_importer(nsys);
    if (!importer)
      throw InputError(report + ": a raw stream (.qdstrm), and no QdstrmImporter beside " + nsys);
    copy_file(report, dir_ + "/in.qdstrm");  // the importer rewrites its input
    rep = dir_ + "/in.nsys-rep";
    if (run({*importer, "-i", dir_ + "/in.qdstrm", "-o", rep}, log) != 0 ||
        ::access(rep.c_str(), R_OK) != 0)
      throw InputError(report + ": " + *importer +
                       " could not turn it into a report: " + tail(log));
  }
  sqlite_ = dir_ + "/export.sqlite";
  if (run({nsys, "export", "--type", "sqlite", "--quiet", "true", "--force-overwrite", "true",
           "--output", sqlite_, rep},
          log) != 0 ||
      ::access(sqlite_.c_str(), R_OK) != 0)
    throw InputError(report + ": `" + nsys + " export --type sqlite` failed: " + tail(log));
}

NsysExport::~NsysExport() { remove_dir(); }

void NsysExport::remove_dir() {
  if (dir_.empty()) return;
  if (DIR* d = ::opendir(dir_.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string n = e->d_name;
      if (n != "." && n != "..") ::unlink((dir_ + "/" + n).c_str());
    }
    ::closedir(d);
  }
  ::rmdir(dir_.c_str());
}

}  // namespace trace
