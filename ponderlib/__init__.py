"""ponderlib: the models, losses, data, training loops, plots and widgets of *Learning to Ponder*.

One concept per module:

- halting and pondering: :mod:`~ponderlib.halting` (ACT's and PonderNet's halting distributions),
  :mod:`~ponderlib.losses`, :mod:`~ponderlib.act`, :mod:`~ponderlib.pondernet`,
  :mod:`~ponderlib.models` (parity models), :mod:`~ponderlib.sequence` (ACT in an RNN);
- pointing: :mod:`~ponderlib.attention` (additive attention), :mod:`~ponderlib.pointer` (pointer
  network and seq2seq baselines), :mod:`~ponderlib.sorting` (sorting data);
- data, training and experiments: :mod:`~ponderlib.data` (parity data), :mod:`~ponderlib.training`
  (the one training loop), :mod:`~ponderlib.experiments` (sweeps and comparisons),
  :mod:`~ponderlib.cli` (``python -m ponderlib``), :mod:`~ponderlib.device`;
- figures: :mod:`~ponderlib.plots`, :mod:`~ponderlib.pointer_plots`, :mod:`~ponderlib.widgets`
  (figure switchers that work in the static HTML book).

The names below are the parity core; the other modules are imported by name.
"""

from ponderlib.act import ACT, ACTRNN, ACTOutput, ACTSequenceOutput
from ponderlib.data import ParityBatch, make_generator, parity_batch, parity_sequence_batch
from ponderlib.device import get_device
from ponderlib.halting import ACTHalting, act_halting, expected_steps, geometric_prior, pondernet_halting
from ponderlib.losses import act_loss, kl_to_geometric, pondernet_loss, reconstruction_loss
from ponderlib.models import act_parity_model, pondernet_parity_model
from ponderlib.pondernet import PonderNet, PonderNetInference, PonderNetOutput
from ponderlib.training import ParityConfig, ParityResult, evaluate_parity, fit, predict_parity, train_parity

__version__ = "0.1.0"

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
    "PonderNetOutput",
    "act_halting",
    "act_loss",
    "act_parity_model",
    "evaluate_parity",
    "expected_steps",
    "fit",
    "geometric_prior",
    "get_device",
    "kl_to_geometric",
    "make_generator",
    "parity_batch",
    "parity_sequence_batch",
    "pondernet_halting",
    "pondernet_loss",
    "pondernet_parity_model",
    "predict_parity",
    "reconstruction_loss",
    "train_parity",
]
