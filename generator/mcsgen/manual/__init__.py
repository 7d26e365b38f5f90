"""The manual's generated pages and its build (`make docs`, MkDocs).

`reference.py` writes the reference pages from the code they describe: the command line from the
argument parser, the simulate options from `options.py`, the C API from the public headers'
comments, the status codes from `mcs_status.h`; `schema.py` the mechanism-file schema from what
the loader accepts; `hooks.py` adds those pages and the local MathJax to the MkDocs build;
`examples.py` reads the tutorial's and the how-to guides' commands and files, which the tests
run (tests/docs/).
"""
