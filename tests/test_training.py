"""Training: both methods learn small parity, the loop's stopping rules, Ctrl-C keeps the model."""

import json
import os

import pytest
import torch

from ponderlib.core.config import PROGRESS_VARIABLE, progress_enabled
from ponderlib.core.stats import pearson_correlation, round_or_none
from ponderlib.tasks.parity import ParityConfig, extrapolation_held_out, train_parity


@pytest.mark.parametrize("method", ["act", "pondernet"])
def test_both_methods_learn_4_element_parity(method):
    # A step budget, not a time budget: the outcome does not depend on how busy the machine is.
    result = train_parity(
        method=method, n_elems=4, hidden=32, max_ponder_steps=10, target_accuracy=0.98, max_seconds=None,
        max_updates=600, progress=False,
    )
    assert result.final_accuracy >= 0.9  # chance is 0.5
    assert result.fit.updates > 0 and len(result.history.update) >= 1
    assert 1.0 <= result.mean_ponder_steps <= 10.0


def test_seeded_runs_are_identical():
    runs = [
        train_parity(method="pondernet", n_elems=4, hidden=8, max_updates=20, eval_every=10,
                     target_accuracy=None, progress=False, seed=5)
        for _ in range(2)
    ]
    assert runs[0].history.loss == runs[1].history.loss
    for a, b in zip(runs[0].model.parameters(), runs[1].model.parameters()):
        assert torch.equal(a, b)


def test_keyboard_interrupt_returns_the_model_and_history(monkeypatch):
    import ponderlib.tasks.parity as parity

    calls = {"n": 0}
    original = parity.parity_objective

    def interrupting_objective(config, device=None):
        objective = original(config, device)

        def interrupting(*args):
            calls["n"] += 1
            if calls["n"] == 30:
                raise KeyboardInterrupt
            return objective(*args)

        return interrupting

    monkeypatch.setattr(parity, "parity_objective", interrupting_objective)
    result = train_parity(method="act", n_elems=4, hidden=8, eval_every=10, max_seconds=60, progress=False)
    assert result.fit.interrupted
    assert result.fit.updates == 29
    assert result.history.update == [10, 20, 29]
    assert result.summary()["interrupted"] is True


def test_summary_has_the_cli_fields():
    summary = train_parity(method="act", n_elems=4, hidden=8, max_updates=5, target_accuracy=None,
                           progress=False).summary()
    for key in ["task", "method", "n_elems", "device", "seed", "reached_target", "seconds_to_target",
                "updates", "final_accuracy", "mean_ponder_steps"]:
        assert key in summary
    assert summary["seconds_to_target"] is None and summary["reached_target"] is False


@pytest.mark.parametrize(
    "overrides, name",
    [
        (dict(lambda_p=0.0), "lambda_p"),
        (dict(lambda_p=1.01), "lambda_p"),
        (dict(tau=-0.1), "tau"),
        (dict(max_ponder_steps=0), "max_ponder_steps"),
        (dict(n_elems=0), "n_elems"),
        (dict(method="lstm"), "method"),
        (dict(kl_direction="forward"), "kl_direction"),
        (dict(device="tpu"), "device"),
        (dict(target_accuracy=None, max_updates=None, max_seconds=None), "training never stops"),
    ],
)
def test_bad_config(overrides, name):
    with pytest.raises(ValueError, match=name):
        train_parity(ParityConfig(progress=False, **overrides))


def test_learning_rate_defaults_per_method():
    assert ParityConfig(method="act").learning_rate == 5e-3
    assert ParityConfig(method="pondernet").learning_rate == 1e-2
    assert ParityConfig(method="act", lr=0.1).learning_rate == 0.1
    with pytest.raises(ValueError, match="lr must be a finite number > 0"):
        ParityConfig(lr=0.0, progress=False).validate()


def test_summary_reports_ponder_steps_and_accuracy_by_difficulty():
    result = train_parity(method="act", n_elems=4, hidden=8, max_updates=5, target_accuracy=None, max_nonzero=3,
                          difficulty_eval_size=16, progress=False)
    summary = result.summary()
    assert list(summary["accuracy_by_difficulty"]) == ["1", "2", "3", "4"]
    assert all(1.0 <= steps <= 20.0 for steps in summary["ponder_steps_by_difficulty"].values())
    # The correlation is Pearson's r over every scored vector of the training range 1..3 (None when every
    # vector ponders equally long), recomputed here from the per-sample scores.
    evaluation = result.by_difficulty
    trained = evaluation.sample_difficulty <= 3
    recomputed = pearson_correlation(evaluation.sample_difficulty[trained].float(), evaluation.sample_ponder_steps[trained].float())
    assert summary["ponder_difficulty_correlation"] == round_or_none(recomputed)
    # Trained on 1..3 non-zero entries: difficulty 4 is extrapolation, scored alone.
    assert summary["extrapolation_accuracy"] == summary["accuracy_by_difficulty"]["4"]
    mean_seen = sum(summary["accuracy_by_difficulty"][d] for d in "123") / 3
    assert summary["interpolation_accuracy"] == pytest.approx(mean_seen, abs=1e-3)


