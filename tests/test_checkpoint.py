"""The network a run scores (final, or the best evaluation's) and the cap on ponder steps at evaluation."""

import pytest
import torch
from torch import nn

from ponderlib.core.config import TrainConfig
from ponderlib.core.engine import fit
from ponderlib.mechanisms.act import ACT
from ponderlib.mechanisms.pondernet import PonderNet
from ponderlib.tasks.parity import ParityConfig, train_parity
from ponderlib.tasks.parity_eval import predict_parity


class KeepAccuracy(TrainConfig):
    def checkpoint_metric(self):
        return "accuracy"


def scripted_fit(config, scores):
    """Fit a one-weight model whose weight after update u is u (each update adds 1), scored by ``scores``
    in turn: the weight restored tells which evaluation was kept."""
    model = nn.Linear(1, 1, bias=False)
    nn.init.zeros_(model.weight)
    scores = iter(scores)

    def loss(model, batch):  # d loss / d w = -1: Adam's first step moves w by lr = 1 in the gradient's sign, every step
        return -model.weight.sum()

    config.lr, config.grad_clip, config.max_updates, config.eval_every = 1.0, 1e6, 6, 1
    result = fit(model, lambda: None, loss, lambda model: {"accuracy": next(scores)}, config,
                 target_metric="accuracy", desc="")
    return model.weight.item(), result


def test_the_best_evaluation_is_restored_after_training_the_first_on_a_tie():
    weight_at = [scripted_fit(TrainConfig(progress=False), [0.0] * 6)[0]]
    assert weight_at[0] == pytest.approx(6.0, abs=1e-3)  # six Adam steps of 1
    weight, result = scripted_fit(KeepAccuracy(progress=False), [0.1, 0.5, 0.9, 0.2, 0.9, 0.3])
    assert result.checkpoint_update == 3 and weight == pytest.approx(3.0, abs=1e-3)
    assert result.history.metrics["accuracy"][-1] == 0.3  # the curve still ends with the final network's


def test_a_nan_first_evaluation_is_not_kept_against_a_later_number():
    weight, result = scripted_fit(KeepAccuracy(progress=False), [float("nan"), 0.2, 0.1, 0.1, 0.1, 0.1])
    assert result.checkpoint_update == 2 and weight == pytest.approx(2.0, abs=1e-3)


def test_the_final_network_by_default_and_no_checkpoint_field():
    weight, result = scripted_fit(TrainConfig(progress=False), [0.9, 0.1, 0.1, 0.1, 0.1, 0.1])
    assert result.checkpoint_update is None and weight == pytest.approx(6.0, abs=1e-3)


def test_parity_keeps_the_network_most_accurate_beyond_the_trained_range():
    config = ParityConfig(
        method="pondernet", n_elems=6, hidden=8, max_nonzero=3, max_updates=8, eval_every=2, eval_size=64,
        target_accuracy=None, difficulty_eval_size=8, checkpoint="best-beyond", progress=False,
    )
    summary = train_parity(config).summary()
    curve = summary["curve"]
    best = max(range(len(curve["update"])), key=lambda i: (curve["extrapolation_accuracy"][i], -i))
    assert summary["checkpoint_update"] == curve["update"][best]
    assert "checkpoint_update" not in train_parity(ParityConfig(**{**config.to_dict(), "checkpoint": "final"})).summary()


@pytest.mark.parametrize(
    "overrides, message",
    [
        (dict(checkpoint="best-beyond"), "checkpoint best-beyond needs vectors beyond the trained range"),
        (dict(checkpoint="best-beyond", max_nonzero=3, min_nonzero=2), "checkpoint best-beyond needs"),
        (dict(checkpoint="last"), "checkpoint"),
        (dict(eval_max_ponder_steps=19), "eval_max_ponder_steps"),
        (dict(eval_max_ponder_steps=10**9), "eval_max_ponder_steps"),
    ],
)
def test_bad_checkpoint_or_evaluation_cap(overrides, message):
    with pytest.raises(ValueError, match=message):
        ParityConfig(n_elems=6, progress=False, **overrides).validate()


class NeverHalts(nn.Module):
    """A step function whose lambda_n is 0: only the cap stops it."""

    input_size = 2

    def forward(self, x, h):
        return x.sum(1, keepdim=True), h + 1, x.new_zeros(x.shape[0])


def test_a_larger_cap_at_inference_lets_both_methods_ponder_beyond_the_training_cap():
    x = torch.ones(3, 2)
    pondernet = PonderNet(NeverHalts(), hidden_size=4, max_ponder_steps=5)
    assert pondernet.infer(x).ponder_steps.tolist() == [5, 5, 5]
    assert pondernet.infer(x, max_ponder_steps=12).ponder_steps.tolist() == [12, 12, 12]
    act = ACT(nn.GRUCell(3, 4), nn.Linear(4, 1), hidden_size=4, max_ponder_steps=5, halting_bias_init=-30.0)
    assert act(x).ponder_steps.tolist() == [5, 5, 5]
    logits, steps = predict_parity(act, x, max_ponder_steps=9)
    assert steps.tolist() == [9, 9, 9] and logits.shape == (3,)
    for call in (lambda: pondernet.infer(x, max_ponder_steps=0), lambda: act(x, max_ponder_steps=10**9)):
        with pytest.raises(ValueError, match="max_ponder_steps"):
            call()


def test_parity_scores_with_the_evaluation_cap():
    config = dict(method="pondernet", n_elems=4, hidden=8, max_ponder_steps=2, max_updates=2, eval_every=2,
                  eval_size=64, target_accuracy=None, difficulty_eval_size=8, lambda_p=0.01, progress=False)
    capped = train_parity(**config).summary()
    lifted = train_parity(**config, eval_max_ponder_steps=40).summary()
    assert max(capped["ponder_steps_by_difficulty"].values()) <= 2
    assert max(lifted["ponder_steps_by_difficulty"].values()) > 2  # lambda_n near 0.5 at first: some go past 2
    assert len(lifted["halting_distribution"]) == 2  # p_n is the training unroll's, under the training cap
