"""The version of mcsgen (written into every generated file's banner)."""

__version__ = "0.1.0"
