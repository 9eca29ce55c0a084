"""The book's one colour and one label for everything a figure draws in a colour of its own, the same in
every chapter and figure.

Each is named by a *style key*, a key of :data:`STYLES`: a method (``"act"``, ``"pondernet"``,
``"fixed"``), a variant of one (``"act-deep-start"``: ACT whose halting unit starts at a bias of -3,
chapter 4), or a decoder of :data:`ponderlib.mechanisms.pointer.DECODERS`. A figure takes the key of what
it draws explicitly and asks :func:`color` and :func:`label`; nothing parses a colour out of a display
label. Runs over seeds are drawn the same way everywhere: a shade of the key's hue per seed and their mean
in its colour (:func:`seed_lines`, :func:`mean_of_seeds`).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass


@dataclass(frozen=True)
class Style:
    """How a style key is drawn: its colour and its label in legends and tables."""

    color: str
    label: str


STYLES: dict[str, Style] = {
    "act": Style("#1f77b4", "ACT"),
    "act-deep-start": Style("#17becf", "ACT, deep start"),
    "pondernet": Style("#d62728", "PonderNet"),
    "fixed": Style("#8c564b", "fixed depth"),
    "pointer": Style("#2ca02c", "pointer network"),
    "seq2seq": Style("#7f7f7f", "seq2seq"),
    "bahdanau": Style("#9467bd", "seq2seq+attention (Bahdanau)"),
    "luong": Style("#e377c2", "seq2seq+attention (Luong-style)"),
}
"""Every style key: each method (ACT, PonderNet, the Universal Transformer's fixed depth), ACT's
deep start, and each decoder (the pointer network and the three seq2seq baselines), with a colour of its own."""

PRIOR_COLOR = "#555555"
"""The geometric prior ``p_G``, drawn beside PonderNet's learned distribution."""


def _style(key: str) -> Style:
    if key not in STYLES:
        raise ValueError(f"key must be one of {', '.join(map(repr, STYLES))}; got {key!r}")
    return STYLES[key]


def color(key: str) -> str:
    """The book's colour for the style key ``key`` (a key of :data:`STYLES`)."""
    return _style(key).color


def label(key: str) -> str:
    """The book's name for the style key ``key`` in legends and tables (a key of :data:`STYLES`)."""
    return _style(key).label


# The figures' type and size. A figure is drawn at DPI and shown at most as wide as the book's column
# (about 690 px on a desktop; on a phone the page gives it the screen's whole width, 390 px on most),
# shrunk when it is wider. Text that is FONT_SIZE points high on a figure MAX_WIDTH inches wide stays at
# about 9 px or more on a phone: 11 pt * 390 px / (6.2 in * 72 pt/in) = 9.6 px (the browser test
# measures it). So a figure is at most MAX_WIDTH wide (two panels in a row at most) and no text in it is
# smaller than FONT_SIZE.
DPI = 100
"""Dots per inch of every figure the library draws (the PNG a page shows)."""

FONT_SIZE = 11
"""The smallest text in any figure (tick labels, legends, annotations), in points."""

MAX_WIDTH = 6.2
"""The widest a figure is drawn, in inches (two panels side by side); wider would shrink its text."""

SHOWN_WIDTH = 6.5
"""The widest a figure may be as a page shows it (:func:`shown_width`), in inches: ``MAX_WIDTH``, the
padding Jupyter saves around it and a little text past the panels' edges. 11 pt on a phone 390 px wide:
11 * 390 / (6.5 * 72) = 9.2 px."""

RC = {
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "font.size": FONT_SIZE,
    "axes.titlesize": FONT_SIZE + 1,
    "axes.labelsize": FONT_SIZE + 1,
    "xtick.labelsize": FONT_SIZE,
    "ytick.labelsize": FONT_SIZE,
    "legend.fontsize": FONT_SIZE,
    "legend.title_fontsize": FONT_SIZE,
    "figure.titlesize": FONT_SIZE + 2,
    "figure.constrained_layout.use": True,
}
"""Matplotlib settings of the book's figures (:func:`book_style` applies them while a figure is drawn)."""


@contextlib.contextmanager
def book_style():
    """A context in which matplotlib draws with the book's sizes (:data:`RC`); nothing changes outside it.

    Fonts and the figure's dpi are fixed when the figure and its text are created, so every figure
    function of :mod:`ponderlib.figures` draws inside it (:func:`book_figure`). Only the settings of
    :data:`RC` are put back on leaving: ``matplotlib.rc_context`` would put back every setting, among
    them ``interactive``, which the notebook's inline backend turns on when the first figure of a kernel
    is drawn; turned off again, the notebook would show no figure after the first.
    """
    import matplotlib

    saved = {key: matplotlib.rcParams[key] for key in RC}
    matplotlib.rcParams.update(RC)
    try:
        yield
    finally:
        matplotlib.rcParams.update(saved)


def shown_width(fig) -> float:
    """The width in inches of ``fig`` as a page shows it: Jupyter saves a figure cropped to what is drawn
    (``bbox_inches="tight"``, with matplotlib's padding), so a legend or a label wider than the panels
    widens the image, and the page then shrinks it and its text. At most ``MAX_WIDTH`` plus the padding
    keeps the text legible on a phone.

    >>> import matplotlib.pyplot as plt
    >>> fig = plt.figure(figsize=(2.0, 1.0))
    >>> _ = fig.text(0.5, 0.5, "x" * 80)
    >>> bool(shown_width(fig) > 2.0)
    True
    >>> plt.close(fig)
    """
    import matplotlib

    fig.canvas.draw()
    return fig.get_tightbbox(fig.canvas.get_renderer()).width + 2 * matplotlib.rcParams["savefig.pad_inches"]


def book_figure(draw):
    """Decorate a function that draws and returns a figure so that it draws in :func:`book_style`."""
    import functools

    @functools.wraps(draw)
    def drawn(*args, **kwargs):
        with book_style():
            return draw(*args, **kwargs)

    return drawn


def seed_colors(key: str, n: int) -> list[str]:
    """``n`` shades of the style key ``key``'s hue, dark to light, one per seed: a run stays its colour and
    the seeds stay apart.

    >>> seed_colors("act", 2)
    ['#13486d', '#7cbce9']
    """
    import colorsys

    import matplotlib.colors

    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise ValueError(f"n must be an integer of at least 1, got {n!r}")
    hue, _, saturation = colorsys.rgb_to_hls(*matplotlib.colors.to_rgb(color(key)))
    lightness = [0.25 + 0.45 * i / max(n - 1, 1) for i in range(n)] if n > 1 else [0.4]
    return [matplotlib.colors.to_hex(colorsys.hls_to_rgb(hue, level, saturation)) for level in lightness]


def mean_of_seeds(seeds: int) -> str:
    """The legend's words for a line over ``seeds`` seeds: ``"one seed"`` or ``"mean of 3 seeds"``.

    >>> mean_of_seeds(1), mean_of_seeds(3)
    ('one seed', 'mean of 3 seeds')
    """
    return "one seed" if seeds == 1 else f"mean of {seeds} seeds"


def seed_lines(
    ax, x, rows, key: str, seed_style: dict, mean_style: dict, *, seed_fmt: str = "", mean_fmt: str = "",
    seed_labels=None, mean_label: str | None = None, single: str = "mean",
) -> None:
    """Every seed's line and their mean on ``ax``: each row of ``rows`` (``(S, X)``, a tensor or an array, a
    row per seed) against ``x`` in its own shade of the style key ``key``'s hue (:func:`seed_colors`), then the
    mean over the seeds in ``key``'s colour.

    ``seed_style`` and ``mean_style`` are the two kinds of line's matplotlib keywords (a colour in
    ``seed_style`` replaces the shades), ``seed_fmt`` and ``mean_fmt`` their format strings (``"o-"``);
    ``seed_labels`` a legend entry per seed (None: none), ``mean_label`` the mean's. One seed is drawn as
    ``single`` says: as a seed's line (``"seed"``), as the mean's (``"mean"``, the default) or as both.
    """
    count = len(rows)
    if count > 1 or single in ("seed", "both"):
        labels = [None] * count if seed_labels is None else seed_labels
        for row, label, shade in zip(rows, labels, seed_colors(key, count)):
            keywords = {"color": shade, **seed_style, **({} if label is None else {"label": label})}
            ax.plot(x, [float(v) for v in row], *([seed_fmt] if seed_fmt else []), **keywords)
    if count > 1 or single in ("mean", "both"):
        keywords = {"color": color(key), **mean_style, **({} if mean_label is None else {"label": mean_label})}
        ax.plot(x, [float(v) for v in rows.mean(0)], *([mean_fmt] if mean_fmt else []), **keywords)


def integer_ticks(axis) -> None:
    """Put ticks only at whole numbers on ``axis`` (e.g. ``ax.xaxis``): steps, depths and lengths."""
    from matplotlib.ticker import MaxNLocator

    axis.set_major_locator(MaxNLocator(integer=True))


def legend_below(fig, ax=None, ncol: int | None = None, **kwargs):
    """A legend under the panels, off the data: the handles of ``ax`` (or of every panel of ``fig``)."""
    axes = [ax] if ax is not None else fig.axes
    handles, labels, seen = [], [], set()
    for each in axes:
        for handle, text in zip(*each.get_legend_handles_labels()):
            if text not in seen and not text.startswith("_"):
                seen.add(text)
                handles.append(handle)
                labels.append(text)
    if not handles:
        return None
    return fig.legend(
        handles, labels, loc="outside lower center", ncol=ncol or min(len(labels), 3), frameon=False, **kwargs
    )


def finish(fig, title: str = "", ncol: int = 2):
    """The last touches of a book figure: the legend under the panels (``ncol`` columns), the title
    when given; returns ``fig``."""
    legend_below(fig, ncol=ncol)
    if title:
        fig.suptitle(title)
    return fig


def panel_grid(panels: int, height: float, sharey: bool = False):
    """A figure of ``panels`` axes, two in a row at most, :data:`MAX_WIDTH` wide
    when two. Returns the figure, the list of axes and the empty place left in the last row (its axes
    turned off), or None."""
    import math

    import matplotlib.pyplot as plt

    columns = min(panels, 2)
    rows = math.ceil(panels / columns)
    width = MAX_WIDTH if columns == 2 else 0.8 * MAX_WIDTH
    fig, axes = plt.subplots(rows, columns, figsize=(width, height * rows), sharey=sharey, squeeze=False)
    flat = list(axes.flat)
    for ax in flat[panels:]:
        ax.axis("off")
    return fig, flat[:panels], (flat[panels] if len(flat) > panels else None)


def grid_legend(fig, axes, empty, ncol: int) -> None:
    """The panels' legend, in the empty place of the grid when there is one, else under the panels."""
    if empty is None:
        legend_below(fig, ncol=ncol)
        return
    handles, labels = [], []
    for ax in axes:
        for handle, text in zip(*ax.get_legend_handles_labels()):
            if text not in labels:
                handles.append(handle)
                labels.append(text)
    empty.legend(handles, labels, loc="center", frameon=False)
