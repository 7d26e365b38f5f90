"""The command line's parser: the verbs, their arguments and help (docs/reference/commands.md), and
one-line errors for bad arguments."""

import argparse
import re

from ..options import MAX_STATICS_ITER, add_arguments
from ..version import __version__
from .analysis import cmd_modes, cmd_statics
from .drawing import cmd_animate, cmd_plot
from .generation import cmd_audit, cmd_check, cmd_generate, cmd_import_urdf, cmd_misra
from .simulate import cmd_simulate
from .sweep import SKIPPED_SIMULATE_OPTIONS, cmd_sweep


MODEL_HELP = "a mechanism file (path), or the name of a shipped model (models/NAME.yaml)"


def _checked(kind, valid):
    """argparse type: a finite number of `kind` (float or int) passing options.VALID[valid]."""
    from ..options import SimOption, option_value

    return option_value(SimOption("", "real" if kind is float else "int", "", valid=valid))


class _Parser(argparse.ArgumentParser):
    """argparse with one-line errors: `mcsgen simulate: argument --h: expected a number > 0, got
    -1 (see mcsgen simulate --help)`, exit 2 (no usage block)."""

    def error(self, message):
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


# a number as an option's value: argparse takes `-1e-3` for an option unless it is joined
_NUMBER = r"(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?"


_NEGATIVE_NUMBER = re.compile(rf"^-{_NUMBER}(,[-+]?{_NUMBER})*$|^-(inf|nan)$", re.I)  # or X,Y,Z


def join_negative_values(argv):
    """`--h -1e-3` -> `--h=-1e-3`, so a negative number reaches the option (which then says
    whether it takes it) instead of being read as an unknown option."""
    out = []
    for arg in argv:
        if out and out[-1].startswith("--") and "=" not in out[-1] and _NEGATIVE_NUMBER.match(arg):
            out[-1] = f"{out[-1]}={arg}"
        else:
            out.append(arg)
    return out


def _newton_arguments(parser, prefix="", default=50):
    """The Newton options of statics and modes (the sweep's too, with its prefix and no default:
    it refuses them for a simulate run)."""
    parser.add_argument(
        "--no-kc",
        action="store_true",
        help=f"{prefix}leave the tangent stiffness of constraints K_c out (003: statics then fail, "
        "a pendulum has zero stiffness)",
    )
    parser.add_argument(
        "--kkt",
        action="store_true",
        help=f"{prefix}Newton on the full saddle-point matrix [[K, A'], [A, 0]] instead of the "
        "tangent space (a cross-check; fails with dependent rows)",
    )
    parser.add_argument(
        "--max-iter",
        type=_checked(int, "newton-steps"),
        default=default,
        help=f"{prefix}Newton steps (default 50, at most {MAX_STATICS_ITER})",
    )


def _analysis_arguments(parser):
    parser.add_argument("model", metavar="MODEL", help=MODEL_HELP)
    _newton_arguments(parser)
    parser.add_argument(
        "--param", action="append", metavar="NAME=VALUE", help="override a parameter (repeatable)"
    )
    parser.add_argument(
        "--from",
        dest="start",
        metavar="FILE",
        help="start Newton from the configuration x of a statics result (FILE.json) or of a "
        "run (FILE.csv: its last row; FILE.csv@T: its last row at or before t = T) instead of "
        "the model's",
    )
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument("--out", metavar="DIR", help="write JSON and CSV files (and plots) here")


