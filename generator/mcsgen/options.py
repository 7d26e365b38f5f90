"""The options of `simulate`: one table, the single source of their names, defaults and help.

Read by the command line (cli/parser.py builds its `simulate` parser from it), by the C simulator
(`runtime/app/mcs_options_table.h` is generated from it: `write_c_table`), and by the manual (its
options table is generated from it: `markdown_table`); a run's options become the simulator's
arguments again in `option_arguments` (the Python API, the stepped run, the sweep). Tests check
that the generated header and the manual's block are current, and that every default below is
what the C runtime's `mcs_options_default` sets (tests/test_options.py).
"""

from dataclasses import dataclass
from typing import List

from .enums import CONTINUATION, JUMP_METHOD, METHOD
from .paths import ROOT, RUNTIME


@dataclass(frozen=True)
class SimOption:
    name: str  # on the command line: --<name>
    kind: str  # real | int | choice | flag | path | param | event | state
    help: str
    metavar: str = ""
    choices: tuple = ()
    default: str = ""  # the documented default ("" for a flag; "model" for the model file's)
    field: str = ""  # the mcs_options field it sets, or "" for the simulator's own
    valid: str = ""  # the values accepted (VALID below); checked by the CLI before any run


# Defaults given as text are the documented values; "model" means the model file's `simulation:`
# section (docs/reference/model-file.md). Order: as printed by --help.
# --simulator auto takes the banded simulator from this many coordinates
# (docs/explanation/large-models.md: it is faster than the dense one from about n = 12, measured;
# below 40 the dense one's crossing of singular configurations is worth more than the difference)
BANDED_FROM = 40

