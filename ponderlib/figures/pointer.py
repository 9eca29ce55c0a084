"""Figures of chapter 3: attention maps, training curves of the decoders (a live run's, and over seeds
from evidence), convex hulls predicted against true; exact match against array length and the hulls'
learning curves from run summaries (a live run's or a preset's committed evidence: every seed in a shade
of the pointer's hue, and their mean).
Colours and labels are the book's (:mod:`ponderlib.figures.style`); every figure is drawn at most
:data:`~ponderlib.figures.style.MAX_WIDTH` wide, in :func:`~ponderlib.figures.style.book_style`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import matplotlib.ticker
import numpy as np
import torch
from matplotlib.figure import Figure

from ponderlib.core.engine import History
from ponderlib.core.validation import check_not_empty
from ponderlib.figures import style

SEEDS_IN_LEGEND = 5
"""Up to this many seeds, the legend names each seed; more share one entry ("20 seeds, one shade each")."""


def _format_value(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


def _step_ticks(axis) -> None:
    """Whole-number ticks (:func:`~ponderlib.figures.style.integer_ticks`) with thousands separated, at
    most four intervals so that labels such as ``15,000`` stay apart on a half-width panel."""
    style.integer_ticks(axis)
    axis.get_major_locator().set_params(nbins=4)
    axis.set_major_formatter(matplotlib.ticker.StrMethodFormatter("{x:,.0f}"))


def _seed_label(seed: int, k: int, count: int) -> str | None:
    """The legend entry of the ``k``-th of ``count`` seed lines (None: no entry of its own)."""
    if count <= SEEDS_IN_LEGEND:
        return f"seed {seed}"
    return f"{count} seeds, one shade each" if k == 0 else None


def _seeds_and_mean(ax, x: Sequence[float], curves: np.ndarray, seeds: Sequence[int], key: str) -> None:
    """One thin line per seed in the shades of the style key ``key``'s hue (a key of :data:`~ponderlib.figures.style.STYLES`),
    then (over two seeds or more) their mean as a thick line in its colour."""
    count = len(curves)
    style.seed_lines(ax, x, curves, key, {"lw": 1.2 if count > 1 else 2.2}, {"lw": 2.6, "ms": 4}, mean_fmt="o-",
                     seed_labels=[_seed_label(seed, k, count) for k, seed in enumerate(seeds)],
                     mean_label=style.mean_of_seeds(count), single="seed")


def _shared_updates(summaries: Sequence[Mapping], whose: str) -> list[int]:
    """The training updates at which every summary's ``curve`` was evaluated (they must all agree)."""
    updates = summaries[0]["curve"]["update"]
    if any(summary["curve"]["update"] != updates for summary in summaries):
        raise ValueError(f"every {whose} curve must be evaluated at the same training updates")
    return updates


@style.book_figure
def attention_map_figure(attention: torch.Tensor, inputs: torch.Tensor, pointers: torch.Tensor, title: str) -> Figure:
    """Heat map of one example's attention: output step ``i`` (rows) against input position ``j``.

    Args:
        attention: ``(T, N)`` weights ``a^i_j`` (for the pointer, the output distribution).
        inputs: ``(N,)`` the example's values (only the first ``n`` are real).
        pointers: ``(T,)`` positions chosen, -1 at padded steps; ``n`` is the number of real steps.
        title: the figure's title.
    """
    n = int((pointers >= 0).sum())
    weights = attention[:n, :n].detach().cpu().numpy()
    values = inputs[:n].tolist()
    chosen = pointers[:n].tolist()
    return _heat_map(
        weights,
        [_format_value(v) for v in values],
        [f"{i + 1}: {_format_value(values[j])}" for i, j in enumerate(chosen)],
        ("input position j (value x_j)", "output step i (value emitted)", "attention weight a_ij"),
        title,
    )


@style.book_figure
def _heat_map(weights, columns: list[str], rows: list[str], labels: tuple[str, str, str], title: str) -> Figure:
    """A (rows, columns) heat map of weights in [0, 1]; ``labels``: x axis, y axis, colour bar."""
    width = min(style.MAX_WIDTH, 0.42 * len(columns) + 2.6)
    cell = (width - 2.6) / len(columns)  # inches per square cell, beside the labels and the colour bar
    fig, ax = plt.subplots(figsize=(width, min(7.0, max(3.0, cell * len(rows) + 1.9))))
    image = ax.imshow(weights, cmap="Greens", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(columns)), columns, rotation=90 if len(columns) > 8 else 0)
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    ax.set_title(title)
    fig.colorbar(image, ax=ax, label=labels[2], shrink=0.9)
    return fig


