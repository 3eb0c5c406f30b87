#!/usr/bin/env python3
"""Does scripts/fetch_gpu_deps.sh carry everything this build uses that the GPU machine lacks?

The GPU machine has a C/C++ compiler with its C library, the project's Python env (torch =
LibTorch, the nvidia-* wheels), the CUDA toolkit and zlib's runtime library, and nothing
else: no network, so every other Debian package the build touches must travel in .deps.
This reads what the build itself used, so the next dependency is caught without a list to
keep up to date:
  - every header each object was compiled against (`ninja -t deps`, from the compilers' own
    dependency output: header-only libraries too);
  - every library on every link line (build.ninja's LINK_LIBRARIES; -lNAME resolved the way
    the compiler resolves it);
  - every package CMake found (CMakeCache.txt: <Pkg>_DIR, *_LIBRARY*, *_INCLUDE_DIR*);
and maps each file outside the source tree, the build tree, the Python env and the toolkit to
its Debian package (dpkg's file lists: no network), following links (a -dev package's
libfoo.so leads to its runtime package). Each package must be carried or be the machine's
own; otherwise it fails naming the file, how the build uses it and the package to add.

    tests/check_gpu_carry.py --build BUILD_DIR [--carried PKG ...]

--carried defaults to `scripts/fetch_gpu_deps.sh --list`. Exit 1 when something is not
carried, 2 on bad input."""

import argparse
import glob
import os
import re
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The GPU machine's own packages (its image has a C++ compiler, since nvcc needs one): the C
# library and the compiler's runtime and headers. zlib1g is the runtime library alone
# (libz.so.1: every Python links it); zlib's headers (zlib1g-dev) are not there.
MACHINE_OWN = re.compile(
    r"^(libc6|libc6-dev|libc-dev-bin|linux-libc-dev|libcrypt1|libcrypt-dev|libgcc-s1"
    r"|libgcc-\d+-dev|libstdc\+\+6|libstdc\+\+-\d+-dev|(gcc|g\+\+|cpp)-\d+|libgomp1|libatomic1"
    r"|libquadmath0|libitm1|libasan\d+|liblsan0|libtsan\d+|libubsan1|libhwasan0|libcc1-0"
    r"|zlib1g)(:amd64)?$"
)
CACHE_KEY = re.compile(
    r"^(?!CMAKE_)(\w+?)(_DIR|_LIBRARY|_LIBRARY_RELEASE|_LIBRARY_DEBUG|_LIBRARIES|_INCLUDE_DIR"
    r"|_INCLUDE_DIRS)(-ADVANCED)?:(PATH|FILEPATH)=(.*)$"
)


class Fail(Exception):
    pass


def read_cache(build):
    path = os.path.join(build, "CMakeCache.txt")
    try:
        text = open(path).read()
    except OSError as e:
        raise Fail(f"{path}: cannot read ({e.strerror}): expected a configured build folder")
    cache = {}
    for line in text.splitlines():
        m = re.match(r"^([\w.-]+):(\w+)=(.*)$", line)
        if m:
            cache[m.group(1)] = (m.group(2), m.group(3))
    return cache


def cache_paths(cache):
    """(path, how) for every package dir, library and include dir CMake found."""
    out = []
    for key, (typ, value) in cache.items():
        m = CACHE_KEY.match(f"{key}:{typ}={value}")
        if not m:
            continue
        for v in value.split(";"):
            if not v.startswith("/") or not os.path.exists(v):
                continue
            if os.path.isdir(v):
                # A folder belongs to every package with a file in it (/usr/include): a package's
                # config folder is judged by its config files; include folders by the headers
                # the compiler read (header_paths).
                out += [
                    (f, f"CMakeCache {key}") for f in glob.glob(os.path.join(v, "*[Cc]onfig.cmake"))
                ]
            else:
                out.append((v, f"CMakeCache {key}"))
    return out


