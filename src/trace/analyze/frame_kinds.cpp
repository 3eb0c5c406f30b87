#include "trace/analyze/frame_kinds.h"

#include <algorithm>
#include <iterator>
#include <string_view>

namespace trace {

namespace {

// The top-level modules of Python's standard library: Python 3.11's sys.stdlib_module_names
// (generated from it; Python 3.12 only removed names), sorted for a binary search. A plain
// array: std::array's deduction of 300 elements exceeds clang's fold-expression limit.
constexpr const char* kStdlib[] = {
    "__future__",
    "_abc",
    "_aix_support",
    "_ast",
    "_asyncio",
    "_bisect",
    "_blake2",
    "_bootsubprocess",
    "_bz2",
    "_codecs",
    "_codecs_cn",
    "_codecs_hk",
    "_codecs_iso2022",
    "_codecs_jp",
    "_codecs_kr",
    "_codecs_tw",
    "_collections",
    "_collections_abc",
    "_compat_pickle",
    "_compression",
    "_contextvars",
    "_crypt",
    "_csv",
    "_ctypes",
    "_curses",
    "_curses_panel",
    "_datetime",
    "_dbm",
    "_decimal",
    "_elementtree",
    "_frozen_importlib",
    "_frozen_importlib_external",
    "_functools",
    "_gdbm",
    "_hashlib",
    "_heapq",
    "_imp",
    "_io",
    "_json",
    "_locale",
    "_lsprof",
    "_lzma",
    "_markupbase",
    "_md5",
    "_msi",
    "_multibytecodec",
    "_multiprocessing",
    "_opcode",
    "_operator",
    "_osx_support",
    "_overlapped",
    "_pickle",
    "_posixshmem",
    "_posixsubprocess",
    "_py_abc",
    "_pydecimal",
    "_pyio",
    "_queue",
    "_random",
    "_scproxy",
    "_sha1",
    "_sha256",
    "_sha3",
    "_sha512",
    "_signal",
    "_sitebuiltins",
    "_socket",
    "_sqlite3",
    "_sre",
    "_ssl",
    "_stat",
    "_statistics",
    "_string",
    "_strptime",
    "_struct",
    "_symtable",
    "_thread",
    "_threading_local",
    "_tkinter",
    "_tokenize",
    "_tracemalloc",
    "_typing",
    "_uuid",
    "_warnings",
    "_weakref",
    "_weakrefset",
    "_winapi",
    "_zoneinfo",
    "abc",
    "aifc",
    "antigravity",
    "argparse",
    "array",
    "ast",
    "asynchat",
    "asyncio",
    "asyncore",
    "atexit",
    "audioop",
    "base64",
    "bdb",
    "binascii",
    "bisect",
    "builtins",
    "bz2",
    "cProfile",
    "calendar",
    "cgi",
    "cgitb",
    "chunk",
    "cmath",
    "cmd",
    "code",
    "codecs",
    "codeop",
    "collections",
    "colorsys",
    "compileall",
    "concurrent",
    "configparser",
    "contextlib",
    "contextvars",
    "copy",
    "copyreg",
    "crypt",
    "csv",
    "ctypes",
    "curses",
    "dataclasses",
    "datetime",
    "dbm",
    "decimal",
    "difflib",
    "dis",
    "distutils",
    "doctest",
    "email",
    "encodings",
    "ensurepip",
    "enum",
    "errno",
    "faulthandler",
    "fcntl",
    "filecmp",
    "fileinput",
    "fnmatch",
    "fractions",
    "ftplib",
    "functools",
    "gc",
    "genericpath",
    "getopt",
    "getpass",
    "gettext",
    "glob",
    "graphlib",
    "grp",
    "gzip",
    "hashlib",
    "heapq",
    "hmac",
    "html",
    "http",
    "idlelib",
    "imaplib",
    "imghdr",
    "imp",
    "importlib",
    "inspect",
    "io",
    "ipaddress",
    "itertools",
    "json",
    "keyword",
    "lib2to3",
    "linecache",
    "locale",
    "logging",
    "lzma",
    "mailbox",
    "mailcap",
    "marshal",
    "math",
    "mimetypes",
    "mmap",
    "modulefinder",
    "msilib",
    "msvcrt",
    "multiprocessing",
    "netrc",
    "nis",
    "nntplib",
    "nt",
    "ntpath",
    "nturl2path",
    "numbers",
    "opcode",
    "operator",
    "optparse",
    "os",
    "ossaudiodev",
    "pathlib",
    "pdb",
    "pickle",
    "pickletools",
    "pipes",
    "pkgutil",
    "platform",
    "plistlib",
    "poplib",
    "posix",
    "posixpath",
    "pprint",
    "profile",
    "pstats",
    "pty",
    "pwd",
    "py_compile",
    "pyclbr",
    "pydoc",
    "pydoc_data",
    "pyexpat",
    "queue",
    "quopri",
    "random",
    "re",
    "readline",
    "reprlib",
    "resource",
    "rlcompleter",
    "runpy",
    "sched",
    "secrets",
    "select",
    "selectors",
    "shelve",
    "shlex",
    "shutil",
    "signal",
    "site",
    "smtpd",
    "smtplib",
    "sndhdr",
    "socket",
    "socketserver",
    "spwd",
    "sqlite3",
    "sre_compile",
    "sre_constants",
    "sre_parse",
    "ssl",
    "stat",
    "statistics",
    "string",
    "stringprep",
    "struct",
    "subprocess",
    "sunau",
    "symtable",
    "sys",
    "sysconfig",
    "syslog",
    "tabnanny",
    "tarfile",
    "telnetlib",
    "tempfile",
    "termios",
    "textwrap",
    "this",
    "threading",
    "time",
    "timeit",
    "tkinter",
    "token",
    "tokenize",
    "tomllib",
    "trace",
    "traceback",
    "tracemalloc",
    "tty",
    "turtle",
    "turtledemo",
    "types",
    "typing",
    "unicodedata",
    "unittest",
    "urllib",
    "uu",
    "uuid",
    "venv",
    "warnings",
    "wave",
    "weakref",
    "webbrowser",
    "winreg",
    "winsound",
    "wsgiref",
    "xdrlib",
    "xml",
    "xmlrpc",
    "zipapp",
    "zipfile",
    "zipimport",
    "zlib",
    "zoneinfo",
};

std::string_view first_component(std::string_view path) {
  const size_t slash = path.find('/');
  std::string_view c = path.substr(0, slash);
  if (c.size() > 3 && c.substr(c.size() - 3) == ".py") c.remove_suffix(3);
  return c;
}

bool in_stdlib(std::string_view module) {
  return std::binary_search(std::begin(kStdlib), std::end(kStdlib), module,
                            [](std::string_view a, std::string_view b) { return a < b; });
}

}  // namespace

std::string_view frame_file(std::string_view name) {
  // "dir/file.py(123): func": the file is what stands before the last "(" that a "): "
  // follows.
  const size_t colon = name.rfind("): ");
  if (colon == std::string_view::npos) return {};
  const size_t open = name.rfind('(', colon);
  if (open == std::string_view::npos || open == 0) return {};
  return name.substr(0, open);
}

FrameKind classify_frame(std::string_view name) {
  if (name.rfind("<built-in ", 0) == 0) return FrameKind::Builtin;
  if (name.rfind("nn.Module: ", 0) == 0) return FrameKind::Module;
  if (name.rfind("<frozen ", 0) == 0) return FrameKind::Stdlib;  // "<frozen importlib._bootstrap>"
  std::string_view file = frame_file(name);
  if (file.empty() || file.front() == '<') return FrameKind::NotAFile;  // "<string>", "<eval_...>"
  // An installed package's path may be absolute ("/usr/lib/python3/dist-packages/torch/...");
  // the profiler usually writes it relative to its sys.path entry ("torch/...").
  for (std::string_view marker : {"site-packages/", "dist-packages/"}) {
    const size_t at = file.rfind(marker);
    if (at != std::string_view::npos) file.remove_prefix(at + marker.size());
  }
  if (file.front() == '/') {
    // An absolute path outside the packages: the standard library when under lib/pythonX.Y/.
    const size_t lib = file.find("/lib/python3");
    if (lib != std::string_view::npos) {
      const size_t slash = file.find('/', lib + 12);
      if (slash != std::string_view::npos) file = file.substr(slash + 1);
      return in_stdlib(first_component(file)) ? FrameKind::Stdlib : FrameKind::Code;
    }
    return FrameKind::Code;
  }
  const std::string_view top = first_component(file);
  if (top == "torch") return FrameKind::Torch;
  if (in_stdlib(top)) return FrameKind::Stdlib;
  return FrameKind::Code;
}

bool is_user_code(std::string_view name) {
  if (classify_frame(name) != FrameKind::Code) return false;
  const std::string_view file = frame_file(name);
  if (file.find("site-packages/") != std::string_view::npos ||
      file.find("dist-packages/") != std::string_view::npos)
    return false;
  // A script (a file right on a sys.path entry, which the profiler trims away) or an absolute
  // path outside the packages; a package of one's own and an installed library look alike.
  return file.front() == '/' || file.find('/') == std::string_view::npos;
}

}  // namespace trace