OPTIONS = (
    SimOption("t-end", "real", "end time of the run [s]", "T", default="model", valid="positive"),
    SimOption(
        "h",
        "real",
        "RK4 and ros34pw2_fixed step; the adaptive methods' first step [s]",
        "H",
        default="model",
        field="h",
        valid="positive",
    ),
    SimOption(
        "method",
        "choice",
        "integrator",
        choices=METHOD.names,
        default="model",
        field="method",
    ),
    SimOption(
        "rtol",
        "real",
        "the adaptive methods' relative tolerance",
        "R",
        default="model",
        field="rtol",
        valid="tolerance",
    ),
    SimOption(
        "atol",
        "real",
        "the adaptive methods' absolute tolerance (in the units of the coordinates and their"
        " rates)",
        "A",
        default="model",
        field="atol",
        valid="positive",
    ),
    SimOption(
        "continuation",
        "choice",
        "tangent basis: exp (exponential predictor), euler (first order), none (polar "
        "alignment only), off (traditional QR)",
        choices=CONTINUATION.names,
        default="model",
        field="continuation",
    ),
    SimOption(
        "simulator",
        "choice",
        "dense (every option), banded (large models: a step's cost linear in n; stops at a "
        "singular configuration; no locks, exp or interpolated rows), or auto: banded from "
        f"{BANDED_FROM} coordinates when the model has a band structure and the run needs "
        "nothing it lacks",
        choices=("auto", "dense", "banded"),
        default="auto",
    ),
    SimOption(
        "dt-out",
        "real",
        "rows at exactly t = k D [s] (0: one row per step)",
        "D",
        default="model",
        valid="nonnegative",
    ),
    SimOption("out", "path", "CSV file of the run", "FILE.csv", default="out/<model>.csv"),
    SimOption(
        "events",
        "path",
        "JSON log of singular configurations",
        "FILE.json",
        default="next to the CSV",
    ),
    SimOption(
        "inputs",
        "path",
        "CSV of the model's inputs over time: a header t,<input>,... (every input, any order) "
        "and rows of increasing t, each held until the next (zero-order hold)",
        "FILE.csv",
        default="all 0",
    ),
    SimOption(
        "param",
        "param",
        "override a parameter, geometry too (repeatable); one in the file's freeze: is refused, "
        "and so is a value the file's own would be (a body's mass or inertia)",
        "NAME=VALUE",
    ),
    SimOption(
        "x0",
        "state",
        "start with coordinate NAME at VALUE (repeatable; a CSV's x.<NAME>): the file's initial "
        "state with these values, then assembled onto the constraints (which may move them)",
        "NAME=VALUE",
    ),
    SimOption(
        "v0",
        "state",
        "start with velocity NAME at VALUE (repeatable; a CSV's v.<NAME>): the file's initial "
        "velocities with these, then projected onto the velocity constraints",
        "NAME=VALUE",
    ),
    SimOption(
        "lock",
        "event",
        "lock coordinate or joint NAME at time T (004 sec. 6): NAME - NAME(T) = 0, or the joint "
        "held at its pose then, with the velocity jump --transition says (repeatable)",
        "NAME@T",
    ),
    SimOption(
        "unlock", "event", "release the lock of NAME at time T (no jump; repeatable)", "NAME@T"
    ),
    SimOption(
        "transition",
        "choice",
        "velocity jump at a lock: minimal (004 eq. 37, continued basis), full (eq. 24), "
        "projected (eq. 32), naive (zero the locked rate, no momentum balance)",
        choices=JUMP_METHOD.names,
        default="minimal",
    ),
    SimOption(
        "reactions",
        "flag",
        "add the constraint multipliers lam.<row> and each joint's force and moment on its "
        "body 2 (Fx.<joint> ... Nz.<joint>, world frame) to the CSV",
    ),
    SimOption("basis", "flag", "add the tangent basis T (columns T<j>.<coordinate>) to the CSV"),
    SimOption("momenta", "flag", "add the generalized momenta P = T'M v (columns p<i>) to the CSV"),
    SimOption(
        "rank-tol",
        "real",
        "rank tolerance: |R_ii| > TAU |R_11| counts towards the rank",
        "TAU",
        default="1e-9",
        field="rank_tol",
        valid="fraction",
    ),
    SimOption(
        "sing-tol",
        "real",
        "an event is a minimum of the smallest retained |R_ii|/|R_11| below S (0 turns "
        "detection off)",
        "S",
        default="1e-6",
        field="sing_tol",
        valid="fraction",
    ),
    SimOption(
        "sing-watch",
        "real",
        "near a singular configuration: the ratio below W times the run's largest (whatever the "
        "mechanism's size); such steps are searched for a minimum, placed across it (RK4) or "
        "left to DOPRI5 (DOP853)",
        "W",
        default="0.05",
        field="sing_watch",
        valid="fraction",
    ),
    SimOption(
        "chart-tol",
        "real",
        "retake a step shorter if it would end with the ratio below C",
        "C",
        default="1e-4",
        field="chart_tol",
        valid="fraction",
    ),
    SimOption(
        "sing-gap",
        "real",
        "RK4: no stage closer to a predicted crossing than where the ratio is G (0: by h only)",
        "G",
        default="1e-3",
        field="sing_gap",
        valid="fraction",
    ),
    SimOption(
        "chart-pivot-min",
        "real",
        "a stage whose LU of A_S U has a pivot ratio below P fails (and is retaken)",
        "P",
        default="1e-8",
        field="chart_pivot_min",
        valid="fraction",
    ),
    SimOption(
        "newton-tol",
        "real",
        "chart Newton: stop when |dp| <= N max(1, |x|)",
        "N",
        default="500 eps",
        field="newton_tol",
        valid="positive",
    ),
    SimOption(
        "newton-max-iter",
        "int",
        "chart Newton iterations before a stage fails",
        "K",
        default="25",
        field="newton_max_iter",
        valid="count",
    ),
    SimOption(
        "h-min",
        "real",
        "DOPRI5 and DOP853: smallest step before the run stops [s]",
        "HMIN",
        default="1e-12",
        field="h_min",
        valid="positive",
    ),
    SimOption(
        "max-steps",
        "int",
        "the run stops after K accepted steps (a DOPRI5 run, with status 'limit'); a run that "
        "would take more RK4 steps (--t-end / --h) or write more rows (--t-end / --dt-out) is "
        "refused before it starts",
        "K",
        default="1000000",
        valid="count",
    ),
    SimOption("progress", "flag", "a progress bar on stderr"),
)

