"""Tests of what chapter 1 (ACT) adds to ponderlib: sequence ACT, runs over seeds scored by difficulty during
training, the tau sweep over seeds, ACT plots in the book's sizes, and the chapter's tables and sentences
(ponderlib.presentation.act), on numbers worked by hand."""

from __future__ import annotations

import math
from dataclasses import replace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from ponderlib.core.engine import History
from ponderlib.core.seeds import stream_generator
from ponderlib.core.stats import least_squares_slope, pearson_correlation
from ponderlib.experiments.act import (
    SeedCurves,
    TauEvidence,
    history_value,
    train_seeds,
    train_sequence_seeds,
    train_tau_grid,
    train_tracking_difficulty,
)
from ponderlib.figures import style
from ponderlib.figures.act import (
    plot_error_against_ponder,
    plot_halting_sum,
    plot_ponder_by_difficulty_per_tau,
    plot_ponder_cost_sawtooth,
    plot_ponder_during_training,
    plot_ponder_during_training_per_tau,
    plot_seed_curves,
    plot_sequence_ponder,
    plot_tau_evidence,
    plot_tau_trade_off,
    tau_pages,
)
from ponderlib.mechanisms.act import ACTRNN
from ponderlib.mechanisms.halting import act_halting
from ponderlib.mechanisms.losses import ACTLoss
from ponderlib.presentation import act as words
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
    kwargs = dict(
        n_elems=3,
        seq_len=2,
        hidden=8,
        max_ponder_steps=3,
        batch_size=8,
        eval_size=16,
        max_updates=3,
        target_accuracy=None,
        max_seconds=None,
        eval_every=1,
        progress=False,
    )
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


TINY = ParityConfig(
    method="act",
    n_elems=3,
    hidden=8,
    max_ponder_steps=4,
    batch_size=16,
    eval_size=32,
    difficulty_eval_size=8,
    max_updates=4,
    eval_every=2,
    target_accuracy=None,
    progress=False,
)


def test_on_evaluate_is_called_after_every_evaluation_of_the_run_it_is_given_to_only():
    calls = []
    train_parity(TINY, on_evaluate=lambda update, model: calls.append((update, model.training)))
    assert calls == [(2, False), (4, False)]
    train_parity(TINY)
    assert len(calls) == 2


@pytest.mark.parametrize("settings", [{}, {"label": "nonzero", "eval_max_ponder_steps": 6}], ids=["default", "label-cap"])
def test_tracking_does_not_change_training_and_snapshots_are_shorter_runs(settings):
    config = replace(TINY, **settings)  # a snapshot is scored with the run's label and cap, as its final score
    tracked = train_tracking_difficulty(config, snapshot_every=2)
    plain = train_parity(config)
    assert tracked.result.history.loss == plain.history.loss
    assert sorted(tracked.snapshots) == [2, 4]
    assert tracked.snapshots[4] is tracked.result.by_difficulty
    shorter = train_parity(replace(config, max_updates=2))
    assert torch.equal(tracked.snapshots[2].ponder_steps, shorter.by_difficulty.ponder_steps)
    assert torch.equal(tracked.snapshots[2].accuracy, shorter.by_difficulty.accuracy)
    assert tracked.correlation_at(4) == pytest.approx(
        tracked.result.by_difficulty.correlation_on([1, 2, 3]), nan_ok=True
    )


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
    assert curves.ponder_difficulty_correlation[0].item() == pytest.approx(
        pearson_correlation(torch.tensor([1.0, 2, 1, 2]), torch.tensor([1.0, 3, 2, 4]))
    )
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
        train_tau_grid(
            [0.01], [0, 1], replace(TINY, max_updates=2, hidden=16), snapshot_every=2, trained={0.01: longer}
        )


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
    base = SequenceConfig(
        n_elems=3,
        seq_len=2,
        hidden=8,
        max_ponder_steps=3,
        batch_size=8,
        eval_size=12,
        max_updates=2,
        target_accuracy=None,
        eval_every=1,
        progress=False,
        halting_bias_init=3.0,
    )
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
    halting = act_halting(
        (scales[:, None] * torch.tensor([0.1, 0.3, 0.4, 0.5, 0.2], dtype=torch.float64)).clamp(max=1.0)
    )
    halting.ponder_cost.sum().backward()
    figures = (
        plot_seed_curves(SeedCurves.from_parity(runs), "tiny", ponder_max=4.0, error_max=100.0),
        plot_ponder_during_training({"bias 1": runs, "again": runs}),
        plot_tau_trade_off(sweep),
        plot_ponder_cost_sawtooth(scales.detach(), halting.ponder_steps, halting.remainder.detach(), scales.grad),
    )
    for figure in figures:
        bottom = [ax for ax in figure.axes if ax.get_subplotspec().is_last_row()]  # panels above share their x axis
        assert figure.axes and all(ax.get_xlabel() for ax in bottom)
        assert style.shown_width(figure) <= style.SHOWN_WIDTH
        plt.close(figure)
    figure = plot_sequence_ponder(
        torch.tensor([[1, 2], [3, 1]]), torch.tensor([[1, 4], [2, 2]]), torch.tensor([[True, False], [True, True]])
    )
    assert figure.axes[0].get_xlabel() == "time step t"
    plt.close(figure)


