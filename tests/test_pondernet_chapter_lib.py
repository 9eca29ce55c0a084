"""Tests of what chapter 2 adds to ponderlib: experiment helpers and PonderNet plots (tiny, fast runs)."""

from __future__ import annotations

from dataclasses import replace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from ponderlib.experiments import parity as parity_experiments
from ponderlib.experiments import pondernet as pondernet_experiments
from ponderlib.figures import pondernet as plots
from ponderlib.mechanisms.halting import geometric_prior, pondernet_halting
from ponderlib.tasks.parity import ParityConfig, evaluate_by_difficulty, train_parity

TINY = ParityConfig(
    n_elems=3, hidden=8, max_ponder_steps=5, target_accuracy=None, max_seconds=None, max_updates=2,
    eval_every=1, eval_size=16, progress=False, device="cpu",
)


@pytest.fixture(scope="module")
def tiny_runs():
    return {method: train_parity(replace(TINY, method=method)) for method in ("act", "pondernet")}


def test_mean_halting_distribution_pads_to_max_ponder_steps():
    probs = torch.tensor([[0.5, 0.5], [1.0, 0.0]])
    mean = parity_experiments.mean_halting_distribution(probs, 4)
    assert torch.allclose(mean, torch.tensor([0.75, 0.25, 0.0, 0.0]))
    with pytest.raises(ValueError, match="max_ponder_steps"):
        parity_experiments.mean_halting_distribution(probs, 1)


def test_evaluate_by_difficulty_covers_each_difficulty(tiny_runs):
    runs = tiny_runs
    evaluation = evaluate_by_difficulty(runs["pondernet"].model, 3, samples_per_difficulty=8, seed=0)
    assert evaluation.difficulty.tolist() == [1, 2, 3]
    assert evaluation.accuracy.shape == evaluation.ponder_steps.shape == evaluation.expected_ponder_steps.shape == (3,)
    assert evaluation.accuracy_on([1, 2, 3]) == pytest.approx(evaluation.accuracy.mean().item())
    with pytest.raises(ValueError, match="difficult"):
        evaluation.accuracy_on([7])
    with pytest.raises(ValueError, match="difficulty"):
        evaluate_by_difficulty(runs["act"].model, 3, difficulties=[4], seed=0)


def test_inference_compute_counts_step_evaluations(tiny_runs):
    model = tiny_runs["pondernet"].model
    inputs = parity_experiments.test_batch(TINY, 32).inputs
    compute = pondernet_experiments.inference_compute(model, inputs, seed=0, repeats=1)
    assert compute.full_sample_ponder_steps == 32 * TINY.max_ponder_steps
    assert 32 <= compute.sample_ponder_steps <= compute.full_sample_ponder_steps
    assert 0.0 < compute.fraction_of_full <= 1.0
    assert 1 <= compute.ponder_steps_run <= TINY.max_ponder_steps
    with pytest.raises(ValueError, match="PonderNet"):
        pondernet_experiments.inference_compute(torch.nn.Linear(3, 1), inputs, seed=0)


def test_pondernet_plots_return_labelled_figures(tiny_runs):
    lambdas = torch.tensor([[0.2, 0.5, 0.3]])
    runs = tiny_runs
    evaluations = {m: evaluate_by_difficulty(r.model, 3, samples_per_difficulty=4, seed=0) for m, r in runs.items()}
    halting = parity_experiments.HaltingSummary.of(runs["pondernet"])
    figures = [
        plots.plot_lambdas_to_halting(lambdas[0], pondernet_halting(lambdas)[0]),
        plots.plot_halting_vs_prior({"a": halting.halting_probs, "b": halting.halting_probs}, geometric_prior(0.5, 5), 0.5),
        plots.plot_training_histories({m: r.history for m, r in runs.items()}),
        plots.plot_by_difficulty(evaluations, trained_max=2),
        plots.plot_sensitivity({0.5: [halting]}, {0.3: [halting] * 2, 0.5: [halting] * 2}, title="two seeds"),
    ]
    for figure in figures:
        assert figure.axes and all(ax.get_xlabel() or ax.get_title() for ax in figure.axes)
        plt.close(figure)


