"""The manual's tables of measured numbers, written by the bench section that measures them.

`bench/run.py SECTION` (and `make bench`, which runs every section) writes
docs/measured/<section>.md: a Markdown table of the section's results and a line saying where and
when they were measured. The manual's pages include those files (`--8<-- "measured/..."`), so a
number in the manual is the last run's, never one typed by hand. Commit the files after a run
on the project's machine.
"""

import datetime
import math
import os
import platform
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEASURED = ROOT / "docs" / "measured"


def machine():
    """The CPU model and core count, and the OS: where the numbers were taken."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    system = "Linux"
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                system = line.split("=", 1)[1].strip('"')
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, {system}"


def provenance(command):
    today = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    return f"*Measured by `{command}` on {today} ({machine()}).*"


def _ms(seconds):
    return f"{seconds * 1e3:.2f} ms"


def _version(v):
    """MuJoCo's mj_version() is an integer: 222 for 2.2.2."""
    text = str(v)
    return ".".join(text) if text.isdigit() and len(text) == 3 else text


def _e(value):
    return f"{value:.1e}" if math.isfinite(value) else "unstable"


def mujoco(rows):
    out = [
        "| mechanism | MuJoCo | mcsgen (LAPACK / portable) | banded, continuation off "
        "| final states apart | RK4 error: mcsgen / MuJoCo |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        base = r["mujoco_s"]
        banded = r.get("mcsgen_banded_off_s")
        out.append(
            f"| {r['mechanism']} (n = {r['mcsgen_n']}) | {_ms(base)} "
            f"| {r['mcsgen_lapack_s'] / base:.2f}× / {r['mcsgen_portable_s'] / base:.2f}× "
            f"| {f'{banded / base:.2f}×' if banded else '–'} "
            f"| {_e(r['agreement'])} ({r['compared']}) "
            f"| {_e(r['mcsgen_rk4_error'])} / {_e(r['mujoco_rk4_error'])} |"
        )
    out += [
        "",
        f"1 s of RK4 at 1 ms, the integration loop only, best of interleaved repeats; ratios are "
        f"mcsgen's time over MuJoCo's (below 1: mcsgen is faster). MuJoCo "
        f"{_version(rows[0]['mujoco_version'])} from Debian's `libmujoco-dev`, its constraints "
        "off; the RK4 errors are against mcsgen's DOP853 at rtol 1e-12.",
    ]
    return out


def linearize(rows):
    out = [
        "| mechanism | n | f | exact A | differences | error exact / differences "
        "| step + J | step | differences of the step | error exact / differences |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    us = "{:.1f} µs".format
    for r in rows:
        out.append(
            f"| {r['mechanism']} | {r['n']} | {r['dof']} | {us(r['linearize_s'] * 1e6)} "
            f"| {us(r['rhs_differences_s'] * 1e6)} "
            f"| {_e(r['linearize_error'])} / {_e(r['rhs_differences_error'])} "
            f"| {us(r['step_jacobian_s'] * 1e6)} | {us(r['step_s'] * 1e6)} "
            f"| {us(r['step_differences_s'] * 1e6)} "
            f"| {_e(r['step_jacobian_error'])} / {_e(r['step_differences_error'])} |"
        )
    puma = next((r for r in rows if "mujoco" in r), None)
    mj = puma["mujoco"] if puma else {"not_measured": "no row"}
    if "not_measured" not in mj:
        out += [
            "",
            f"PUMA 560: MuJoCo {_version(mj['version'])}'s `mjd_transitionFD` (centred, eps 1e-6) "
            "takes "
            f"{mj['transition_fd_s'] * 1e6:.1f} µs a call at an error of {mj['error']:.1e}; "
            f"mcsgen's exact step Jacobian {puma['step_jacobian_s'] * 1e6:.1f} µs "
            f"({mj['transition_fd_s'] / puma['step_jacobian_s']:.1f}× faster) at "
            f"{puma['step_jacobian_error']:.1e}. Errors are against Richardson-extrapolated "
            "differences.",
        ]
    return out


def stiff(rows):
    dopri5 = rows[0]
    out = [
        "| run | time | steps | steps / DOPRI5's | error [rad] |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        out.append(
            f"| {r['run']} | {_ms(r['seconds'])} | {r['steps']} "
            f"| {r['steps'] / dopri5['steps']:.3f} | {_e(r['error'])} |"
        )
    out += [
        "",
        "The damped 7-DOF arm (`models/urdf/damped_arm.urdf`), 1 s from rest; error: the final "
        "joint angles against mcsgen's DOP853 at rtol 1e-12; the integration loop only.",
    ]
    return out


def stops(result):
    out = [
        "| case | simulator | past the limit [rad] | at the end - limit [rad] | per simulated s |",
        "|---|---|---|---|---|",
    ]
    for r in result["rows"]:
        out.append(
            f"| {r['case']} | {r['simulator']} | {_e(r['beyond_rad'])} "
            f"| {_e(r['rest_minus_limit_rad'])} | {_ms(r['time_per_s'])} |"
        )
    out += [
        "",
        "`bench/mujoco/stop_pendulum.urdf`: a pendulum released at 1.2 rad falls onto its limit "
        "at 0.3 rad (2 s); the loops check the limit after every step.",
    ]
    return out


def sweep(result):
    out = [
        "| where | runs/s | against serial | a run | idle time a run | batch | cluster start |",
        "|---|---|---|---|---|---|---|",
    ]
    for label, r in result["rows"].items():
        out.append(
            f"| {label} | {r['runs_per_s']:.1f} | {r['speedup']:.2f} | {r['run_ms']:.1f} ms "
            f"| {r['overhead_ms']:.2f} ms | {r['batch']} | {r['start_s']:.1f} s |"
        )
    same = all(r["same_as_serial"] for r in result["rows"].values())
    out += [
        "",
        f"{result['runs']} slider-crank runs of 1 s each (DOPRI5), each reduced to two numbers; "
        f"a run integrates in {result['integration_ms']:.1f} ms. Every configuration gave "
        + ("bit-identical" if same else "**different**")
        + " values.",
    ]
    return out


def growth(result):
    out = [
        "| chain | n | m | w | kb | default, off | banded, off | banded, none |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def us(ns):
        value = ns / 1e3
        return f"{value:,.0f}".replace(",", " ") if value >= 100 else f"{value:.1f}"

    for family, data in result.items():
        for r in data["rows"]:
            out.append(
                f"| {family} | {r['n']} | {r['m']} | {r['band_width']} | {r['kkt_band']} "
                f"| {us(r['ns_per_step_default_off'])} | {us(r['ns_per_step_banded_off'])} "
                f"| {us(r['ns_per_step_banded_none'])} |"
            )
    out += [""]
    for family, data in result.items():
        e = data["exponents"]
        rows = data["rows"]
        out.append(
            f"Growth exponents of the {family} chains from n = {rows[0]['n']} to {rows[-1]['n']}: "
            f"default {e['default_off']:.2f}, banded with continuation off "
            f"{e['banded_off']:.2f}, banded with `none` {e['banded_none']:.2f}."
        )
    out += ["", "µs per RK4 step; w: the band width of A, kb: that of the KKT system."]
    return out


TABLES = {
    "growth": growth,
    "mujoco": mujoco,
    "linearize": linearize,
    "stiff": stiff,
    "stops": stops,
    "sweep": sweep,
}


def write(section, result):
    """docs/measured/<section>.md from a section's result; its path (None: no table)."""
    if section not in TABLES:
        return None
    MEASURED.mkdir(parents=True, exist_ok=True)
    lines = TABLES[section](result)
    text = "\n".join([*lines, "", provenance(f"bench/run.py {section}"), ""])
    path = MEASURED / f"{section}.md"
    path.write_text(text)
    return path
