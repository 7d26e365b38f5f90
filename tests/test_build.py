"""One compile line: build.program_command is used by simulate, the benchmarks and the tests; the
Makefile and the firmware script, which cannot import Python before the set-up has run, spell the
same flags and take the runtime sources by pattern. These tests keep them in agreement."""
import re
import subprocess

import pytest

from mcsgen import build
from mcsgen.paths import ROOT, runtime_c_files


def make_variable(name):
    text = (ROOT / "Makefile").read_text()
    return re.search(rf"^{name} := (.*)$", text, re.M).group(1).split()


def test_makefile_flags_are_the_builders():
    assert make_variable("CFLAGS_STRICT") == build.WARNINGS
    assert make_variable("LIBS") == build.LIBS


def test_firmware_script_uses_the_same_warnings_and_every_runtime_source():
    script = (ROOT / "scripts" / "firmware").read_text()
    assert " ".join(build.WARNINGS) in script
    # every layer's files but LAPACK's
    assert "find \"$root/runtime/src\" -name '*.c'" in script and "mcs_linalg_lapack" in script


def test_program_command_takes_every_runtime_source(tmp_path):
    """The runtime comes as one object per source of the backend (compiled once with the
    program's flags: runtime_objects), the model and the driver as sources."""
    for backend, other in (
        ("lapack", "mcs_linalg_portable.c"),
        ("portable", "mcs_linalg_lapack.c"),
    ):
        cmd = build.program_command("spatial_pendulum", [], tmp_path / "x", backend)
        objects = {a.rsplit("/", 1)[-1] for a in cmd if a.endswith(".o")}
        assert objects == {p.with_suffix(".o").name for p in runtime_c_files()} - {
            other.replace(".c", ".o")
        }
        assert all(f in cmd for f in build.CFLAGS)


def test_the_runtime_objects_carry_the_programs_flags_and_are_reused(tmp_path):
    """A flag that changes the runtime's code (-O0, a sanitizer, MCS_REAL_FLOAT) gives it objects
    of its own; the program's own flags (-shared, the linker's, MCS_APP_*) do not, and a second
    program with the same flags links the same objects, compiled once."""
    plain = build.runtime_objects("portable")
    assert build.runtime_objects("portable") == plain
    assert build.runtime_objects("portable", ["-shared", "-Wl,-Bsymbolic", "-DMCS_APP_X"]) == plain
    mtimes = [p.stat().st_mtime_ns for p in plain]
    build.program_command("spatial_pendulum", [], tmp_path / "x", "portable")
    assert [p.stat().st_mtime_ns for p in plain] == mtimes
    float_objects = build.runtime_objects("portable", ["-DMCS_REAL_FLOAT"])
    assert float_objects[0].parent.parent != plain[0].parent.parent


def test_the_shared_app_files_read_nothing_of_the_model(tmp_path):
    """The simulator's files that every model's program links as shared objects (app_objects)
    compile to the same object with the compile line of a program of either model (its header
    included, its MCS_APP_* macros defined): nothing in them reads the model. A file that did
    (MCS_APP_NX in mcs_simulate_args.c, tried) gives another object here."""
    shared = build.app_objects(build.simulator_sources(), "portable", ["-fPIC"])
    assert sorted(p.name for p in shared) == sorted(
        n.replace(".c", ".o") for n in build.SHARED_APP_SOURCES
    )
    for name in ("slider_crank", "delta_robot"):  # the latter with inputs and outputs
        cmd = build.program_command(name, build.simulator_sources(), tmp_path / "x", "portable",
                                    ["-fPIC", "-shared", "-DMCS_APP_LIBRARY"])  # fmt: skip
        assert not any(a.endswith(build.SHARED_APP_SOURCES) for a in cmd)  # linked as objects
        flags = [a for a in cmd[1 : cmd.index("-o")] if not a.endswith((".c", ".o"))]
        flags = [f for f in flags if f != "-shared"]
        for obj in shared:
            src = build.RUNTIME / "app" / obj.with_suffix(".c").name
            mine = tmp_path / f"{name}_{obj.name}"
            proc = subprocess.run([build.compiler(), *flags, "-c", str(src), "-o", str(mine)],
                                  capture_output=True, text=True)  # fmt: skip
            assert proc.returncode == 0, proc.stderr
            assert mine.read_bytes() == obj.read_bytes(), (name, src.name)


