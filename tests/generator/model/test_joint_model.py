"""The pieces of `coordinates: joint` (issue 36): derivatives through intermediates against
SymPy's on the expanded expressions, the spanning tree's choices, and what a bad file gets."""

import random

import pytest
import sympy as sp

from mcsgen.model.intermediates import Intermediates
from mcsgen.errors import ModelError
from mcsgen.model import load_model
from mcsgen.model.tree import PLACEMENT_TYPES, spanning_tree
from mcsgen.paths import MODELS


def chain():
    """A planar three-link chain written as intermediates: each link's angle and tip a short
    expression of its parent's (as joint_coordinates.py writes the bodies' poses)."""
    q = sp.symbols("q0:3", real=True)
    qd = sp.symbols("qd0:3", real=True)
    t = sp.Symbol("t", real=True)
    inter = Intermediates(q, qd, t)
    angle, x, y = sp.Integer(0), sp.Integer(0), sp.Integer(0)
    for k in range(3):
        angle = inter.name(f"th{k}", angle + q[k] + (t if k == 2 else 0))  # a driven offset
        c = inter.name(f"c{k}", sp.cos(angle))
        s = inter.name(f"s{k}", sp.sin(angle))
        x = inter.name(f"x{k}", x + (k + 1) * c)
        y = inter.name(f"y{k}", y + (k + 1) * s)
    return inter, q, qd, t, x * y


def at(q, qd, t):
    rng = random.Random(5)
    values = {s: sp.Float(rng.uniform(-1, 1), 30) for s in list(q) + list(qd)}
    values[t] = sp.Float("0.3", 30)
    return values


def test_derivatives_through_intermediates_are_sympys_of_the_expanded_expression():
    inter, q, qd, t, tip = chain()
    full = inter.expand(tip)
    values = at(q, qd, t)
    for var in list(q) + [t]:
        mine = inter.evaluate([inter.diff(tip, var)], values)[0]
        assert mine == pytest.approx(float(sp.diff(full, var).xreplace(values)), rel=1e-14)
    # second derivatives (the Hessians of K_c): through the first ones' intermediates
    mine = inter.evaluate([inter.diff(inter.diff(tip, q[0]), q[2])], values)[0]
    assert mine == pytest.approx(float(sp.diff(full, q[0], q[2]).xreplace(values)), rel=1e-13)


def test_the_time_derivative_along_the_motion_and_the_tangent():
    """dot: sum_k d/dq_k qd_k + d/dt (qdd = 0); tangent: along any direction, one tangent
    intermediate per intermediate whatever the direction."""
    inter, q, qd, t, tip = chain()
    full = inter.expand(tip)
    values = at(q, qd, t)
    expected = sum(sp.diff(full, a) * b for a, b in zip(q, qd)) + sp.diff(full, t)
    assert inter.evaluate([inter.dot(tip)], values)[0] == pytest.approx(
        float(expected.xreplace(values)), rel=1e-14
    )
    dq = sp.symbols("dq0:3", real=True)
    values.update({d: sp.Float(k + 1) for k, d in enumerate(dq)})
    along = inter.tangent(tip, dict(zip(q, dq)), "tan")
    expected = sum(sp.diff(full, a) * (k + 1) for k, a in enumerate(q))
    assert inter.evaluate([along], values)[0] == pytest.approx(
        float(expected.xreplace(values)), rel=1e-14
    )
    before = len(inter)
    inter.tangent(tip, dict(zip(q, dq)), "tan")  # memoized: nothing new
    assert len(inter) == before


def test_needed_lists_what_an_expression_reads_in_definition_order():
    inter, q, qd, t, tip = chain()
    needed = inter.needed([tip])
    # th0 = q0 is q0 itself: nothing to name
    assert [str(s) for s in needed][:3] == ["c0", "s0", "th1"]
    assert needed == sorted(needed, key=inter.order.__getitem__)
    assert inter.needed([q[0] + 1]) == []