def compiler_lib(compiler, name):
    """Where the compiler finds -lNAME (shared first, as the linker does), or None."""
    for f in (f"lib{name}.so", f"lib{name}.a"):
        try:
            p = subprocess.run(
                [compiler, f"-print-file-name={f}"], capture_output=True, text=True
            ).stdout.strip()
        except OSError:
            return None
        if os.path.isabs(p) and os.path.exists(p):
            return p
    return None


def link_paths(build, compiler):
    path = os.path.join(build, "build.ninja")
    try:
        text = open(path).read()
    except OSError as e:
        raise Fail(
            f"{path}: cannot read ({e.strerror}): expected a build folder made by CMake's Ninja generator"
        )
    out = []
    for m in re.finditer(r"^\s*LINK_LIBRARIES = (.*)$", text, re.M):
        for tok in m.group(1).split():
            tok = tok.strip('"')
            if tok.startswith("-Wl,"):
                tok = tok[4:]
            if tok.startswith("-l") and len(tok) > 2:
                p = compiler_lib(compiler, tok[2:])
                if p:
                    out.append((p, f"link flag {tok}"))
            elif tok.startswith("/") and os.path.exists(tok):
                out.append((tok, "link line"))
    return out


def header_paths(build, ninja):
    proc = subprocess.run([ninja, "-C", build, "-t", "deps"], capture_output=True, text=True)
    if proc.returncode != 0:
        raise Fail(f"{ninja} -C {build} -t deps failed: {proc.stderr.strip()}")
    seen = {}
    target = ""
    for line in proc.stdout.splitlines():
        if not line.startswith(" ") and ": #deps" in line:
            target = line.split(":")[0]
            continue
        f = line.strip()
        if not f:
            continue
        p = os.path.normpath(os.path.join(build, f))
        seen.setdefault(p, f"header of {target}")
    return list(seen.items())


def dpkg_owners():
    """file path -> package, from dpkg's own lists (no network, no dpkg -S per file)."""
    owners = {}
    for lst in glob.glob("/var/lib/dpkg/info/*.list"):
        pkg = os.path.basename(lst)[: -len(".list")]
        with open(lst, errors="replace") as f:
            for line in f:
                owners.setdefault(line.rstrip("\n"), pkg)
    if not owners:
        raise Fail(
            "no dpkg file lists in /var/lib/dpkg/info: this check needs a Debian-family machine"
        )
    return owners


def owner_of(path, owners):
    # Debian 12 is merged-/usr: a file may be listed under /lib or /usr/lib.
    for p in (path, os.path.realpath(path)):
        for q in (p, p[4:] if p.startswith("/usr/") else "/usr" + p):
            if q in owners:
                return owners[q]
    return None


def under(path, roots):
    return any(path == r or path.startswith(r + "/") for r in roots)


# Prefixes that hold a whole system, not one environment: Debian's own python3 has sys.prefix
# /usr, and taking that as "the Python env" would excuse every Debian package in /usr (the
# fresh-machine check at 0f22521 failed so: a root with Debian's python3 counted no package).
SYSTEM_PREFIXES = ("/", "/usr", "/usr/local")


def python_roots(cache):
    """The Python env's own folders: its site-packages (torch = LibTorch, the nvidia-* wheels),
    its headers and its standard library, and the env's prefix when it is one environment."""
    exe = cache.get("Python3_EXECUTABLE", ("", ""))[1]
    if not exe:
        return []
    code = (
        "import sys, sysconfig; p = sysconfig.get_paths(); print(sys.prefix); "
        "[print(p[k]) for k in ('purelib', 'platlib', 'include', 'platinclude', 'stdlib', 'platstdlib')]"
    )
    proc = subprocess.run([exe, "-c", code], capture_output=True, text=True)
    roots = [r for r in proc.stdout.splitlines() if r.startswith("/")]
    roots += [os.path.realpath(r) for r in roots]
    return sorted({os.path.normpath(r) for r in roots} - set(SYSTEM_PREFIXES))