# What `valid` accepts: (test, description for messages and --help)
# the largest Newton step count of statics and modes: the runtime keeps a history of
# MCS_STATICS_HISTORY entries (runtime/include/mcs/mcs_statics.h; tests/test_options.py holds the
# two together)
MAX_STATICS_ITER = 63

VALID = {
    "positive": (lambda v: v > 0, "a number > 0"),
    "nonnegative": (lambda v: v >= 0, "a number >= 0"),
    "fraction": (lambda v: 0 <= v < 1, "a number in [0, 1)"),
    "tolerance": (lambda v: 0 < v < 1, "a number in (0, 1)"),
    "count": (lambda v: v >= 1, "a whole number >= 1"),
    "newton-steps": (
        lambda v: 1 <= v <= MAX_STATICS_ITER,
        f"a whole number in 1..{MAX_STATICS_ITER}",
    ),
}


def option_value(opt):
    """The argparse `type` of a real or int option: the number, or an ArgumentTypeError that
    says which values the option takes (`--rank-tol: a number in [0, 1), got -1`)."""
    import argparse
    import math

    def parse(text):
        try:
            value = float(text) if opt.kind == "real" else int(text)
        except ValueError:
            what = "a number"
            if opt.kind != "real":  # 1e20, 2.5: say which whole numbers it takes
                what = VALID[opt.valid][1] if opt.valid else "a whole number"
            raise argparse.ArgumentTypeError(f"expected {what}, got '{text}'") from None
        if opt.kind == "real" and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"expected a finite number, got '{text}'")
        if opt.valid:
            ok, what = VALID[opt.valid]
            if not ok(value):
                raise argparse.ArgumentTypeError(f"expected {what}, got {text}")
        return value

    parse.__name__ = opt.kind  # argparse names the type in some messages
    return parse


C_TABLE = RUNTIME / "app" / "mcs_options_table.h"
PAGE = ROOT / "docs" / "reference" / "commands.md"  # the manual page with the table
PAGE_BEGIN = "<!-- simulate options: generated from generator/mcsgen/options.py -->"
PAGE_END = "<!-- end of simulate options -->"


def by_name(name):
    for opt in OPTIONS:
        if opt.name == name:
            return opt
    raise KeyError(name)


def add_arguments(parser, skip=()):
    """The options on an argparse parser (dest: the name with '_' for '-'), but those in skip."""
    for opt in OPTIONS:
        if opt.name == "progress" or opt.name in skip:
            continue  # the Python CLI decides (a terminal or not)
        flag = f"--{opt.name}"
        text = opt.help + (f" (default: {opt.default})" if opt.default else "")
        if opt.kind == "flag":
            parser.add_argument(flag, action="store_true", help=text)
        elif opt.kind == "choice":
            parser.add_argument(flag, choices=opt.choices, help=text)
        elif opt.kind in ("param", "event", "state"):
            parser.add_argument(flag, action="append", metavar=opt.metavar, help=text)
        elif opt.kind in ("real", "int"):
            if opt.valid:
                text += f"; {VALID[opt.valid][1]}"
            parser.add_argument(flag, type=option_value(opt), metavar=opt.metavar, help=text)
        else:
            parser.add_argument(flag, metavar=opt.metavar, help=text)