def test_the_learning_curve_scores_extrapolation_beyond_the_trained_range():
    config = ParityConfig(method="pondernet", n_elems=6, hidden=8, max_nonzero=3, max_updates=4, eval_every=2,
                          eval_size=64, target_accuracy=None, difficulty_eval_size=8, progress=False)
    result = train_parity(config)
    curve = result.history.curve()
    assert len(curve["extrapolation_accuracy"]) == len(curve["extrapolation_ponder_steps"]) == len(curve["update"]) == 2
    assert all(0 <= a <= 1 for a in curve["extrapolation_accuracy"])
    beyond = extrapolation_held_out(config, config.generator("held_out"))
    assert beyond.inputs.shape == (64, 6) and set(beyond.difficulty.tolist()) <= {4, 5, 6}
    # Nothing beyond: every difficulty trained, or a range that does not start at one.
    for overrides in ({"max_nonzero": None}, {"min_nonzero": 2}):
        other = ParityConfig(**{**config.to_dict(), **overrides, "progress": False})
        assert extrapolation_held_out(other, other.generator("held_out")) is None
    assert "extrapolation_accuracy" not in train_parity(other).history.metrics


def test_no_extrapolation_without_unseen_difficulties():
    summary = train_parity(method="pondernet", n_elems=3, hidden=8, max_updates=2, target_accuracy=None,
                           difficulty_eval_size=8, progress=False).summary()
    assert summary["extrapolation_accuracy"] is None


def test_summary_carries_the_learning_curve_and_the_halting_distribution():
    summary = train_parity(method="pondernet", n_elems=3, hidden=8, max_ponder_steps=5, max_updates=4, eval_every=2,
                           target_accuracy=None, difficulty_eval_size=8, progress=False).summary()
    curve = summary["curve"]
    assert curve["update"] == [2, 4] and len(curve["loss"]) == len(curve["accuracy"]) == len(curve["ponder_steps"]) == 2
    assert curve["accuracy"][-1] == summary["final_accuracy"]
    distribution = summary["halting_distribution"]
    assert len(distribution) == 5 and sum(distribution) == pytest.approx(1, abs=1e-3)
    json.dumps(summary)


def test_difficulty_evaluation_by_hand():
    from ponderlib.tasks.parity_eval import DifficultyEvaluation

    evaluation = DifficultyEvaluation(
        difficulty=torch.tensor([1, 2]), accuracy=torch.tensor([1.0, 0.5]),
        ponder_steps=torch.tensor([1.5, 2.5]), expected_ponder_steps=torch.tensor([1.5, 2.5]),
        sample_difficulty=torch.tensor([1, 1, 2, 2]), sample_ponder_steps=torch.tensor([1, 2, 2, 3]),
        halting_distribution=torch.tensor([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5]]),
    )
    assert evaluation.accuracy_on([2]) == 0.5 and evaluation.accuracy_on([1, 2]) == 0.75
    assert evaluation.halting_distribution_on([1, 2]).tolist() == [0.25, 0.5, 0.25]
    # r between (1, 1, 2, 2) and (1, 2, 2, 3): covariance 0.5, variances 0.25 and 0.5 -> 1/sqrt(2).
    assert evaluation.correlation_on([1, 2]) == pytest.approx(2 ** -0.5)
    with pytest.raises(ValueError, match="difficulties must include some of"):
        evaluation.accuracy_on([5])


