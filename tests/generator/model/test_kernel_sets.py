"""Kernel subsets (model/kernel_sets.py, issue 12): which sets a firmware build carries, what the
emitted C then holds, and when an earlier generation counts as up to date."""

import re

import pytest

from mcsgen.errors import McsError
from mcsgen.generate import choose_kernel_sets, generate
from mcsgen.model import complete_initial_state, kernel_sets, load_model

from conftest import ROOT


SPATIAL = ROOT / "models" / "spatial_pendulum.yaml"


def model(name):
    return load_model(ROOT / "models" / f"{name}.yaml")


def test_a_firmware_build_carries_what_its_settings_need():
    # RK4, continuation none (the firmware defaults): no predictor, no stiffness, no transitions
    assert choose_kernel_sets(model("slider_crank"), True, None) == {"motion"}
    # a file with events switches rows as part of its motion
    assert choose_kernel_sets(model("pendulum_3r_locking"), True, None) == {
        "motion",
        "transitions",
    }
    # a host build carries every set but linearization, unless its file's `kernels:` adds it
    assert choose_kernel_sets(model("slider_crank"), False, None) == kernel_sets.DEFAULT
    assert kernel_sets.ALL - kernel_sets.DEFAULT == {"linearization"}
    assert choose_kernel_sets(model("spatial_pendulum"), False, None) == kernel_sets.ALL
    assert choose_kernel_sets(model("slider_crank"), False, "all") == kernel_sets.ALL
    # an explicit choice: motion always joins it
    # stiffness (K_c) brings the force tangents (K_f, D) that statics needs with it
    assert choose_kernel_sets(model("slider_crank"), True, "stiffness") == {
        "motion",
        "force_tangents",
        "stiffness",
    }
    # an implicit method's firmware build: the force tangents alone (its Jacobian's K_f and D)
    assert choose_kernel_sets(model("slider_crank"), True, "force_tangents") == {
        "motion",
        "force_tangents",
    }


def test_the_firmware_section_sets_the_run_and_adds_kernel_sets(tmp_path):
    text = (ROOT / "models" / "spatial_pendulum.yaml").read_text()
    path = tmp_path / "spatial_pendulum.yaml"
    path.write_text(
        re.sub(
            r"firmware:.*\n(  .*\n)*",
            "firmware: {continuation: exp, h: 2.0e-3, kernels: [stiffness]}\n",
            text,
        )
    )
    m = load_model(path)
    assert m.firmware["simulation"]["continuation"] == "exp"
    assert m.firmware["simulation"]["method"] == "rk4"  # the firmware default
    assert m.firmware["simulation"]["h"] == 2e-3
    assert m.firmware["simulation"]["t_end"] == m.simulation["t_end"]  # the simulation's
    assert choose_kernel_sets(m, True, None) == {
        "motion",
        "predictor",
        "force_tangents",
        "stiffness",
    }
    assert (m.firmware["max_dof"], m.firmware["events"], m.firmware["compact"]) == (0, True, False)
    # the shipped slider-crank: one free direction, no events, the compact simulator
    sc = model("slider_crank")
    assert (sc.firmware["max_dof"], sc.firmware["events"], sc.firmware["compact"]) == (
        1,
        False,
        True,
    )
    header = (ROOT / "generated" / "slider_crank" / "slider_crank.h").read_text()
    assert "#define SLIDER_CRANK_FIRMWARE_MAX_DOF 1\n" in header
    assert "#define SLIDER_CRANK_FIRMWARE_FEATURES (MCS_MEM_COMPACT)\n" in header


def test_a_choice_the_settings_cannot_run_is_refused():
    with pytest.raises(McsError, match="continuation exp needs A_dot"):
        choose_kernel_sets(model("spatial_pendulum"), False, "stiffness")
    with pytest.raises(McsError, match="not a kernel set"):
        choose_kernel_sets(model("spatial_pendulum"), True, "motion,K_c")


