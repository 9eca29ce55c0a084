"""Figures of chapter 3: attention maps, training curves of the decoders, exact match against
array length, convex hulls predicted against true; exact match against length and the hulls' learning
curves also from run summaries (a preset's committed evidence, every seed and their mean). Colours and
labels are the book's (:mod:`ponderlib.figures.style`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.figure import Figure

from ponderlib.core.engine import History
from ponderlib.figures import style


def _format_value(value: float) -> str:
    return f"{value:.0f}" if float(value).is_integer() else f"{value:.2f}"


def attention_map_figure(
    attention: torch.Tensor, inputs: torch.Tensor, pointers: torch.Tensor, title: str
) -> Figure:
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
        weights, [_format_value(v) for v in values], [f"{i + 1}: {_format_value(values[j])}" for i, j in enumerate(chosen)],
        ("input position j (value x_j)", "output step i (value emitted)", "attention weight a_ij"), title,
    )


def _heat_map(weights, columns: list[str], rows: list[str], labels: tuple[str, str, str], title: str) -> Figure:
    """A (rows, columns) heat map of weights in [0, 1]; ``labels``: x axis, y axis, colour bar."""
    fig, ax = plt.subplots(figsize=(0.45 * len(columns) + 2.2, 0.4 * len(rows) + 1.6))
    image = ax.imshow(weights, cmap="Greens", vmin=0.0, vmax=1.0)
    ax.set_xticks(range(len(columns)), columns, rotation=90 if len(columns) > 8 else 0)
    ax.set_yticks(range(len(rows)), rows)
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    ax.set_title(title, fontsize=10)
    fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label=labels[2])
    fig.tight_layout()
    return fig


def training_curves_figure(histories: Mapping[str, History], title: str) -> Figure:
    """Held-out exact match and training loss against training updates, one line per decoder.

    ``histories`` maps a decoder name (one of :data:`ponderlib.mechanisms.pointer.DECODERS`) to its
    :class:`~ponderlib.core.engine.History`.
    """
    fig, (ax_acc, ax_loss) = plt.subplots(1, 2, figsize=(10, 3.6))
    for decoder, history in histories.items():
        line = {"color": style.color(decoder), "label": style.label(decoder)}
        ax_acc.plot(history.update, history.metrics["exact_match"], marker=".", **line)
        ax_loss.plot(history.update, history.loss, **line)
    ax_acc.set_xlabel("training updates")
    ax_acc.set_ylabel("held-out exact match (fraction)")
    ax_acc.set_ylim(-0.02, 1.02)
    ax_acc.set_title("exact match (greedy decoding)")
    ax_loss.set_xlabel("training updates")
    ax_loss.set_ylabel("training loss (nats per output step)")
    ax_loss.set_yscale("log")
    ax_loss.set_title("training loss (mean since the last evaluation)")
    ax_acc.legend()
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def length_curve_figure(
    curves: Mapping[str, Mapping[int, float | None]],
    trained_max: int,
    title: str,
    colors: Mapping[str, str] | None = None,
    styles: Mapping[str, str] | None = None,
) -> Figure:
    """Exact match against array length, one line per model; lengths past training are shaded.

    Args:
        curves: label -> {length: exact match, or None where the model cannot run}.
        trained_max: the longest length seen in training.
        colors, styles: per label, a colour and a line style (default: the pointer's green, solid).
    """
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    ax.axvspan(trained_max + 0.5, max(max(c) for c in curves.values()) + 0.5, color="0.93", zorder=0)
    ax.text(trained_max + 0.7, 0.6, "longer than trained", color="0.4")
    for label, curve in curves.items():
        lengths: Sequence[int] = [n for n, v in curve.items() if v is not None]
        ax.plot(lengths, [curve[n] for n in lengths], marker="o", label=label,
                color=(colors or {}).get(label, style.color("pointer")), linestyle=(styles or {}).get(label, "-"))
    ax.set_xlabel("array length n (elements)")
    ax.set_ylabel("exact match (fraction)")
    ax.set_ylim(-0.02, 1.02)
    ax.set_title(title)
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    return fig


def length_evidence_figure(summaries: Sequence[Mapping], trained_max: int, title: str) -> Figure:
    """Exact match against array length from run summaries (``exact_match_by_length``, as a sorting run
    with ``test_max_len`` reports it; e.g. a preset's committed evidence): a thin line per run, a thick
    line for their mean, lengths past training shaded.

    Args:
        summaries: one summary per seed, each with ``exact_match_by_length`` (``{"5": value, ...}``).
        trained_max: the longest length seen in training.
        title: the figure's title.
    """
    if len(summaries) == 0:
        raise ValueError("summaries must hold at least one run, got none")
    lengths = sorted(int(n) for n in summaries[0]["exact_match_by_length"])
    curves = np.array([[summary["exact_match_by_length"][str(n)] for n in lengths] for summary in summaries], dtype=float)
    color = style.color("pointer")
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    ax.axvspan(trained_max + 0.5, lengths[-1] + 0.5, color="0.93", zorder=0)
    for k, curve in enumerate(curves):
        ax.plot(lengths, curve, color=color, lw=0.8, alpha=0.4, label=f"each of {len(curves)} seeds" if k == 0 else None)
    ax.plot(lengths, curves.mean(axis=0), "o-", color=color, lw=2.2, label=f"mean of {len(curves)} seeds")
    low = float(np.nanmin(curves))
    ax.text(trained_max + 0.7, low + 0.1 * (1.0 - low), "longer than trained", color="0.4")
    ax.set_xlabel("array length n (elements)")
    ax.set_ylabel("exact match (fraction)")
    ax.set_ylim(low - 0.05 * (1.0 - low) - 0.01, 1.005)
    ax.set_title(title)
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    return fig


def pointer_diagram_figure(values: Sequence[float], pointers: Sequence[int], title: str) -> Figure:
    """The intuition picture: each output step is an arrow to an input position, not a word.

    Args:
        values: the input array ``x_1 .. x_n``.
        pointers: the position each output step points at (a permutation of ``0 .. n-1``).
        title: the figure's title.
    """
    n = len(values)
    fig, ax = plt.subplots(figsize=(0.9 * n + 1.5, 2.8))
    color = style.color("pointer")
    for j, value in enumerate(values):
        ax.add_patch(plt.Rectangle((j - 0.4, 1.6), 0.8, 0.6, fill=False, lw=1.5))
        ax.text(j, 1.9, _format_value(value), ha="center", va="center", fontsize=12)
        ax.text(j, 2.4, f"j={j}", ha="center", va="center", fontsize=8, color="0.4")
    for i, j in enumerate(pointers):
        ax.add_patch(plt.Rectangle((i - 0.4, -0.2), 0.8, 0.6, fill=False, lw=1.5, edgecolor=color))
        ax.text(i, 0.1, _format_value(values[j]), ha="center", va="center", fontsize=12, color=color)
        ax.text(i, -0.45, f"C_{i + 1}={j}", ha="center", va="center", fontsize=8, color=color)
        ax.annotate("", xy=(j, 1.55), xytext=(i, 0.45),
                    arrowprops={"arrowstyle": "->", "color": color, "alpha": 0.7, "lw": 1.2})
    ax.text(-0.9, 1.9, "input x", ha="right", va="center")
    ax.text(-0.9, 0.1, "output", ha="right", va="center", color=color)
    ax.set_xlim(-2.2, n - 0.4)
    ax.set_ylim(-0.7, 2.7)
    ax.axis("off")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def hull_figure(points: torch.Tensor, predicted: Sequence[int], true: Sequence[int], title: str) -> Figure:
    """One point set with its true convex hull and the network's output polygon.

    Args:
        points: ``(n, 2)`` the real points of one set.
        predicted: the output pointers up to (not including) the end pointer.
        true: the true hull's vertices in order (counter-clockwise from the lowest index).
        title: the figure's title.
    """
    xy = points.detach().cpu().numpy()
    fig, ax = plt.subplots(figsize=(3.6, 3.6))
    ax.scatter(xy[:, 0], xy[:, 1], color="0.3", s=14, zorder=3)
    for j, (x, y) in enumerate(xy):
        ax.annotate(str(j), (x, y), textcoords="offset points", xytext=(3, 3), fontsize=7, color="0.4")
    closed_true = list(true) + list(true[:1])
    ax.plot(xy[closed_true, 0], xy[closed_true, 1], color="0.6", lw=4, alpha=0.5, label="true hull (SciPy)")
    if len(predicted) > 0:
        closed = list(predicted) + list(predicted[:1])
        ax.plot(xy[closed, 0], xy[closed, 1], color=style.color("pointer"), lw=1.5, marker="o", ms=3,
                label="pointer network")
        ax.annotate("start", xy[predicted[0]], textcoords="offset points", xytext=(-12, -12), fontsize=7,
                    color=style.color("pointer"))
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    ax.set_aspect("equal")
    ax.set_xlabel("x (unit square)")
    ax.set_ylabel("y (unit square)")
    ax.set_title(title, fontsize=9)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, fontsize=7, frameon=False)
    fig.tight_layout()
    return fig


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
    return _heat_map(weights, [str(j) for j in range(n)] + ["end"], [f"{i + 1}: {c}" for i, c in enumerate(chosen)],
                     ("input point j (and the end position)", "output step i (point chosen)", "p(C_i = j)"), title)


def hull_training_figure(histories: Mapping[int, History], title: str) -> Figure:
    """Held-out hull accuracy and area coverage against training updates, one line per seed.

    ``histories`` maps a seed to the :class:`~ponderlib.core.engine.History` of a
    :func:`ponderlib.tasks.convex_hull.train_hull` run (metrics ``accuracy`` and ``area_coverage``).
    """
    fig, (ax_acc, ax_area) = plt.subplots(1, 2, figsize=(10, 3.4))
    for line_style, (seed, history) in zip(("-", "--", ":", "-."), histories.items()):
        kwargs = {"color": style.color("pointer"), "linestyle": line_style, "marker": ".", "label": f"seed {seed}"}
        ax_acc.plot(history.update, history.metrics["accuracy"], **kwargs)
        ax_area.plot(history.update, history.metrics["area_coverage"], **kwargs)
    return _finish_hull_training(fig, ax_acc, ax_area, title)


def _finish_hull_training(fig: Figure, ax_acc, ax_area, title: str) -> Figure:
    """The axes, legend and title the two hull training figures share."""
    ax_acc.set(xlabel="training updates", ylabel="held-out accuracy (fraction of exact hulls)", ylim=(-0.02, 1.02))
    ax_area.set(xlabel="training updates", ylabel="held-out area coverage (fraction)", ylim=(0.5, 1.01))
    ax_acc.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def hull_training_evidence_figure(summaries: Sequence[Mapping], title: str) -> Figure:
    """:func:`hull_training_figure` from run summaries (their ``curve``: ``update``, ``accuracy`` and
    ``area_coverage`` at every evaluation; e.g. a preset's committed evidence): a thin line per run and a
    thick line for their mean."""
    if len(summaries) == 0:
        raise ValueError("summaries must hold at least one run, got none")
    updates = summaries[0]["curve"]["update"]
    if any(summary["curve"]["update"] != updates for summary in summaries):
        raise ValueError("every summary's curve must be evaluated at the same training updates")
    color = style.color("pointer")
    fig, (ax_acc, ax_area) = plt.subplots(1, 2, figsize=(10, 3.4))
    for ax, metric in ((ax_acc, "accuracy"), (ax_area, "area_coverage")):
        curves = np.array([summary["curve"][metric] for summary in summaries], dtype=float)
        for k, curve in enumerate(curves):
            ax.plot(updates, curve, color=color, lw=0.8, alpha=0.4, label=f"each of {len(curves)} seeds" if k == 0 else None)
        ax.plot(updates, curves.mean(axis=0), "o-", color=color, lw=2.2, ms=3, label=f"mean of {len(curves)} seeds")
    return _finish_hull_training(fig, ax_acc, ax_area, title)