@pytest.mark.parametrize(
    ("progress", "environment", "shown"),
    [(None, None, True), (None, "0", False), (None, "1", True), (None, " 0 ", False),
     (True, "0", True), (False, None, False), (False, "1", False)],
)
def test_progress_bar_follows_the_config_then_the_environment(monkeypatch, progress, environment, shown):
    if environment is None:
        monkeypatch.delenv(PROGRESS_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(PROGRESS_VARIABLE, environment)
    assert progress_enabled(progress) is shown


def test_training_shows_a_bar_unless_the_environment_turns_it_off(monkeypatch, capsys):
    config = dict(method="act", n_elems=4, hidden=8, max_updates=4, eval_every=2, eval_size=16,
                  difficulty_eval_size=8)
    monkeypatch.delenv(PROGRESS_VARIABLE, raising=False)
    train_parity(**config)
    assert "update" in capsys.readouterr().err  # tqdm writes "4/4 [..., update/s]" to stderr
    monkeypatch.setenv(PROGRESS_VARIABLE, "0")
    train_parity(**config)
    assert capsys.readouterr().err == ""


def test_every_pytest_run_turns_progress_bars_off():
    # The repository's conftest.py sets it, so `pytest --nbval book/ch1_act.ipynb` alone compares a
    # chapter without bars, as it was committed.
    assert os.environ.get(PROGRESS_VARIABLE) == "0"


def test_evaluating_switches_to_eval_mode_without_gradients_and_restores_the_mode():
    from ponderlib.core.engine import evaluating

    model = torch.nn.Linear(2, 1)
    model.train()
    with evaluating(model):
        assert not model.training and not torch.is_grad_enabled()
    assert model.training and torch.is_grad_enabled()
    model.eval()
    with evaluating(model):
        pass
    assert not model.training


# --- the learning rate's schedule (TrainConfig.lr_scheduler, stepped by fit) ---------------------


def test_a_decaying_learning_rate_is_its_closed_form_after_k_updates():
    from ponderlib.core.config import LR_DECAY_UPDATES, exponential_decay

    weight = torch.nn.Parameter(torch.zeros(3))
    optimizer = torch.optim.Adam([weight], lr=1e-3)
    scheduler = exponential_decay(optimizer, 0.5)
    seen = {}
    for k in range(2 * LR_DECAY_UPDATES + 1):
        seen[k] = optimizer.param_groups[0]["lr"]  # the rate training update k + 1 runs at
        optimizer.step()
        scheduler.step()
    # lr_k = lr * lr_decay ** (k / 1000): halved after 1000 updates, quartered after 2000.
    for k, expected in {0: 1e-3, 1: 1e-3 * 0.5 ** 0.001, 500: 1e-3 / 2**0.5, 1000: 5e-4, 2000: 2.5e-4}.items():
        assert seen[k] == pytest.approx(expected, rel=1e-12), k
    assert exponential_decay(optimizer, 1.0) is None  # constant: no scheduler at all


def tiny_sort(**overrides):
    from ponderlib.tasks.sorting import train_sort

    settings = dict(min_len=3, max_len=5, hidden=8, attention_dim=8, batch_size=16, eval_every=3, eval_size=16,
                    test_size=16, target_accuracy=None, max_updates=9, progress=False, seed=3)
    return train_sort(**{**settings, **overrides})


def test_fit_steps_the_schedule_once_per_training_update(monkeypatch):
    from ponderlib.tasks.sorting import SortConfig

    optimizers = []
    original = SortConfig.lr_scheduler

    def recording(self, optimizer):
        optimizers.append(optimizer)
        return original(self, optimizer)

    monkeypatch.setattr(SortConfig, "lr_scheduler", recording)
    tiny_sort(lr=0.01, lr_decay=0.25)
    assert len(optimizers) == 1
    assert optimizers[0].param_groups[0]["lr"] == pytest.approx(0.01 * 0.25 ** (9 / 1000), rel=1e-12)


def test_lr_decay_1_trains_bit_identically_to_no_schedule(monkeypatch):
    from ponderlib.core.config import TrainConfig
    from ponderlib.tasks.sorting import SortConfig

    constant = tiny_sort(lr_decay=1.0)
    decaying = tiny_sort(lr_decay=0.5)
    monkeypatch.setattr(SortConfig, "lr_scheduler", TrainConfig.lr_scheduler)  # the hook disabled
    before = tiny_sort(lr_decay=1.0)
    # A scheduler stepped at every update with a factor of exactly 1 changes nothing either.
    monkeypatch.setattr(SortConfig, "lr_scheduler", lambda self, optimizer: torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda updates: 1.0))
    stepped = tiny_sort(lr_decay=1.0)
    for run in (before, stepped):
        assert run.history.loss == constant.history.loss and run.history.metrics == constant.history.metrics
        assert all(torch.equal(a, b) for a, b in zip(run.model.parameters(), constant.model.parameters()))
    assert decaying.history.loss != constant.history.loss


