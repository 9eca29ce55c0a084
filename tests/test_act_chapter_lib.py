"""Tests of what chapter 1 (ACT) adds to ponderlib: sequence ACT, runs over seeds scored by difficulty during
training, the tau sweep over seeds, ACT plots."""

from __future__ import annotations

import math
from dataclasses import replace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from ponderlib.core.engine import History, on_evaluate
from ponderlib.core.seeds import stream_generator
from ponderlib.core.stats import pearson_correlation
from ponderlib.experiments.act import (
    SeedCurves,
    history_value,
    train_seeds,
    train_sequence_seeds,
    train_tau_grid,
    train_tracking_difficulty,
)
from ponderlib.figures import style
from ponderlib.figures.act import (
    plot_halting_sum,
    plot_ponder_cost_sawtooth,
    plot_ponder_during_training,
    plot_seed_curves,
    plot_sequence_ponder,
    plot_tau_trade_off,
)
from ponderlib.mechanisms.act import ACTRNN
from ponderlib.mechanisms.halting import act_halting
from ponderlib.mechanisms.losses import ACTLoss
from ponderlib.tasks.parity import ParityConfig, train_parity
from ponderlib.tasks.parity_data import parity_batch
from ponderlib.tasks.sequence_parity import (
    SequenceConfig,
    SequenceEvaluation,
    act_sequence_model,
    evaluate_act_sequence,
    sequence_loss,
    train_act_sequence,
)


def test_pearson_correlation_known_values():
    x = torch.tensor([1.0, 2.0, 3.0, 4.0])
    assert pearson_correlation(x, 2 * x + 1) == pytest.approx(1.0)
    assert pearson_correlation(x, -x) == pytest.approx(-1.0)
    assert pearson_correlation(x, torch.tensor([1.0, -1.0, -1.0, 1.0])) == pytest.approx(0.0)
    assert math.isnan(pearson_correlation(x, torch.ones(4)))


def test_pearson_correlation_rejects_mismatched_shapes():
    with pytest.raises(ValueError, match="same length"):
        pearson_correlation(torch.ones(3), torch.ones(4))


def test_act_sequence_model_shapes_and_loss_gradient():
    torch.manual_seed(0)
    model = act_sequence_model(n_elems=4, hidden=8, max_ponder_steps=3)
    assert isinstance(model, ACTRNN)
    batch = parity_batch(5, 4, generator=stream_generator(0, "data"), seq_len=3)
    out = model(batch.inputs)
    assert out.outputs.shape == (5, 3, 1)
    assert out.ponder_steps.shape == out.ponder_cost.shape == (5, 3)
    loss = sequence_loss(model, batch, ACTLoss(0.01))
    loss.backward()
    assert model.act.halting_unit.weight.grad is not None


def test_evaluate_act_sequence_shapes():
    torch.manual_seed(0)
    model = act_sequence_model(n_elems=4, hidden=8, max_ponder_steps=3)
    batch = parity_batch(6, 4, generator=stream_generator(0, "data"), seq_len=2)
    evaluation = evaluate_act_sequence(model, batch)
    assert evaluation.ponder_steps.shape == evaluation.correct.shape == evaluation.difficulty.shape == (6, 2)
    assert evaluation.accuracy == pytest.approx(evaluation.correct.float().mean().item())


def test_train_act_sequence_is_seeded_and_records_history():
    kwargs = dict(n_elems=3, seq_len=2, hidden=8, max_ponder_steps=3, batch_size=8, eval_size=16,
                  max_updates=3, target_accuracy=None, max_seconds=None, eval_every=1, progress=False)
    first, second = train_act_sequence(**kwargs), train_act_sequence(**kwargs)
    assert first.fit.updates == 3
    assert first.history.update == [1, 2, 3]
    assert first.history.loss == second.history.loss
    assert 0.0 <= first.final_accuracy <= 1.0


@pytest.mark.parametrize(
    "field, value",
    [("n_elems", 0), ("seq_len", 0), ("tau", -1.0), ("eps", 1.0), ("target_accuracy", 1.5), ("threads", 0)],
)
def test_sequence_config_rejects_bad_values(field, value):
    with pytest.raises(ValueError, match=field):
        SequenceConfig(**{field: value}).validate()


