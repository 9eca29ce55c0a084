"""Sweeps: one task trained over a grid of config values times a list of seeds, in this process, on
local worker processes, or on a Ray cluster, with every finished run appended to a results file, so an
interrupted sweep resumes where it stopped.

- :mod:`~ponderlib.sweep.spec`: what a sweep trains (task, grid, fixed fields, seeds), checked and
  planned once by :func:`make_spec`; a named sweep (:class:`Preset`) and one run of it; spec files
  (:func:`load_spec`).
- :mod:`~ponderlib.sweep.results`: the results file (one JSON line per finished run) and run keys.
- :mod:`~ponderlib.sweep.executors`: where runs train (``"inprocess"``, ``"pool"``, ``"ray"``).
- :mod:`~ponderlib.sweep.runner`: :func:`sweep` itself and its :class:`SweepReport`.
- :mod:`~ponderlib.sweep.summary`: the mean and spread over seeds per grid point.
- :mod:`~ponderlib.sweep.presets`: every named sweep: the lessons' live settings over 20 seeds
  (:mod:`~ponderlib.sweep.live_presets`) and their confirmation sets, and the papers' sweeps at their scale
  (:mod:`~ponderlib.sweep.paper_presets`).
- :mod:`~ponderlib.sweep.evidence`: a preset's committed results read back (:class:`Evidence`), and in
  how many seeds a claim holds (:class:`Rate`).
"""

from ponderlib.sweep.evidence import Evidence, Rate
from ponderlib.sweep.executors import EXECUTORS, GPU_SHARE
from ponderlib.sweep.presets import BANINO_PARITY, GRAVES_TAUS, PAPER_PARITY, PRESETS
from ponderlib.sweep.results import RECORD_KEYS, load_results, run_key
from ponderlib.sweep.runner import SweepIncomplete, SweepReport, sweep
from ponderlib.sweep.spec import Preset, Run, SweepSpec, expand_grid, load_spec, make_spec
from ponderlib.sweep.summary import format_summary, run_metrics, summarize

__all__ = [
    "BANINO_PARITY",
    "EXECUTORS",
    "Evidence",
    "GPU_SHARE",
    "GRAVES_TAUS",
    "PAPER_PARITY",
    "PRESETS",
    "RECORD_KEYS",
    "Preset",
    "Rate",
    "Run",
    "SweepIncomplete",
    "SweepReport",
    "SweepSpec",
    "expand_grid",
    "format_summary",
    "load_results",
    "load_spec",
    "make_spec",
    "run_key",
    "run_metrics",
    "summarize",
    "sweep",
]