def test_step_accuracy_scores_every_ponder_step(tiny_runs):
    model = tiny_runs["pondernet"].model
    result = pondernet_experiments.step_accuracy_by_difficulty(model, 3, samples_per_difficulty=16, seed=0)
    assert result.difficulty.tolist() == [1, 2, 3]
    assert result.accuracy.shape == result.halting_probs.shape == (3, TINY.max_ponder_steps)
    assert ((result.accuracy >= 0) & (result.accuracy <= 1)).all()
    assert torch.allclose(result.halting_probs.sum(dim=1), torch.ones(3), atol=1e-5)
    assert torch.equal(result.best_step_accuracy(), result.accuracy.max(dim=1).values)
    with pytest.raises(ValueError, match="PonderNet"):
        pondernet_experiments.step_accuracy_by_difficulty(tiny_runs["act"].model, 3, seed=0)
    with pytest.raises(ValueError, match="difficulty"):
        pondernet_experiments.step_accuracy_by_difficulty(model, 3, difficulties=[4], seed=0)


def test_expected_steps_trend_has_the_sign_of_the_slope(tiny_runs):
    evaluation = evaluate_by_difficulty(tiny_runs["pondernet"].model, 3, samples_per_difficulty=4, seed=0)
    evaluation.expected_ponder_steps = torch.tensor([2.0, 3.0, 5.0])
    assert pondernet_experiments.expected_steps_trend(evaluation, [1, 2, 3]) > 0.9
    evaluation.expected_ponder_steps = torch.tensor([5.0, 3.0, 2.0])
    assert pondernet_experiments.expected_steps_trend(evaluation, [1, 2]) == pytest.approx(-1.0)
    with pytest.raises(ValueError, match="at least two"):
        pondernet_experiments.expected_steps_trend(evaluation, [3])


def test_chapter_2_diagnostic_plots(tiny_runs):
    evaluations = {m: evaluate_by_difficulty(r.model, 3, samples_per_difficulty=4, seed=0) for m, r in tiny_runs.items()}
    step_accuracy = pondernet_experiments.step_accuracy_by_difficulty(tiny_runs["pondernet"].model, 3, samples_per_difficulty=4, seed=0)
    figures = [
        plots.plot_prior_truncations(
            {t: geometric_prior(0.1, 5, t) for t in ("last", "normalised")},
            {t: geometric_prior(0.3, 5, t) for t in ("last", "normalised")}, 0.1,
        ),
        plots.plot_step_accuracy({"seed 0": step_accuracy, "seed 1": step_accuracy}, trained_max=2),
        plots.plot_seeds_by_difficulty(
            {"PonderNet": [evaluations["pondernet"]] * 2, "ACT": [evaluations["act"]] * 2},
            {"PonderNet": "pondernet", "ACT": "act"}, trained_max=2
        ),
        plots.plot_seeds_by_difficulty(  # summaries, as the evidence holds them
            {"PonderNet": [tiny_runs["pondernet"].summary()] * 2, "ACT": [tiny_runs["act"].summary()]},
            {"PonderNet": "pondernet", "ACT": "act"}, trained_max=2
        ),
    ]
    for figure in figures:
        assert figure.axes and all(ax.get_xlabel() or ax.get_title() or ax.get_ylabel() for ax in figure.axes)
        plt.close(figure)


def test_parity_config_prior_truncation_reaches_the_loss_and_the_summary():
    config = ParityConfig(**{**TINY.__dict__, "prior_truncation": "last", "kl_direction": "reverse"})
    result = train_parity(config)
    assert result.model.unroll_tolerance == 0.0  # the reverse KL needs every step
    metrics = result.metrics()
    assert set(metrics["expected_ponder_steps_by_difficulty"]) == {"1", "2", "3"}
    assert result.summary()["config"]["prior_truncation"] == "last"
    with pytest.raises(ValueError, match="prior_truncation must be one of"):
        ParityConfig(prior_truncation="first").validate()


