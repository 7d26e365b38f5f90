"""mcsgen.emit / generate: deterministic C, identical to the committed generated/, compiled C equal
to SymPy's own evaluation, and the finite-difference self-check of every model."""
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from conftest import over_models
from mcsgen.compiled import CompiledModel
from mcsgen.selfcheck import check_model
from mcsgen.derive import derive
from mcsgen.generate import generate, is_up_to_date
from mcsgen.model import load_model

ROOT = Path(__file__).resolve().parents[3]
MODEL_FILES = sorted((ROOT / "models").glob("*.yaml"))
IDS = [p.stem for p in MODEL_FILES]
# The PUMA 560 (n = 42) takes 33 s to generate and 48 s to evaluate in SymPy, which the suite's
# minutes cannot spare twice: `make test` compares its generation with the committed bytes in
# `check-generated` (before pytest), its audit compares its kernels with SymPy's evaluation
# (test_audit.py) and test_joint_locks.py with finite differences. Every other model runs here
# (the representative ones in `make test`, all in `make test-slow`: conftest.over_models).
LIGHT_FILES = [p for p in MODEL_FILES if p.stem != "puma560_estop"]


@pytest.mark.parametrize("path", over_models(LIGHT_FILES))
def test_generation_is_deterministic_and_committed(path, tmp_path):
    """A fresh generation in this process equals the committed bytes, which another process
    (and machine) wrote: that is determinism across runs (test_same_bytes_whatever_the_process
    adds perturbed floating point and hash seeds)."""
    a = tmp_path / "a"
    generate(path, out_root=a, force=True)
    for name in (f"{path.stem}.h", f"{path.stem}.c"):
        first = (a / path.stem / name).read_bytes()
        assert (
            first == (ROOT / "generated" / path.stem / name).read_bytes()
        ), f"generated/{path.stem}/{name} is stale: run `make generate`"
        assert not re.search(rb"\d{4}-\d{2}-\d{2}|\d{2}:\d{2}:\d{2}", first[:600])  # no date


def test_regeneration_is_skipped_unless_something_changed(tmp_path):
    src = (ROOT / "models" / "planar_pendulum.yaml").read_text()
    path = tmp_path / "planar_pendulum.yaml"
    path.write_text(src)
    _, out, written = generate(path, out_root=tmp_path / "gen")
    assert written
    _, _, written = generate(path, out_root=tmp_path / "gen")
    assert not written
    path.write_text(src.replace("value: 1.0, unit: m,", "value: 2.0, unit: m,"))
    model, _, written = generate(path, out_root=tmp_path / "gen")
    assert written and is_up_to_date(model, out)


GENERATED = sorted(p.name for p in (ROOT / "generated").iterdir() if p.is_dir())


