"""Figures of chapter 4: a Universal Transformer's ponder steps per position, against the depth each
position needs, and the attention of its last ponder step.

Colours are the book's (:mod:`ponderlib.figures.style`), the fixed depth's its own; every figure is
drawn in the book's style (:func:`~ponderlib.figures.style.book_figure`), at most
:data:`~ponderlib.figures.style.MAX_WIDTH` inches wide.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.figure import Figure

from ponderlib.core.records import finite_numbers
from ponderlib.core.validation import MAX_LENGTH, check_groups, check_int, check_not_empty
from ponderlib.figures import style
from ponderlib.tasks.chains import ChainsEvaluation
from ponderlib.tasks.chains_data import ChainsBatch


@style.book_figure
def plot_ponder_schematic(ponder_steps: Sequence[int], labels: Sequence[str], max_ponder_steps: int) -> Figure:
    """The intuition picture: positions (columns) against ponder steps (rows, time running down).

    A filled cell is an application of the shared block to that position; a hatched cell is a
    position that has halted and whose state is copied (still visible to the others' attention).
    """
    check_not_empty("ponder_steps", ponder_steps, "position's ponder steps")
    if len(labels) != len(ponder_steps):
        raise ValueError(f"labels must hold one label per position ({len(ponder_steps)}), got {len(labels)}")
    check_int("max_ponder_steps", max_ponder_steps, minimum=max(ponder_steps), maximum=MAX_LENGTH)
    width = min(style.MAX_WIDTH, 1.0 + 1.0 * len(labels))
    fig, ax = plt.subplots(figsize=(width, 0.9 + 0.5 * max_ponder_steps))
    for i, steps in enumerate(ponder_steps):
        for n in range(1, max_ponder_steps + 1):
            running = n <= steps
            ax.add_patch(
                plt.Rectangle(
                    (i + 0.05, n - 0.45),
                    0.9,
                    0.9,
                    facecolor=style.color("act") if running else "white",
                    alpha=0.75 if running else 1.0,
                    hatch=None if running else "///",
                    edgecolor="#999999",
                )
            )
            ax.text(
                i + 0.5,
                n,
                f"$H^{n}_{i + 1}$" if running else "copy",
                ha="center",
                va="center",
                color="white" if running else "#555555",
                bbox=None if running else {"facecolor": "white", "edgecolor": "none", "pad": 1},
            )
    last = max(ponder_steps)
    ax.axhline(last + 0.5, color="k", ls="--", lw=1)
    ax.text(
        len(labels) - 0.1,
        last + 0.5,
        "all halted: the loop stops",
        ha="right",
        va="center",
        bbox={"facecolor": "white", "edgecolor": "k", "pad": 2},
    )
    ax.set_xlim(0, len(labels))
    ax.set_ylim(max_ponder_steps + 0.5, 0.5)
    ax.set_xticks([i + 0.5 for i in range(len(labels))], labels)
    style.integer_ticks(ax.yaxis)
    ax.set_ylabel("ponder step n")
    ax.set_title("One shared block, applied until each position halts")
    return fig


def _grid(values: torch.Tensor, padding_mask: torch.Tensor) -> np.ndarray:
    grid = values.float().cpu().numpy().copy()
    grid[padding_mask.cpu().numpy()] = np.nan
    return grid


@style.book_figure
def plot_ponder_heatmap(evaluation: ChainsEvaluation, rows: int = 12, title: str = "") -> Figure:
    """Ponder steps per position (left) beside the depth each position needs (right), for the
    first ``rows`` programs of an evaluation; padding is blank, a cross marks a wrong bit. Each cell
    is written with its number, so the panels need no colour bar."""
    steps = _grid(evaluation.ponder_steps[:rows], evaluation.padding_mask[:rows])
    depth = _grid(evaluation.depth[:rows], evaluation.padding_mask[:rows])
    wrong = (~evaluation.correct[:rows] & ~evaluation.padding_mask[:rows]).cpu().numpy()
    fig, axes = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 0.3 * rows + 1.6), sharey=True)
    panels = ((axes[0], steps, "ponder steps N", "Blues"), (axes[1], depth, "required depth (hops)", "Oranges"))
    for ax, grid, name, cmap in panels:
        top = max(float(np.nanmax(grid)), 1.0) if not np.all(np.isnan(grid)) else 1.0
        ax.imshow(grid, cmap=cmap, aspect="auto", vmin=0, vmax=top)
        for (r, c), value in np.ndenumerate(grid):
            if not np.isnan(value):
                mark = "x" if wrong[r, c] and ax is axes[0] else ""
                dark = value > 0.6 * top
                ax.text(c, r, f"{int(value)}{mark}", ha="center", va="center", color="white" if dark else "black")
        ax.set_xlabel("position")
        ax.set_title(name)
        style.integer_ticks(ax.xaxis)
    style.integer_ticks(axes[0].yaxis)
    axes[0].set_ylabel("held-out program")
    fig.suptitle(title or f"r = {evaluation.depth_correlation:.2f}")
    return fig


def plot_by_depth(runs: Mapping[str, Sequence[ChainsEvaluation]], title: str = "") -> Figure:
    """Accuracy (left) and mean ponder steps (right) against required depth, one thin line per
    seed in a shade of the method's hue and a thick line for the mean (``runs``: method ->
    evaluations, one per seed)."""
    check_groups("runs", runs, "evaluation")
    tables = {method: [evaluation.by_depth() for evaluation in evaluations] for method, evaluations in runs.items()}
    return _plot_depth_tables(tables, title)


def plot_depth_evidence(runs: Mapping[str, Sequence[Mapping]], title: str = "") -> Figure:
    """:func:`plot_by_depth` from run summaries (a sweep's records, e.g. committed evidence: ``runs`` is
    method -> summaries with ``accuracy_by_depth`` and ``ponder_steps_by_depth``)."""
    check_groups("runs", runs, "summary")
    tables = {
        method: [
            {int(d): (s["accuracy_by_depth"][d], s["ponder_steps_by_depth"][d]) for d in s["accuracy_by_depth"]}
            for s in summaries
        ]
        for method, summaries in runs.items()
    }
    return _plot_depth_tables(tables, title)


def seeds_label(method: str, seeds: int) -> str:
    """A method's legend entry for the mean over ``seeds`` seeds: ``"ACT (mean of 3 seeds)"``, or
    ``"ACT (one seed)"`` when there is one."""
    return f"{style.label(method)} ({style.mean_of_seeds(seeds)})"


@style.book_figure
def _plot_depth_tables(runs: Mapping[str, Sequence[Mapping[int, Sequence[float]]]], title: str) -> Figure:
    """``runs``: method -> one table per seed, depth -> (accuracy, ponder steps, ...)."""
    fig, (ax_acc, ax_steps) = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 3.6))
    for method, tables in runs.items():
        depths = sorted(set.intersection(*(set(table) for table in tables)))
        for index, ax in enumerate((ax_acc, ax_steps)):
            curves = np.array([[table[d][index] for d in depths] for table in tables])
            style.seed_lines(ax, depths, curves, method, {"lw": 0.9, "alpha": 0.8}, {"lw": 2.4}, mean_fmt="o-",
                             mean_label=seeds_label(method, len(tables)))
    for ax in (ax_acc, ax_steps):
        ax.set_xlabel("required depth (hops)")
        style.integer_ticks(ax.xaxis)
    ax_acc.set_ylabel("accuracy")
    ax_steps.set_ylabel("ponder steps per position")
    style.legend_below(fig, ncol=1 if len(runs) == 1 else 2)
    if title:
        fig.suptitle(title)
    return fig


def program_text(batch: ChainsBatch, index: int, n_names: int) -> list[str]:
    """The assignments of program ``index``, one string per real position, e.g. ``"c = not f"``."""
    letters = [chr(ord("a") + k) if k < 26 else f"v{k}" for k in range(n_names)]
    lines = []
    for i in range(int((~batch.padding_mask[index]).sum())):
        source = int(batch.sources[index, i])
        right = (
            str(source - n_names)
            if source >= n_names
            else ("not " if batch.negated[index, i] else "") + letters[source]
        )
        lines.append(f"{letters[int(batch.names[index, i])]} = {right}")
    return lines


@style.book_figure
def plot_example(evaluation: ChainsEvaluation, batch: ChainsBatch, index: int, n_names: int) -> Figure:
    """One program: ponder steps beside required depth per position (top), and each position's
    attention at its last ponder step (bottom; rows are queries, a circle marks the position that
    assigns the name it reads)."""
    lines = program_text(batch, index, n_names)
    length = len(lines)
    fig, (ax_bar, ax_att) = plt.subplots(
        2, 1, figsize=(style.MAX_WIDTH, 0.36 * length + 4.6), gridspec_kw={"height_ratios": [2.2, 0.36 * length]}
    )
    positions = np.arange(length)
    ax_bar.bar(
        positions - 0.2,
        evaluation.ponder_steps[index, :length].cpu().numpy(),
        0.4,
        color=style.color("act"),
        label="ponder steps N",
    )
    ax_bar.bar(
        positions + 0.2, evaluation.depth[index, :length].cpu().numpy(), 0.4, color="#ff7f0e", label="required depth"
    )
    for i in positions[~evaluation.correct[index, :length].cpu().numpy()]:
        ax_bar.text(i, 0.1, "x", ha="center", color="k")
    ax_bar.set_xticks(positions, lines, rotation=45, ha="right")
    ax_bar.set_xlim(-0.5, length - 0.5)
    ax_bar.set_ylabel("steps / hops")
    style.integer_ticks(ax_bar.yaxis)
    ax_bar.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=2, frameon=False)
    ax_att.imshow(evaluation.attention[index, :length, :length].cpu().numpy(), cmap="Greys", vmin=0, vmax=1)
    names = batch.names[index, :length].tolist()
    for i in range(length):
        source = int(batch.sources[index, i])
        if source < n_names:
            ax_att.plot(names.index(source), i, "o", mfc="none", mec="#ff7f0e", mew=2, ms=12)
    ax_att.set_xticks(positions, lines, rotation=45, ha="right")
    ax_att.set_yticks(positions, lines)
    ax_att.set_xlabel("attended position (key)")
    ax_att.set_ylabel("position (query)")
    fig.suptitle(f"Program {index}")
    return fig


ORDER_COLORS = {"topological": style.PRIOR_COLOR, "shuffled": "#d95f02"}
"""The two ways of writing a program (:data:`~ponderlib.tasks.chains.ORDERS`), each a colour of its own."""


@style.book_figure
def plot_depth_by_position(mean_depth: Mapping[str, Sequence[float]]) -> Figure:
    """Mean required depth at each position (x, from 1) for each way of writing the programs
    (``mean_depth``: order -> mean depth per position): the confound, and its removal."""
    check_groups("mean_depth", mean_depth, "position")
    for order, means in mean_depth.items():
        if order not in ORDER_COLORS:
            raise ValueError(f"mean_depth's keys must be orders {sorted(ORDER_COLORS)}, got {order!r}")
        finite_numbers(f"mean_depth[{order!r}]", means, "mean depth")
    fig, ax = plt.subplots(figsize=(style.MAX_WIDTH * 0.75, 3.4))
    for order, means in mean_depth.items():
        ax.plot(range(1, len(means) + 1), means, "o-", color=ORDER_COLORS[order], label=f"{order} order")
    ax.set_xlabel("position in the program")
    ax.set_ylabel("mean required depth (hops)")
    style.integer_ticks(ax.xaxis)
    style.legend_below(fig, ncol=2)
    return fig


@style.book_figure
def plot_steps_distribution(distributions: Mapping[str, Mapping[int, Any]], title: str = "") -> Figure:
    """Ponder steps against required depth, one panel per method (``distributions``: method -> depth ->
    :class:`~ponderlib.experiments.transformer.StepsDistribution`): a disc's area is the share of that
    depth's positions that ran that many steps; the line is the mean, the bars one standard deviation
    either side (as Dehghani et al. report bAbI's "2.3 ± 0.8"); dotted, one step per hop after the
    first (``d + 1``)."""
    check_groups("distributions", distributions, "depth")
    methods = list(distributions)
    fig, axes = plt.subplots(1, len(methods), figsize=(style.MAX_WIDTH, 3.6), sharey=True, squeeze=False)
    for ax, method in zip(axes[0], methods):
        by_depth = distributions[method]
        depths = sorted(by_depth)
        for depth in depths:
            shares = np.array(by_depth[depth].shares)
            steps = np.arange(1, len(shares) + 1)
            ax.scatter(
                np.full(len(steps), depth), steps, s=600 * shares, color=style.color(method), alpha=0.35, linewidths=0
            )
        means = [by_depth[d].mean for d in depths]
        sds = [by_depth[d].sd for d in depths]
        ax.errorbar(depths, means, yerr=sds, fmt="o-", color=style.color(method), lw=2, capsize=4, label="mean ± sd")
        ax.plot(depths, [d + 1 for d in depths], ":", color="#333333", lw=1.2, label="one step per hop (d + 1)")
        ax.set_title(style.label(method))
        ax.set_xlabel("required depth (hops)")
        style.integer_ticks(ax.xaxis)
        style.integer_ticks(ax.yaxis)
    axes[0][0].set_ylabel("ponder steps")
    return style.finish(fig, title)


@style.book_figure
def plot_compute_accuracy(
    fixed: Mapping[int, Sequence[Sequence[float]]], adaptive: Mapping[str, Sequence[Sequence[float]]], panels: Sequence[str]
) -> Figure:
    """Accuracy against computation per position: one panel per accuracy in ``panels`` (their titles).
    ``fixed``: fixed depth ``L`` -> one row per seed, ``(ponder steps, accuracy in panel 1, ...)``;
    ``adaptive``: method -> the same rows for ACT or PonderNet. The fixed depths are joined by a line
    through their means; every seed is a dot."""
    fig, axes = plt.subplots(1, len(panels), figsize=(style.MAX_WIDTH, 3.6), sharey=True, squeeze=False)
    depths = sorted(fixed)
    for k, (ax, panel) in enumerate(zip(axes[0], panels), start=1):
        rows = {depth: np.array(fixed[depth], dtype=float) for depth in depths}
        ax.plot(
            depths, [rows[d][:, k].mean() for d in depths], "s-", color=style.color("fixed"), lw=1.8,
            label=f"{style.label('fixed')}, L = {depths[0]} to {depths[-1]}",
        )
        for depth in depths:
            ax.scatter(rows[depth][:, 0], rows[depth][:, k], s=12, color=style.color("fixed"), alpha=0.5)
        for method, method_rows in adaptive.items():
            points = np.array(method_rows, dtype=float)
            ax.scatter(points[:, 0], points[:, k], s=22, color=style.color(method), edgecolors="k", linewidths=0.5,
                       zorder=3, label=f"{style.label(method)} (each seed)")
        ax.set_title(panel)
        ax.axhline(0.5, color="#999999", ls=":", lw=1)
    fig.supxlabel("ponder steps per position (mean)")
    axes[0][0].set_ylabel("accuracy")
    style.legend_below(fig, ncol=2)
    return fig


@style.book_figure
def plot_curves(summaries: Mapping[str, Sequence[Mapping]], title: str = "") -> Figure:
    """Held-out accuracy (left) and mean ponder steps (right) against training updates, one thin line per
    seed in a shade of the method's hue, a thick one for the mean (``summaries``: method -> run
    summaries with a ``curve``)."""
    check_groups("summaries", summaries, "summary")
    fig, axes = plt.subplots(1, 2, figsize=(style.MAX_WIDTH, 3.6))
    for method, runs in summaries.items():
        updates = runs[0]["curve"]["update"]
        for ax, name in zip(axes, ("accuracy", "ponder_steps")):
            curves = np.array([run["curve"][name] for run in runs], dtype=float)
            style.seed_lines(ax, updates, curves, method, {"lw": 0.7, "alpha": 0.6}, {"lw": 2.2},
                             mean_label=seeds_label(method, len(runs)), single="both")
    axes[0].set_ylabel("held-out accuracy")
    axes[1].set_ylabel("ponder steps per position")
    for ax in axes:
        ax.set_xlabel("training updates")
    return style.finish(fig, title)
