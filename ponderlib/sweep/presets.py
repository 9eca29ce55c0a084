"""The book's named sweeps: :data:`PRESETS`, for ``python -m ponderlib sweep --preset NAME`` and
``make evidence PRESET=NAME`` (each a :class:`Preset`, whose :meth:`~Preset.spec` is the sweep to run).

Two kinds: the papers' sweeps at their scale, and a chapter's live setting over 20 seeds, the
evidence for which of its claims about a small live run hold in at least 19 of 20 seeds. A preset's
results are committed as ``evidence/NAME.jsonl``; a test checks that every committed record is a run
of the preset as it stands in code, so changing a preset means running its evidence again.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ponderlib.sweep.spec import SweepSpec


@dataclass(frozen=True)
class Preset:
    """A paper's sweep at the paper's scale: what it reproduces, and its task, grid, fixed fields,
    seeds and budget in training updates (``max_updates``)."""

    description: str
    task: str
    grid: dict[str, list]
    fixed: dict[str, Any]
    seeds: list[int]
    max_updates: int

    @property
    def runs(self) -> int:
        """Grid points times seeds."""
        return math.prod(len(values) for values in self.grid.values()) * len(self.seeds)

    def spec(self) -> SweepSpec:
        """The preset as a :class:`~ponderlib.sweep.spec.SweepSpec` (its budget in ``fixed``), not yet
        checked: :func:`~ponderlib.sweep.runner.sweep` takes its fields and checks them."""
        grid = {name: list(values) for name, values in self.grid.items()}
        return SweepSpec(self.task, grid, list(self.seeds), {**self.fixed, "max_updates": self.max_updates})


GRAVES_TAUS = sorted({float(f"{i}e-{j}") for i in range(1, 10) for j in range(1, 5)})
"""Graves' time penalties for parity: ``tau = i x 10^-j`` for i = 1..9, j = 1..4 (36 values, 1e-4 to 0.9)."""

PAPER_PARITY = {"n_elems": 64, "hidden": 128, "batch_size": 128, "target_accuracy": None, "eval_every": 1000}
"""What the three parity presets share: 64-element vectors, 128 units, 128 vectors per training
update, the whole budget trained (no early stop), held-out accuracy every 1000 training updates."""

BANINO_PARITY = {**PAPER_PARITY, "lr": 3e-4, "beta": 0.01, "max_ponder_steps": 20}
"""What Banino et al.'s two parity sweeps add: Adam at lr 3e-4, beta 0.01, at most 20 ponder steps."""

CHAPTER_1_PARITY = {
    "method": "act", "n_elems": 8, "hidden": 64, "batch_size": 256, "lr": 5e-3, "tau": 1e-2, "target_accuracy": None,
}
"""Chapter 1's live setting (``SETTING`` there): ACT on 8-element parity, a GRU cell of 64 units, 256
vectors per training update, Adam at 5e-3, tau 0.01, the whole budget trained."""

CHAPTER_2_PARITY = {
    "n_elems": 8, "max_nonzero": 6, "hidden": 64, "max_ponder_steps": 20, "batch_size": 128, "beta": 0.01,
    "lambda_p": 0.3, "tau": 0.01, "target_accuracy": None, "eval_every": 500, "eval_size": 1024,
    "difficulty_eval_size": 512,
}
"""Chapter 2's live setting (``MAIN`` there): 8-element parity trained on 1 to 6 non-zero entries, a GRU
cell of 64 units, at most 20 ponder steps, 128 vectors per training update, each method at its default
learning rate, the whole budget trained."""