# --- the chapter's figures, in the book's sizes -----------------------------------------------


def test_act_figures_fit_the_column_two_panels_in_a_row_at_most():
    three = plot_halting_sum([[0.1, 0.3, 0.4, 0.5, 0.2], [0.995, 0.5, 0.5, 0.5, 0.5], [0.05] * 5], eps=0.01)
    assert style.shown_width(three) <= style.SHOWN_WIDTH
    drawn = [ax for ax in three.axes if ax.axison]
    assert (
        len(drawn) == 3 and len({ax.get_position().x0 for ax in drawn}) == 2
    )  # a 2 x 2 grid, one place for the legend
    assert three.axes[3].get_legend() is not None  # the legend in the empty place, off the data
    one = plot_halting_sum([[0.1, 0.3, 0.4, 0.5, 0.2]], eps=0.01)
    assert style.shown_width(one) <= style.SHOWN_WIDTH and one.legends  # a single panel: the legend below
    assert "N = 4, R = 0.20, ρ = 4.20" in one.axes[0].get_title()
    for figure in (three, one):
        texts = [t for ax in figure.axes for t in (ax.title, ax.xaxis.label, *ax.get_xticklabels())]
        assert min(t.get_fontsize() for t in texts) >= style.FONT_SIZE
        plt.close(figure)


def test_seed_curves_draw_each_seed_in_its_own_shade_and_say_how_many_seeds():
    curves = SeedCurves(
        seeds=[0, 1, 2],
        difficulty=torch.tensor([1, 2]),
        ponder_steps=torch.tensor([[1.0, 2.0], [1.5, 2.5], [1.0, 1.0]]),
        error=torch.zeros(3, 2),
        ponder_difficulty_correlation=torch.tensor([0.5, 0.4, float("nan")]),
    )
    figure = plot_seed_curves(curves, "three seeds")
    lines = figure.axes[0].get_lines()
    assert [line.get_color() for line in lines[:3]] == style.seed_colors("act", 3)
    assert lines[3].get_label() == "mean of 3 seeds" and lines[3].get_color() == style.color("act")
    assert lines[2].get_label() == "seed 2 (r undefined: constant N)"
    assert style.shown_width(figure) <= style.SHOWN_WIDTH and figure.legends
    plt.close(figure)
    one = plot_seed_curves(
        replace(
            curves,
            seeds=[0],
            ponder_steps=curves.ponder_steps[:1],
            error=curves.error[:1],
            ponder_difficulty_correlation=curves.ponder_difficulty_correlation[:1],
        ),
        "one seed",
    )
    assert [line.get_label() for line in one.axes[0].get_lines()] == ["seed 0 (r = +0.50)"]  # no "mean of 1 seeds"
    plt.close(one)


def test_ponder_during_training_puts_groups_in_columns_and_refuses_three():
    runs = train_seeds(TINY, [0, 1], snapshot_every=2)
    figure = plot_ponder_during_training({"b_h = 3": runs, "b_h = 1": runs})
    assert style.shown_width(figure) <= style.SHOWN_WIDTH
    assert len(figure.axes) == 4 and len({round(ax.get_position().x0, 3) for ax in figure.axes}) == 2
    plt.close(figure)
    with pytest.raises(ValueError, match="groups"):
        plot_ponder_during_training({"a": runs, "b": runs, "c": runs})


