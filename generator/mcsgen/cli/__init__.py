"""Command line: ./mcsgen generate | misra | check | audit | import-urdf | simulate | statics |
modes | plot | animate (docs/reference/commands.md). One module per job: parser.py (the verbs and
their arguments), a module per group of verbs (generation.py, simulate.py, analysis.py,
drawing.py: each verb one API call and its printing), report.py (a run's summary in lines),
spinner.py (progress on a terminal)."""

import sys

from ..errors import Interrupted, McsError
from .parser import build_parser, join_negative_values

__all__ = ["build_parser", "join_negative_values", "main"]


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(join_negative_values(sys.argv[1:] if argv is None else list(argv)))
    try:
        return args.func(args)
    except Interrupted as exc:
        print(f"mcsgen: {exc}", file=sys.stderr)
        return 130
    except McsError as exc:
        print(f"mcsgen: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:  # a path the user gave that cannot be read or written
        where = exc.filename or "input/output"
        print(f"mcsgen: {args.verb}: {where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("mcsgen: interrupted", file=sys.stderr)
        return 130