@style.book_figure
def training_curves_figure(histories: Mapping[str, History], title: str) -> Figure:
    """Held-out exact match and training loss against training updates, one line per decoder.

    ``histories`` maps a decoder name (one of :data:`ponderlib.mechanisms.pointer.DECODERS`) to its
    :class:`~ponderlib.core.engine.History`.
    """
    check_not_empty("histories", histories, "decoder's history")
    fig, (ax_acc, ax_loss) = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 3.9))
    for decoder, history in histories.items():
        line = {"color": style.color(decoder), "label": style.label(decoder)}
        ax_acc.plot(history.update, history.metrics["exact_match"], marker=".", **line)
        ax_loss.plot(history.update, history.loss, **line)
    return _finish_decoder_curves(fig, ax_acc, ax_loss, title, legend_columns=1)


def _finish_decoder_curves(fig: Figure, ax_acc, ax_loss, title: str, legend_columns: int) -> Figure:
    """The axes, legend and title the two decoder training figures share."""
    ax_acc.set(xlabel="training updates", ylabel="exact match (fraction)", ylim=(-0.02, 1.02))
    ax_acc.set_title("held-out exact match")
    ax_loss.set(xlabel="training updates", ylabel="loss (nats per step)", yscale="log")
    ax_loss.set_title("training loss")
    for ax in (ax_acc, ax_loss):
        _step_ticks(ax.xaxis)
    style.legend_below(fig, ax_acc, ncol=legend_columns)
    fig.suptitle(title)
    return fig


@style.book_figure
def decoder_curves_evidence_figure(runs: Mapping[str, Sequence[Mapping]], title: str, log_updates: bool = False) -> Figure:
    """The decoders' learning curves from run summaries (their ``curve``: ``update``, ``exact_match`` and
    ``loss`` at every evaluation; a preset's committed evidence): held-out exact match (left) and training
    loss (right) against training updates, a thin line per seed and a thick one for the mean over seeds, in
    each decoder's colour.

    Args:
        runs: a decoder (one of :data:`ponderlib.mechanisms.pointer.DECODERS`) -> its runs' summaries,
            one per seed, every curve evaluated at the same training updates.
        title: the figure's title.
        log_updates: training updates on a log scale, so that a long budget shows how soon each decoder
            learns as well as where it ends.
    """
    if not runs or not all(runs.values()):
        raise ValueError("runs must map each decoder to at least one run summary")
    fig, (ax_acc, ax_loss) = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 4.6))  # the legend: a line a decoder
    for decoder, summaries in runs.items():
        updates = _shared_updates(summaries, decoder)
        for ax, metric in ((ax_acc, "exact_match"), (ax_loss, "loss")):
            curves = np.array([summary["curve"][metric] for summary in summaries], dtype=float)  # (S, E)
            style.seed_lines(ax, updates, curves, decoder, {"color": style.color(decoder), "lw": 0.7, "alpha": 0.45},
                             {"lw": 2.4}, single="both",
                             mean_label=f"{style.label(decoder)}: mean of {len(curves)} seed{'s' * (len(curves) > 1)}")
    _finish_decoder_curves(fig, ax_acc, ax_loss, title, legend_columns=1)
    lowest = min(min(summary["curve"]["exact_match"]) for summaries in runs.values() for summary in summaries)
    ax_acc.set_ylim(max(-0.02, lowest - 0.05), 1.02)  # the range the seeds span, not 0 to 1
    if log_updates:
        for ax in (ax_acc, ax_loss):
            ax.set_xscale("log")
            ticks = [t for t in (100, 500, 2000, 5000, 20_000, 50_000) if updates[0] <= t <= updates[-1]]
            ax.set_xticks(ticks, [f"{t:,}" for t in ticks])
            ax.xaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
            ax.set_xlabel("training updates (log scale)")
    return fig


@style.book_figure
def length_evidence_figure(summaries: Sequence[Mapping], trained_max: int, title: str) -> Figure:
    """Exact match against array length from run summaries (``exact_match_by_length``, as a sorting run
    with ``test_max_len`` reports it: a live run's ``summary()``, or a preset's committed evidence): a thin
    line per seed in a shade of the pointer's hue, a thick line for their mean, lengths past training
    shaded.

    Args:
        summaries: one summary per seed, each with ``exact_match_by_length`` (``{"5": value, ...}``)
            and its ``seed`` (else its index is shown).
        trained_max: the longest length seen in training.
        title: the figure's title.
    """
    if len(summaries) == 0:
        raise ValueError("summaries must hold at least one run, got none")
    fig, ax = plt.subplots(figsize=(style.MAX_WIDTH, 3.8))
    _by_count_panel(ax, summaries, "exact_match_by_length", trained_max, "longer than trained")
    ax.set(xlabel="array length n (elements)", ylabel="exact match (fraction)", title=title)
    style.legend_below(fig, ax, ncol=min(len(summaries) + (len(summaries) > 1), 4))
    return fig


