"""Errors the user sees as one line: file, field, problem. Never a traceback."""


class McsError(Exception):
    """Base class of every error the command line reports as a single message."""


class ModelError(McsError):
    """A mechanism file is wrong. `field` is a dotted path such as `constraints[1].expr`."""

    def __init__(self, path, field, problem):
        self.path = str(path)
        self.field = field
        self.problem = problem
        where = f"{self.path}: {field}" if field else self.path
        super().__init__(f"{where}: {problem}")


class Interrupted(McsError):
    """The user stopped a run (Ctrl-C); what was written so far is valid. Exit status 130."""


class BuildError(McsError):
    """The C compiler or the linked solver failed."""