def _generate_verb(sub):
    """generate: derive and emit the C of models."""
    verb = sub.add_parser(
        "generate",
        help="derive and emit C for models",
        description="Derive c, A, c_t, gamma, A_dot, M, f, K_c, K_f, D and emit "
        "generated/<model>/<model>.{h,c}. Skipped when the generator "
        "version and the model file's hash are unchanged.",
    )
    verb.add_argument(
        "models",
        nargs="*",
        metavar="MODEL",
        help="model file or name in models/ (default: every model)",
    )
    verb.add_argument("--force", action="store_true", help="regenerate even when up to date")
    verb.add_argument("--out", metavar="DIR", help="output root instead of generated/")
    verb.add_argument(
        "--firmware",
        action="store_true",
        help="a firmware build: the file's `firmware:` settings (default RK4, continuation "
        "none) as the defaults, only the kernels they need (default output root "
        "build/firmware/generated/)",
    )
    verb.add_argument(
        "--kernels",
        metavar="SETS",
        help="emit only these kernel sets, comma-separated, besides motion: predictor (A_dot), "
        "force_tangents (K_f, D), stiffness (K_c, with force_tangents), transitions (row "
        "groups, switches, events), reactions "
        "(joint_wrenches), linearization (M_x, gamma_x), or all; default every set but "
        "linearization and the file's `kernels:`, or with --firmware what its settings need",
    )
    verb.add_argument(
        "--no-misra",
        action="store_true",
        help="skip the MISRA C:2012 check of the emitted C (by default Cppcheck's addon checks "
        "each model written, and a finding makes the exit status 1: seconds for most models, "
        "about 40 s on 2 cores for a 7-DOF arm's 820 KB of C, which is checked in pieces)",
    )
    verb.set_defaults(func=cmd_generate)


def _misra_verb(sub):
    """misra: the MISRA C:2012 check of the runtime and generated models."""
    verb = sub.add_parser(
        "misra",
        help="MISRA C:2012 check of the runtime and generated models",
        description="Run Cppcheck's MISRA C:2012 addon over the runtime and generated models, "
        "apply misra/deviations.txt, print every finding left; exit 1 if there is one.",
    )
    verb.add_argument("dirs", nargs="*", metavar="DIR", help="generated model directories")
    verb.add_argument("--runtime", action="store_true", help="check the runtime library")
    verb.add_argument(
        "--all",
        action="store_true",
        help="the runtime and every model in generated/; unused deviations are findings",
    )
    verb.set_defaults(func=cmd_misra)


def _check_verb(sub):
    """check: the finite-difference self-check of a model's derived terms."""
    verb = sub.add_parser(
        "check",
        help="compare derived terms with finite differences",
        description="Evaluate the compiled model at random states and compare A, "
        "c_t, gamma, A_dot, K_c, K_f, D (and M, f of Lagrange models) "
        "with central finite differences of lower-order functions.",
    )
    verb.add_argument("model", metavar="MODEL", help=MODEL_HELP)
    verb.add_argument(
        "--samples", type=_checked(int, "count"), default=5, help="random states (default 5)"
    )
    verb.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    verb.add_argument(
        "--tol",
        type=_checked(float, "positive"),
        default=1e-6,
        help="max relative error (default 1e-6; a number > 0)",
    )
    verb.set_defaults(func=cmd_check)


def _audit_verb(sub):
    """audit: the derivation audit report."""
    verb = sub.add_parser(
        "audit",
        help="write the derivation audit report (HTML or Markdown)",
        description="One self-contained report of a model: identity and hashes, bodies, "
        "joints and the origin of every constraint row, every derived term as mathematics with "
        "its CSE definitions and C lines, sparsity pictures and operation counts, the "
        "finite-difference self-check and an entry-by-entry SymPy evaluation of the compiled "
        "kernels, and the physics at the initial state. Exit 1 when verification fails.",
    )
    verb.add_argument("model", metavar="MODEL", help=MODEL_HELP)
    verb.add_argument(
        "--out", metavar="PATH", help="file or directory (default out/<model>/audit.<format>)"
    )
    verb.add_argument("--format", default="html", help="html (default) or md")
    verb.add_argument(
        "--samples",
        type=_checked(int, "count"),
        default=3,
        help="check's random states (default 3)",
    )
    verb.add_argument(
        "--no-misra",
        action="store_true",
        help="leave out the MISRA C:2012 check of the generated C (Cppcheck: seconds for most "
        "models, minutes for a robot's megabytes of C)",
    )
    verb.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    verb.set_defaults(func=cmd_audit)