def _by_count_panel(
    ax, summaries: Sequence[Mapping], key: str, trained_max: int, shaded: str, label_at: float = 0.12
) -> float:
    """One metric against input size on ``ax``, from run summaries (``summary[key]``: ``{"5": value, ...}``):
    a thin line per seed, a thick one for their mean (:func:`_seeds_and_mean`), the sizes past
    ``trained_max`` shaded and labelled ``shaded`` at height ``label_at`` (a fraction of the panel's);
    the y-axis from just below the lowest value to 1. Returns that lowest value."""
    counts = sorted(int(n) for n in summaries[0][key])
    curves = np.array([[summary[key][str(n)] for n in counts] for summary in summaries], dtype=float)
    ax.axvspan(trained_max + 0.5, counts[-1] + 0.5, color="0.93", zorder=0)
    _seeds_and_mean(ax, counts, curves, [s.get("seed", k) for k, s in enumerate(summaries)], "pointer")
    low = float(np.nanmin(curves))
    ax.text(trained_max + 0.7, label_at, shaded, color="0.4", transform=ax.get_xaxis_transform())
    ax.set_ylim(low - 0.05 * (1.0 - low) - 0.01, 1.005)
    style.integer_ticks(ax.xaxis)
    return low


@style.book_figure
def hull_by_points_figure(
    summaries: Sequence[Mapping], trained_max: int, title: str, published: Mapping[str, Mapping[int, float]] | None = None
) -> Figure:
    """Hull polygon accuracy (left) and area coverage (right) against the number of points, from run
    summaries (``polygon_accuracy`` and ``area_coverage``, ``{"5": value, ...}``, as a hull run's
    ``summary()`` or a preset's committed evidence holds them): a thin line per seed in a shade of the
    pointer's hue, a thick line for their mean, counts past training shaded.

    Args:
        summaries: one summary per seed, each with its ``seed`` (else its index is shown).
        trained_max: the most points a training set had.
        title: the figure's title.
        published: numbers to mark on the accuracy panel, a source (the legend's text) -> {n: accuracy}.
    """
    if len(summaries) == 0:
        raise ValueError("summaries must hold at least one run, got none")
    fig, (ax_acc, ax_area) = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 3.9))
    _by_count_panel(ax_acc, summaries, "polygon_accuracy", trained_max, "more than trained", label_at=0.92)
    lowest_area = _by_count_panel(ax_area, summaries, "area_coverage", trained_max, "more than trained", label_at=0.92)
    if np.isfinite(lowest_area):  # None (no valid polygon) reads as nan
        ax_area.set_ylim(_fraction_limits(lowest_area))
    ax_area.yaxis.set_major_formatter(matplotlib.ticker.StrMethodFormatter("{x:.3f}"))
    markers = ("s", "D", "^", "v")
    for (source, values), marker in zip((published or {}).items(), markers):
        ax_acc.plot(list(values), list(values.values()), marker, color="0.2", ms=7, mfc="none", mew=1.6,
                    label=source)
    low = min([ax_acc.get_ylim()[0], *(v - 0.03 for values in (published or {}).values() for v in values.values())])
    ax_acc.set_ylim(low, 1.005)
    ax_acc.set(xlabel="points n", ylabel="the hull's polygon (fraction)", title="accuracy")
    ax_area.set(xlabel="points n", ylabel="area covered (fraction)", title="area coverage")
    fig.suptitle(title)
    style.legend_below(fig, ax_acc, ncol=2)  # the published sources' names are long
    return fig