def test_spanning_tree_breadth_first_fewest_coordinates_then_file_order():
    bodies = ["a", "b", "c", "d", "e", "f"]
    joints = [
        ("ab", "revolute", "b", "a", True),  # a is not reached yet when b is: listed first anyway
        ("ga", "revolute", "a", "ground", True),
        ("gb", "prismatic", "ground", "b", True),
        ("bc", "revolute", "c", "b", True),
        ("ac", "fix", "a", "c", True),  # fewer coordinates than bc at the same depth
        ("cd", "orthogonal", "c", "d", True),  # not a tree type: cut
        ("de", "revolute", "d", "e", False),  # cut: true
        ("cf", "universal", "f", "c", True),  # a tree type of two coordinates
        ("bf", "revolute", "b", "f", True),  # from b, nearer the ground than cf
    ]
    tree = spanning_tree(bodies, joints)
    # ga before gb (file order), then gb before ab (nearer the ground), ac before bc (fewer
    # coordinates); d is reached only through the orthogonal joint and e only through the cut
    # one: both float, in file order
    assert [(t.joint, t.parent, t.child) for t in tree.joints] == [
        ("ga", "ground", "a"),
        ("gb", "ground", "b"),
        ("ac", "a", "c"),
        ("bf", "b", "f"),
    ]
    assert tree.roots == ["d", "e"]
    assert tree.cuts == ["ab", "bc", "cd", "de", "cf"]
    # without bf, the universal joint carries f
    other = spanning_tree(bodies, joints[:-1])
    assert ("cf", "c", "f") in [(t.joint, t.parent, t.child) for t in other.joints]
    # the tree start: values turn the bodies along takes no universal joint (placement.py)
    placed = spanning_tree(bodies, joints[:-1], PLACEMENT_TYPES)
    assert "cf" in placed.cuts and "f" in placed.roots
    assert spanning_tree(bodies, joints) == tree  # deterministic
    # a spherical joint is a tree joint (its Euler parameters), after those of fewer coordinates
    spherical = [j if j[0] != "cd" else ("cd", "spherical", "c", "d", True) for j in joints]
    with_spherical = spanning_tree(bodies, spherical)
    assert ("cd", "c", "d") in [(t.joint, t.parent, t.child) for t in with_spherical.joints]
    assert with_spherical.roots == ["e"]
    ball = [("gb", "spherical", "b", "ground", True), ("gb2", "universal", "ground", "b", True)]
    assert [t.joint for t in spanning_tree(["b"], ball).joints] == ["gb2"]


def test_a_cut_marked_joint_stays_rows(tmp_path):
    text = (
        (MODELS / "pendulum_3r_bodies.yaml")
        .read_text()
        .replace("name: pendulum_3r_bodies", "name: cut3r")
    )
    text = text.replace("body2: link2,", "body2: link2, cut: true,")
    path = tmp_path / "cut3r.yaml"
    path.write_text(text + "coordinates: joint\n")
    model = load_model(path)
    # J3 cut: link3 floats (3 coordinates) and J3's two rows hold it to link2
    assert (model.n, model.m) == (5, 2)
    assert [c.name for c in model.constraints] == ["J3.x", "J3.y"]


@pytest.mark.parametrize(
    "edit, field, problem",
    [
        ("coordinates: joints\n", "coordinates", "'joints' is not one of body"),
        ("coordinates: [joint]\n", "coordinates", "is not one of body"),
    ],
)
def test_bad_coordinates_get_one_line(tmp_path, edit, field, problem):
    text = (
        (MODELS / "pendulum_3r_bodies.yaml")
        .read_text()
        .replace("name: pendulum_3r_bodies", "name: bad3r")
    )
    path = tmp_path / "bad3r.yaml"
    path.write_text(text + edit)
    with pytest.raises(ModelError) as err:
        load_model(path)
    assert err.value.field == field and problem in err.value.problem


def test_a_cut_flag_that_is_not_a_boolean_gets_one_line(tmp_path):
    text = (
        (MODELS / "pendulum_3r_bodies.yaml")
        .read_text()
        .replace("name: pendulum_3r_bodies", "name: bad3r")
    )
    text = text.replace("body2: link2,", "body2: link2, cut: yes please,")
    path = tmp_path / "bad3r.yaml"
    path.write_text(text)
    with pytest.raises(ModelError) as err:
        load_model(path)
    assert err.value.field == "joints[2].cut" and "true or false" in err.value.problem


def test_a_joint_model_computes_m_and_f_in_one_kernel(tmp_path):
    """M_f (emit/fused.fused_kernel): in joint coordinates the descriptor points at one kernel
    for M's nonzeros and f, which M_nz and f call; a body-coordinate model has none (the runtime
    calls M_nz and f). The numbers are the finite-difference check's and the two formulations'
    (tests/e2e/test_joint_coordinates.py: M_nz and f go through it)."""
    from mcsgen.generate import generate

    text = (MODELS / "pendulum_3r_bodies.yaml").read_text()
    text = text.replace("name: pendulum_3r_bodies", "name: p3_fused") + "\ncoordinates: joint\n"
    path = tmp_path / "p3_fused.yaml"
    path.write_text(text)
    _, out, _ = generate(path, out_root=tmp_path / "gen")
    c = (out / "p3_fused.c").read_text()
    assert "    .M_f = mcs_gen_d_M_f," in c
    assert "    p3_fused_M_f(x, v_zero, t, p, out, f_unused);" in c  # M_nz
    assert "    p3_fused_M_f(x, v, t, p, M_unused, out);" in c  # f
    assert (
        "void p3_fused_M_f(const mcs_real *x, const mcs_real *v" in (out / "p3_fused.h").read_text()
    )
    body = (MODELS.parent / "generated" / "pendulum_3r_bodies" / "pendulum_3r_bodies.c").read_text()
    assert "    .M_f = NULL," in body and "_M_f(" not in body