def test_tau_trade_off_and_its_pages():
    sweep = train_tau_grid([0.001, 0.01, 0.1], [0, 1], TINY, snapshot_every=2)
    figure = plot_tau_trade_off(sweep)
    assert style.shown_width(figure) <= style.SHOWN_WIDTH
    error_panel = next(ax for ax in figure.axes if ax.get_ylabel() == "held-out error (%)")
    assert [t.get_text() for t in error_panel.get_xticklabels()] == ["0.001", "0.01", "0.1"]  # one tick per tau
    assert [c.get_facecolor()[0].tolist() for c in error_panel.collections[:2]] == [
        list(matplotlib.colors.to_rgba(shade)) for shade in style.seed_colors("act", 2)
    ]
    plt.close(figure)
    pages = tau_pages(sweep)
    assert list(pages) == ["0.001", "0.01", "0.1"]
    assert len({page.axes[0].get_ylim() for page in pages.values()}) == 1  # the pages share their limits
    for page in pages.values():
        plt.close(page)


# --- the chapter in words (ponderlib.presentation.act) --------------------------------------------

CURVES = SeedCurves(
    seeds=[0, 1],
    difficulty=torch.tensor([1, 2, 3]),
    ponder_steps=torch.tensor([[1.0, 1.5, 2.0], [2.0, 2.0, 2.0]]),
    error=torch.tensor([[0.0, 0.1, 0.25], [0.0, 0.0, 0.0]]),
    ponder_difficulty_correlation=torch.tensor([0.5, float("nan")]),
)


def test_signed_and_listed():
    assert words.signed(0.2393) == "+0.24" and words.signed(-0.5, 3) == "-0.500"
    assert words.signed(float("nan")) == "undefined (constant N)"
    from ponderlib.presentation.tables import listed

    assert [listed(v) for v in ([], ["a"], ["a", "b"], ["a", "b", "c"])] == ["", "a", "a and b", "a, b and c"]


def test_seed_table_known_values():
    table = words.seed_table(CURVES, [0.95, 1.0])
    assert table.splitlines() == [
        "| seed | held-out accuracy | r(difficulty, $N$) | $N$ at difficulty 1 | $N$ at difficulty 3 "
        "| worst error at one difficulty (%) |",
        "|---:|---:|---:|---:|---:|---:|",
        "| 0 | 0.9500 | +0.500 | 1.00 | 2.00 | 25.0 |",
        "| 1 | 1.0000 | undefined (constant N) | 2.00 | 2.00 | 0.0 |",
    ]
    with pytest.raises(ValueError, match="accuracy"):
        words.seed_table(CURVES, [1.0])


def test_least_squares_slope_by_hand():
    assert least_squares_slope([1, 2, 3, 4], [2, 3, 4, 5]) == pytest.approx(1.0)
    assert least_squares_slope([1, 2, 3], [1, 1, 4]) == pytest.approx(1.5)  # mean 2: (-1*-1 + 0 + 1*2) / 2
    assert least_squares_slope([0, 1, 2, 3], [5, 5, 5, 5]) == 0.0
    for x, y in (([1, 1], [0, 1]), ([1, 2], [0]), ([], [])):
        with pytest.raises(ValueError, match="x and y"):
            least_squares_slope(x, y)


def _tau_summary(tau: float, seed: int, steps: list[float], accuracy: float, r: float | None) -> dict:
    return {
        "config": {"tau": tau, "seed": seed},
        "final_accuracy": accuracy,
        "mean_ponder_steps": sum(steps) / len(steps),
        "ponder_steps_by_difficulty": {str(d): s for d, s in enumerate(steps, start=1)},
        "accuracy_by_difficulty": {str(d): accuracy - 0.01 * (d - 1) for d in range(1, len(steps) + 1)},
        "ponder_difficulty_correlation": r,
        "curve": {"update": [100, 200, 300], "accuracy": [0.5, accuracy - 0.01, accuracy],
                  "ponder_steps": [1.0 + seed, 1.5, sum(steps) / len(steps)]},
    }


def _tau_summaries() -> list[dict]:
    return [
        _tau_summary(0.01, 1, [2.0, 2.0, 2.0, 2.0], 1.0, None),  # flat: r undefined
        _tau_summary(0.001, 0, [2.0, 3.0, 4.0, 5.0], 0.99, 0.8),  # one step per entry
        _tau_summary(0.01, 0, [3.0, 3.0, 3.0, 3.5], 0.9, 0.2),
        _tau_summary(0.001, 1, [4.0, 3.0, 2.0, 1.0], 0.98, -0.7),  # falls
    ]


