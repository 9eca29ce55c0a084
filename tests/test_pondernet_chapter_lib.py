"""Tests of what chapter 2 adds to ponderlib: experiment helpers and PonderNet plots (tiny, fast runs)."""

from __future__ import annotations

from dataclasses import replace

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from ponderlib.core.records import RunSummary
from ponderlib.experiments import parity as parity_experiments
from ponderlib.experiments import pondernet as pondernet_experiments
from ponderlib.experiments.parity import HaltingSummary
from ponderlib.experiments.pondernet import DifficultySummary
from ponderlib.figures import pondernet as plots
from ponderlib.figures import style
from ponderlib.mechanisms.halting import geometric_prior, pondernet_halting
from ponderlib.presentation import pondernet as text
from ponderlib.tasks.parity import ParityConfig, train_parity
from ponderlib.tasks.parity_eval import evaluate_by_difficulty

TINY = ParityConfig(
    n_elems=3,
    hidden=8,
    max_ponder_steps=5,
    target_accuracy=None,
    max_seconds=None,
    max_updates=2,
    eval_every=1,
    eval_size=16,
    progress=False,
    device="cpu",
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


def test_pondernet_plots_return_labelled_figures(tiny_runs):
    lambdas = torch.tensor([[0.2, 0.5, 0.3]])
    runs = tiny_runs
    halting = parity_experiments.HaltingSummary.of(runs["pondernet"])
    figures = [
        plots.plot_lambdas_to_halting(lambdas[0], pondernet_halting(lambdas)[0]),
        plots.plot_halting_vs_prior(
            {"a": halting.halting_distribution, "b": halting.halting_distribution}, geometric_prior(0.5, 5), 0.5
        ),
        plots.plot_sensitivity({0.5: [halting]}, {0.3: [halting] * 2, 0.5: [halting] * 2}, title="two seeds"),
    ]
    for figure in figures:
        assert figure.axes and all(ax.get_xlabel() or ax.get_title() for ax in figure.axes)
        plt.close(figure)


def test_chapter_2_diagnostic_plots(tiny_runs):
    evaluations = {
        m: evaluate_by_difficulty(r.model, 3, samples_per_difficulty=4, seed=0) for m, r in tiny_runs.items()
    }
    figures = [
        plots.plot_seeds_by_difficulty(
            {"PonderNet": [evaluations["pondernet"]] * 2, "ACT": [evaluations["act"]] * 2},
            {"PonderNet": "pondernet", "ACT": "act"},
            trained_max=2,
        ),
        plots.plot_seeds_by_difficulty(  # summaries, as the evidence holds them
            {"PonderNet": [tiny_runs["pondernet"].summary()] * 2, "ACT": [tiny_runs["act"].summary()]},
            {"PonderNet": "pondernet", "ACT": "act"},
            trained_max=2,
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
    from_result, from_summary = (
        pondernet_experiments.DifficultySummary.of(result),
        pondernet_experiments.DifficultySummary.of(summary),
    )
    assert from_result == from_summary
    by_difficulty = summary["accuracy_by_difficulty"]
    assert from_summary.interpolation_accuracy == pytest.approx((by_difficulty["1"] + by_difficulty["2"]) / 2)
    assert from_summary.extrapolation_accuracy == from_summary.hardest_accuracy == by_difficulty["3"]
    assert from_summary.extrapolation_ponder_steps == summary["ponder_steps_by_difficulty"]["3"]
    expected = summary["expected_ponder_steps_by_difficulty"]
    assert (from_summary.easiest_expected, from_summary.hardest_expected) == (expected["1"], expected["2"])
    assert from_summary.expected_change == pytest.approx(abs(expected["2"] - expected["1"]))
    assert from_summary.expected_difficulty_correlation == pytest.approx(1.0 if expected["2"] > expected["1"] else -1.0)
    with pytest.raises(ValueError, match="fewer than n_elems"):
        pondernet_experiments.DifficultySummary.of(train_parity(TINY))
    with pytest.raises(ValueError, match="score every difficulty"):
        pondernet_experiments.DifficultySummary.of({**summary, "expected_ponder_steps_by_difficulty": None})
    with pytest.raises(ValueError, match="summary"):
        pondernet_experiments.DifficultySummary.of([1, 2])


def test_halting_summary_reads_the_mean_halting_distribution(tiny_runs):
    run = tiny_runs["pondernet"]
    halting, from_summary = (
        parity_experiments.HaltingSummary.of(run),
        parity_experiments.HaltingSummary.of(run.summary()),
    )
    assert torch.equal(halting.halting_distribution, from_summary.halting_distribution)
    assert (halting.interpolation_accuracy, halting.mean_ponder_steps) == (
        from_summary.interpolation_accuracy, from_summary.mean_ponder_steps
    )
    p = halting.halting_distribution
    assert p.shape == (TINY.max_ponder_steps,) and p.sum().item() == pytest.approx(1.0, abs=1e-3)
    assert halting.interpolation_accuracy == run.summary()["interpolation_accuracy"] and halting.error == pytest.approx(
        1 - halting.interpolation_accuracy
    )
    assert halting.expected_ponder_steps == pytest.approx(sum((n + 1) * v for n, v in enumerate(p.tolist())))
    assert halting.mass_on_cap == p[-1].item() and halting.mass_on(1) == p[0].item()
    assert halting.mass_on(2, 4) == pytest.approx(p[1:4].sum().item())
    assert (
        halting.mass_after(1) == pytest.approx(1 - p[0].item(), abs=1e-3)
        and halting.mass_after(TINY.max_ponder_steps) == 0
    )
    with pytest.raises(ValueError, match="last"):
        halting.mass_on(3, 2)
    with pytest.raises(ValueError, match="halting_distribution"):
        parity_experiments.HaltingSummary.of({**run.summary(), "halting_distribution": None})


def test_halting_summary_pads_a_short_unroll_to_max_ponder_steps(tiny_runs):
    summary = tiny_runs["pondernet"].summary()
    short = {**summary, "halting_distribution": [0.5, 0.3, 0.2]}  # the unroll stopped after step 3 of 5
    halting = parity_experiments.HaltingSummary.of(short)
    assert halting.halting_distribution.tolist() == pytest.approx([0.5, 0.3, 0.2, 0.0, 0.0])
    assert halting.mass_on_cap == 0.0 and halting.mass_after(3) == 0.0
    assert halting.expected_ponder_steps == pytest.approx(0.5 + 0.6 + 0.6)


def _all_figures(tiny_runs):
    lambdas = torch.tensor([[0.2, 0.5, 0.3]])
    evaluations = {
        m: evaluate_by_difficulty(r.model, 3, samples_per_difficulty=4, seed=0) for m, r in tiny_runs.items()
    }
    halting = parity_experiments.HaltingSummary.of(tiny_runs["pondernet"])
    return {
        "lambdas": plots.plot_lambdas_to_halting(lambdas[0], pondernet_halting(lambdas)[0]),
        "prior": plots.plot_halting_vs_prior(halting.halting_distribution, geometric_prior(0.5, 5), 0.5),
        "sensitivity": plots.plot_sensitivity({0.5: [halting] * 3}, {0.3: [halting] * 3, 0.5: [halting] * 3}),
        "lambda robustness": plots.plot_lambda_robustness({0.3: [halting] * 3, 0.5: [halting] * 3}, {0.3: 3.0, 0.5: 2.0}, 0.95),
        "seeds": plots.plot_seeds_by_difficulty(
            {"PonderNet": [evaluations["pondernet"]] * 3, "ACT": [evaluations["act"]]},
            {"PonderNet": "pondernet", "ACT": "act"},
            trained_max=2,
        ),
    }


def test_pondernet_figures_fit_the_column_with_legible_text(tiny_runs):
    for name, figure in _all_figures(tiny_runs).items():
        figure.canvas.draw()
        assert style.shown_width(figure) <= style.SHOWN_WIDTH, name
        assert figure.dpi == style.DPI, name
        texts = [t for t in figure.findobj(matplotlib.text.Text) if t.get_text() and t.get_visible()]
        assert min(t.get_fontsize() for t in texts) >= style.FONT_SIZE, name
        panels = [ax for ax in figure.axes if ax.get_label() != "<colorbar>"]
        rows = {}
        for ax in panels:
            rows.setdefault(round(ax.get_position().y0, 2), []).append(ax)
        assert max(len(row) for row in rows.values()) <= 2, name
        for ax in panels:  # legends sit under the panels, off the data
            assert ax.get_legend() is None, name
        plt.close(figure)


def test_seed_lines_take_shades_of_the_method_and_say_how_many_seeds(tiny_runs):
    from matplotlib.colors import to_hex

    evaluation = evaluate_by_difficulty(tiny_runs["act"].model, 3, samples_per_difficulty=4, seed=0)
    figure = plots.plot_seeds_by_difficulty(
        {"ACT": [evaluation] * 3, "one": [evaluation]}, {"ACT": "act", "one": "act"}
    )
    accuracy_axis = figure.axes[0]
    colours = [to_hex(line.get_color()) for line in accuracy_axis.get_lines()]
    assert colours[:3] == style.seed_colors("act", 3)  # one shade per seed, then the mean in the method's colour
    assert colours[3] == style.color("act")
    labels = [text.get_text() for text in figure.legends[0].get_texts()]
    assert "ACT (mean of 3 seeds)" in labels and "one (one seed)" in labels
    plt.close(figure)


# ---------------------------------------------------------------- ponderlib.presentation.pondernet


def _halting(interpolation_accuracy, mean_ponder_steps, probs):
    return HaltingSummary(interpolation_accuracy, mean_ponder_steps, torch.tensor(probs, dtype=torch.float64))


def _difficulty(
    interpolation_accuracy=1.0,
    extrapolation_accuracy=0.4,
    hardest_accuracy=0.3,
    ponder_steps=5.0,
    expected=5.0,
    easiest=6.0,
    hardest_expected=4.0,
    expected_difficulty_correlation=-0.9,
    extrapolation_ponder_steps=4.0,
):
    return DifficultySummary(
        interpolation_accuracy, extrapolation_accuracy, hardest_accuracy, ponder_steps, expected, easiest,
        hardest_expected, expected_difficulty_correlation, extrapolation_ponder_steps,
    )


def test_prior_table_gives_both_truncations_and_their_closed_forms():
    table = text.prior_table([0.5], max_ponder_steps=2).splitlines()
    # lambda_p = 0.5, N = 2. Tail on the last step: (0.5, 0.5), mean 1.5 = (1 - 0.25) / 0.5. Normalised by
    # Z = 0.75: (2/3, 1/3), mean 4/3 = 1/0.5 - 2 * 0.25 / 0.75.
    assert table[0].startswith("| $\\lambda_p$ | truncation | $p_G(1)$ | $p_G(2)$ | most likely step")
    assert table[2] == "| 0.5 | last | 0.5000 | 0.5000 | 1 | 1.500 | 1.500 |"
    assert table[3] == "| 0.5 | normalised | 0.6667 | 0.3333 | 1 | 1.333 | 1.333 |"


def test_tau_table_counts_the_seeds_that_solve():
    runs = {0.0: [_difficulty(interpolation_accuracy=1.0, ponder_steps=8.0),
                  _difficulty(interpolation_accuracy=0.9, ponder_steps=6.0)],
            0.02: [_difficulty(interpolation_accuracy=0.96, extrapolation_accuracy=0.5, ponder_steps=2.0)]}
    lines = text.tau_table(runs).splitlines()
    assert lines[0].startswith("| $\\tau$ | accuracy, trained range | seeds at 0.95 or more |")
    assert lines[2] == "| 0 | 0.950 (0.900 to 1.000) | 1 of 2 | 0.400 (0.400 to 0.400) | 7.00 (6.00 to 8.00) |"
    assert lines[3] == "| 0.02 | 0.960 (0.960 to 0.960) | 1 of 1 | 0.500 (0.500 to 0.500) | 2.00 (2.00 to 2.00) |"
    with pytest.raises(ValueError, match=r"runs\[0.0\] must hold at least one run"):
        text.tau_table({0.0: []})


def test_prior_mean_is_the_truncated_priors_mean_in_closed_form():
    for lambda_p in (0.05, 0.1, 0.5, 0.9, 1.0):
        for truncation in pondernet_experiments.PRIOR_TRUNCATIONS:
            prior = geometric_prior(lambda_p, 20, truncation).double()
            mean = float((prior * torch.arange(1, 21, dtype=torch.float64)).sum())
            assert pondernet_experiments.prior_mean(lambda_p, 20, truncation) == pytest.approx(mean, abs=1e-5)
    assert pondernet_experiments.prior_mean(0.5, 2, "last") == pytest.approx(1.5)
    assert pondernet_experiments.prior_mean(0.5, 2) == pytest.approx(4 / 3)
    with pytest.raises(ValueError, match="truncation"):
        pondernet_experiments.prior_mean(0.5, 2, "tail")
    with pytest.raises(ValueError, match="lambda_p"):
        pondernet_experiments.prior_mean(0.0, 2)


def test_spike_threshold_separates_a_spike_on_the_cap_from_none():
    for n in (2, 20, 50):
        threshold = pondernet_experiments.spike_threshold(n)
        below, above = geometric_prior(threshold * 0.95, n, "last"), geometric_prior(threshold * 1.05, n, "last")
        assert below[-1] > below[0] and above[-1] < above[0]
    assert pondernet_experiments.spike_threshold(2) == pytest.approx(0.5)  # 1 - lambda = lambda
    assert round(pondernet_experiments.spike_threshold(20), 3) == 0.11
    with pytest.raises(ValueError, match="max_ponder_steps"):
        pondernet_experiments.spike_threshold(1)


def test_when_a_run_first_solved_its_trained_range_is_read_off_its_curve():
    run = RunSummary.of(_extrapolation_record(0, [1.0, 1.0, 0.5, 0.5], [2.0, 2.0, 2.0, 2.0], [0.5, 0.5, 0.5]))
    # the curve on the trained range: 0.6, 0.9, 1.0 at updates 100, 200, 300
    assert run.curve.reach("accuracy", 0.95) == 300
    assert run.curve.reach("accuracy", 0.5) == 100
    assert RunSummary.of({**run, "curve": {**run["curve"], "accuracy": [0.1] * 3}}).curve.reach("accuracy", 0.95) is None


def test_trend_table_compares_settings_over_their_seeds():
    def seed(accuracy, easiest, hardest_expected, r, ponder_steps):
        return _difficulty(interpolation_accuracy=accuracy, easiest=easiest, hardest_expected=hardest_expected,
                           expected_difficulty_correlation=r, ponder_steps=ponder_steps)

    falling = [seed(1.0, 6.0, 4.0, -0.9, 5.0), seed(0.9, 5.0, 3.0, -0.5, 4.0)]
    mixed = [seed(0.98, 2.0, 3.0, 0.25, 2.5), seed(0.96, 3.0, 2.0, -0.75, 3.5), seed(1.0, 4.0, 4.0, 0.5, 3.0)]
    lines = text.trend_table({"paper KL": falling, "no KL": mixed}, trained_max=6).splitlines()
    assert lines[0].startswith("| setting | accuracy 1..6 (lowest seed) | $\\mathbb E[n]$ at 1 → 6 |")
    # Means: (1.0 + 0.9) / 2 = 0.95, E[n] (6 + 5) / 2 = 5.5 -> (4 + 3) / 2 = 3.5, steps 4.5; r < 0 in both seeds.
    assert lines[2] == "| paper KL | 0.950 (0.900) | 5.50 → 3.50 | 2 of 2 | -0.90 to -0.50 | 4.50 |"
    # (0.98 + 0.96 + 1.0) / 3 = 0.98; E[n] 3.00 -> 3.00; only the second seed falls; steps 9 / 3 = 3.
    assert lines[3] == "| no KL | 0.980 (0.960) | 3.00 → 3.00 | 1 of 3 | -0.75 to +0.50 | 3.00 |"
    with pytest.raises(ValueError, match=r"groups\[.empty.\] must hold at least one run"):
        text.trend_table({"empty": []}, trained_max=6)


def test_lambda_table_counts_the_seeds_that_solve():
    runs = {0.5: [_halting(0.8, 1.0, [0.5, 0.5]), _halting(1.0, 3.0, [0.3, 0.7])], 0.9: [_halting(0.96, 1.0, [1.0, 0.0])] * 2}
    table = text.lambda_table(runs, max_ponder_steps=2, solved=0.95)
    assert table.splitlines()[0].endswith("| seeds at accuracy 0.95 or more |")
    assert "| 0.5 | 1.33 | 1.60 (1.50 to 1.70) | 2.00 (1.00 to 3.00) | 0.900 (0.800 to 1.000) | 1 of 2 |" in table
    assert "| 0.9 | 1.09 | 1.00 (1.00 to 1.00) | 1.00 (1.00 to 1.00) | 0.960 (0.960 to 0.960) | 2 of 2 |" in table
    assert "seeds at" not in text.lambda_table(runs, max_ponder_steps=2)
    with pytest.raises(ValueError, match=r"runs\[0.5\] must hold at least one run"):
        text.lambda_table({0.5: []}, max_ponder_steps=2)


def test_lambda_robustness_draws_the_seed_mean_and_the_prior():
    runs = {0.1: [_halting(0.9, 5.0, [0.0, 1.0]), _halting(1.0, 5.0, [0.0, 0.0, 1.0])],
            0.5: [_halting(0.5, 1.0, [1.0]), _halting(0.7, 1.0, [0.0, 1.0])]}
    figure = plots.plot_lambda_robustness(runs, {0.1: 9.0, 0.5: 2.0}, solved=0.95)
    ax_acc, ax_steps = figure.axes
    lines = {line.get_label(): line for line in ax_steps.get_lines()}
    assert lines["prior's mean $\\mathbb{E}_{p_G}[n]$"].get_ydata().tolist() == [9.0, 2.0]
    means = [line for line in ax_steps.get_lines() if line.get_marker() == "o"]
    assert [round(v, 6) for v in means[0].get_ydata()] == [2.5, 1.5]  # E[n]: (2 + 3) / 2, (1 + 2) / 2
    accuracy = [line for line in ax_acc.get_lines() if line.get_marker() == "o"][0]
    assert [round(v, 6) for v in accuracy.get_ydata()] == [0.95, 0.6]
    assert len(ax_acc.get_lines()) == 2 + 1 + 1  # a line per seed, the mean, the solved line
    plt.close(figure)
    with pytest.raises(ValueError, match="prior_means must hold the lambda_p of runs"):
        plots.plot_lambda_robustness(runs, {0.1: 9.0}, solved=0.95)


def _extrapolation_record(seed, accuracy, steps, extrapolation_curve):
    """A record of 4-element parity trained on 1..2: accuracy and ponder steps at difficulties 1..4."""
    levels = ["1", "2", "3", "4"]
    return {
        "config": {"seed": seed, "n_elems": 4, "min_nonzero": 1, "max_nonzero": 2},
        "accuracy_by_difficulty": dict(zip(levels, accuracy)),
        "ponder_steps_by_difficulty": dict(zip(levels, steps)),
        "expected_ponder_steps_by_difficulty": dict(zip(levels, steps)),
        "curve": {"update": [100, 200, 300], "accuracy": [0.6, 0.9, 1.0], "extrapolation_accuracy": extrapolation_curve},
    }


def test_extrapolation_table_reads_each_seed_and_its_best_moment():
    runs = [
        _extrapolation_record(0, [1.0, 0.9, 0.4, 0.6], [2.0, 4.0, 5.0, 7.0], [0.5, 0.7, 0.5]),
        _extrapolation_record(1, [1.0, 1.0, 0.2, 0.2], [3.0, 3.0, 1.0, 1.0], [0.6, 0.6, 0.2]),
    ]
    curve = pondernet_experiments.ExtrapolationCurve.of(runs[0])
    assert curve.best == (0.7, 200)
    assert pondernet_experiments.ExtrapolationCurve.of(runs[1]).best == (0.6, 100)  # the first time it is reached
    lines = text.extrapolation_table({"PonderNet": runs}).splitlines()
    assert lines[0] == (
        "| model | seed | accuracy, 1..2 | accuracy, 3..4 | best on 3..4 (update) | steps, 1..2 | steps, 3..4 |"
    )
    # Seed 0: (1.0 + 0.9) / 2 = 0.95 on 1..2, (0.4 + 0.6) / 2 = 0.5 beyond; steps 3 inside, 6 beyond.
    assert lines[2] == "| PonderNet | 0 | 0.950 | 0.500 | 0.700 (200) | 3.00 | 6.00 |"
    assert lines[3] == "| PonderNet | 1 | 1.000 | 0.200 | 0.600 (100) | 3.00 | 1.00 |"
    assert lines[4] == "| **PonderNet: mean** |  | **0.975** | **0.350** | **0.650** | **3.00** | **3.50** |"
    with pytest.raises(ValueError, match="extrapolation_accuracy"):
        pondernet_experiments.ExtrapolationCurve.of({**runs[0], "curve": {"update": [1], "accuracy": [0.5]}})
    with pytest.raises(ValueError, match="at least one run"):
        text.extrapolation_table({"PonderNet": []})


def test_extrapolation_curves_draw_a_panel_per_group():
    runs = [_extrapolation_record(seed, [1.0, 0.9, 0.4, 0.6], [2.0, 4.0, 5.0, 7.0], [0.5, 0.7, 0.5]) for seed in range(2)]
    figure = plots.plot_extrapolation_curves({"PonderNet": runs, "ACT": runs[:1]}, {"PonderNet": "pondernet", "ACT": "act"},
                                             title="extrapolation")
    panels = [ax for ax in figure.axes if ax.get_title()]
    assert [ax.get_title() for ax in panels] == ["PonderNet (2 seeds)", "ACT (1 seed)"]
    # Two thin lines per seed, the mean, and the two legend entries (no data).
    assert len(panels[0].lines) == 2 * 2 + 1 + 2 + 1  # and the line at chance
    plt.close(figure)
    with pytest.raises(ValueError, match="missing 'ACT'"):
        plots.plot_extrapolation_curves({"ACT": runs}, {}, title="")

def test_thinking_time_by_setting_draws_every_seed_and_the_mean():
    from types import SimpleNamespace

    runs = [SimpleNamespace(expected_ponder_steps=e, mean_ponder_steps=s) for e, s in [(9.0, 12.0), (11.0, 14.0)]]
    figure = plots.plot_thinking_time_by_setting({"book": runs, "tanh": runs[:1]}, prior_mean=7.23, paper=3)
    left, right = figure.axes[:2]
    assert [t.get_text() for t in left.get_yticklabels()] == ["book", "tanh"]  # one row per setting
    dots, mean = left.lines[0], left.lines[1]
    assert list(dots.get_xdata()) == [9.0, 11.0] and list(mean.get_xdata()) == [10.0, 10.0]
    assert list(right.lines[0].get_xdata()) == [12.0, 14.0]
    assert [line.get_xdata()[0] for line in left.lines[4:6]] == [7.23, 3]  # the prior's mean, the paper's
    assert left.get_xlim() == right.get_xlim() == pytest.approx((0, 14.0 * 1.06))
    assert style.shown_width(figure) <= style.SHOWN_WIDTH
    plt.close(figure)
    with pytest.raises(ValueError, match="at least one run"):
        plots.plot_thinking_time_by_setting({"book": []}, prior_mean=7.23)


def test_the_tail_ratio_and_its_table_and_figure_by_hand():
    from ponderlib.experiments.parity import HaltingSummary
    from ponderlib.experiments.pondernet import prior_mean
    from ponderlib.presentation.pondernet import tail_table

    def summary(probs):
        return HaltingSummary(interpolation_accuracy=1.0, mean_ponder_steps=5.0,
                              halting_distribution=torch.tensor(probs, dtype=torch.float64))

    # Rising to step 2, then halving at every step; the cap (step 6) holds the rest and is left out.
    halving = summary([0.1, 0.4, 0.2, 0.1, 0.05, 0.15])
    assert halving.mode == 2 and halving.tail_ratio == pytest.approx(0.5)
    assert summary([0.2, 0.5, 0.2, 0.1]).tail_ratio is None  # two steps after the mode: too few to fit
    assert summary([0.1, 0.5, 0.3, 0.0999, 0.0005, 0.0004, 0.0002]).tail_ratio is None  # below the floor
    lines = tail_table({0.5: [halving, halving]}, max_ponder_steps=6).splitlines()
    from_mode = 1 + prior_mean(0.5, 5)
    assert lines[2] == (f"| 0.5 | 0.50 | 0.500 (0.500 to 0.500) | 2 of 2 | 2.0 (2.0 to 2.0) | "
                        f"{halving.expected_ponder_steps:.2f} ({halving.expected_ponder_steps:.2f} to "
                        f"{halving.expected_ponder_steps:.2f}) | {prior_mean(0.5, 6):.2f} | "
                        f"{from_mode:.2f} ({from_mode:.2f} to {from_mode:.2f}) |")
    figure = plots.plot_halting_tails({0.5: [halving]})
    ax = figure.axes[0]
    assert ax.get_yscale() == "log" and list(ax.lines[0].get_ydata()) == pytest.approx([0.1, 0.4, 0.2, 0.1, 0.05, 0.15])
    assert list(ax.lines[1].get_ydata()) == pytest.approx([0.4, 0.2, 0.1, 0.05])  # the prior's decay from step 2
    plt.close(figure)
    four = plots.plot_halting_tails({value: [halving] * 10 for value in (0.05, 0.1, 0.3, 0.6)}, title="x" * 40)
    assert style.shown_width(four) <= style.SHOWN_WIDTH  # the chapter's four lines: legible on a phone
    plt.close(four)
    with pytest.raises(ValueError, match="at least one run"):
        plots.plot_halting_tails({0.5: []})


def test_a_runs_step_profile_by_hand_and_the_settings_table():
    from ponderlib.experiments.parity import HaltingSummary
    from ponderlib.presentation.pondernet import setting_table

    record = {"interpolation_accuracy": 0.99, "mean_ponder_steps": 3.0, "config": {"max_ponder_steps": 4},
              "halting_distribution": [0.1, 0.4, 0.3, 0.2], "step_accuracy": [0.5, 0.6, 0.96, 1.0],
              "kl_optimal_halting_distribution": [0.0, 0.5, 0.3, 0.2]}
    profiled = HaltingSummary.of(record)
    assert profiled.first_right_step == 3  # 0.96 >= 0.95: the third step's prediction is the first right
    assert profiled.distance_from_optimum == pytest.approx(0.1)  # (|0.1 - 0| + |0.4 - 0.5|) / 2
    old = HaltingSummary.of({k: v for k, v in record.items() if k not in ("step_accuracy", "kl_optimal_halting_distribution")})
    assert old.first_right_step is None and old.distance_from_optimum is None  # a record from before profiles
    never = HaltingSummary.of({**record, "step_accuracy": [0.5, 0.5, 0.5, 0.94]})
    assert never.first_right_step is None
    with pytest.raises(ValueError, match="'step_accuracy' must hold one value per ponder step"):
        HaltingSummary.of({**record, "step_accuracy": [0.5, 1.0]})
    with pytest.raises(ValueError, match="kl_optimal_halting_distribution"):
        HaltingSummary.of({**record, "kl_optimal_halting_distribution": [0.5, float("nan"), 0.3, 0.2]})
    lines = setting_table({"profiled": [profiled, profiled], "old": [old]}).splitlines()
    assert lines[2] == ("| profiled | 2 | 0.990 (0.990 to 0.990) | 2.60 (2.60 to 2.60) | 3.00 (3.00 to 3.00) | "
                        "2.0 (2.0 to 2.0) | 0.200 (0.200 to 0.200) | 3.0 (3.0 to 3.0) (2 of 2) | 0.100 (2 of 2) |")
    assert lines[3].endswith("| (not kept) | (not kept) |")
    assert setting_table({"one wrong": [never]}).splitlines()[2].endswith("| not all right | 0.100 (1 of 1) |")
    with pytest.raises(TypeError, match=r"groups\['a'\]\[1\] must be"):
        setting_table({"a": [profiled, {"accuracy": 1.0}]})
    with pytest.raises(ValueError, match="groups"):
        setting_table({"a": []})
    # A run that cut p_n at each input's own N trained another loss: its optimum is not read.
    mass = HaltingSummary.of({**record, "config": {"max_ponder_steps": 4, "unroll": "mass"}})
    assert mass.kl_optimal_halting_distribution is None and mass.first_right_step == 3
