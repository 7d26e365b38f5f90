"""Redundant constraints and singular configurations (paper 002, SPEC §6): rank, events where the
geometry says and nowhere else, new motions, and crossing on the physical branch."""
from pathlib import Path

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from mcsgen.compiled import CompiledModel
from mcsgen.model import load_model
from mcsgen.outputs.plot import read_run

from helpers import simulate as run

ROOT = Path(__file__).resolve().parents[2]


def simulate(tmp_path, model, **options):
    return run(tmp_path, model, with_events=True, **options)


def parallelogram(t_end):
    """3 phi'' = 3.5 g sin(phi): the parallelogram motion of the four-bar family with 1 kg/m bars
    (also of the modified double four-bar: same T = 1.5 phi'^2 and V = 3.5 g cos(phi))."""
    return solve_ivp(
        lambda t, y: [y[1], 3.5 * 9.81 * np.sin(y[0]) / 3],
        (0, t_end),
        [0, 1],
        rtol=1e-13,
        atol=1e-14,
        dense_output=True,
    )


def horizontal_crossings(sol, t_end):
    """Times where cos(phi) = 0 (all bars horizontal)."""
    t = np.linspace(0, t_end, 200001)
    c = np.cos(sol.sol(t)[0])
    idx = np.nonzero(np.sign(c[1:]) != np.sign(c[:-1]))[0]
    return t[idx] - c[idx] * (t[idx + 1] - t[idx]) / (c[idx + 1] - c[idx])


