"""Forward and inverse dynamics at any state (mcs_sim_forward_dynamics,
mcs_sim_inverse_dynamics; docs/reference/inputs-outputs.md): the inputs inverse dynamics finds, fed
to forward dynamics, give the requested accelerations to 1e-10, on an open chain (the 3R
pendulum), a closed loop redundantly actuated (the slider-crank with a crank motor and a slider
force) and an under-actuated chain (the 3R pendulum with one motor: its residual is reported)."""
import subprocess
from pathlib import Path

import numpy as np

import mcsgen
from mcsgen.build import generated_dir_of, program_command
from mcsgen.outputs.plot import read_run

from test_inputs import MOTORS, pendulum_with

HARNESS = Path(__file__).parent / "c" / "dynamics_at.c"
ROOT = Path(__file__).resolve().parents[2]


class Harness:
    """The harness compiled with one model, run once for a list of requests."""

    def __init__(self, tmp, name, text):
        path = tmp / f"{name}.yaml"
        path.write_text(text)
        self.mechanism = mcsgen.load(path)
        self.solver = self.mechanism.build()
        self.model = self.mechanism.model
        self.exe = tmp / f"dynamics_at_{name}"
        cmd = program_command(name, [HARNESS], self.exe, gdir=generated_dir_of(self.model))
        subprocess.run(cmd, check=True, capture_output=True, text=True)

    def ask(self, lines):
        out = subprocess.run(
            [str(self.exe)], input="\n".join(lines) + "\n", capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        return out.stdout.splitlines()

    def forward(self, states, us):
        lines = [_line("F", s, u) for s, u in zip(states, us)]
        return [np.array(a.split(), dtype=float) for a in self.ask(lines)]

    def inverse(self, states, accelerations):
        answers = self.ask([_line("I", s, a) for s, a in zip(states, accelerations)])
        nu = len(self.model.inputs)
        out = []
        for answer in answers:
            assert not answer.startswith("error"), answer
            parts = answer.split()
            out.append(
                dict(
                    u=np.array(parts[:nu], dtype=float),
                    residual=float(parts[nu]),
                    normal=float(parts[nu + 1]),
                    rank=int(parts[nu + 2]),
                    dof=int(parts[nu + 3]),
                )
            )
        return out


def _line(op, state, values):
    t, x, v = state
    return " ".join([op, repr(t)] + [repr(float(a)) for a in (*x, *v, *values)])


def random_states(n, count, seed):
    rng = np.random.default_rng(seed)
    return [(0.0, rng.uniform(-2, 2, n), rng.uniform(-3, 3, n)) for _ in range(count)]


def states_of_a_run(harness, tmp_path, **options):
    """States on the manifold: the rows of a run of the model."""
    out = tmp_path / f"{harness.model.name}.csv"
    summary = harness.solver.simulate_to_files(out, tmp_path / "e.json", **options)
    assert summary["ok"], summary
    run = read_run(out)
    names = [c.name for c in harness.model.coordinates]
    return [
        (run["t"][k], [run[f"x.{c}"][k] for c in names], [run[f"v.{c}"][k] for c in names])
        for k in range(1, len(run["t"]))
    ]


def round_trip(harness, states, seed):
    """Random inputs -> forward -> inverse -> forward: (requests, reproduced, answers, u0)."""
    rng = np.random.default_rng(seed)
    nu = len(harness.model.inputs)
    u0 = [rng.uniform(-50, 50, nu) for _ in states]
    wanted = harness.forward(states, u0)
    answers = harness.inverse(states, wanted)
    got = harness.forward(states, [a["u"] for a in answers])
    return wanted, got, answers, u0


def test_the_3r_pendulum_gets_back_the_torques_that_move_it(tmp_path):
    harness = Harness(tmp_path, "p3in", pendulum_with(["tau1", "tau2", "tau3"], MOTORS))
    states = random_states(3, 8, seed=7)
    wanted, got, answers, u0 = round_trip(harness, states, seed=8)
    for w, g, a, u in zip(wanted, got, answers, u0):
        assert np.abs(g - w).max() <= 1e-10 * max(1.0, np.abs(w).max())
        assert np.abs(a["u"] - u).max() <= 1e-9 * np.abs(u).max()  # fully actuated: unique
        assert a["rank"] == a["dof"] == 3 and a["residual"] <= 1e-10 * np.abs(w).max()


SLIDER_CRANK = (ROOT / "models" / "slider_crank.yaml").read_text().replace(
    "name: slider_crank", "name: crank_motor"
) + ("inputs:\n" "  - {name: motor, unit: N m, joint: A}\n" "  - {name: push, unit: N, joint: D}\n")


def test_a_closed_loop_redundantly_actuated_gets_the_least_effort(tmp_path):
    """The slider-crank (21 body coordinates, 20 rows, 1 degree of freedom) with a crank motor
    and a slider force: two inputs for one motion. The inputs found give the accelerations
    requested to 1e-10 through the loop's constraint forces, and they are the least-norm pair:
    orthogonal to the pair that gives no acceleration (the null space of dx''/du)."""
    harness = Harness(tmp_path, "crank_motor", SLIDER_CRANK)
    states = states_of_a_run(harness, tmp_path, t_end=0.4, dt_out=0.1)
    wanted, got, answers, u0 = round_trip(harness, states, seed=3)
    for w, g, a, u in zip(wanted, got, answers, u0):
        assert np.abs(g - w).max() <= 1e-10 * max(1.0, np.abs(w).max())
        assert a["rank"] == a["dof"] == 1
        assert a["residual"] <= 1e-9 * max(1.0, np.abs(w).max())
        # u0 and the answer differ by a pair that gives no acceleration: the answer is u0's
        # projection off it, so |answer| < |u0| unless u0 was the least-norm pair already
        assert np.linalg.norm(a["u"]) <= np.linalg.norm(u) * (1 + 1e-12)
        null = (
            harness.forward([states[0]], [u - a["u"]])[0] - harness.forward([states[0]], [0 * u])[0]
        )
    # the pair that gives no acceleration at one state, and the answer orthogonal to it
    s = states[0]
    zero = harness.forward([s], [np.zeros(2)])[0]
    D = np.column_stack([harness.forward([s], [e])[0] - zero for e in np.eye(2)])
    kernel = np.linalg.svd(D)[2][-1]
    assert abs(kernel @ answers[0]["u"]) <= 1e-8 * np.linalg.norm(answers[0]["u"])
    del null


def test_an_under_actuated_chain_reports_what_it_cannot_reach(tmp_path):
    """The 3R pendulum with a motor on its second joint only: one input for three motions. A
    request the motor cannot make gets the nearest motion it can (least squares) and the
    residual says how far that is: |x''(u) - request|, to the last digits; a request that the
    motor can make (from forward dynamics) has none."""
    one_motor = "inputs:\n  - {name: tau2, unit: N m}\n"
    harness = Harness(tmp_path, "acro", pendulum_with(["0", "tau2", "0"], one_motor, name="acro"))
    states = random_states(3, 6, seed=11)
    rng = np.random.default_rng(12)
    requests = [rng.uniform(-5, 5, 3) for _ in states]
    answers = harness.inverse(states, requests)
    got = harness.forward(states, [a["u"] for a in answers])
    for r, g, a in zip(requests, got, answers):
        assert a["rank"] == 1 and a["dof"] == 3
        assert a["residual"] > 0.1
        assert abs(np.linalg.norm(g - r) - a["residual"]) <= 1e-9 * np.linalg.norm(r)
        assert a["normal"] == 0.0 or a["normal"] <= 1e-9  # no constraints: nothing is normal
    wanted, got, answers, _ = round_trip(harness, states, seed=13)
    for w, g, a in zip(wanted, got, answers):
        assert np.abs(g - w).max() <= 1e-10 * max(1.0, np.abs(w).max())
        assert a["residual"] <= 1e-10 * max(1.0, np.abs(w).max())


def test_inputs_that_act_on_no_motion_are_an_error(tmp_path):
    """An input whose generalized force is zero (a torque on a coordinate the forces ignore)
    acts on no motion: MCS_ERR_UNACTUATED, not a division by zero."""
    idle = "inputs:\n  - {name: tau2, unit: N m}\n"
    harness = Harness(tmp_path, "idle", pendulum_with(["0", "0*tau2", "0"], idle, name="idle"))
    (answer,) = harness.ask([_line("I", random_states(3, 1, seed=1)[0], [1.0, 2.0, 3.0])])
    assert answer == "error the inputs act on no motion at this state"  # MCS_ERR_UNACTUATED
