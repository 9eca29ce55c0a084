"""The book's named sweeps: :data:`PRESETS`, for ``python -m ponderlib sweep --preset NAME`` and
``make evidence PRESET=NAME`` (each a :class:`~ponderlib.sweep.spec.Preset`, whose
:meth:`~ponderlib.sweep.spec.Preset.spec` is the sweep to run, and whose
:meth:`~ponderlib.sweep.spec.Preset.config` is one of its runs).

Three kinds, in this order: a lesson's live setting over 20 seeds (:mod:`ponderlib.sweep.live_presets`), the
evidence for which of its claims about a small live run hold in at least 19 of 20 seeds; the papers'
sweeps at their scale, the chapters' runs at convergence and the ablations
(:mod:`ponderlib.sweep.paper_presets`); and each live setting's confirmation set, its seeds 20-39
(:func:`confirmation`). A preset's results are committed as ``evidence/NAME.jsonl``; a test checks that
every committed record is a run of the preset as it stands in code, so changing a preset means running its
evidence again.
"""

from __future__ import annotations

from dataclasses import replace

from ponderlib.experiments.settings import CONFIRMATION_SEEDS
from ponderlib.experiments.settings import LIVE_SEEDS as LIVE_SEEDS
from ponderlib.sweep.live_presets import LIVE_PRESETS
from ponderlib.sweep.paper_presets import BANINO_PARITY as BANINO_PARITY
from ponderlib.sweep.paper_presets import GRAVES_TAUS as GRAVES_TAUS
from ponderlib.sweep.paper_presets import PAPER_PARITY as PAPER_PARITY
from ponderlib.sweep.paper_presets import PAPER_PRESETS, THINKING_TIME_PRESETS
from ponderlib.sweep.paper_presets import PRICED_TAU as PRICED_TAU
from ponderlib.sweep.spec import Preset

CONFIRMATION_SUFFIX = "-confirm"
"""A confirmation set's preset is its live preset's name with this suffix."""


def confirmation(preset: Preset, **grid: list) -> Preset:
    """``preset`` at :data:`~ponderlib.experiments.settings.CONFIRMATION_SEEDS`, its grid narrowed to
    ``grid`` where given (the points the claims are about)."""
    for name, values in grid.items():
        if name not in preset.grid or not set(values) <= set(preset.grid[name]):
            raise ValueError(f"grid must narrow the preset's grid {preset.grid}, got {name}={values!r}")
    return replace(
        preset,
        description=f"The confirmation set (seeds 20-39, run after the claims were fixed) of: {preset.description}",
        grid={**preset.grid, **grid},
        seeds=CONFIRMATION_SEEDS,
    )


CONFIRMED = {
    "act-parity-live": {"halting_bias_init": [1.0]},
    "act-sequence-live": {},
    "pondernet-parity-live": {},
    "pondernet-parity-prior-live": {},
    "act-parity-small-tau-live": {},
    "pondernet-parity-kl-live": {},
    "pointer-sort-live": {},
    "pointer-sort-decoders-live": {},
    "pointer-hull-live": {},
    "ut-chains-live": {},
    "ut-chains-tau-live": {},
}
"""The live settings the lessons make claims about, each with the grid its confirmation set runs."""

PRESETS: dict[str, Preset] = {
    **LIVE_PRESETS,
    **PAPER_PRESETS,
    **{name + CONFIRMATION_SUFFIX: confirmation(LIVE_PRESETS[name], **grid) for name, grid in CONFIRMED.items()},
    **THINKING_TIME_PRESETS,
}
"""Every named sweep: the chapters' live settings over 20 seeds and their confirmation sets, and the papers'
sweeps at their scale (budgets ours; ``--set max_updates=...`` changes them), for ``python -m ponderlib
sweep --preset NAME`` and ``make evidence PRESET=NAME``."""