def _import_urdf_verb(sub):
    """import-urdf: a mechanism file from a URDF robot."""
    verb = sub.add_parser(
        "import-urdf",
        help="write a mechanism file from a URDF robot",
        description="Read a URDF robot description (safely: no DTDs, no entities) and write an "
        "ordinary mechanism file: one spatial body per moving link (fixed joints merged), "
        "revolute, continuous, prismatic and planar joints, joint damping as dampers. The root "
        "link is fixed to the ground; joints start at 0 unless --q says otherwise; gravity is "
        "9.81 m/s^2 along -z. What the import did is printed, one line per item.",
    )
    verb.add_argument("urdf", metavar="ROBOT.urdf")
    verb.add_argument(
        "--out", metavar="MODEL.yaml", help="the file to write (default: <name>.yaml, here)"
    )
    verb.add_argument("--name", help="model name (default: the --out file's, else the robot's)")
    verb.add_argument(
        "--q",
        action="append",
        default=[],
        metavar="JOINT=VALUE",
        help="start position of a joint (rad or m; an expression such as pi/4; default 0)",
    )
    verb.add_argument(
        "--qd",
        action="append",
        default=[],
        metavar="JOINT=VALUE",
        help="start rate of a joint (rad/s or m/s; default 0)",
    )
    verb.add_argument(
        "--gravity", metavar="X,Y,Z", help="gravity in m/s^2, world frame (default 0,0,-9.81)"
    )
    verb.add_argument(
        "--coordinates",
        choices=("joint", "body"),
        default="joint",
        help="the model's coordinates: joint (one per joint's motion, the default) or body "
        "(each body's pose, paper 003's formulation)",
    )
    verb.add_argument(
        "--limits",
        choices=("stops", "comments"),
        default="stops",
        help="the joints' <limit lower upper>: end stops (the default) or comments only",
    )
    verb.set_defaults(func=cmd_import_urdf)


def _simulate_verb(sub):
    """simulate: a run of the solver (the options' one table, options.py)."""
    verb = sub.add_parser(
        "simulate",
        help="build and run the solver, write CSV",
        description="Compile the generated model with the runtime, simulate, write "
        "a CSV and print a summary. Defaults come from the model file.",
    )
    verb.add_argument("model", metavar="MODEL", help=MODEL_HELP)
    add_arguments(verb)  # the one table of simulate options (options.py)
    verb.add_argument("--json", action="store_true", help="also print the summary as JSON")
    verb.set_defaults(func=cmd_simulate)


def _statics_verb(sub):
    """statics: the static equilibrium."""
    verb = sub.add_parser(
        "statics",
        help="static equilibrium (Newton with K_c)",
        description="Solve A'lambda = f(x, 0), c(x) = 0 from the model's initial configuration "
        "by Newton with the tangent stiffness of constraints K_c and a line search; print the "
        "equilibrium, the residual history and the joint reactions (003 §4).",
    )
    _analysis_arguments(verb)
    verb.add_argument("--plot", action="store_true", help="with --out: draw the equilibrium")
    verb.set_defaults(func=cmd_statics)


def _modes_verb(sub):
    """modes: the vibration modes about the equilibrium."""
    verb = sub.add_parser(
        "modes",
        help="vibration modes about the equilibrium",
        description="Find the static equilibrium, linearize there in the tangent space and "
        "print eigenvalues, frequencies, damping and mode shapes (003 §4).",
    )
    _analysis_arguments(verb)
    verb.add_argument("--damped", action="store_true", help="include D (first-order form)")
    verb.add_argument(
        "--count", type=_checked(int, "count"), default=None, help="the first N modes (default all)"
    )
    verb.add_argument(
        "--verify",
        action="store_true",
        help="simulate each mode from the equilibrium and compare the FFT peak with it",
    )
    verb.add_argument("--plot", action="store_true", help="with --out: draw the mode shapes")
    verb.add_argument("--animate", action="store_true", help="with --out: also a GIF of each mode")
    verb.set_defaults(func=cmd_modes)


