"""tests/check_gpu_carry.py on this build: everything it uses that the GPU machine lacks is carried
by scripts/fetch_gpu_deps.sh, and the check fails when a package it needs is dropped from that list
or a new library appears on a link line. No network; seconds.

ctest sets BUILD_DIR (the configured and built folder); by hand: BUILD_DIR=build pytest tests/test_check_gpu_carry.py"""

import os
import shutil
import subprocess
import sys

import check_gpu_carry as carry  # beside this file: pytest puts the test's folder on sys.path
import pytest

BUILD = os.environ.get("BUILD_DIR", os.path.join(os.path.dirname(__file__), "..", "build"))
SCRIPT = os.path.join(os.path.dirname(__file__), "check_gpu_carry.py")


def carried():
    out = subprocess.run(
        [os.path.join(carry.REPO, "scripts", "fetch_gpu_deps.sh"), "--list"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out, "fetch_gpu_deps.sh --list printed nothing"
    return out


def test_this_build_uses_only_carried_packages_or_the_machines_own(capsys):
    assert carry.check(BUILD, carried()) == []
    assert "Debian packages outside the Python env" in capsys.readouterr().out


def test_dropping_a_used_package_from_the_list_fails_naming_it(capsys):
    packages = carried()
    carry.check(BUILD, packages)
    used = capsys.readouterr().out.split("CUDA toolkit: ")[1].splitlines()[0]
    dropped = [p for p in packages if f"{p} (" in used]
    assert dropped, f"none of the carried packages {packages} is used by this build: {used}"
    for p in dropped:
        problems = carry.check(BUILD, [q for q in packages if q != p])
        assert any(f"Debian package {p}," in x and f"add {p} to PKGS" in x for x in problems), (
            p,
            problems,
        )


def fake_build(tmp_path, link):
    """A build folder whose only link line names LINK: what a new find_package + link adds."""
    (tmp_path / "CMakeCache.txt").write_text(
        f"CMAKE_MAKE_PROGRAM:FILEPATH={shutil.which('ninja') or 'ninja'}\nCMAKE_CXX_COMPILER:FILEPATH=c++\n"
        f"CMAKE_HOME_DIRECTORY:INTERNAL={carry.REPO}\n"
    )
    (tmp_path / "build.ninja").write_text(
        f"rule link\n  command = true\nbuild out: link\n  LINK_LIBRARIES = {link}\n"
    )
    return str(tmp_path)


def test_a_new_library_on_a_link_line_is_caught(tmp_path):
    # libsqlite3.so.0 is on every machine with a system python3 (here, not on the GPU machine's list).
    lib = next(
        (
            p
            for p in (
                "/usr/lib/x86_64-linux-gnu/libsqlite3.so.0",
                "/lib/x86_64-linux-gnu/libsqlite3.so.0",
            )
            if os.path.exists(p)
        ),
        None,
    )
    if lib is None:
        pytest.skip("no libsqlite3.so.0 on this machine to stand for a new dependency")
    proc = subprocess.run(
        [
            sys.executable,
            SCRIPT,
            "--build",
            fake_build(tmp_path, lib),
            "--carried",
            "libbenchmark-dev",
        ],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "libsqlite3-0" in proc.stderr and "add libsqlite3-0 to PKGS" in proc.stderr


def test_the_machines_own_libraries_pass(tmp_path):
    build = fake_build(tmp_path, "-lpthread -lm")
    assert carry.check(build, ["libbenchmark-dev"]) == []


def test_a_folder_that_is_not_a_build_is_a_clear_error(tmp_path):
    proc = subprocess.run(
        [sys.executable, SCRIPT, "--build", str(tmp_path)], capture_output=True, text=True
    )
    assert proc.returncode == 2 and "CMakeCache.txt: cannot read" in proc.stderr


def test_a_system_python_does_not_excuse_the_whole_of_usr(tmp_path):
    # Debian's python3 has sys.prefix /usr: the env's folders are its site-packages, headers and
    # standard library, not every Debian package under /usr (the fresh-machine check's failure).
    python = "/usr/bin/python3"
    lib = "/usr/lib/x86_64-linux-gnu/libsqlite3.so.0"
    if not (os.path.exists(python) and os.path.exists(lib)):
        pytest.skip("no Debian python3 and libsqlite3.so.0 on this machine")
    build = fake_build(tmp_path, lib)
    with open(os.path.join(build, "CMakeCache.txt"), "a") as f:
        f.write(f"Python3_EXECUTABLE:FILEPATH={python}\n")
    roots = carry.python_roots(carry.read_cache(build))
    assert roots and not set(roots) & {"/", "/usr", "/usr/local"}, roots
    problems = carry.check(build, ["libbenchmark-dev"])
    assert any("add libsqlite3-0 to PKGS" in p for p in problems), problems
