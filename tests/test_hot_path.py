"""Arguments are checked once per run, never per training update: the cost of a check must not grow
with the budget."""

import pytest
import torch

from ponderlib.core import validation
from ponderlib.mechanisms.losses import ACTLoss
from ponderlib.tasks.parity import train_parity
from ponderlib.tasks.parity_data import ParityVectors, parity_batch
from ponderlib.tasks.sequence_parity import train_act_sequence
from ponderlib.tasks.sorting import train_sort


def count_checks(monkeypatch) -> dict[str, int]:
    """Count every call of every check of ponderlib.core.validation, wherever it was imported, but
    ``check_rank`` (a model's forward checks the rank of its input, as torch's own modules do: no
    config value, no GPU synchronisation)."""
    import sys

    counts = {"calls": 0}
    for name in [n for n in dir(validation) if n.startswith("check_") and n != "check_rank"]:
        original = getattr(validation, name)

        def counted(*args, _original=original, **kwargs):
            counts["calls"] += 1
            return _original(*args, **kwargs)

        for module in [m for m in list(sys.modules.values()) if getattr(m, "__name__", "").startswith("ponderlib")]:
            if getattr(module, name, None) is original:
                monkeypatch.setattr(module, name, counted)
    return counts


@pytest.mark.parametrize(
    "train, fields",
    [
        (train_parity, dict(method="act", n_elems=4, hidden=8, difficulty_eval_size=4)),
        (train_parity, dict(method="pondernet", n_elems=4, hidden=8, difficulty_eval_size=4)),
        (train_act_sequence, dict(n_elems=3, seq_len=2, hidden=8)),
        (train_sort, dict(hidden=8, attention_dim=8, test_size=8)),
    ],
    ids=["parity-act", "parity-pondernet", "sequence-parity", "sorting"],
)
def test_no_check_runs_per_training_update(monkeypatch, one_thread, train, fields):
    counts = count_checks(monkeypatch)
    calls = []
    for updates in (4, 12):
        counts["calls"] = 0
        train(max_updates=updates, eval_every=100, eval_size=8, target_accuracy=None, progress=False, **fields)
        calls.append(counts["calls"])
    assert calls[0] == calls[1], f"argument checks grew with the budget: {calls[0]} for 4 updates, {calls[1]} for 12"


def test_parity_vectors_check_once_and_draw_what_parity_batch_draws():
    vectors = ParityVectors(6, 2, 4)
    drawn = vectors.draw(32, torch.Generator().manual_seed(1))
    batch = parity_batch(32, 6, 2, 4, generator=torch.Generator().manual_seed(1))
    assert torch.equal(drawn.inputs, batch.inputs) and torch.equal(drawn.targets, batch.targets)
    assert ((drawn.difficulty >= 2) & (drawn.difficulty <= 4)).all()
    assert ParityVectors(5).max_nonzero == 5
    sequences = ParityVectors(3, seq_len=4).draw(2, torch.Generator().manual_seed(0))
    assert sequences.inputs.shape == (2, 4, 3) and sequences.targets.shape == sequences.difficulty.shape == (2, 4)
    with pytest.raises(ValueError, match="max_nonzero must be an integer in \\[3, 6\\], got 2"):
        ParityVectors(6, 3, 2)
    with pytest.raises(ValueError, match=r"seq_len must be an integer in \[1, 10000\]"):
        ParityVectors(6, seq_len=0)


def test_act_loss_checks_tau_once_and_adds_tau_times_the_mean_ponder_cost():
    loss = ACTLoss(0.5)
    task, cost = torch.tensor(1.0), torch.tensor([2.0, 4.0])
    assert loss(task, cost).item() == 1.0 + 0.5 * 3.0
    with pytest.raises(ValueError, match="tau must be a finite number >= 0"):
        ACTLoss(-0.1)