def _sweep_verb(sub):
    """sweep: many runs over parameter values."""
    verb = sub.add_parser(
        "sweep",
        help="many runs over parameter values (grid, Monte Carlo, table), on a Dask cluster",
        description="Run simulate, statics or modes once per set of parameter values (a grid, "
        "random samples, or a CSV table), each reduced on its worker to the quantities named, "
        "on a local Dask cluster (one worker process per core) or the scheduler given; a CSV "
        "row per run written as runs finish, and a JSON summary next to it. Ctrl-C keeps the "
        "finished rows; --resume completes the sweep.",
    )
    verb.add_argument("model", metavar="MODEL", help=MODEL_HELP)
    verb.add_argument(
        "--param",
        dest="grid",
        action="append",
        metavar="NAME=LO:HI:N|V1,V2,...",
        help="a parameter's values: N from LO to HI, or a list (repeatable)",
    )
    verb.add_argument(
        "--combine",
        choices=("product", "zip"),
        default="product",
        help="several --param: every combination, or their k-th values together (default "
        "product)",
    )
    verb.add_argument(
        "--sample",
        action="append",
        metavar="NAME=DIST",
        help="random values: uniform(LO,HI), normal(MU,SIGMA), truncnormal(MU,SIGMA,LO,HI) "
        "(repeatable)",
    )
    verb.add_argument("--samples", type=_checked(int, "count"), default=0, help="samples to draw")
    verb.add_argument(
        "--seed", type=int, default=0, help="the samples' seed: the same sets on any cluster"
    )
    verb.add_argument("--table", metavar="FILE.csv", help="parameter sets: a header, a row per run")
    verb.add_argument(
        "--run",
        choices=("simulate", "statics", "modes"),
        default="simulate",
        help="what each run is (default simulate, with the simulate options below)",
    )
    verb.add_argument(
        "--quantity",
        action="append",
        metavar="Q",
        help="what a run is reduced to (repeatable): final|max|min|maxabs|mean(COLUMN), "
        "t_event(K), energy_lost(K), steps, t_reached, energy_drift, events; statics: "
        "x(COORDINATE), lambda(K), iterations, residual_c, residual_f; modes: also freq(K), "
        "omega(K), zeta(K), count (default: the final coordinates, the equilibrium, or the "
        "first three frequencies)",
    )
    verb.add_argument(
        "--workers",
        type=_checked(int, "nonnegative"),
        help="local worker processes (default: one per core; 0: serially in this process)",
    )
    verb.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="an existing Dask scheduler")
    verb.add_argument(
        "--batch", type=_checked(int, "count"), help="runs per task (default: by the run count)"
    )
    verb.add_argument(
        "--timeout", type=_checked(float, "positive"), metavar="S", help="seconds per run"
    )
    verb.add_argument(
        "--out",
        metavar="FILE.csv",
        help="the runs' CSV (default out/<model>-sweep.csv); the summary goes to FILE.json",
    )
    verb.add_argument("--resume", action="store_true", help="complete an interrupted sweep's --out")
    _newton_arguments(verb, prefix="statics, modes: ", default=None)
    verb.add_argument("--count", type=_checked(int, "count"), help="modes: the first N")
    verb.add_argument("--damped", action="store_true", help="modes: include D")
    add_arguments(verb, skip=SKIPPED_SIMULATE_OPTIONS)
    verb.set_defaults(func=cmd_sweep)


