"""A CMake way in and `make install` (issue 12): the runtime's headers and libraries, the mcsgen
command and cmake/mcsgen.cmake installed into a temporary prefix; a C program compiled against
the installed headers and library runs; the consumer project (tests/cmake_consumer) configures,
builds and runs out of tree against the installation and against the checkout, generating at
build time and again only when the model changes. The Python package (issue 34): `import mcsgen`
from another directory, installed (it builds in the user's cache, never in the installation) and
through `make develop` (the checkout's package)."""

import json
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT

CONSUMER = ROOT / "tests" / "cmake_consumer"


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    where = tmp_path_factory.mktemp("prefix")
    proc = subprocess.run(
        ["make", "-s", "install", f"PREFIX={where}"], cwd=ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return where


def files_under(folder):
    """Every file and link under folder, with its size and modification time."""
    return {p: (p.lstat().st_size, p.lstat().st_mtime_ns) for p in folder.rglob("*")}


def python_elsewhere(tmp_path, code, **env):
    """Debian's Python running code in tmp_path with a home of its own there, nothing of the
    checkout on its path (no user site-packages unless env names a PYTHONUSERBASE) and env's
    variables; returns the JSON it prints last."""
    base = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "MCSGEN", "XDG"))}
    base.update(HOME=str(tmp_path / "home"), **env)
    if "PYTHONUSERBASE" not in env:
        base["PYTHONNOUSERSITE"] = "1"
    proc = subprocess.run(
        ["/usr/bin/python3", "-c", code], cwd=tmp_path, capture_output=True, text=True, env=base
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout.splitlines()[-1])


WHERE = """
import json, mcsgen
from mcsgen import paths
where = dict(package=mcsgen.__file__, root=str(paths.ROOT), build=str(paths.BUILD))
"""


def test_import_mcsgen_from_the_installation(prefix, tmp_path):
    """`make install PREFIX=DIR` puts the package where Debian's Python finds it for the prefix
    (DIR/lib/python3.X/dist-packages: /usr/local's is on its path; another DIR's is named by
    PYTHONPATH): from another directory it loads a shipped model, generates and builds its solver
    in the user's cache and simulates it, writing nothing into the installation."""
    version = "python%d.%d" % sys.version_info[:2]  # the tests run under /usr/bin/python3
    site = prefix / "lib" / version / "dist-packages"
    before = files_under(prefix)
    code = (
        WHERE
        + """
solver = mcsgen.load("spatial_pendulum").build()
run = solver.simulate(t_end=0.1)
where.update(ok=run.ok, rows=len(run.t), library=str(solver.library))
print(json.dumps(where))
"""
    )
    where = python_elsewhere(tmp_path, code, PYTHONPATH=str(site))
    share = prefix / "share" / "mcsgen"
    assert where["package"] == str(site / "mcsgen" / "__init__.py")
    assert where["root"] == str(share.resolve())
    cache = tmp_path / "home" / ".cache" / "mcsgen"
    assert where["build"] == str(cache)
    assert where["ok"] and where["rows"] > 10 and where["library"].startswith(str(cache))
    assert files_under(prefix) == before  # nothing written into the installation
    # $XDG_CACHE_HOME when set, $MCSGEN_BUILD_DIR above both
    code = WHERE + "print(json.dumps(where))"
    xdg = python_elsewhere(tmp_path, code, PYTHONPATH=str(site), XDG_CACHE_HOME=str(tmp_path))
    assert xdg["build"] == str(tmp_path / "mcsgen")
    chosen = python_elsewhere(
        tmp_path, code, PYTHONPATH=str(site), XDG_CACHE_HOME="/x", MCSGEN_BUILD_DIR="/y/b"
    )
    assert chosen["build"] == "/y/b"


def test_make_develop_imports_the_checkout_from_anywhere(tmp_path):
    """`make develop` writes a .pth file naming the checkout's generator/ into the user's
    site-packages: `import mcsgen` then works from any directory, building into the checkout's
    build/."""
    userbase = tmp_path / "userbase"
    proc = subprocess.run(
        ["make", "-s", "develop"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONUSERBASE=str(userbase)),
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    (pth,) = userbase.rglob("mcsgen.pth")
    assert pth.read_text().strip() == str(ROOT / "generator")
    where = python_elsewhere(
        tmp_path, WHERE + "print(json.dumps(where))", PYTHONUSERBASE=str(userbase)
    )  # nothing on PYTHONPATH: the user site-packages' .pth
    assert where["package"] == str(ROOT / "generator" / "mcsgen" / "__init__.py")
    assert where["build"] == str(ROOT / "build")


def env_outside(tmp_path):
    """The installed command's cache in tmp_path (never the checkout's build/)."""
    return dict(os.environ, MCSGEN_BUILD_DIR=str(tmp_path / "cache"))


def run_consumer(tmp_path, module, model):
    build = tmp_path / "build"
    env = env_outside(tmp_path)
    configure = [
        "cmake",
        "-S",
        str(CONSUMER),
        "-B",
        str(build),
        f"-DMCSGEN_CMAKE={module}",
        f"-DMODEL={model}",
    ]
    for cmd in (configure, ["cmake", "--build", str(build), "-j2"]):
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env)
        assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert "mcsgen: generating" in proc.stdout
    out = {}
    for exe in ("consumer_fw", "consumer_host"):
        run = subprocess.run([str(build / exe)], capture_output=True, text=True)
        assert run.returncode == 0, run.stdout + run.stderr
        status, kernels, *numbers = run.stdout.split()
        out[exe] = (status, kernels, [float(v) for v in numbers])
    return build, env, out


