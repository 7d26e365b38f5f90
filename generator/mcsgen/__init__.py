"""mcsgen: mechanism files -> specialized, allocation-free C solvers (see README.md)."""

__version__ = "0.1.0"