def _plot_verb(sub):
    """plot: figures of runs, events, bases, modes and sweeps."""
    verb = sub.add_parser(
        "plot",
        help="PNG figures of runs and events",
        description="Plot q_i and qdot_i of one or more runs side by side (as in "
        "the papers' figures), plus constraint residual and energy; "
        "or with --rdiag the diagonal of R over time (002 Figs. 2, 5, "
        "8, 14); with --basis BODY the tangent-basis components of a "
        "body (runs made with simulate --basis; 002 Figs. 10-11); "
        "with --events the admissible motions at each singular "
        "configuration drawn on the mechanism (002 Figs. 3, 6, 9); "
        "with --modes the equilibrium or the mode shapes of a saved "
        "statics/modes result drawn on the mechanism (003 Figs. 3, 5).",
    )
    verb.add_argument("csv", nargs="*", metavar="FILE.csv")
    verb.add_argument("--rdiag", action="store_true", help="diag(R) over time")
    verb.add_argument(
        "--columns",
        metavar="COL,...",
        help="these CSV columns over time, one panel each (e.g. x.crank.theta,v.crank.theta,"
        "energy); with --model, axes carry the coordinates' units",
    )
    verb.add_argument(
        "--momenta",
        action="store_true",
        help="also the generalized momenta P = T'Mv (runs of simulate --momenta; 004 Fig. 4a)",
    )
    verb.add_argument("--basis", metavar="BODY", help="components of T for BODY's coordinates")
    verb.add_argument("--events", metavar="FILE.json", help="draw the motions of an event log")
    verb.add_argument(
        "--model",
        metavar="MODEL",
        help="the model of the runs: draws --events and the bodies of --modes by their joints; "
        "units of --columns and of the q panels",
    )
    verb.add_argument(
        "--modes", metavar="FILE.json", help="draw a statics/modes result (modes --json/--out)"
    )
    verb.add_argument("--animate", action="store_true", help="with --modes: a GIF of each mode")
    verb.add_argument(
        "--out",
        metavar="FILE.png",
        help="output (default: next to the first CSV; with --modes a directory, default the "
        "JSON's)",
    )
    verb.add_argument("--label", action="append", help="legend label per CSV (default: file name)")
    verb.add_argument(
        "--against",
        metavar="PARAM",
        help="a sweep's CSV: its quantities (or --columns) against this parameter",
    )
    verb.add_argument(
        "--hist", action="store_true", help="a sweep's CSV: histograms of its quantities"
    )
    verb.add_argument(
        "--sensitivity",
        action="store_true",
        help="a sweep's CSV: each quantity's standardized regression coefficients on the "
        "parameters",
    )
    verb.set_defaults(func=cmd_plot)


def _animate_verb(sub):
    """animate: a run's mechanism drawn over time."""
    verb = sub.add_parser(
        "animate",
        help="GIF of a run: the mechanism drawn over time",
        description="Draw the bodies and joints of a simulated run over time (planar in 2D, "
        "spatial as a 3D line drawing from the joint points), with the time and the energy in "
        "a corner: a GIF, or an MP4 when ffmpeg is installed.",
    )
    verb.add_argument("csv", metavar="FILE.csv", help="a run written by simulate")
    verb.add_argument("--model", required=True, help="the model of the run (bodies and joints)")
    verb.add_argument(
        "--out", metavar="FILE.gif", help="FILE.gif or FILE.mp4 (default: the CSV's, .gif)"
    )
    verb.add_argument(
        "--frames",
        type=_checked(int, "count"),
        default=100,
        help="frames, at equal times through the run (default 100)",
    )
    verb.add_argument(
        "--fps", type=_checked(int, "count"), default=20, help="frames per second (default 20)"
    )
    verb.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="a parameter value the run was simulated with (repeatable): the joint points are "
        "drawn where that geometry puts them",
    )
    verb.set_defaults(func=cmd_animate)


# the verbs in the order `mcsgen --help` lists them
VERBS = (
    _generate_verb,
    _misra_verb,
    _check_verb,
    _audit_verb,
    _import_urdf_verb,
    _simulate_verb,
    _statics_verb,
    _modes_verb,
    _sweep_verb,
    _plot_verb,
    _animate_verb,
)


def build_parser():
    """The command line's parser: the program's own options, then each verb's sub-parser."""
    parser = _Parser(
        prog="mcsgen",
        description="Mechanism file -> allocation-free C solver with QR "
        "tangent-space continuation.",
    )
    parser.add_argument("--version", action="version", version=f"mcsgen {__version__}")
    sub = parser.add_subparsers(dest="verb", metavar="VERB", parser_class=_Parser)
    sub.required = True
    for add_verb in VERBS:
        add_verb(sub)
    return parser