def test_a_pondernet_run_is_profiled_step_by_step_against_its_kl_optimal_halting():
    from ponderlib.mechanisms.halting import geometric_prior
    from ponderlib.mechanisms.losses import binary_step_losses, kl_optimal_halting
    from ponderlib.tasks.parity_data import parity_batch
    from ponderlib.tasks.parity_eval import step_profile

    config = dict(method="pondernet", n_elems=4, hidden=8, max_ponder_steps=6, max_updates=3, eval_every=3,
                  target_accuracy=None, difficulty_eval_size=8, lambda_p=0.3, progress=False)
    result = train_parity(**config)
    summary = result.summary()
    assert len(summary["step_losses"]) == len(summary["step_accuracy"]) == 6
    assert sum(summary["kl_optimal_halting_distribution"]) == pytest.approx(1, abs=1e-3)
    # The profile by hand: every step's loss and prediction, and each vector's own optimum, averaged.
    batch = parity_batch(32, 4, 1, 4, generator=torch.Generator().manual_seed(0))
    prior = geometric_prior(0.3, 6)
    profile = step_profile(result.model, batch, prior, 0.01)
    with torch.no_grad():
        out = result.model(batch.inputs, unroll_tolerance=0.0)
    losses = binary_step_losses(out.step_outputs, batch.targets)
    assert torch.allclose(profile.step_losses, losses.mean(0))
    assert torch.allclose(profile.step_accuracy, ((out.step_outputs > 0) == batch.targets.bool()[:, None]).float().mean(0))
    assert torch.allclose(profile.kl_optimal_halting_distribution, kl_optimal_halting(losses, prior, 0.01).mean(0))
    assert torch.allclose(profile.halting_distribution, out.halting_probs.mean(0))
    # No optimum without the paper's KL, no profile for ACT.
    assert "kl_optimal_halting_distribution" not in train_parity(**{**config, "kl_direction": "reverse"}).summary()
    cut = train_parity(**{**config, "unroll": "mass"}).summary()  # p_n cut at each input's own N: another loss
    assert "kl_optimal_halting_distribution" not in cut and "step_losses" in cut
    assert "step_losses" in train_parity(**{**config, "beta": 0.0}).summary()
    act = {name: value for name, value in config.items() if name != "lambda_p"}  # ACT has no prior
    assert "step_losses" not in train_parity(**{**act, "method": "act"}).summary()


def test_the_objective_builds_its_loss_on_the_device_it_is_given():
    from ponderlib.tasks.parity import parity_objective
    from ponderlib.tasks.parity_data import ParityVectors
    from ponderlib.tasks.parity_models import pondernet_parity_model

    config = ParityConfig(method="pondernet", n_elems=4, hidden=8)
    model, batch = pondernet_parity_model(4, 8, 20), ParityVectors(4).draw(8, torch.Generator().manual_seed(0))
    assert torch.isfinite(parity_objective(config, "cpu")(model, batch))
    with pytest.raises(ValueError, match="loss's prior on meta"):  # the loss went where it was told
        parity_objective(config, "meta")(model, batch)


def test_a_runs_unchecked_scoring_is_the_checked_scoring():
    """The scoring a run does with the config it validated (no check again) is the public functions' own."""
    from ponderlib.mechanisms.halting import geometric_prior
    from ponderlib.tasks.parity_data import draw_vectors, parity_batch
    from ponderlib.tasks.parity_eval import (
        evaluate_by_difficulty,
        evaluate_by_difficulty_unchecked,
        predict_parity,
        predict_parity_unchecked,
        step_profile,
        step_profile_unchecked,
    )

    result = train_parity(method="pondernet", n_elems=5, hidden=8, max_ponder_steps=6, max_updates=3, eval_every=3,
                          target_accuracy=None, difficulty_eval_size=8, progress=False)
    model = result.model
    checked = parity_batch(16, 5, 2, 4, generator=torch.Generator().manual_seed(3), label="nonzero")
    batch = draw_vectors(16, 5, 2, 4, "nonzero", torch.Generator().manual_seed(3), "cpu")
    assert all(torch.equal(a, b) for a, b in zip(vars(checked).values(), vars(batch).values()))
    for rule in ("sample", "median"):
        logits, steps = predict_parity(model, batch.inputs, rule, torch.Generator().manual_seed(1), 4)
        logits_u, steps_u = predict_parity_unchecked(model, batch.inputs, rule, torch.Generator().manual_seed(1), 4)
        assert torch.equal(logits, logits_u) and torch.equal(steps, steps_u)
    scored = evaluate_by_difficulty(model, 5, [1, 3, 5], 8, "sample", seed=2, label="ones", max_ponder_steps=6)
    scored_u = evaluate_by_difficulty_unchecked(model, 5, [1, 3, 5], 8, "sample", 2, "ones", 6)
    assert all(torch.equal(a, b) for a, b in zip(vars(scored).values(), vars(scored_u).values()))
    prior = geometric_prior(0.2, 6)
    profile, profile_u = step_profile(model, batch, prior, 0.01), step_profile_unchecked(model, batch, prior, 0.01)
    assert all(torch.equal(a, b) for a, b in zip(vars(profile).values(), vars(profile_u).values()))
