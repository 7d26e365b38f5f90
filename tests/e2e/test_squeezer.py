"""Andrews' squeezing mechanism (models/squeezer.yaml), the seven-body benchmark of Hairer &
Wanner, Solving ODEs II, sec. VII.7, against the reference solution at t = 0.03 s of the Test Set
for IVP Solvers (F. Mazzia, C. Magherini, F. Iavernaro, University of Bari, release 2.3,
http://www.dm.uniba.it/~testset/, problem "andrews", andrews.f revision 1.2 of 2006/10/02,
subroutine andsoln: PSIDE at rtol = atol = 1e-14; the same numbers in the R package deTestSet).

The model has the bodies' absolute angles; the benchmark's seven angles are
beta = body1, Theta = body2 - body1, gamma = body3, Phi = body4 - body5, delta = body5,
Omega = body6 - body7, epsilon = body7.

Tolerances: about 10x the error measured at DOP853, rtol 1e-10, atol 1e-12 (rounded up): beta
3.7e-9, Theta -4.6e-9, gamma 3.6e-11, Phi 6.3e-11, delta 1.9e-12, Omega -6.3e-11, epsilon
1.1e-12 (DOPRI5 at the same tolerance: 2.7e-9, -3.3e-9, ...). The smallest |R_ii|/|R_11| of this
centimetre mechanism is about 0.01 throughout, below the 0.05 that once meant "near a singular
configuration" whatever the size: then every step was DOPRI5's (352 steps, 2 576 evaluations).
The watch now compares it with the run's largest (issue 34): DOP853 takes all 99 steps. The
reference itself is about 1.4e-9 off in beta and Theta: two independent formulations (this model
at rtol 1e-13, and the test set's 7-angle equations integrated with SciPy's DOP853 at rtol 1e-13)
agree with each other to 1e-11 and differ from it by -1.1e-9 (beta) and 1.4e-9 (Theta).
"""
import numpy as np
import pytest

import mcsgen

# andrews.f, subroutine andsoln: y(1..7) at t = 0.03 s
REFERENCE = {
    "beta": 0.1581077119629904e2,
    "Theta": -0.1575637105984298e2,
    "gamma": 0.4082224013073101e-1,
    "Phi": -0.5347301163226948e0,
    "delta": 0.5244099658805304e0,
    "Omega": 0.5347301163226948e0,
    "epsilon": 0.1048080741042263e1,
}
TOLERANCE = {  # 10x the measured error (DOP853, rtol 1e-10, atol 1e-12)
    "beta": 3e-8,
    "Theta": 4e-8,
    "gamma": 3e-10,
    "Phi": 5e-10,
    "delta": 2e-11,
    "Omega": 5e-10,
    "epsilon": 8e-12,
}
# andrews.f, subroutine initial: the consistent initial angles (velocities 0)
INITIAL = {
    "beta": -0.0617138900142764496358948458001,
    "Theta": 0.0,
    "gamma": 0.455279819163070380255912382449,
    "Phi": 0.222668390165885884674473185609,
    "delta": 0.487364979543842550225598953530,
    "Omega": -0.222668390165885884674473185609,
    "epsilon": 1.23054744454982119249735015568,
}
MOM = 0.033  # N m, the driving torque on body 1


def benchmark_angles(run, row):
    """The benchmark's seven angles from the bodies' absolute angles in row `row`."""
    th = [run.columns[f"x.body{i}.theta"][row] for i in range(1, 8)]
    return {
        "beta": th[0],
        "Theta": th[1] - th[0],
        "gamma": th[2],
        "Phi": th[3] - th[4],
        "delta": th[4],
        "Omega": th[5] - th[6],
        "epsilon": th[6],
    }


@pytest.fixture(scope="module")
def run():
    return (
        mcsgen.load("squeezer")
        .build()
        .simulate(t_end=0.03, method="dop853", rtol=1e-10, atol=1e-12)
    )


def test_squeezer_structure_and_initial_state(run):
    assert run.ok and run.t[0] == 0.0 and run.t[-1] == pytest.approx(0.03, abs=1e-15)
    assert len(run.coordinates) == 21 and run.rank[0] == 20  # 7 planar bodies, 10 revolute joints
    start = benchmark_angles(run, 0)
    for name, value in INITIAL.items():
        assert abs(start[name] - value) < 1e-15, name
    assert np.abs(run.v[0]).max() == 0.0


def test_squeezer_matches_the_test_set_reference_at_0_03(run):
    end = benchmark_angles(run, -1)
    errors = {name: end[name] - REFERENCE[name] for name in REFERENCE}
    assert all(abs(errors[n]) <= TOLERANCE[n] for n in REFERENCE), errors
    assert run.c_norm.max() < 1e-12


def test_squeezer_energy_grows_by_the_work_of_the_torque(run):
    """No gravity, no damping: kinetic + spring energy changes by the torque's work only."""
    beta = run.columns["x.body1.theta"]
    work = MOM * (beta - beta[0])
    assert work[-1] > 0.5
    assert np.abs(run.energy - run.energy[0] - work).max() < 1e-8


def test_dop853_takes_the_steps_of_a_small_mechanism(run):
    """Issue 34, item 4: `method: dop853` silently ran DOPRI5 on this centimetre-scale mechanism
    (the singular-configuration watch compared sigma, which scales with the lengths, with 0.05).
    No configuration of this run is near singular: DOP853 takes every step, and the summary says
    which method took how many."""
    s = run.summary
    assert s["steps_by_method"] == {
        "rk4": 0,
        "dopri5": 0,
        "dop853": s["steps"],
        "ros34pw2": 0,
        "ros34pw2_fixed": 0,
    }
    assert s["steps"] < 150 and s["evaluations"] < 2000  # DOPRI5 throughout: 352, 2 576