def test_tau_evidence_groups_runs_by_tau_and_seed():
    evidence = TauEvidence.from_summaries(_tau_summaries())
    assert evidence.taus == [0.001, 0.01] and evidence.seeds == [0, 1] and evidence.difficulty == [1, 2, 3, 4]
    def near(table: torch.Tensor, expected: list[list[float]]) -> bool:
        return torch.allclose(table, torch.tensor(expected, dtype=table.dtype), atol=1e-9)

    assert near(evidence.error, [[0.01, 0.02], [0.1, 0.0]])
    assert near(evidence.ponder_steps, [[3.5, 2.5], [3.125, 2.0]])
    assert evidence.by_difficulty.shape == (2, 2, 4)
    assert near(evidence.slope, [[1.0, -1.0], [0.15, 0.0]])  # cov 0.75 / var 5 by hand
    r = evidence.ponder_difficulty_correlation  # (T, S)
    assert r[0].tolist() == pytest.approx([0.8, -0.7]) and math.isnan(r[1, 1])
    assert evidence.growing(0.1) == [1, 1] and evidence.growing(0.0) == [1, 2]
    assert evidence.updates == [100, 200, 300] and evidence.curve.shape == (2, 2, 3)
    assert near(evidence.ponder_curve[:, :, 0], [[1.0, 2.0], [1.0, 2.0]])  # 1 + seed
    assert near(evidence.ponder_curve[:, :, 2], evidence.ponder_steps.tolist())
    assert near(evidence.late_gain(100), [[0.01, 0.01], [0.01, 0.01]])
    assert near(evidence.late_gain(200), [[0.49, 0.48], [0.4, 0.5]])
    with pytest.raises(ValueError, match="updates"):
        evidence.late_gain(301)


def test_tau_evidence_curves_are_one_tau_seed_by_seed():
    evidence = TauEvidence.from_summaries(_tau_summaries())
    curves = evidence.curves(0)  # tau = 0.001: seeds 0 and 1
    assert curves.seeds == [0, 1] and curves.difficulty.tolist() == [1, 2, 3, 4]
    assert curves.ponder_steps.tolist() == [[2.0, 3.0, 4.0, 5.0], [4.0, 3.0, 2.0, 1.0]]
    assert torch.allclose(curves.error[0], torch.tensor([0.01, 0.02, 0.03, 0.04], dtype=torch.float64))
    assert curves.ponder_difficulty_correlation.tolist() == pytest.approx([0.8, -0.7])
    pages = tau_pages(evidence, updates=300)
    assert list(pages) == ["0.001", "0.01"] and "after 300 updates" in pages["0.01"].get_suptitle()
    for fig in pages.values():
        plt.close(fig)
    with pytest.raises(ValueError, match="index"):
        evidence.curves(2)


def test_tau_evidence_refuses_a_grid_with_a_hole():
    with pytest.raises(ValueError, match="every seed at every tau"):
        TauEvidence.from_summaries(_tau_summaries()[:3])
    short = _tau_summaries()
    short[2]["curve"]["ponder_steps"] = [1.0, 2.0]
    with pytest.raises(ValueError, match=r"summaries\[2\]'s curve's ponder_steps must match"):
        TauEvidence.from_summaries(short)
    del short[2]["curve"]["ponder_steps"]
    with pytest.raises(ValueError, match=r"summaries\[2\]'s curve.*ponder_steps"):
        TauEvidence.from_summaries(short)
    with pytest.raises(ValueError, match="at least one"):
        TauEvidence.from_summaries([])


def test_graves_figures_draw_every_tau_and_seed():
    evidence = TauEvidence.from_summaries(_tau_summaries())
    fig4 = plot_tau_evidence(evidence)
    assert all(ax.get_xscale() == "log" for ax in fig4.axes)
    fig5 = plot_error_against_ponder(evidence)
    curves, scatter = fig5.axes[:2]
    assert len(curves.get_lines()) == 2 * 2 + 2  # every run faint, each tau's mean bold
    assert sum(len(c.get_offsets()) for c in scatter.collections) == 4 + 2  # every run and each tau's mean
    during = plot_ponder_during_training_per_tau(evidence)
    error, steps = during.axes[:2]
    assert len(error.get_lines()) == len(steps.get_lines()) == 2 * 2 + 2  # every run faint, each tau's mean bold
    mean = steps.get_lines()[2]  # tau 0.001's mean: seeds 0 and 1
    assert list(mean.get_xdata()) == [100, 200, 300] and mean.get_ydata()[0] == pytest.approx(1.5)
    assert style.shown_width(during) <= style.SHOWN_WIDTH
    plt.close(during)
    fig6 = plot_ponder_by_difficulty_per_tau(evidence)
    panels = [ax for ax in fig6.axes if ax.axison]
    assert panels[0].get_title().endswith("slope 0.00 steps/entry")  # seeds 0 and 1: +1 and -1
    assert panels[1].get_title().endswith(f"slope {0.075:+.2f} steps/entry")
    assert len(panels[0].get_lines()) == 3  # two seeds and their mean
    for fig in (fig4, fig5, fig6):
        assert fig.get_suptitle()
        plt.close(fig)