@style.book_figure
def pointer_diagram_figure(values: Sequence[float], pointers: Sequence[int], title: str) -> Figure:
    """The intuition picture: each output step is an arrow to an input position, not a word.

    Args:
        values: the input array ``x_1 .. x_n``.
        pointers: the position each output step points at (a permutation of ``0 .. n-1``).
        title: the figure's title.
    """
    check_not_empty("values", values, "input")
    check_not_empty("pointers", pointers, "pointer")
    n = len(values)
    fig, ax = plt.subplots(figsize=(min(style.MAX_WIDTH, 0.9 * n + 1.8), 3.0))
    color = style.color("pointer")
    for j, value in enumerate(values):
        ax.add_patch(plt.Rectangle((j - 0.4, 1.6), 0.8, 0.6, fill=False, lw=1.5))
        ax.text(j, 1.9, _format_value(value), ha="center", va="center", fontsize=style.FONT_SIZE + 2)
        ax.text(j, 2.45, f"j={j}", ha="center", va="center", color="0.4")
    for i, j in enumerate(pointers):
        ax.add_patch(plt.Rectangle((i - 0.4, -0.2), 0.8, 0.6, fill=False, lw=1.5, edgecolor=color))
        ax.text(i, 0.1, _format_value(values[j]), ha="center", va="center", fontsize=style.FONT_SIZE + 2, color=color)
        ax.text(i, -0.5, f"C{i + 1}={j}", ha="center", va="center", color=color)
        ax.annotate(
            "", xy=(j, 1.55), xytext=(i, 0.45), arrowprops={"arrowstyle": "->", "color": color, "alpha": 0.7, "lw": 1.2}
        )
    ax.text(-0.9, 1.9, "input x", ha="right", va="center")
    ax.text(-0.9, 0.1, "output", ha="right", va="center", color=color)
    ax.set_xlim(-2.3, n - 0.4)
    ax.set_ylim(-0.8, 2.75)
    ax.axis("off")
    ax.set_title(title)
    return fig


@style.book_figure
def hull_figure(points: torch.Tensor, predicted: Sequence[int], true: Sequence[int], title: str) -> Figure:
    """One point set with its true convex hull and the network's output polygon.

    Args:
        points: ``(n, 2)`` the real points of one set.
        predicted: the output pointers up to (not including) the end pointer.
        true: the true hull's vertices in order (counter-clockwise from the lowest index).
        title: the figure's title.
    """
    xy = points.detach().cpu().numpy()
    color = style.color("pointer")
    fig, ax = plt.subplots(figsize=(4.2, 4.6))
    ax.scatter(xy[:, 0], xy[:, 1], color="0.3", s=14, zorder=3)
    for j, (x, y) in enumerate(xy):
        ax.annotate(str(j), (x, y), textcoords="offset points", xytext=(3, 3), color="0.4")
    closed_true = list(true) + list(true[:1])
    ax.plot(xy[closed_true, 0], xy[closed_true, 1], color="0.6", lw=4, alpha=0.5, label="true hull (SciPy)")
    if len(predicted) > 0:
        closed = list(predicted) + list(predicted[:1])
        ax.plot(xy[closed, 0], xy[closed, 1], color=color, lw=1.5, marker="o", ms=3, label="pointer network")
        ax.annotate("start", xy[predicted[0]], textcoords="offset points", xytext=(-14, -14), color=color)
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    ax.set_aspect("equal")
    ax.set_xlabel("x (unit square)")
    ax.set_ylabel("y (unit square)")
    ax.set_title(title)
    style.legend_below(fig, ax, ncol=2)
    return fig


@style.book_figure
def hull_attention_figure(attention: torch.Tensor, pointers: torch.Tensor, n: int, title: str) -> Figure:
    """Heat map of one hull's pointer distributions: output step ``i`` (rows) against the ``n``
    points and the end position (columns).

    Args:
        attention: ``(T, N + 1)`` the output distributions ``p(C_i = j)``; column ``N`` is the end.
        pointers: ``(T,)`` positions chosen, the end as ``N``, -1 after it.
        n: the number of real points (columns ``0 .. n - 1`` are shown, then the end).
        title: the figure's title.
    """
    steps = int((pointers >= 0).sum())
    end = attention.shape[1] - 1
    weights = torch.cat([attention[:steps, :n], attention[:steps, end:]], dim=1).detach().cpu().numpy()
    chosen = ["end" if j == end else str(j) for j in pointers[:steps].tolist()]
    return _heat_map(
        weights,
        [str(j) for j in range(n)] + ["end"],
        [f"{i + 1}: {c}" for i, c in enumerate(chosen)],
        ("input point j (and the end)", "output step i (point chosen)", "p(C_i = j)"),
        title,
    )


@style.book_figure
def sort_example_figures(examples: Sequence, title: str) -> dict[str, Figure]:
    """An :func:`attention_map_figure` per decoded array (``SortExample`` of
    :func:`ponderlib.experiments.pointer.sort_examples`), keyed by a label for a picker,
    ``"example 1 (n = 11)"``; ``title`` starts every figure's title."""
    check_not_empty("examples", examples, "example")
    figures = {}
    for k, example in enumerate(examples):
        label = f"example {k + 1} (n = {example.length})"
        figures[label] = attention_map_figure(example.attention, example.inputs, example.pointers, f"{title}, {label}")
    return figures