def test_an_omitted_kernel_is_neither_emitted_nor_in_the_descriptor(tmp_path):
    _, out, written = generate(
        ROOT / "models" / "double_four_bar.yaml", out_root=tmp_path, firmware=True
    )
    assert written
    c = (out / "double_four_bar.c").read_text()
    h = (out / "double_four_bar.h").read_text()
    for name in ("A_dot", "K_c", "K_f", "D", "group_3_g", "group_3_G_dot"):  # 0-2: coordinates
        assert f"double_four_bar_{name}(" not in c + h, name
    for name in ("A_dot", "A_dot_nz", "K_c", "K_f", "D"):
        assert f"\n    .{name} = NULL,\n" in c, name
    for name in ("c", "A", "c_t", "gamma", "M", "f", "A_nz", "M_nz"):
        assert f"\n    .{name} = mcs_gen_d_{name},\n" in c, name
    assert "\n    .groups = NULL,\n" in c
    assert '#define DOUBLE_FOUR_BAR_KERNELS "motion"' in h
    assert "#define DOUBLE_FOUR_BAR_NGROUPS 0" in h
    assert " * Kernels: motion." in c and "generate --firmware models/" in c
    # nor the banded simulator's structure (a firmware build never links that simulator)
    assert "band_c_order" not in c and "#define DOUBLE_FOUR_BAR_BAND_WIDTH 0\n" in h
    assert (
        "band_c_order" in (ROOT / "generated" / "double_four_bar" / "double_four_bar.c").read_text()
    )
    # the joints' locks are gone with their row groups
    assert all(row.split(", ")[7] == "-1" for row in re.findall(r"\{ \"[A-Z0-9]+\", .*\}", c))
    # the kernels it keeps are those of the full model, byte for byte
    full = (ROOT / "generated" / "double_four_bar" / "double_four_bar.c").read_text()
    body = re.compile(r"\nvoid double_four_bar_(\w+)\(.*?\n\}\n", re.S)
    kept = {m.group(1): m.group(0) for m in body.finditer(c)}
    assert {"c", "A", "gamma", "M", "f", "joint_coords"} <= set(kept)
    for name, text in kept.items():
        assert text in full, name


def test_up_to_date_only_for_the_same_kernel_sets(tmp_path):
    assert generate(SPATIAL, out_root=tmp_path, firmware=True)[2]
    assert not generate(SPATIAL, out_root=tmp_path, firmware=True)[2]
    # the full set into the same place is a different output: written again
    assert generate(SPATIAL, out_root=tmp_path)[2]
    assert not generate(SPATIAL, out_root=tmp_path)[2]


def test_the_default_place_of_a_subset_is_not_generated(tmp_path, monkeypatch):
    import mcsgen.generate as gen

    monkeypatch.setattr(gen, "FIRMWARE_GENERATED", tmp_path / "fw")
    _, out, _ = generate(SPATIAL, firmware=True)
    assert out == tmp_path / "fw" / "spatial_pendulum"
    m = complete_initial_state(model("spatial_pendulum"))
    assert gen.is_up_to_date(m, ROOT / "generated" / "spatial_pendulum")  # untouched, complete


def test_the_file_can_add_kernel_sets_to_its_host_build(tmp_path):
    """`kernels:` at the top of a mechanism file: the sets its host build (generated/, the
    command line's and the API's solvers) adds to the default ones; a name that is no set is
    refused naming the field."""
    from mcsgen.errors import ModelError

    text = (ROOT / "models" / "slider_crank.yaml").read_text()
    path = tmp_path / "slider_crank.yaml"
    path.write_text(text + "kernels: [linearization]\n")
    assert choose_kernel_sets(load_model(path), False, None) == kernel_sets.ALL
    path.write_text(text + "kernels: [stifness]\n")
    with pytest.raises(ModelError, match=r"kernels\[0\].*'stifness' is not a kernel set"):
        load_model(path)
    path.write_text(text + "kernels: linearization\n")
    with pytest.raises(ModelError, match="kernels.*expected a list"):
        load_model(path)


def test_an_implicit_method_needs_the_force_tangents(tmp_path):
    """Issue 38: a firmware build whose method is ros34pw2 or ros34pw2_fixed carries K_f and D
    (force_tangents), not K_c; --kernels without them is refused naming the set."""
    text = (ROOT / "models" / "spatial_pendulum.yaml").read_text()
    path = tmp_path / "spatial_pendulum.yaml"
    path.write_text(text.replace("firmware:", "firmware:\n  method: ros34pw2_fixed", 1))
    m = load_model(path)
    assert choose_kernel_sets(m, True, None) >= {"motion", "force_tangents"}
    assert "stiffness" not in choose_kernel_sets(m, True, None)
    with pytest.raises(McsError, match="ros34pw2_fixed factors the Jacobian of K_f and D"):
        choose_kernel_sets(m, True, "predictor")