def cuda_roots(cache):
    roots = []
    for key in ("CUDAToolkit_BIN_DIR", "CMAKE_CUDA_COMPILER"):
        v = cache.get(key, ("", ""))[1]
        if v:
            d = v if key.endswith("_DIR") else os.path.dirname(v)
            for r in (d, os.path.realpath(d)):
                roots.append(os.path.dirname(r))
    return [r for r in roots if r not in ("/", "/usr")]


def check(build, carried):
    build = os.path.abspath(build)
    cache = read_cache(build)
    ninja = cache.get("CMAKE_MAKE_PROGRAM", ("", "ninja"))[1]
    compiler = cache.get("CMAKE_CXX_COMPILER", ("", "c++"))[1]
    source = cache.get("CMAKE_HOME_DIRECTORY", ("", REPO))[1]
    own_roots = [source, build, os.path.realpath(source), os.path.realpath(build)]
    machine_roots = python_roots(cache) + cuda_roots(cache)
    used = cache_paths(cache) + link_paths(build, compiler) + header_paths(build, ninja)
    owners = dpkg_owners()
    carried_set = set(carried)
    missing, from_nowhere, counts = {}, {}, {}
    for path, how in used:
        if under(path, own_roots) or under(path, machine_roots):
            continue  # most headers (LibTorch's): no need to resolve links
        for p in {path, os.path.realpath(path)}:  # a link and what it points to (-dev -> runtime)
            if under(p, own_roots) or under(p, machine_roots):
                continue
            pkg = owner_of(p, owners)
            if pkg is None:
                from_nowhere.setdefault(p, how)
                continue
            name = pkg.split(":")[0]
            counts[name] = counts.get(name, 0) + 1
            if name not in carried_set and not MACHINE_OWN.match(name):
                missing.setdefault(name, (p, how))
    print(
        f"check_gpu_carry: {len(used)} files the build used; Debian packages outside the Python env and the "
        f"CUDA toolkit: " + ", ".join(f"{k} ({v})" for k, v in sorted(counts.items()))
    )
    print(f"check_gpu_carry: carried by scripts/fetch_gpu_deps.sh: {' '.join(carried)}")
    unused = sorted(carried_set - set(counts))
    if unused:  # not an error: a runtime package is used only through its -dev link, say
        print(f"check_gpu_carry: carried but not seen in this build: {' '.join(unused)}")
    problems = [
        f"{p} ({how}) is from Debian package {pkg}, which the GPU machine does not have and "
        f"scripts/fetch_gpu_deps.sh does not carry: add {pkg} to PKGS there"
        for pkg, (p, how) in sorted(missing.items())
    ]
    problems += [
        f"{p} ({how}) is from no Debian package, nor the Python env or the CUDA toolkit: the GPU machine "
        f"will not have it (carry it, or build without it)"
        for p, how in sorted(from_nowhere.items())
    ]
    return problems


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", required=True, help="a CMake build folder (Ninja), after the build")
    ap.add_argument(
        "--carried", nargs="*", help="packages carried (default: scripts/fetch_gpu_deps.sh --list)"
    )
    args = ap.parse_args(argv)
    try:
        carried = args.carried
        if carried is None:
            script = os.path.join(REPO, "scripts", "fetch_gpu_deps.sh")
            proc = subprocess.run([script, "--list"], capture_output=True, text=True)
            if proc.returncode != 0 or not proc.stdout.split():
                raise Fail(
                    f"{script} --list failed (exit {proc.returncode}): {proc.stderr.strip()}"
                )
            carried = proc.stdout.split()
        problems = check(args.build, carried)
    except Fail as e:
        print(f"check_gpu_carry: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(f"check_gpu_carry: NOT CARRIED: {p}", file=sys.stderr)
    if problems:
        return 1
    print("check_gpu_carry: every package this build uses is carried or the GPU machine's own")
    return 0


if __name__ == "__main__":
    sys.exit(main())