def test_the_simulator_pins_openblas_to_one_thread(tmp_path, monkeypatch):
    """Issue 13: an unpinned OpenBLAS made a P1 step 5.6x slower. The Makefile and the launcher
    set OPENBLAS_NUM_THREADS=1, but a simulator run directly, with the environment asking for
    more, must still use one thread (app_pin_blas_threads); the portable build has no BLAS."""
    import json
    import os
    import subprocess

    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS",)}
    env["OPENBLAS_NUM_THREADS"] = "2"
    for backend, threads in (("lapack", 1), ("portable", 0)):
        monkeypatch.setenv("MCS_LINALG", backend)
        exe = build.build_simulator("spatial_pendulum")
        out = subprocess.run(
            [str(exe), "--t-end", "0.01", "--out", str(tmp_path / f"{backend}.csv")],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
        assert json.loads(out.stdout)["blas_threads"] == threads, backend


def run_without(main, model, part):
    """Compile main.c with the generated `model` and the portable runtime built with part = 0
    (an mcs_config.h MCS_WITH_*), run it, and return its output's words."""
    import subprocess

    exe = main.with_suffix("")
    gdir = build.GENERATED / model
    sources = [main, gdir / f"{model}.c"] + build.runtime_sources("portable")
    subprocess.run(
        [build.compiler(), *build.CFLAGS, "-DMCS_LINALG_PORTABLE", f"-D{part}=0"]
        + [f"-I{build.RUNTIME / 'include'}", f"-I{build.RUNTIME / 'src'}", f"-I{gdir}"]
        + ["-include", f"{model}.h", *map(str, sources), "-o", str(exe), "-lm"],
        check=True,
    )
    return subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()


def test_a_runtime_without_dop853_refuses_it(tmp_path):
    """mcs_config.h's MCS_WITH_DOP853 = 0 (the firmware build when its settings use RK4 or
    DOPRI5) leaves DOP853 out: init with it is MCS_ERR_UNSUPPORTED, so is a step after the options
    were switched to it, and DOPRI5 still runs."""
    main = tmp_path / "main.c"
    main.write_text(
        """
#include <stdio.h>
#include "mcs/mcs_sim.h"
static mcs_real work[MCS_SIM_WORK_SIZE(SPATIAL_PENDULUM_NX, SPATIAL_PENDULUM_NC)];
static int iwork[MCS_SIM_IWORK_SIZE(SPATIAL_PENDULUM_NX, SPATIAL_PENDULUM_NC)];
int main(void)
{
    mcs_sim sim;
    mcs_options opt;
    const mcs_model *md = &spatial_pendulum_model;
    int init853, step5, step853;
    mcs_options_default(&opt, md);
    opt.method = MCS_METHOD_DOP853;
    init853 = mcs_sim_init(&sim, md, md->default_params, &opt, work, sizeof work / sizeof *work,
                           iwork, sizeof iwork / sizeof *iwork);
    opt.method = MCS_METHOD_DOPRI5;
    if (mcs_sim_init(&sim, md, md->default_params, &opt, work, sizeof work / sizeof *work, iwork,
                     sizeof iwork / sizeof *iwork) != MCS_OK || mcs_sim_start(&sim, 0, NULL))
        return 2;
    step5 = mcs_sim_step(&sim, 1.0);
    sim.opt.method = MCS_METHOD_DOP853;
    step853 = mcs_sim_step(&sim, 1.0);
    printf("%d %d %d\\n", init853 == MCS_ERR_UNSUPPORTED, step5 == MCS_OK,
           step853 == MCS_ERR_UNSUPPORTED);
    return 0;
}
"""
    )
    out = run_without(main, "spatial_pendulum", "MCS_WITH_DOP853")
    assert out == ["1", "1", "1"], out


@pytest.mark.slow  # make test-slow: the same refusal path as DOP853's, which make test runs
def test_a_runtime_without_the_banded_simulator_refuses_it(tmp_path):
    """MCS_WITH_BANDED = 0 (every firmware build) leaves the banded simulator out: its memory and
    mcs_sim_assign are MCS_ERR_UNSUPPORTED, and the default simulator still runs in the same
    build."""
    main = tmp_path / "main.c"
    main.write_text(
        """
#include <stdio.h>
#include "mcs/mcs_sim.h"
#include "mcs/mcs_sim_memory.h"
static mcs_real block[SLIDER_CRANK_SIM_MEMORY(0, MCS_MEM_BANDED)];
static mcs_real work[MCS_SIM_WORK_SIZE(SLIDER_CRANK_NX, SLIDER_CRANK_NC)];
static int iwork[MCS_SIM_IWORK_SIZE(SLIDER_CRANK_NX, SLIDER_CRANK_NC)];
int main(void)
{
    mcs_sim sim;
    mcs_options opt;
    const mcs_model *md = &slider_crank_model;
    int assigned, ran;
    mcs_options_default(&opt, md);
    opt.method = MCS_METHOD_RK4;
    opt.dense_output = 0;
    opt.sing_tol = 0.0;
    opt.variant = MCS_VARIANT_BANDED;
    assigned = mcs_sim_assign(&sim, md, md->default_params, &opt, block, sizeof block);
    opt.variant = MCS_VARIANT_DENSE;
    ran = mcs_sim_init(&sim, md, md->default_params, &opt, work, sizeof work / sizeof *work,
                       iwork, sizeof iwork / sizeof *iwork) == MCS_OK
          && mcs_sim_start(&sim, 0, NULL) == MCS_OK && mcs_sim_advance(&sim, 0.1) == MCS_OK;
    printf("%d %d\\n", assigned == MCS_ERR_UNSUPPORTED, ran);
    return 0;
}
"""
    )
    out = run_without(main, "slider_crank", "MCS_WITH_BANDED")
    assert out == ["1", "1"], out


def test_a_models_linalg_backend_follows_its_size(monkeypatch):
    """Issue 13: the portable backend below build.PORTABLE_BELOW coordinates (the measured
    crossover), LAPACK from there on and for statics/modes; MCS_LINALG overrides; a bad value is
    an error."""
    from mcsgen.errors import BuildError

    monkeypatch.delenv("MCS_LINALG", raising=False)
    assert build.PORTABLE_BELOW == 28
    assert build.linalg_backend(27) == "portable" and build.linalg_backend(28) == "lapack"
    assert build.linalg_backend() == "lapack"
    assert build.model_nx("spatial_pendulum") == 3
    assert build.model_linalg_backend("spatial_pendulum") == "portable"  # n = 3
    assert build.model_linalg_backend("slider_crank") == "portable"  # n = 21
    assert build.model_linalg_backend("puma560_estop") == "lapack"  # n = 42
    monkeypatch.setenv("MCS_LINALG", "auto")
    assert build.model_linalg_backend("spatial_pendulum") == "portable"
    for forced in ("lapack", "portable"):
        monkeypatch.setenv("MCS_LINALG", forced)
        assert build.model_linalg_backend("spatial_pendulum") == forced
        assert build.model_linalg_backend("puma560_estop") == forced
    monkeypatch.setenv("MCS_LINALG", "blas")
    with pytest.raises(BuildError, match="MCS_LINALG must be"):
        build.model_linalg_backend("spatial_pendulum")