def test_difficulty_summary_reads_a_result_and_its_summary_alike():
    result = train_parity(ParityConfig(**{**TINY.__dict__, "max_nonzero": 2}))
    summary = result.summary()
    from_result, from_summary = pondernet_experiments.DifficultySummary.of(result), pondernet_experiments.DifficultySummary.of(summary)
    assert from_result == from_summary
    by_difficulty = summary["accuracy_by_difficulty"]
    assert from_summary.accuracy == pytest.approx((by_difficulty["1"] + by_difficulty["2"]) / 2)
    assert from_summary.extrapolation == from_summary.hardest == by_difficulty["3"]
    expected = summary["expected_ponder_steps_by_difficulty"]
    assert (from_summary.easiest_expected, from_summary.hardest_expected) == (expected["1"], expected["2"])
    assert from_summary.expected_change == pytest.approx(abs(expected["2"] - expected["1"]))
    assert from_summary.trend == pytest.approx(1.0 if expected["2"] > expected["1"] else -1.0)
    with pytest.raises(ValueError, match="fewer than n_elems"):
        pondernet_experiments.DifficultySummary.of(train_parity(TINY))
    with pytest.raises(ValueError, match="score every difficulty"):
        pondernet_experiments.DifficultySummary.of({**summary, "expected_ponder_steps_by_difficulty": None})
    with pytest.raises(ValueError, match="summary"):
        pondernet_experiments.DifficultySummary.of([1, 2])


def test_halting_summary_reads_the_mean_halting_distribution(tiny_runs):
    run = tiny_runs["pondernet"]
    halting, from_summary = parity_experiments.HaltingSummary.of(run), parity_experiments.HaltingSummary.of(run.summary())
    assert torch.equal(halting.halting_probs, from_summary.halting_probs)
    assert (halting.accuracy, halting.mean_ponder_steps) == (from_summary.accuracy, from_summary.mean_ponder_steps)
    p = halting.halting_probs
    assert p.shape == (TINY.max_ponder_steps,) and p.sum().item() == pytest.approx(1.0, abs=1e-3)
    assert halting.accuracy == run.summary()["interpolation_accuracy"] and halting.error == pytest.approx(1 - halting.accuracy)
    assert halting.expected_ponder_steps == pytest.approx(sum((n + 1) * v for n, v in enumerate(p.tolist())))
    assert halting.mass_on_cap == p[-1].item() and halting.mass_on(1) == p[0].item()
    assert halting.mass_on(2, 4) == pytest.approx(p[1:4].sum().item())
    assert halting.mass_after(1) == pytest.approx(1 - p[0].item(), abs=1e-3) and halting.mass_after(TINY.max_ponder_steps) == 0
    with pytest.raises(ValueError, match="last"):
        halting.mass_on(3, 2)
    with pytest.raises(ValueError, match="halting_distribution"):
        parity_experiments.HaltingSummary.of({**run.summary(), "halting_distribution": None})


def test_halting_summary_pads_a_short_unroll_to_max_ponder_steps(tiny_runs):
    summary = tiny_runs["pondernet"].summary()
    short = {**summary, "halting_distribution": [0.5, 0.3, 0.2]}  # the unroll stopped after step 3 of 5
    halting = parity_experiments.HaltingSummary.of(short)
    assert halting.halting_probs.tolist() == pytest.approx([0.5, 0.3, 0.2, 0.0, 0.0])
    assert halting.mass_on_cap == 0.0 and halting.mass_after(3) == 0.0
    assert halting.expected_ponder_steps == pytest.approx(0.5 + 0.6 + 0.6)