def test_act_plots_use_the_act_colour():
    figure = plot_halting_sum([[0.1, 0.3, 0.4, 0.5, 0.2], [0.05] * 5], eps=0.01)
    bar_colours = {matplotlib.colors.to_hex(patch.get_facecolor()) for patch in figure.axes[0].patches}
    assert style.color("act") in bar_colours
    plt.close(figure)


TINY = ParityConfig(method="act", n_elems=3, hidden=8, max_ponder_steps=4, batch_size=16, eval_size=32,
                    difficulty_eval_size=8, max_updates=4, eval_every=2, target_accuracy=None, progress=False)


def test_on_evaluate_calls_back_after_every_evaluation_and_only_inside_the_block():
    calls = []
    with on_evaluate(lambda update, model: calls.append((update, model.training))):
        train_parity(TINY)
    assert calls == [(2, False), (4, False)]
    train_parity(TINY)
    assert len(calls) == 2


def test_tracking_does_not_change_training_and_snapshots_are_shorter_runs():
    tracked = train_tracking_difficulty(TINY, snapshot_every=2)
    plain = train_parity(TINY)
    assert tracked.result.history.loss == plain.history.loss
    assert sorted(tracked.snapshots) == [2, 4]
    assert tracked.snapshots[4] is tracked.result.by_difficulty
    shorter = train_parity(replace(TINY, max_updates=2))
    assert torch.equal(tracked.snapshots[2].ponder_steps, shorter.by_difficulty.ponder_steps)
    assert torch.equal(tracked.snapshots[2].accuracy, shorter.by_difficulty.accuracy)
    assert tracked.correlation_at(4) == pytest.approx(tracked.result.by_difficulty.correlation_on([1, 2, 3]), nan_ok=True)


@pytest.mark.parametrize("snapshot_every", [0, 3])
def test_tracking_rejects_snapshots_between_evaluations(snapshot_every):
    with pytest.raises(ValueError, match="snapshot_every"):
        train_tracking_difficulty(TINY, snapshot_every=snapshot_every)


def test_seed_curves_from_parity_stack_one_row_per_seed():
    runs = train_seeds(TINY, [0, 1], snapshot_every=2)
    curves = SeedCurves.from_parity(runs)
    assert curves.seeds == [0, 1]
    assert curves.difficulty.tolist() == [1, 2, 3]
    assert curves.ponder_steps.shape == curves.error.shape == (2, 3)
    assert torch.equal(curves.ponder_steps[1], runs[1].result.by_difficulty.ponder_steps)
    assert torch.allclose(curves.error[0], 1.0 - runs[0].result.by_difficulty.accuracy)
    early = SeedCurves.from_parity(runs, update=2)
    assert torch.equal(early.ponder_steps[0], runs[0].snapshots[2].ponder_steps)
    with pytest.raises(ValueError, match="seeds"):
        train_seeds(TINY, [], snapshot_every=2)


def test_seed_curves_from_sequence_known_values():
    evaluation = SequenceEvaluation(
        accuracy=0.75,
        ponder_steps=torch.tensor([[1, 3], [2, 4]]),
        correct=torch.tensor([[True, False], [True, True]]),
        difficulty=torch.tensor([[1, 2], [1, 2]]),
    )
    curves = SeedCurves.from_sequence([7], [evaluation])
    assert curves.difficulty.tolist() == [1, 2]
    assert curves.ponder_steps.tolist() == [[1.5, 3.5]]
    assert curves.error.tolist() == [[0.0, 0.5]]
    assert curves.correlation[0].item() == pytest.approx(pearson_correlation(torch.tensor([1.0, 2, 1, 2]), torch.tensor([1.0, 3, 2, 4])))
    with pytest.raises(ValueError, match="seeds and evaluations"):
        SeedCurves.from_sequence([0, 1], [evaluation])


def test_history_value_reads_the_evaluation_after_an_update():
    history = History()
    history.record(2, 0.1, 0.5, {"accuracy": 0.6})
    history.record(4, 0.2, 0.4, {"accuracy": 0.8})
    assert history_value(history, "accuracy", 4) == 0.8
    with pytest.raises(ValueError, match="update"):
        history_value(history, "accuracy", 3)


