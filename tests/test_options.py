"""One source of truth for the simulate options (generator/mcsgen/options.py): the C simulator's
table and the manual's are generated from it and current, the CLI takes it, and every documented
default is the value the C runtime's mcs_options_default actually sets."""
import json
import subprocess

import pytest

from mcsgen import options
from mcsgen.paths import RUNTIME, runtime_c_files

PROBE = r"""
#include <stdio.h>
#include "mcs/mcs_sim.h"
int main(void)
{
    mcs_options o;
    if (mcs_options_default(&o, NULL) != MCS_OK)
        return 1;
    printf("{\"rank_tol\": %.17g, \"sing_tol\": %.17g, \"sing_watch\": %.17g, "
           "\"chart_tol\": %.17g, \"chart_pivot_min\": %.17g, \"newton_tol\": %.17g, "
           "\"newton_max_iter\": %d, \"h_min\": %.17g, \"sing_gap\": %.17g, \"eps\": %.17g}\n",
           (double)o.rank_tol, (double)o.sing_tol, (double)o.sing_watch, (double)o.chart_tol,
           (double)o.chart_pivot_min, (double)o.newton_tol, o.newton_max_iter, (double)o.h_min,
           (double)o.sing_gap, (double)MCS_REAL_EPS);
    return 0;
}
"""


def test_c_table_is_generated_from_options_py():
    assert (
        options.C_TABLE.read_text() == options.c_table()
    ), "runtime/app/mcs_options_table.h is stale: run `make options-table`"


def test_readme_table_is_generated_from_options_py():
    text = options.PAGE.read_text()
    block = text[
        text.index(options.PAGE_BEGIN) : text.index(options.PAGE_END) + len(options.PAGE_END)
    ]
    assert (
        block == options.markdown_table()
    ), "the manual's options table is stale: `make options-table`"


@pytest.mark.parametrize("real", ["double", "float"])
def test_documented_defaults_are_the_runtimes(tmp_path, real):
    src = tmp_path / "probe.c"
    src.write_text(PROBE)
    exe = tmp_path / "probe"
    flags = ["-DMCS_REAL_FLOAT"] if real == "float" else []
    subprocess.run(
        [
            "cc",
            "-std=c99",
            *flags,
            f"-I{RUNTIME / 'include'}",
            f"-I{RUNTIME / 'src'}",
            str(src),
            *map(str, runtime_c_files()),
            "-o",
            str(exe),
            "-DMCS_LINALG_PORTABLE",
            "-lm",
        ],
        check=True,
    )
    got = json.loads(subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout)
    eps = got.pop("eps")
    checked = 0
    for opt in options.OPTIONS:
        if not opt.field or opt.default == "model":
            continue
        value = got[opt.field]
        if opt.default.endswith(" eps"):
            documented = float(opt.default.split()[0]) * eps
        else:
            documented = float(opt.default)
        # in float the tolerances never go below a few hundred eps (mcs_options_default)
        floor = {
            "rank_tol": 100,
            "chart_pivot_min": 100,
            "sing_tol": 1e4,
            "chart_tol": 1000,
            "sing_gap": 1e5,
        }
        if real == "float" and opt.field in floor:
            documented = max(documented, floor[opt.field] * eps)
        assert value == pytest.approx(documented, rel=1e-6), (opt.name, value, documented)
        checked += 1
    assert checked == 9


def test_cli_takes_every_option():
    import argparse

    parser = argparse.ArgumentParser()
    options.add_arguments(parser)
    dests = {a.dest for a in parser._actions}
    for opt in options.OPTIONS:
        if opt.name != "progress":
            assert opt.name.replace("-", "_") in dests


@pytest.mark.parametrize(
    "args, words",
    [
        (
            ["simulate", "slider_crank", "--rank-tol", "-1"],
            "--rank-tol: expected a number in [0, 1)",
        ),
        (["simulate", "slider_crank", "--h", "-1e-3"], "--h: expected a number > 0, got -1e-3"),
        (["simulate", "slider_crank", "--t-end", "0"], "--t-end: expected a number > 0"),
        (["simulate", "slider_crank", "--rtol", "nan"], "--rtol: expected a finite number"),
        (["simulate", "slider_crank", "--atol", "inf"], "--atol: expected a finite number"),
        (["simulate", "slider_crank", "--dt-out", "-0.5"], "--dt-out: expected a number >= 0"),
        (["simulate", "slider_crank", "--sing-watch", "1"], "--sing-watch: expected a number in"),
        (["simulate", "slider_crank", "--newton-max-iter", "0"], "expected a whole number >= 1"),
        (["simulate", "slider_crank", "--h", "1e-3x"], "--h: expected a number, got '1e-3x'"),
        (["check", "slider_crank", "--tol", "nan"], "--tol: expected a finite number"),
        (["check", "slider_crank", "--tol", "-1"], "--tol: expected a number > 0"),
        (["check", "slider_crank", "--samples", "0"], "--samples: expected a whole number >= 1"),
        (["statics", "slider_crank", "--max-iter", "-3"], "--max-iter: expected a whole number"),
    ],
)
def test_bad_option_values_get_one_line_naming_the_option(cli, args, words):
    proc = cli(*args)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and words in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr and f"(see mcsgen {args[0]} --help)" in proc.stderr


def test_every_checked_option_says_what_it_takes_in_the_readme():
    table = options.markdown_table().splitlines()  # the manual's block (checked current above)
    checked = [opt for opt in options.OPTIONS if opt.valid]
    assert {o.name for o in checked} >= {"t-end", "h", "rtol", "atol", "rank-tol", "h-min"}
    for opt in checked:
        (row,) = [
            line for line in table if line.startswith((f"| `--{opt.name} ", f"| `--{opt.name}`"))
        ]
        assert options.VALID[opt.valid][1].replace(">", "&gt;") in row, row


def test_the_simulators_own_defaults_are_documented(tmp_path):
    """The options without an mcs_options field that have a default: the simulate driver's
    value is the table's (--max-steps: more steps or rows than this are refused)."""
    import re

    source = (RUNTIME / "app" / "mcs_simulate.c").read_text()
    found = re.search(r"app\.max_steps = (\d+)L;", source)
    (opt,) = [o for o in options.OPTIONS if o.name == "max-steps"]
    assert found and int(found.group(1)) == int(opt.default)
