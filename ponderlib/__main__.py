"""``python -m ponderlib``: see :mod:`ponderlib.cli`."""

import sys

from ponderlib.cli import main

sys.exit(main())