def test_sweep_tau_seeds_reuses_longer_runs_at_their_snapshot():
    longer = train_seeds(replace(TINY, tau=0.01, max_updates=4), [0, 1], snapshot_every=2)
    sweep = train_tau_grid([0.1, 0.01], [0, 1], replace(TINY, max_updates=2), snapshot_every=2, trained={0.01: longer})
    assert sweep.runs[1] == longer and sweep.updates == 2
    assert [run.result.config.tau for run in sweep.runs[0]] == [0.1, 0.1]
    assert sweep.error.shape == sweep.ponder_steps.shape == (2, 2)
    assert sweep.error[1, 0].item() == pytest.approx(1.0 - longer[0].result.history.metrics["accuracy"][0])
    assert torch.equal(sweep.curves(1).ponder_steps[0], longer[0].snapshots[2].ponder_steps)
    with pytest.raises(ValueError, match="trained"):
        train_tau_grid([0.01], [0, 1], replace(TINY, max_updates=2, hidden=16), snapshot_every=2, trained={0.01: longer})


@pytest.mark.parametrize("taus, method", [([], "act"), ([0.01], "pondernet")])
def test_sweep_tau_seeds_rejects_bad_input(taus, method):
    with pytest.raises(ValueError, match="taus|method"):
        train_tau_grid(taus, [0], replace(TINY, method=method), snapshot_every=2)


def test_sequence_halting_bias_init_sets_the_first_halting_unit():
    model = act_sequence_model(n_elems=4, hidden=8, max_ponder_steps=3, halting_bias_init=3.0)
    assert model.act.halting_unit.bias.item() == 3.0
    with pytest.raises(ValueError, match="halting_bias_init"):
        SequenceConfig(halting_bias_init="3").validate()


def test_train_sequence_seeds_scores_every_seed_on_its_own_test_sequences():
    base = SequenceConfig(n_elems=3, seq_len=2, hidden=8, max_ponder_steps=3, batch_size=8, eval_size=12, max_updates=2,
                          target_accuracy=None, eval_every=1, progress=False, halting_bias_init=3.0)
    results, curves, evaluations = train_sequence_seeds(base, [0, 1])
    assert [result.config.seed for result in results] == [0, 1] == curves.seeds
    assert evaluations == [result.test for result in results]
    assert not torch.equal(evaluations[0].difficulty, evaluations[1].difficulty)  # each seed's own sequences
    assert evaluations[0].ponder_steps.shape == (12, 2)
    assert curves.ponder_steps.shape[0] == 2
    summary = results[0].summary()
    by_difficulty = evaluations[0].by_difficulty()
    assert summary["ponder_steps_by_difficulty"] == {str(d): round(row[1], 4) for d, row in by_difficulty.items()}
    assert summary["test_accuracy"] == round(evaluations[0].accuracy, 4)
    # by hand: accuracy and mean N at each difficulty
    flat = evaluations[0].difficulty.flatten()
    for d, (accuracy, steps) in by_difficulty.items():
        assert accuracy == evaluations[0].correct.flatten()[flat == d].float().mean().item()
        assert steps == evaluations[0].ponder_steps.flatten()[flat == d].float().mean().item()


def test_act_plots_build_from_real_results():
    runs = train_seeds(TINY, [0, 1], snapshot_every=2)
    sweep = train_tau_grid([0.01, 0.1], [0, 1], TINY, snapshot_every=2)
    scales = torch.linspace(0.6, 3.0, 50, dtype=torch.float64, requires_grad=True)
    halting = act_halting((scales[:, None] * torch.tensor([0.1, 0.3, 0.4, 0.5, 0.2], dtype=torch.float64)).clamp(max=1.0))
    halting.ponder_cost.sum().backward()
    figures = (
        plot_seed_curves(SeedCurves.from_parity(runs), "tiny", ponder_max=4.0, error_max=100.0),
        plot_ponder_during_training({"bias 1": runs, "again": runs}),
        plot_tau_trade_off(sweep),
        plot_ponder_cost_sawtooth(scales.detach(), halting.ponder_steps, halting.remainder.detach(), scales.grad),
    )
    for figure in figures:
        assert figure.axes and all(ax.get_xlabel() for ax in figure.axes)
        plt.close(figure)
    figure = plot_sequence_ponder(torch.tensor([[1, 2], [3, 1]]), torch.tensor([[1, 4], [2, 2]]),
                                  torch.tensor([[True, False], [True, True]]))
    assert figure.axes[0].get_xlabel() == "time step t"
    plt.close(figure)
