"""``python -m ponderlib``: see :mod:`ponderlib.cli`."""

import sys

try:
    from ponderlib.cli import main
except KeyboardInterrupt:  # Ctrl-C while torch and the library load: end as the command does, quietly
    sys.exit(130)

sys.exit(main())