def option_arguments(options: dict) -> List[str]:
    """The simulator's command-line arguments for options keyed by their names in OPTIONS
    (with "_" for "-"): None and False are left out, True is a flag, a list repeats its option,
    a float is written as its shortest round-trip text (the simulator reads back that double)."""
    args = []
    for key, value in options.items():
        if value is None or value is False:
            continue
        flag = "--" + key.replace("_", "-")
        if isinstance(value, (list, tuple)):
            for item in value:
                args += [flag, str(item)]
        elif value is True:
            args.append(flag)
        else:
            args += [flag, repr(value) if isinstance(value, float) else str(value)]
    return args


def _c_string(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def c_table():
    """The text of runtime/app/mcs_options_table.h."""
    kinds = {
        "real": "OPT_REAL",
        "int": "OPT_INT",
        "choice": "OPT_CHOICE",
        "flag": "OPT_FLAG",
        "path": "OPT_PATH",
        "param": "OPT_PARAM",
        "event": "OPT_PARAM",
        "state": "OPT_PARAM",
    }
    lines = [
        "/* mcs_options_table.h - the simulator's command-line options. Generated from",
        " * generator/mcsgen/options.py by `make options-table`: do not edit. */",
        "#ifndef MCS_OPTIONS_TABLE_H",
        "#define MCS_OPTIONS_TABLE_H",
        "",
        "#include <stddef.h>",
        "",
        '#include "mcs/mcs_sim.h"',
        "",
        "typedef enum opt_kind { OPT_REAL, OPT_INT, OPT_CHOICE, OPT_FLAG, OPT_PATH, OPT_PARAM } "
        "opt_kind;",
        "",
        "/* field: offset in mcs_options, or -1 for an option of the simulator itself (matched by",
        " * name). choices: '|'-separated names, whose index is the enum value. */",
        "typedef struct sim_option {",
        "    const char *name;",
        "    opt_kind kind;",
        "    long field;",
        "    const char *choices;",
        "    const char *metavar;",
        "    const char *help;",
        "} sim_option;",
        "",
        "static const sim_option SIM_OPTIONS[] = {",
    ]
    for opt in OPTIONS:
        field = f"(long)offsetof(mcs_options, {opt.field})" if opt.field else "-1"
        help_text = opt.help + (f" (default: {opt.default})" if opt.default else "")
        lines.append(
            f"    {{{_c_string(opt.name)}, {kinds[opt.kind]}, {field}, "
            f"{_c_string('|'.join(opt.choices)) if opt.choices else 'NULL'}, "
            f"{_c_string(opt.metavar) if opt.metavar else 'NULL'},"
        )
        lines.append(f"     {_c_string(help_text)}}},")
    lines += [
        "};",
        "",
        "#define SIM_NOPTIONS (sizeof SIM_OPTIONS / sizeof *SIM_OPTIONS)",
        "",
        "/* --simulator auto takes the banded simulator from this many coordinates */",
        f"#define SIM_BANDED_FROM {BANDED_FROM}",
        "",
        "#endif /* MCS_OPTIONS_TABLE_H */",
        "",
    ]
    return "\n".join(lines)


def markdown_table():
    """The manual's table of simulate options (docs/reference/commands.md), between its markers."""
    rows = [PAGE_BEGIN, "", "| option | default | what |", "|---|---|---|"]
    for opt in OPTIONS:
        arg = f" {opt.metavar}" if opt.metavar else ""
        if opt.kind == "choice":
            arg = " " + "\\|".join(opt.choices)
        default = f"`{opt.default}`" if "<" in opt.default else (opt.default or "—")
        what = opt.help + (f"; {VALID[opt.valid][1]}" if opt.valid else "")
        what = what.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
        rows.append(f"| `--{opt.name}{arg}` | {default} | {what} |")
    rows += ["", PAGE_END]
    return "\n".join(rows)


def write_c_table():
    C_TABLE.write_text(c_table())


def write_page_table():
    text = PAGE.read_text()
    start, end = text.index(PAGE_BEGIN), text.index(PAGE_END) + len(PAGE_END)
    PAGE.write_text(text[:start] + markdown_table() + text[end:])


if __name__ == "__main__":
    write_c_table()
    write_page_table()