PRESETS: dict[str, Preset] = {
    "act-parity-live": Preset(
        description=(
            "Chapter 1's live runs over 20 seeds (the chapter trains seeds 0-2): ACT on 8-element parity, "
            "a GRU cell of 64 units, batch 256, Adam at lr 5e-3, tau 0.01, 5,000 training updates, with "
            "the halting unit's initial bias b_h = 3 (the chapter's main runs) and 1 (Graves' value, its "
            "contrast). Each run reports accuracy and ponder steps at every difficulty and their correlation."
        ),
        task="parity",
        grid={"halting_bias_init": [3.0, 1.0]},
        fixed=CHAPTER_1_PARITY,
        seeds=list(range(20)),
        max_updates=5_000,
    ),
    "pondernet-parity-live": Preset(
        description=(
            "Chapter 2's live runs over 20 seeds (the chapter trains seeds 0-2): PonderNet with the paper's "
            "and the reverse KL (lambda_p 0.3, beta 0.01) and ACT (tau 0.01) on 8-element parity trained on "
            "1 to 6 non-zero entries, a GRU cell of 64 units, at most 20 ponder steps, batch 128, 2,000 "
            "training updates. ACT has no KL: its two kl_direction rows are the same runs twice, a check that "
            "a run repeats exactly on one machine. Each run reports accuracy and ponder steps (executed and "
            "expected) at every difficulty, and interpolation and extrapolation accuracy."
        ),
        task="parity",
        grid={"method": ["pondernet", "act"], "kl_direction": ["paper", "reverse"]},
        fixed=CHAPTER_2_PARITY,
        seeds=list(range(20)),
        max_updates=2_000,
    ),
    "graves-parity-tau": Preset(
        description=(
            "Graves 2016, sec. 3.1 (fig. 3, 4): ACT on 64-element parity, 1 to 64 non-zero entries, "
            "error and ponder time against the time penalty tau = i x 10^-j (i = 1..9, j = 1..4), "
            "20 networks per tau; batch 128, Adam at lr 1e-4, at most M = 100 ponder steps. The paper's network is a simple RNN of "
            "128 tanh units; ours is a GRU cell of 128 units (the book's model for both methods)."
        ),
        task="parity",
        grid={"tau": GRAVES_TAUS},
        fixed={**PAPER_PARITY, "method": "act", "lr": 1e-4, "eps": 0.01, "max_ponder_steps": 100},
        seeds=list(range(20)),
        max_updates=100_000,
    ),
    "pondernet-parity-interpolation": Preset(
        description=(
            "Banino et al. 2021, sec. 3.1 (interpolation): PonderNet on 64-element parity, 1 to 64 "
            "non-zero entries in training and test, over the prior's lambda_p = 0.1..0.9, beta 0.01, "
            "at most 20 ponder steps, batch 128, Adam at lr 3e-4, 10 seeds; a GRU cell of 128 units."
        ),
        task="parity",
        grid={"lambda_p": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]},
        fixed={**BANINO_PARITY, "method": "pondernet"},
        seeds=list(range(10)),
        max_updates=100_000,
    ),
    "pondernet-parity-extrapolation": Preset(
        description=(
            "Banino et al. 2021, sec. 3.1 (extrapolation): ACT (tau 1e-3) and PonderNet (lambda_p 0.1, "
            "beta 0.01) on 96-element parity trained on 1 to 48 non-zero entries, at most 20 ponder "
            "steps, batch 128, Adam at lr 3e-4, 10 seeds; a GRU cell of 128 units. Each run reports "
            "interpolation_accuracy (1 to 48 entries), extrapolation_accuracy (49 to 96) and accuracy "
            "and ponder steps at every difficulty."
        ),
        task="parity",
        grid={"method": ["act", "pondernet"]},
        fixed={**BANINO_PARITY, "n_elems": 96, "min_nonzero": 1, "max_nonzero": 48, "tau": 1e-3, "lambda_p": 0.1},
        seeds=list(range(10)),
        max_updates=100_000,
    ),
}
"""The chapters' live settings over 20 seeds, and the papers' parity sweeps at their scale (budgets ours:
100,000 training updates each; ``--set max_updates=...`` changes them), for ``python -m ponderlib sweep
--preset NAME`` and ``make evidence PRESET=NAME``."""
