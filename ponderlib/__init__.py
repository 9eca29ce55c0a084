"""ponderlib: the models, losses, data, training engine, sweeps, plots and widgets of *Learning to Ponder*.

The folders are the layers, and imports only run downwards:

- :mod:`ponderlib.core`, the engine, which knows no paper and no task (the training loop, configs,
  results, seeds, device, argument checks);
- :mod:`ponderlib.mechanisms`, one paper each, which import no task (halting, losses, ACT, PonderNet,
  attention, pointer networks, the Universal Transformer);
- :mod:`ponderlib.tasks`, one module per task with its data, models, loss, metrics, config and train
  function, and the registry of every task by name;
- on top: :mod:`ponderlib.sweep` (seeds and settings, resumable, in-process, on local workers or Ray),
  :mod:`ponderlib.experiments` (what the chapters compute), :mod:`ponderlib.figures` (figures,
  widgets, the book's colours) and :mod:`ponderlib.cli` (``python -m ponderlib``).

The names below are the parity core; everything else is imported from its module.
"""

from ponderlib._version import __version__
from ponderlib.core.config import TrainConfig
from ponderlib.core.device import get_device
from ponderlib.core.engine import fit, setup_chapter
from ponderlib.core.seeds import stream_generator
from ponderlib.mechanisms.act import ACT, ACTRNN, ACTOutput, ACTSequenceOutput
from ponderlib.mechanisms.halting import (
    ACTHalting,
    act_halting,
    expected_ponder_steps,
    geometric_prior,
    pondernet_halting,
)
from ponderlib.mechanisms.losses import (
    ACTLoss,
    PonderNetLoss,
    kl_to_geometric,
    reconstruction_loss,
)
from ponderlib.mechanisms.pondernet import PonderNet, PonderNetInference, PonderNetOutput
from ponderlib.tasks.parity import ParityConfig, ParityResult, train_parity
from ponderlib.tasks.parity_data import ParityBatch, ParityVectors, parity_batch
from ponderlib.tasks.parity_eval import evaluate_parity, predict_parity
from ponderlib.tasks.parity_models import act_parity_model, pondernet_parity_model

__all__ = [
    "ACT",
    "ACTRNN",
    "ACTHalting",
    "ACTLoss",
    "ACTOutput",
    "ACTSequenceOutput",
    "ParityBatch",
    "ParityConfig",
    "ParityResult",
    "ParityVectors",
    "PonderNet",
    "PonderNetInference",
    "PonderNetLoss",
    "PonderNetOutput",
    "TrainConfig",
    "__version__",
    "act_halting",
    "act_parity_model",
    "evaluate_parity",
    "expected_ponder_steps",
    "fit",
    "geometric_prior",
    "get_device",
    "kl_to_geometric",
    "parity_batch",
    "pondernet_halting",
    "pondernet_parity_model",
    "predict_parity",
    "reconstruction_loss",
    "setup_chapter",
    "stream_generator",
    "train_parity",
]