def test_tau_evidence_table_by_hand():
    evidence = TauEvidence.from_summaries(_tau_summaries())
    table = words.tau_evidence_table(evidence, minimum_slope=0.1, last_updates=100).splitlines()
    assert len(table) == 4  # header, rule, two taus
    assert table[2].split(" | ")[1:] == ["1.5 ± 0.7", "3.00 ± 0.71", "0.000 ± 1.414", "1 of 2", "-0.70 to +0.80", "1.0 |"]
    assert "undefined" not in table[3] and "0.075 ± 0.106" in table[3]  # one seed's r is undefined, the other's +0.20

def test_tau_seed_table_has_one_row_per_network():
    from ponderlib.experiments.act import TauEvidence
    from ponderlib.sweep.evidence import Evidence

    evidence = TauEvidence.from_summaries(Evidence.load("graves-parity-16-long").summaries())
    lines = words.tau_seed_table(evidence, last_updates=10_000).splitlines()
    assert len(lines) == 2 + len(evidence.taus) * len(evidence.seeds)
    tau, seed, error, ponder, slope, gain = (cell.strip() for cell in lines[2].strip("|").split("|"))
    assert (tau, seed) == ("0.001", "0")
    assert error == f"{100 * float(evidence.error[0, 0]):.1f}" and slope == f"{float(evidence.slope[0, 0]):+.3f}"


def test_graves_figures_by_size_draw_each_size_and_the_networks_without_act():
    from ponderlib.figures.act import plot_error_by_difficulty, plot_tau_evidence_by_size

    small = TauEvidence.from_summaries(_tau_summaries())
    fig = plot_tau_evidence_by_size({32: small, 16: small}, no_act_error={16: [0.4, 0.5]})
    error16, error32, steps16, steps32 = fig.axes[:4]
    assert [error16.get_title(), error32.get_title()] == ["16 entries", "32 entries"]  # sizes ascending
    dashed = [line for line in error16.get_lines() if line.get_linestyle() == "--"]
    assert len(dashed) == 1 and dashed[0].get_ydata()[0] == pytest.approx(45.0)  # (40 + 50) / 2
    assert not [line for line in error32.get_lines() if line.get_linestyle() == "--"]
    assert all(ax.get_xscale() == "log" for ax in (error16, error32, steps16, steps32))
    plt.close(fig)
    five = [{**summary, "config": {**summary["config"], "seed": summary["config"]["seed"] + shift}}
            for summary in _tau_summaries() for shift in (0, 2, 4) if summary["config"]["seed"] + shift <= 4]
    fig = plot_tau_evidence_by_size({16: TauEvidence.from_summaries(five)}, no_act_error={16: [0.4, 0.5]})
    assert style.shown_width(fig) <= style.SHOWN_WIDTH  # five seeds' legend entries and the baseline's fit the column
    plt.close(fig)
    with pytest.raises(ValueError, match="no_act_error holds sizes \\[64\\]"):
        plot_tau_evidence_by_size({16: small}, no_act_error={64: [0.5]})
    with pytest.raises(ValueError, match="by_size must hold at least one"):
        plot_tau_evidence_by_size({})
    fig = plot_error_by_difficulty({"16 entries, no ACT": small.curves(0), "32": small.curves(1)})
    panels = [ax for ax in fig.axes if ax.axison]
    assert [ax.get_title() for ax in panels] == ["16 entries, no ACT", "32"]
    mean = panels[0].get_lines()[-1]  # tau 0.001, seeds 0 and 1: errors 1..4 % and their mean
    assert [round(v, 6) for v in mean.get_ydata()] == [round(100 * v, 6) for v in small.error_by_difficulty[0].mean(dim=0).tolist()]
    plt.close(fig)
    with pytest.raises(ValueError, match="groups must hold at least one"):
        plot_error_by_difficulty({})
