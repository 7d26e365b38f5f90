"""python3 -m mcsgen: the command line (cli/)."""

import sys

from .cli import main

sys.exit(main())