@pytest.mark.parametrize("name", GENERATED)
def test_generated_c_compiles_in_double_and_float(name, tmp_path):
    """Every shipped model's generated file builds, warning-free, for double and for float
    (MCS_REAL_FLOAT); the linear-algebra backends differ only in the runtime (make test-c
    builds it with both, and the simulator tests run both)."""
    for flags in ([], ["-DMCS_REAL_FLOAT"]):
        proc = subprocess.run(
            [
                "cc",
                "-std=c99",
                "-pedantic",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-Wdouble-promotion" if flags else "-Wall",
                *flags,
                f"-I{ROOT / 'runtime/include'}",
                "-fsyntax-only",
                str(ROOT / "generated" / name / f"{name}.c"),
            ],
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("path", over_models(LIGHT_FILES))
def test_compiled_kernels_equal_sympy_evaluation(path):
    model = load_model(path)
    d = derive(model)
    cm = CompiledModel(model)
    values = [p.value for p in model.parameters]
    args = model.x + model.v + d.lam + [model.time] + model.p
    rng = np.random.default_rng(3)
    n, m = model.n, model.m
    geometry = dict(model.geometry)  # geometric quantities as expressions of the parameters
    funcs = {
        name: sp.lambdify(args, getattr(d, name).xreplace(geometry), modules="numpy")
        for name in ("c", "A", "c_t", "gamma", "A_dot", "M", "f", "K_c", "K_f", "D")
    }
    kinetic = sp.lambdify(args, d.kinetic.xreplace(geometry), modules="numpy")
    for _ in range(4):
        x = np.array(model.x0) + 0.3 * rng.standard_normal(n)
        v = rng.standard_normal(n)
        lam = rng.standard_normal(m)
        t = rng.uniform(0, 2)
        ref = {
            k: np.array(f(*x, *v, *lam, t, *values), dtype=float).reshape(getattr(d, k).shape)
            for k, f in funcs.items()
        }
        got = {
            "c": cm.c(x, t).reshape(m, 1),
            "A": cm.A(x, t),
            "c_t": cm.c_t(x, t).reshape(m, 1),
            "gamma": cm.gamma(x, v, t).reshape(m, 1),
            "A_dot": cm.A_dot(x, v, t),
            "M": cm.M(x, t),
            "f": cm.f(x, v, t).reshape(n, 1),
            "K_c": cm.K_c(x, lam, t),
            "K_f": cm.K_f(x, v, t),
            "D": cm.D(x, v, t),
        }
        for key in ref:
            np.testing.assert_allclose(got[key], ref[key], rtol=1e-13, atol=1e-12, err_msg=key)
        assert cm.kinetic(x, v, t) == pytest.approx(
            float(kinetic(*x, *v, *lam, t, *values)), rel=1e-13, abs=1e-12
        )


@pytest.mark.parametrize("path", MODEL_FILES, ids=IDS)
def test_finite_difference_self_check_passes(path):
    report = check_model(load_model(path), samples=3, seed=7)
    assert report.ok, report.table()
    names = {row[0] for row in report.rows}
    assert {"K_f", "D", "M"} <= names
    model = load_model(path)
    if model.m:
        assert {"A", "c_t", "gamma", "A_dot", "K_c"} <= names
    for group in model.row_groups:  # the PUMA 560's joint locks among them
        if group.held_coordinates(model.x) is not None:  # no kernels: the runtime forms the
            assert not any(r.startswith(f"group {group.name}:") for r in names)  # unit rows
            continue  # (tests/runtime/test_locks.c)
        assert {f"group {group.name}: {k}" for k in ("G", "G_dot", "gamma")} <= names, group.name


def test_self_check_catches_a_wrong_kernel(tmp_path, monkeypatch):
    """Corrupt gamma in a copy of a generated model: check must fail on that row only."""
    import mcsgen.build as build

    src = ROOT / "generated" / "spatial_pendulum"
    dst = tmp_path / "generated" / "spatial_pendulum"
    dst.mkdir(parents=True)
    (dst / "spatial_pendulum.h").write_bytes((src / "spatial_pendulum.h").read_bytes())
    text = (src / "spatial_pendulum.c").read_text()
    start = text.index("void spatial_pendulum_gamma")
    stmt = text.index("out[0] = ", start)
    text = text[:stmt] + "out[0] = MCS_R(1.001)*" + text[stmt + len("out[0] = ") :]
    (dst / "spatial_pendulum.c").write_text(text)
    monkeypatch.setattr(build, "GENERATED", tmp_path / "generated")
    monkeypatch.setattr(build, "USER_GENERATED", tmp_path / "generated")
    monkeypatch.setattr(build, "BUILD", tmp_path / "build")
    report = check_model(load_model(ROOT / "models" / "spatial_pendulum.yaml"), samples=2)
    failed = [row[0] for row in report.rows if row[2] > report.tol]
    assert failed == ["gamma"], report.table()


def test_same_bytes_whatever_the_process(tmp_path):
    """Regression: the numerically solved initial velocities once depended on BLAS threading and
    on what the process had generated before. Generate after another model, with a random hash
    seed, threaded BLAS and numpy imported first: the bytes must equal the committed ones."""
    import os

    env = {
        k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")
    }
    env.update(PYTHONHASHSEED="7", PYTHONPATH=str(ROOT / "generator"))
    script = (
        "import numpy\n"
        "from mcsgen.generate import generate\n"
        f"generate({str(ROOT / 'models/pendulum_kc.yaml')!r}, out_root={str(tmp_path)!r}, "
        "force=True)\n"
        f"generate({str(ROOT / 'models/slider_crank.yaml')!r}, out_root={str(tmp_path)!r}, "
        "force=True)\n"
    )
    subprocess.run(["/usr/bin/python3", "-c", script], check=True, env=env, cwd=ROOT)
    for name in ("slider_crank.c", "slider_crank.h"):
        assert (tmp_path / "slider_crank" / name).read_bytes() == (
            ROOT / "generated" / "slider_crank" / name
        ).read_bytes()


def test_render_takes_a_solved_initial_state_and_generate_solves_it(tmp_path):
    """Loading only loads, and rendering only renders: the pipeline (generate.py) solves the
    initial velocities; render refuses a just-loaded mechanism whose velocities are not solved
    (regression: v0 was None), and renders it once they are."""
    from mcsgen.emit.render import render
    from mcsgen.model import complete_initial_state

    model = load_model(ROOT / "models" / "pendulum_kc.yaml")
    assert model.v0 is None
    with pytest.raises(ValueError, match="complete_initial_state"):
        render(model, derive(model))
    files = render(complete_initial_state(model), derive(model))
    zeros = "{ MCS_R(0.0), MCS_R(0.0), MCS_R(0.0) }"
    assert f"static const mcs_real mcs_gen_v0[3] = {zeros};" in files["pendulum_kc.c"]
    _, gdir, _ = generate(ROOT / "models" / "pendulum_kc.yaml", out_root=tmp_path, force=True)
    assert (gdir / "pendulum_kc.c").read_text() == files["pendulum_kc.c"]


def test_kernels_split_into_parts_compute_the_same(tmp_path, monkeypatch):
    """A heavy kernel is emitted as static parts (emit.kernels.KERNEL_PART_WEIGHT): with the limit
    lowered so that every slider-crank kernel splits, the parts compile strictly and give the
    committed single-function kernels' values at random states."""
    import mcsgen.build as build
    from mcsgen.emit import kernels

    monkeypatch.setattr(kernels, "KERNEL_PART_WEIGHT", 600)
    path = tmp_path / "slider_crank.yaml"
    path.write_text((ROOT / "models" / "slider_crank.yaml").read_text())
    model, gdir, _ = generate(path, out_root=tmp_path / "gen", force=True)
    text = (gdir / "slider_crank.c").read_text()
    for kernel in ("A_nz", "gamma", "A_dot_nz", "K_c"):
        assert f"static void slider_crank_{kernel}_part1(" in text
    monkeypatch.setattr(build, "BUILD", tmp_path / "build")
    split = CompiledModel(model, gdir)
    whole = CompiledModel(load_model(ROOT / "models" / "slider_crank.yaml"))
    rng = np.random.default_rng(3)
    for _ in range(3):
        x, v = rng.normal(size=model.n), rng.normal(size=model.n)
        lam, t = rng.normal(size=model.m), rng.uniform()
        pairs = [
            (split.A(x, t), whole.A(x, t)),
            (split.gamma(x, v, t), whole.gamma(x, v, t)),
            (split.A_dot(x, v, t), whole.A_dot(x, v, t)),
            (split.K_c(x, lam, t), whole.K_c(x, lam, t)),
            (split.f(x, v, t), whole.f(x, v, t)),
            (split.M(x, t), whole.M(x, t)),
        ]
        for a, b in pairs:
            assert np.abs(a - b).max() <= 1e-13 * max(1.0, np.abs(b).max())


@pytest.mark.parametrize("name", ["slider_crank", "double_four_bar", "pendulum_3r", "spin_top"])
def test_sparse_kernels_are_the_dense_ones_nonzeros(name):
    """A_nz, A_dot_nz (in A's pattern) and M_nz write the nonzeros of A, A_dot and M column by
    column, in the order of the descriptor's a_rows/a_cols and m_rows/m_cols; the dense kernels
    are exactly those values spread, zero elsewhere (so the SymPy comparison above covers both)."""
    from mcsgen.emit.tables import a_pattern, m_pattern

    model = load_model(ROOT / "models" / f"{name}.yaml")
    d = derive(model)
    cm = CompiledModel(model)
    a_pat, m_pat = a_pattern(d), m_pattern(d)
    assert a_pat == sorted(a_pat, key=lambda ij: (ij[1], ij[0]))  # column by column
    text = (ROOT / "generated" / name / f"{name}.c").read_text()
    if a_pat:
        rows = ", ".join(str(i) for i, _ in a_pat)
        assert f"static const int mcs_gen_a_rows[{len(a_pat)}] = {{ {rows} }};" in text
    rng = np.random.default_rng(5)
    for _ in range(3):
        x = np.array(model.x0) + 0.2 * rng.standard_normal(model.n)
        v, t = rng.standard_normal(model.n), rng.uniform()
        for dense, nz, pat in (
            (cm.A(x, t), cm.xt("A_nz", x, t, len(a_pat)), a_pat),
            (cm.A_dot(x, v, t), cm.xwt("A_dot_nz", x, v, t, len(a_pat)), a_pat),
            (cm.M(x, t), cm.xt("M_nz", x, t, len(m_pat)), m_pat),
        ):
            spread = np.zeros_like(dense)
            for k, (i, j) in enumerate(pat):
                spread[i, j] = nz[k]
            assert np.array_equal(spread, dense)


def test_written_files_have_the_usual_mode(tmp_path):
    """Issue 34, item 9: generated .c/.h were mode 0600 (mkstemp's): a build by another user, or
    a copy into a team's tree, could not read them. They get 0666 less the umask, as any file."""
    import os

    from mcsgen.emit.files import write_atomically

    old = os.umask(0o022)
    try:
        write_atomically({"a.c": "int a;\n", "a.h": "extern int a;\n"}, tmp_path / "out")
    finally:
        os.umask(old)
    for name in ("a.c", "a.h"):
        assert (tmp_path / "out" / name).stat().st_mode & 0o777 == 0o644


# Every header of the C99 library: a firmware translation unit may include any of them before a
# generated header, and the generated source is compiled with all of them in force below.
C99_HEADERS = """assert complex ctype errno fenv float inttypes iso646 limits locale math setjmp
signal stdarg stdbool stddef stdint stdio stdlib string tgmath time wchar wctype""".split()
# parameters named like those headers' macros (and GNU C's predefined `linux`, `unix`; not
# `assert`, a Python keyword, which the expression language refuses)
LIBRARY_NAMES = """I EOF stdin complex BUFSIZ RAND_MAX errno NAN INFINITY HUGE_VAL M_PI DBL_MAX
FLT_EPSILON isnan CHAR_BIT EXIT_SUCCESS SIG_DFL va_arg setjmp imaginary linux unix
SEEK_SET L_tmpnam P_tmpdir INT8_C""".split()


@pytest.mark.parametrize("std", ["c99", "gnu99"])
def test_c_library_names_compile(std, tmp_path):
    """Issue 34, item 8: user names that collide with identifiers the generated code can see gave
    C that did not compile (a model named like the descriptor's thunks, d_c; parameters named like
    <stdio.h>'s or <complex.h>'s macros). Every user name now reaches C behind a prefix the runtime
    reserves, so a model named `d` whose parameters are those macros compiles with every C99 header
    included first (and GNU C's `linux` and `unix` defined), and computes with the right values."""
    from mcsgen.emit.render import STATIC_PREFIX
    from mcsgen.model.reader import MAX_PARAM_NAME, PARAM_PREFIX
    from mcsgen.paths import RUNTIME

    long_name = "q" * MAX_PARAM_NAME
    params = "\n".join(f"  {n}: {{value: {k + 1}}}" for k, n in enumerate(LIBRARY_NAMES))
    text = (ROOT / "models" / "planar_pendulum.yaml").read_text()
    text = text.replace("name: planar_pendulum", "name: d").replace(
        "parameters:\n", f"parameters:\n{params}\n  {long_name}: {{value: 0.5}}\n"
    )
    text = text.replace('"x**2 + z**2 - l**2"', f'"x**2 + z**2 - (l*EOF*{long_name}/2)**2"')
    text = text.replace('["0", "-M*g"]', '["0", "-M*g*I*stdin/3"]')
    path = tmp_path / "d.yaml"
    path.write_text(text)
    _, out, _ = generate(path, out_root=tmp_path / "gen", force=True)
    source = (out / "d.c").read_text()
    assert f"p->{PARAM_PREFIX}I" in source and f"{STATIC_PREFIX}d_c(" in source
    everything = tmp_path / "everything.h"
    everything.write_text("".join(f"#include <{h}.h>\n" for h in C99_HEADERS))
    main = tmp_path / "main.c"
    main.write_text(
        '#include "d.h"\n#include <stdio.h>\n'
        "int main(void)\n{\n"
        "    d_params p = d_default_params;\n"
        "    mcs_real x[2] = {3, 4}, c;\n"
        f"    p.{PARAM_PREFIX}EOF = 10; /* l EOF q.../2 = 1 * 10 * 0.5 / 2 = 2.5 */\n"
        "    d_c(x, 0, &p, &c);\n"
        '    printf("%.17g %s\\n", (double)c, d_model.name);\n'
        "    return 0;\n}\n"
    )
    exe = tmp_path / "main"
    cc = [
        "gcc", f"-std={std}", "-pedantic", "-Wall", "-Wextra", "-Werror",
        "-include", str(everything), f"-I{RUNTIME / 'include'}", f"-I{out}",
        str(main), str(out / "d.c"), "-o", str(exe), "-lm",
    ]  # fmt: skip
    built = subprocess.run(cc, capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(exe)], capture_output=True, text=True, check=True)
    assert ran.stdout.split() == [repr(25 - 2.5**2), "d"]


def test_the_runtime_leaves_the_generated_prefixes_alone():
    """No identifier of the runtime starts with the prefixes generated code gives user names and
    its own statics (what makes their collisions impossible by construction)."""
    from mcsgen.emit.render import STATIC_PREFIX
    from mcsgen.model.reader import PARAM_PREFIX
    from mcsgen.paths import RUNTIME

    for path in sorted(RUNTIME.rglob("*.[ch]")):
        text = path.read_text()
        assert PARAM_PREFIX not in text and STATIC_PREFIX not in text, path
