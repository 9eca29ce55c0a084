"""Figures of chapter 4: a Universal Transformer's ponder steps per position, against the depth each
position needs, and the attention of its last ponder step.

Colours are the book's (:mod:`ponderlib.figures.style`), the fixed depth's its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.figure import Figure

from ponderlib.figures import style
from ponderlib.tasks.chains import ChainsBatch, ChainsEvaluation


def plot_ponder_schematic(ponder_steps: Sequence[int], labels: Sequence[str], max_ponder_steps: int) -> Figure:
    """The intuition picture: positions (columns) against ponder steps (rows, time running down).

    A filled cell is an application of the shared block to that position; a hatched cell is a
    position that has halted and whose state is copied (still visible to the others' attention).
    """
    fig, ax = plt.subplots(figsize=(1.0 + 0.9 * len(labels), 0.5 + 0.55 * max_ponder_steps))
    for i, steps in enumerate(ponder_steps):
        for n in range(1, max_ponder_steps + 1):
            running = n <= steps
            ax.add_patch(plt.Rectangle((i + 0.05, n - 0.45), 0.9, 0.9, facecolor=style.color("act") if running else "white",
                                       alpha=0.75 if running else 1.0, hatch=None if running else "///", edgecolor="#999999"))
            ax.text(i + 0.5, n, f"$H^{n}_{i + 1}$" if running else "copy", ha="center", va="center", fontsize=8,
                    color="white" if running else "#777777")
    last = max(ponder_steps)
    ax.axhline(last + 0.5, color="k", ls="--", lw=1)
    ax.text(len(labels) - 0.02, last + 0.55, "all halted: the loop stops", ha="right", va="top", fontsize=8)
    ax.set_xlim(0, len(labels))
    ax.set_ylim(max_ponder_steps + 0.5, 0.5)
    ax.set_xticks([i + 0.5 for i in range(len(labels))], labels)
    ax.set_ylabel("ponder step n")
    ax.set_title("One shared block, applied until each position halts")
    fig.tight_layout()
    return fig


def _grid(values: torch.Tensor, padding_mask: torch.Tensor) -> np.ndarray:
    grid = values.float().cpu().numpy().copy()
    grid[padding_mask.cpu().numpy()] = np.nan
    return grid


def plot_ponder_heatmap(evaluation: ChainsEvaluation, rows: int = 12, title: str = "") -> Figure:
    """Ponder steps per position (left) beside the depth each position needs (right), for the
    first ``rows`` programs of an evaluation; padding is blank, a cross marks a wrong bit."""
    steps = _grid(evaluation.ponder_steps[:rows], evaluation.padding_mask[:rows])
    depth = _grid(evaluation.depth[:rows], evaluation.padding_mask[:rows])
    wrong = (~evaluation.correct[:rows] & ~evaluation.padding_mask[:rows]).cpu().numpy()
    fig, axes = plt.subplots(1, 2, figsize=(11, 0.35 * rows + 1.6), sharey=True)
    for ax, grid, name, cmap in ((axes[0], steps, "ponder steps N", "Blues"), (axes[1], depth, "required depth (hops)", "Oranges")):
        image = ax.imshow(grid, cmap=cmap, aspect="auto", vmin=0)
        for (r, c), value in np.ndenumerate(grid):
            if not np.isnan(value):
                ax.text(c, r, f"{int(value)}{'x' if wrong[r, c] and ax is axes[0] else ''}", ha="center", va="center", fontsize=7)
        ax.set_xlabel("position in the program")
        ax.set_title(name)
        fig.colorbar(image, ax=ax, fraction=0.04)
    axes[0].set_ylabel("held-out program")
    fig.suptitle(title or f"Ponder steps against required depth (r = {evaluation.depth_correlation:.2f})")
    fig.tight_layout()
    return fig


def plot_by_depth(runs: Mapping[str, Sequence[ChainsEvaluation]], title: str) -> Figure:
    """Accuracy (left) and mean ponder steps (right) against required depth, one thin line per
    seed and a thick line for the mean, one colour per method (``runs``: method -> evaluations)."""
    tables = {method: [evaluation.by_depth() for evaluation in evaluations] for method, evaluations in runs.items()}
    return _plot_depth_tables(tables, title)


def plot_depth_evidence(runs: Mapping[str, Sequence[Mapping]], title: str) -> Figure:
    """:func:`plot_by_depth` from run summaries (a sweep's records, e.g. committed evidence: ``runs`` is
    method -> summaries with ``accuracy_by_depth`` and ``ponder_steps_by_depth``)."""
    tables = {
        method: [{int(d): (s["accuracy_by_depth"][d], s["ponder_steps_by_depth"][d]) for d in s["accuracy_by_depth"]} for s in summaries]
        for method, summaries in runs.items()
    }
    return _plot_depth_tables(tables, title)


def _plot_depth_tables(runs: Mapping[str, Sequence[Mapping[int, Sequence[float]]]], title: str) -> Figure:
    """``runs``: method -> one table per seed, depth -> (accuracy, ponder steps, ...)."""
    fig, (ax_acc, ax_steps) = plt.subplots(1, 2, figsize=(10, 3.6))
    for method, tables in runs.items():
        color = style.color(method)
        depths = sorted(set.intersection(*(set(table) for table in tables)))
        for index, (ax, label) in enumerate(((ax_acc, "accuracy"), (ax_steps, "ponder steps"))):
            curves = np.array([[table[d][index] for d in depths] for table in tables])
            for curve in curves:
                ax.plot(depths, curve, color=color, lw=0.8, alpha=0.5)
            ax.plot(depths, curves.mean(axis=0), "o-", color=color, lw=2.2, label=f"{style.label(method)} (mean of {len(tables)} seeds)")
            ax.set_xlabel("required depth (hops to a root)")
            ax.set_ylabel(label if index else "accuracy (fraction of positions)")
    ax_steps.set_ylabel("ponder steps per position")
    ax_acc.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    return fig


def program_text(batch: ChainsBatch, index: int, n_names: int) -> list[str]:
    """The assignments of program ``index``, one string per real position, e.g. ``"c = not f"``."""
    letters = [chr(ord("a") + k) if k < 26 else f"v{k}" for k in range(n_names)]
    lines = []
    for i in range(int((~batch.padding_mask[index]).sum())):
        source = int(batch.sources[index, i])
        right = str(source - n_names) if source >= n_names else ("not " if batch.negated[index, i] else "") + letters[source]
        lines.append(f"{letters[int(batch.names[index, i])]} = {right}")
    return lines


def plot_example(evaluation: ChainsEvaluation, batch: ChainsBatch, index: int, n_names: int) -> Figure:
    """One program: ponder steps beside required depth per position (top), and each position's
    attention at its last ponder step (bottom; rows are queries, a circle marks the position that
    assigns the name it reads)."""
    lines = program_text(batch, index, n_names)
    length = len(lines)
    fig, (ax_bar, ax_att) = plt.subplots(2, 1, figsize=(0.6 * length + 3.2, 0.6 * length + 4.2), gridspec_kw={"height_ratios": [1, 2]})
    positions = np.arange(length)
    ax_bar.bar(positions - 0.2, evaluation.ponder_steps[index, :length].cpu().numpy(), 0.4, color=style.color("act"), label="ponder steps N")
    ax_bar.bar(positions + 0.2, evaluation.depth[index, :length].cpu().numpy(), 0.4, color="#ff7f0e", label="required depth")
    for i in positions[~evaluation.correct[index, :length].cpu().numpy()]:
        ax_bar.text(i, 0.1, "x", ha="center", color="k")
    ax_bar.set_xticks(positions, lines, rotation=45, ha="right", fontsize=8)
    ax_bar.set_ylabel("steps / hops")
    ax_bar.legend(fontsize=8)
    ax_att.imshow(evaluation.attention[index, :length, :length].cpu().numpy(), cmap="Greys", vmin=0, vmax=1)
    names = batch.names[index, :length].tolist()
    for i in range(length):
        source = int(batch.sources[index, i])
        if source < n_names:
            ax_att.plot(names.index(source), i, "o", mfc="none", mec="#ff7f0e", ms=10)
    ax_att.set_xticks(positions, lines, rotation=45, ha="right", fontsize=8)
    ax_att.set_yticks(positions, lines, fontsize=8)
    ax_att.set_xlabel("attended position (key)")
    ax_att.set_ylabel("position (query)")
    ax_bar.set_title(f"Program {index}: ponder steps and the attention of each position's last ponder step")
    fig.tight_layout()
    return fig


def plot_lengths(rows: Mapping[str, Mapping[str, Sequence[float]]], title: str) -> Figure:
    """Accuracy on each test set (x) per method: one dot per seed, a bar for the mean
    (``rows``: method -> test-set label -> accuracies over seeds)."""
    fig, ax = plt.subplots(figsize=(8, 3.4))
    methods = list(rows)
    width = 0.8 / len(methods)
    for k, method in enumerate(methods):
        for j, (label, accuracies) in enumerate(rows[method].items()):
            x = j + (k - (len(methods) - 1) / 2) * width
            ax.bar(x, float(np.mean(accuracies)), width, color=style.color(method), alpha=0.6, label=style.label(method) if j == 0 else None)
            ax.plot([x] * len(accuracies), accuracies, "k.", ms=4)
    labels = list(next(iter(rows.values())))
    ax.set_xticks(range(len(labels)), labels, fontsize=8)
    ax.set_ylabel("accuracy (fraction of positions)")
    ax.set_ylim(0.4, 1.0)
    ax.axhline(0.5, color="#999999", ls=":", lw=1)
    ax.legend(fontsize=8)
    ax.set_title(title)
    fig.tight_layout()
    return fig