@pytest.fixture(scope="module")
def dfb(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dfb")
    return simulate(tmp, "double_four_bar", method="dopri5", rtol=1e-10, atol=1e-12)


def test_double_four_bar_stays_on_the_parallelogram_branch(dfb):
    s, run, events = dfb
    sol = parallelogram(10.0)
    phi = np.pi / 2 - run["x.bar1.theta"]
    # integration error only (3e-7 after 10 s and 5 turns); leaving the branch would be O(1)
    assert np.abs(phi - sol.sol(run["t"])[0]).max() < 1e-6
    assert run["c_norm"].max() <= 1e-10  # after every crossing too
    e = run["energy"]
    assert np.abs(e - e[0]).max() / abs(e[0]) <= 1e-6
    assert s["steps"] < 3000  # DOPRI5 does not grind at the crossings


def test_double_four_bar_events_where_the_bars_are_horizontal_and_nowhere_else(dfb):
    s, run, events = dfb
    expected = horizontal_crossings(parallelogram(10.0), 10.0)
    assert len(expected) == 10 and len(events) == 10 and s["events"] == 10
    np.testing.assert_allclose([e["t"] for e in events], expected, atol=1e-6)
    for e in events:
        assert (e["rank_before"], e["rank_after"]) == (14, 12)
        for bar in ("bar1", "bar3", "bar5"):
            assert abs(np.sin(e["x"][f"{bar}.theta"])) < 1e-6  # vertical bars horizontal
        assert len(e["motions"]) == 2 and len(e["rdiag"]) == 14
        assert e["rdiag"][12] < 1e-6 * e["rdiag"][0] and e["rdiag"][11] > 1e-3 * e["rdiag"][0]
    assert set(run["rank"]) == {14}  # no chart is centred on a singular point


def test_new_motions_span_the_admissible_velocities(dfb):
    _, _, events = dfb
    model = load_model(ROOT / "models" / "double_four_bar.yaml")
    cm = CompiledModel(model)
    names = [c.name for c in model.coordinates]
    e = events[0]
    x = np.array([e["x"][n] for n in names])
    A = cm.A(x, e["t"])
    motions = np.array([[mo[n] for n in names] for mo in e["motions"]]).T
    continued = np.array([[mo[n] for n in names] for mo in e["continued"]]).T
    assert np.abs(A @ motions).max() < 1e-6  # admissible: A v = 0
    V = np.hstack([continued, motions])
    assert np.abs(V.T @ V - np.eye(3)).max() < 1e-12  # orthonormal, new ones orthogonal to it
    # together they span the null space of A there (dimension n - rank = 3)
    _, sv, vt = np.linalg.svd(A)
    null = vt[12:].T
    assert sv[11] > 1e-3 * sv[0] and sv[12] < 1e-6 * sv[0]
    assert np.abs(null - V @ (V.T @ null)).max() < 1e-6


def test_continued_qdot_flips_only_where_the_motion_reverses(dfb):
    _, run, _ = dfb
    qd = run["qd1"]
    flips = np.nonzero(np.sign(qd[1:]) != np.sign(qd[:-1]))[0]
    # the bars turn round and round: phi' never changes sign, so neither may qdot1
    assert len(flips) == 0


def test_traditional_basis_is_discontinuous_and_continued_is_not(tmp_path):
    _, cont, ev_c = simulate(tmp_path, "double_four_bar", t_end=3.0)
    _, trad, ev_t = simulate(tmp_path, "double_four_bar", t_end=3.0, continuation="off")
    for col in ("x.bar1.theta", "x.bar2.x", "x.bar4.y"):
        # same physical trajectory (round-off differences grow on this unstable motion)
        assert np.abs(cont[col] - trad[col]).max() < 1e-7
    jumps = lambda run: int((np.abs(np.diff(run["qd1"])) > 0.5).sum())
    assert jumps(cont) == 0 and jumps(trad) >= 2
    assert [round(e["t"], 6) for e in ev_c] == [round(e["t"], 6) for e in ev_t]


@pytest.mark.parametrize(
    "model, n, m, rank, rank_sing, dependent",
    [
        ("modified_double_four_bar", 12, 12, 11, 10, 1),
        ("modified_triple_four_bar", 15, 16, 14, 13, 2),
        ("modified_2x2_four_bar", 24, 24, 22, 21, 2),
        ("planar_pendulum_redundant", 2, 2, 1, None, 1),
    ],
)
def test_ranks_events_and_dependent_rows(tmp_path, model, n, m, rank, rank_sing, dependent):
    s, run, events = simulate(tmp_path, model, t_end=3.0)
    assert (s["n"], s["m"], s["rank"]) == (n, m, rank)
    assert len(s["dependent_rows"]) == dependent
    assert set(run["rank"]) == {rank}
    if rank_sing is None:
        assert events == []
        return
    assert events and all((e["rank_before"], e["rank_after"]) == (rank, rank_sing) for e in events)
    assert run["c_norm"].max() < 1e-10
    e0 = run["energy"]
    assert np.abs(e0 - e0[0]).max() / abs(e0[0]) < 1e-6


def test_modified_models_events_match_their_geometry(tmp_path):
    # one-DOF models: every event is an all-horizontal configuration and every crossing is one
    for model, bars, mass_top in (
        ("modified_double_four_bar", ("bar1", "bar3", "bar5"), 2),
        ("modified_triple_four_bar", ("bar1", "bar3", "bar5", "bar7"), 3),
    ):
        _, run, events = simulate(tmp_path, model, t_end=3.0)
        phi = np.pi / 2 - run["x.bar1.theta"]
        c = np.cos(phi)
        crossings = int((np.sign(c[1:]) != np.sign(c[:-1])).sum())
        assert len(events) == crossings > 0
        for e in events:
            assert all(abs(np.sin(e["x"][f"{b}.theta"])) < 1e-6 for b in bars)


def test_2x2_sub_mechanisms_cross_at_different_times(tmp_path):
    _, run, events = simulate(tmp_path, "modified_2x2_four_bar", t_end=3.0)
    lower = [e["t"] for e in events if abs(np.sin(e["x"]["low1.theta"])) < 1e-6]
    upper = [e["t"] for e in events if abs(np.sin(e["x"]["up1.theta"])) < 1e-6]
    assert lower and upper and len(lower) + len(upper) == len(events)
    assert min(abs(a - b) for a in lower for b in upper) > 0.05
    # and nowhere else: each crossing of either sub-mechanism in the run is an event
    for bar, times in (("low1", lower), ("up1", upper)):
        s = np.sin(run[f"x.{bar}.theta"])
        assert int((np.sign(s[1:]) != np.sign(s[:-1])).sum()) == len(times)


def test_figures_of_rdiag_basis_and_events(tmp_path, cli):
    csv_c, csv_t = tmp_path / "c.csv", tmp_path / "t.csv"
    for csv, cont in ((csv_c, "exp"), (csv_t, "off")):
        proc = cli(
            "simulate",
            "double_four_bar",
            "--t-end",
            "0.8",
            "--basis",
            "--continuation",
            cont,
            "--out",
            csv,
        )
        assert proc.returncode == 0, proc.stderr
    run = read_run(csv_c)
    # T has one column (1 DOF): unit norm and A T = 0 on the rows
    T = np.column_stack([run[k] for k in run if k.startswith("T1.")])
    assert np.abs(np.linalg.norm(T, axis=1) - 1).max() < 1e-13
    assert "rdiag14" in run and "rdiag15" not in run
    outs = []
    for args in (
        ["--rdiag", str(csv_c)],
        [
            "--basis",
            "bar2",
            str(csv_c),
            str(csv_t),
            "--label",
            "continued",
            "--label",
            "traditional",
        ],
        ["--events", str(tmp_path / "c.events.json"), "--model", "double_four_bar"],
    ):
        png = tmp_path / f"fig{len(outs)}.png"
        proc = cli("plot", *args, "--out", png)
        assert proc.returncode == 0, proc.stderr
        assert png.read_bytes()[:4] == b"\x89PNG" and png.stat().st_size > 10000
        outs.append(png)
    proc = cli("plot", "--events", tmp_path / "c.events.json")
    assert proc.returncode == 2 and "needs --model" in proc.stderr


@pytest.mark.parametrize("backend", ["lapack", "portable"])
@pytest.mark.parametrize("rtol", [1e-10, 1e-12])
def test_dopri5_does_not_grind_at_singular_points(tmp_path, monkeypatch, backend, rtol):
    """Regression: at tight tolerances error control used to creep towards the singular point
    (the stages there are only accurate to eps cond(A_S U)) and stop on the minimum step."""
    monkeypatch.setenv("MCS_LINALG", backend)
    s, run, events = simulate(
        tmp_path, "double_four_bar", method="dopri5", rtol=rtol, atol=1e-14, t_end=3.2
    )
    assert len(events) == 4 and s["rejected"] < 50 and s["steps"] < 2000
    e = run["energy"]
    assert np.abs(e - e[0]).max() / abs(e[0]) <= 1e-7


def parallelogram_positions(phi):
    """The five bars' (x, y, theta) on the parallelogram branch at crank angle phi (from the
    vertical): the vertical bars hinged at x = 0, 1, 2 and the horizontal ones translating."""
    s, c = np.sin(phi), np.cos(phi)
    x = []
    for k in range(5):
        if k % 2 == 0:
            x += [k / 2 + 0.5 * s, 0.5 * c, np.pi / 2 - phi]
        else:
            x += [(k - 1) / 2 + 0.5 + s, c, 0.0]
    return np.array(x)


@pytest.fixture(scope="module")
def p3_reference():
    return parallelogram_positions(parallelogram(10.0).sol(10.0)[0])


def p3_error(tmp_path, p3_reference, **options):
    """TARGETS P3: the largest deviation of the final positions after 10 s (ten crossings)."""
    s, run, events = simulate(tmp_path, "double_four_bar", t_end=10.0, **options)
    names = [k for k in run if k.startswith("x.")]
    assert len(names) == 15 and len(events) == 10
    return np.abs(np.array([run[k][-1] for k in names]) - p3_reference).max()


def test_p3_error_falls_with_the_tolerance(tmp_path, p3_reference):
    """Issue 13: the error through the ten crossings used to stall near 1e-8 whatever the
    tolerance (stages that landed close to a singular point computed their accelerations to eps /
    sigma^2 only). With steps placed across the predicted crossing it falls with rtol."""
    coarse = p3_error(tmp_path, p3_reference, method="dopri5", rtol=1e-9, atol=1e-11)
    fine = p3_error(tmp_path, p3_reference, method="dopri5", rtol=1e-11, atol=1e-13)
    assert fine <= 3e-9 and fine < coarse / 30, (coarse, fine)


def test_p3_dop853_reaches_1e_9_and_falls_with_the_tolerance(tmp_path, p3_reference):
    """Issue 13's P3 target, err <= 1e-9, with DOP853 at rtol 1e-11, and the fall of the error
    from rtol 1e-9. Below rtol 1e-10 the error no longer follows the tolerance step by step: it
    varies with the rounding of the run between about 4e-11 and 6.5e-10 (rtol 0.7e-11 .. 1.3e-11,
    and 4.5e-11 at 8e-11; the same spread before the continuation's rewrite, where rtol 1e-11
    happened to give 1.1e-10), so each side is three tolerances around its value: the worst at
    1e-11 against the best at 1e-9 (8.8e-9 .. 1.9e-8). Its steps near the crossings are
    DOPRI5's: with DOP853 across them the error was 2.6e-10 or 2.8e-9 by backend."""
    coarse = min(
        p3_error(tmp_path, p3_reference, method="dop853", rtol=k * 1e-9, atol=k * 1e-11)
        for k in (0.8, 1.0, 1.25)
    )
    fine = max(
        p3_error(tmp_path, p3_reference, method="dop853", rtol=k * 1e-11, atol=k * 1e-13)
        for k in (0.8, 1.0, 1.25)
    )
    assert fine <= 1e-9 and fine < coarse / 5, (coarse, fine)


@pytest.mark.parametrize("method", ["dopri5", "dop853"])
def test_p3_a_long_step_from_above_the_watch_finds_and_steps_across_its_crossing(
    tmp_path, p3_reference, method
):
    """The crossing used to be predicted (and the step placed across it, and searched for an
    event) only once sigma at a step's end was below the watch level, so a long step from just
    above it could reach the crossing unplaced: at rtol 9e-10 a DOPRI5 stage of DOP853's run fell
    at 0.8 of a 15 ms step, on the singular point (1.4e-6 m where 0.8e-9 and 1e-9 gave 2e-8), and
    at rtol 1e-7 five of the ten crossings were stepped over without an event."""
    s, run, events = simulate(tmp_path, "double_four_bar", t_end=10.0, method=method, rtol=1e-7)
    assert len(events) == 10, [e["t"] for e in events]
    errors = [
        p3_error(tmp_path, p3_reference, method=method, rtol=k * 1e-9, atol=k * 1e-11)
        for k in (0.8, 0.9, 1.0)
    ]
    assert max(errors) <= (5e-8 if method == "dop853" else 2e-7), errors


@pytest.mark.parametrize("method", ["dopri5", "dop853"])
def test_p3_output_rows_are_on_the_branch_near_the_crossings(tmp_path, method):
    """Rows of --dt-out are dense output. Inside a step where a singular configuration was
    located, the chart map used to start its Newton from the event search's last solution at
    the singular point and could land on the other branch: rows 1-2 ms from a crossing were off
    by up to 9e-3 (DOPRI5 at 6.54 s, DOP853 at four crossings). Every row of 10 s (1001, some
    within 1 ms of a crossing) against the parallelogram motion."""
    s, run, events = simulate(
        tmp_path, "double_four_bar", t_end=10.0, method=method, rtol=1e-11, atol=1e-13, dt_out=0.01
    )
    assert len(events) == 10 and len(run["t"]) == 1001
    phi = parallelogram(10.0).sol(np.array(run["t"]))[0]
    err = np.abs(np.array(run["x.bar1.theta"]) - (np.pi / 2 - phi)).max()
    assert err < 1e-8, err


@pytest.mark.parametrize("h", [1e-3, 2.5e-4])
def test_p3_rk4_error_does_not_grow_as_the_step_shrinks(tmp_path, p3_reference, h):
    """RK4 at 1 ms used to give 1.9e-9 and at 0.25 ms to stop 7 s in, creeping onto the singular
    point (each crossing lost more energy the closer its stages came)."""
    assert p3_error(tmp_path, p3_reference, method="rk4", h=h, dt_out=0.5) <= 1.5e-9


def test_the_singular_watch_does_not_depend_on_the_size(tmp_path):
    """Issue 34, item 4: sigma (the smallest |R_ii| / |R_11|) scales with the lengths of a
    mechanism; the watch compared it with 0.05, so a small mechanism was "near a singular
    configuration" everywhere and DOP853 left every step to DOPRI5. The double four-bar at 1 m
    and at 1 cm (lengths, inertias and gravity scaled: the same motion of the angles) crosses its
    singular configuration 10 times either way, and DOP853 leaves about the same few steps
    around the crossings to DOPRI5."""
    import re

    import mcsgen

    src = (ROOT / "models" / "double_four_bar.yaml").read_text()
    shares = {}
    for s, name in ((1.0, "dfb_m"), (0.01, "dfb_cm")):
        text = src.replace("name: double_four_bar", f"name: {name}")
        text = text.replace("g: {value: 9.81,", f"g: {{value: {9.81 * s!r},")
        text = text.replace("Jb: {value: 0.08333333333333333,", f"Jb: {{value: {s * s / 12!r},")
        text = re.sub(
            r"(position|point): \[([-0-9.]+), ([-0-9.]+)\]",
            lambda m: f"{m.group(1)}: [{float(m.group(2)) * s!r}, {float(m.group(3)) * s!r}]",
            text,
        )
        path = tmp_path / f"{name}.yaml"
        path.write_text(text)
        run = mcsgen.load(path).build().simulate(method="dop853", rtol=1e-9, atol=1e-15)
        counts = run.summary["steps_by_method"]
        assert run.ok and run.summary["events"] == 10, name
        assert counts["dop853"] + counts["dopri5"] == run.summary["steps"]
        shares[name] = counts["dopri5"] / run.summary["steps"]
    assert 0.1 < shares["dfb_m"] < 0.4 and 0.1 < shares["dfb_cm"] < 0.4, shares