@style.book_figure
def hull_example_figures(examples: Sequence, seed: int) -> dict[str, Figure]:
    """For each decoded point set (``HullExample`` of :func:`ponderlib.experiments.pointer.hull_examples`,
    by the run of ``seed``) a :func:`hull_figure` and a :func:`hull_attention_figure`, keyed by a label
    for a picker: ``"set 1 (n = 10), hull"``, ``"set 1 (n = 10), pointer distributions"``."""
    check_not_empty("examples", examples, "example")
    figures = {}
    for k, example in enumerate(examples):
        n = example.length
        outcome = "exact" if example.exact else "not exact"
        figures[f"set {k + 1} (n = {n}), hull"] = hull_figure(
            example.points, example.predicted, example.true, f"set {k + 1}, {n} points: {outcome} (seed {seed})"
        )
        figures[f"set {k + 1} (n = {n}), pointer distributions"] = hull_attention_figure(
            example.attention, example.pointers, n, f"set {k + 1}: p(C_i = j), seed {seed}"
        )
    return figures


@style.book_figure
def hull_training_figure(histories: Mapping[int, History], title: str) -> Figure:
    """Held-out hull accuracy and area coverage against training updates, one line per seed in a shade
    of the pointer's hue.

    ``histories`` maps a seed to the :class:`~ponderlib.core.engine.History` of a
    :func:`ponderlib.tasks.convex_hull.train_hull` run (metrics ``accuracy`` and ``area_coverage``).
    """
    fig, (ax_acc, ax_area) = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 3.8))
    shades = style.seed_colors("pointer", len(histories))
    for k, ((seed, history), shade) in enumerate(zip(histories.items(), shades)):
        kwargs = {"color": shade, "marker": ".", "label": _seed_label(seed, k, len(histories))}
        ax_acc.plot(history.update, history.metrics["accuracy"], **kwargs)
        ax_area.plot(history.update, history.metrics["area_coverage"], **kwargs)
    return _finish_hull_training(fig, ax_acc, ax_area, title)


def _finish_hull_training(fig: Figure, ax_acc, ax_area, title: str) -> Figure:
    """The axes, legend and title the two hull training figures share."""
    ax_acc.set(xlabel="training updates", ylabel="exact hulls (fraction)", ylim=(-0.02, 1.02))
    ax_acc.set_title("held-out accuracy")
    ax_area.set(xlabel="training updates", ylabel="area covered (fraction)", ylim=(0.5, 1.01))
    ax_area.set_title("held-out area coverage")
    for ax in (ax_acc, ax_area):
        _step_ticks(ax.xaxis)
    style.legend_below(fig, ax_acc, ncol=4)
    fig.suptitle(title)
    return fig


@style.book_figure
def hull_training_evidence_figure(summaries: Sequence[Mapping], title: str) -> Figure:
    """:func:`hull_training_figure` from run summaries (their ``curve``: ``update``, ``accuracy`` and
    ``area_coverage`` at every evaluation; a live run's ``summary()`` or a preset's committed evidence):
    a thin line per seed in a shade of the pointer's hue and a thick line for their mean."""
    if len(summaries) == 0:
        raise ValueError("summaries must hold at least one run, got none")
    updates = _shared_updates(summaries, "summary's")
    seeds = [summary.get("seed", k) for k, summary in enumerate(summaries)]
    fig, (ax_acc, ax_area) = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 3.8))
    lowest = {}
    for ax, metric in ((ax_acc, "accuracy"), (ax_area, "area_coverage")):
        curves = np.array([summary["curve"][metric] for summary in summaries], dtype=float)
        _seeds_and_mean(ax, updates, curves, seeds, "pointer")
        lowest[ax] = float(np.nanmin(curves))
    _finish_hull_training(fig, ax_acc, ax_area, title)
    for ax, low in lowest.items():  # the range the seeds span, so that a long run's last gains show
        ax.set_ylim(_fraction_limits(low))
    return fig


def _fraction_limits(low: float) -> tuple[float, float]:
    """Y-limits for fractions from ``low`` to at most 1: a margin of a tenth of the span below, a
    twentieth above (at least 0.002 each way)."""
    span = 1.0 - low
    return low - 0.1 * span - 0.002, 1.0 + 0.05 * span + 0.002
