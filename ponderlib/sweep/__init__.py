from ponderlib.sweep.runner import *  # noqa: F401,F403
from ponderlib.sweep.runner import _read_results  # noqa: F401