def check_runs(out):
    fw, host = out["consumer_fw"], out["consumer_host"]
    assert fw[:2] == ("ok", "motion") and host[:2] == ("ok", "all")
    assert fw[2][3] < 1e-6 and host[2][3] < 1e-14  # |c| in float and in double
    assert max(abs(a - b) for a, b in zip(fw[2][:3], host[2][:3])) < 1e-4


def test_the_installation_holds_headers_libraries_command_and_module(prefix):
    for path in (
        "include/mcs/mcs_sim.h",
        "lib/libmcs.a",
        "lib/libmcs_portable.a",
        "lib/libmcs_float.a",
        "lib/libmcs_float_portable.a",
        "lib/cmake/mcsgen/mcsgen.cmake",
        "bin/mcsgen",
        "share/mcsgen/templates/model.c.j2",
    ):
        assert (prefix / path).exists(), path
    assert not (prefix / "share" / "mcsgen" / "build").exists()


def test_a_program_against_the_installed_headers_and_library(prefix, tmp_path):
    env = env_outside(tmp_path)
    proc = subprocess.run(
        [str(prefix / "bin" / "mcsgen"), "generate", "--no-misra", "--out", str(tmp_path / "g"),
         str(prefix / "share" / "mcsgen" / "models" / "spatial_pendulum.yaml")],
        capture_output=True, text=True, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    gen = tmp_path / "g" / "spatial_pendulum"
    for f in ("spatial_pendulum.c", "spatial_pendulum.h"):  # the same bytes as the checkout's
        assert (gen / f).read_bytes() == (ROOT / "generated" / "spatial_pendulum" / f).read_bytes()
    exe = tmp_path / "program"
    cc = [
        "cc", "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O2",
        "-DMCS_LINALG_PORTABLE", f"-I{prefix / 'include'}", f"-I{gen}",
        str(CONSUMER / "main.c"), str(gen / "spatial_pendulum.c"),
        f"-L{prefix / 'lib'}", "-lmcs_portable", "-lm", "-o", str(exe),
    ]  # fmt: skip
    proc = subprocess.run(cc, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    run = subprocess.run([str(exe)], capture_output=True, text=True)
    assert run.returncode == 0 and run.stdout.startswith("ok all "), run.stdout


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is installed by make deps")
def test_the_cmake_consumer_against_the_installation(prefix, tmp_path):
    model = tmp_path / "spatial_pendulum.yaml"
    shutil.copy(ROOT / "models" / "spatial_pendulum.yaml", model)
    build, env, out = run_consumer(
        tmp_path, prefix / "lib" / "cmake" / "mcsgen" / "mcsgen.cmake", model
    )
    check_runs(out)
    # nothing changed: nothing generated; the model changed: generated again
    again = subprocess.run(
        ["cmake", "--build", str(build)], capture_output=True, text=True, env=env
    )
    assert again.returncode == 0 and "generating" not in again.stdout
    model.write_text(model.read_text().replace("t_end: 2.0", "t_end: 2.5"))
    again = subprocess.run(
        ["cmake", "--build", str(build)], capture_output=True, text=True, env=env
    )
    assert again.returncode == 0 and again.stdout.count("mcsgen: generating") == 2


@pytest.mark.skipif(shutil.which("cmake") is None, reason="cmake is installed by make deps")
@pytest.mark.slow  # make test-slow: make test runs howto/cmake.md, the same checkout's module
def test_the_cmake_consumer_against_the_checkout(tmp_path):
    model = tmp_path / "spatial_pendulum.yaml"
    shutil.copy(ROOT / "models" / "spatial_pendulum.yaml", model)
    _, _, out = run_consumer(tmp_path, ROOT / "cmake" / "mcsgen.cmake", model)
    check_runs(out)
