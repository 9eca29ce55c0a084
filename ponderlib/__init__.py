"""ponderlib: the models, losses, data, training engine, plots and widgets of *Learning to Ponder*.

Three kinds of module, and imports only run downwards:

- **the engine**, which knows no paper and no task: :mod:`~ponderlib.engine` (the shared training
  fields, the loop, the history, the result base, start-up), :mod:`~ponderlib.device`,
  :mod:`~ponderlib.validation`, and :mod:`~ponderlib.data` (parity vectors, shared by two tasks);
- **mechanisms**, one paper each, which import no task: :mod:`~ponderlib.halting`,
  :mod:`~ponderlib.losses`, :mod:`~ponderlib.act` (Graves 2016), :mod:`~ponderlib.pondernet`
  (Banino et al. 2021), :mod:`~ponderlib.attention` (Bahdanau et al. 2015), :mod:`~ponderlib.pointer`
  (Vinyals et al. 2015), :mod:`~ponderlib.universal_transformer` (Dehghani et al. 2019);
- **tasks**, each with its models, loss, metrics, config and train function:
  :mod:`~ponderlib.parity`, :mod:`~ponderlib.sequence_parity`, :mod:`~ponderlib.sorting`,
  :mod:`~ponderlib.convex_hull`, :mod:`~ponderlib.chains`.

On top of them: :mod:`~ponderlib.tasks` (every task by name), :mod:`~ponderlib.sweep` (seeds and
settings on local workers or Ray), :mod:`~ponderlib.experiments` (the chapters' experiments),
:mod:`~ponderlib.cli` (``python -m ponderlib``), and the figures: :mod:`~ponderlib.plots`,
:mod:`~ponderlib.pointer_plots`, :mod:`~ponderlib.transformer_plots`, :mod:`~ponderlib.sweep_plots`,
:mod:`~ponderlib.widgets` (figure switchers that work in the static HTML book).

The names below are the parity core; the other modules are imported by name.
"""

from ponderlib.act import ACT, ACTRNN, ACTOutput, ACTSequenceOutput
from ponderlib.data import ParityBatch, parity_batch
from ponderlib.device import get_device
from ponderlib.engine import TrainConfig, fit, make_generator, setup_chapter
from ponderlib.halting import ACTHalting, act_halting, expected_ponder_steps, geometric_prior, pondernet_halting
from ponderlib.losses import PonderNetLoss, act_loss, kl_to_geometric, pondernet_loss, reconstruction_loss
from ponderlib.parity import (
    ParityConfig,
    ParityResult,
    act_parity_model,
    evaluate_parity,
    pondernet_parity_model,
    predict_parity,
    train_parity,
)
from ponderlib.pondernet import PonderNet, PonderNetInference, PonderNetOutput

__version__ = "0.3.0"

__all__ = [
    "ACT",
    "ACTRNN",
    "ACTHalting",
    "ACTOutput",
    "ACTSequenceOutput",
    "ParityBatch",
    "ParityConfig",
    "ParityResult",
    "PonderNet",
    "PonderNetInference",
    "PonderNetLoss",
    "PonderNetOutput",
    "TrainConfig",
    "act_halting",
    "act_loss",
    "act_parity_model",
    "evaluate_parity",
    "expected_ponder_steps",
    "fit",
    "geometric_prior",
    "get_device",
    "kl_to_geometric",
    "make_generator",
    "parity_batch",
    "pondernet_halting",
    "pondernet_loss",
    "pondernet_parity_model",
    "predict_parity",
    "reconstruction_loss",
    "setup_chapter",
    "train_parity",
]
