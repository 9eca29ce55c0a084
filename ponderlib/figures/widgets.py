"""Interactive figures that also work in the static HTML book, with no kernel.

Every figure is computed ahead of time and rendered to PNG; a control (a slider or a dropdown) is
linked to a :class:`ipywidgets.Stack` of those images with :func:`ipywidgets.jslink`. The link runs
in the browser, so when the notebook is executed with its widget state stored, the built HTML page
switches figures on its own: a reader moves the ``tau`` slider and sees the figure for that ``tau``.

The book is built with ipywidgets 8. Colab ships ipywidgets 7, which has no ``Stack``: there the
control swaps the PNG of a single image through the running kernel instead (see
:func:`figure_switcher`).
"""

from __future__ import annotations

import io
from collections.abc import Mapping

import ipywidgets
import matplotlib.pyplot as plt
from matplotlib.figure import Figure

CONTROLS = ("slider", "dropdown")
"""The values ``figure_switcher`` accepts for ``control``."""


def figure_png(figure: Figure) -> bytes:
    """Render ``figure`` to PNG bytes at its own size and dpi (tight bounding box)."""
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()


def figure_switcher(
    figures: Mapping[str, Figure], description: str, control: str = "slider"
) -> ipywidgets.Widget:
    """Show one of several precomputed figures, chosen by a slider or a dropdown.

    Args:
        figures: label -> figure, in the order the control lists them (for a slider, the order of
            the values along it, e.g. ``{"0.001": fig_a, "0.01": fig_b}`` for ``tau``).
        description: the control's label, e.g. ``"tau"``, ``"lambda_p"`` or ``"example"``.
        control: ``"slider"`` (a :class:`ipywidgets.SelectionSlider`, for an ordered parameter) or
            ``"dropdown"`` (a :class:`ipywidgets.Dropdown`, for picking an example).

    Returns:
        A :class:`ipywidgets.VBox` holding the control above the figure. The first figure is shown
        initially.

        With ipywidgets 8 (the book's build, Jupyter, Binder), the figure is a
        :class:`ipywidgets.Stack` of :class:`ipywidgets.Image` widgets, one per figure, and the
        control's ``index`` is ``jslink``-ed to the stack's ``selected_index``: switching runs in
        the browser and needs no kernel, so it works in the static HTML book.

        With ipywidgets 7 (Colab's, already imported when a notebook starts there), which has no
        ``Stack``, the figure is a single :class:`ipywidgets.Image` whose PNG follows the control
        through a kernel-side :func:`ipywidgets.dlink`. A ``jslink`` cannot do it: it copies a value
        unchanged, and ipywidgets 7 has no container whose ``selected_index`` shows one child alone
        (``Tab`` and ``Accordion`` would add their own headers next to the control). Going through
        the kernel costs one round trip per move, which a live Colab session has; only a page with
        no kernel would not switch, and the book's pages are built with ipywidgets 8.

    The figures are closed after rendering, so a notebook does not also show them inline.

    Raises:
        ValueError: ``figures`` is empty, or ``control`` is not one of ``CONTROLS``.
    """
    if control not in CONTROLS:
        raise ValueError(f"control must be one of {CONTROLS}, got {control!r}")
    if not figures:
        raise ValueError("figures must hold at least one label -> figure pair, got an empty mapping")
    labels = [str(label) for label in figures]
    pngs = []
    for figure in figures.values():
        pngs.append(figure_png(figure))
        plt.close(figure)
    has_stack = hasattr(ipywidgets, "Stack")  # ipywidgets >= 8
    if has_stack:
        shown = ipywidgets.Stack([ipywidgets.Image(value=png, format="png") for png in pngs], selected_index=0)
    else:
        shown = ipywidgets.Image(value=pngs[0], format="png")
    style = {"description_width": "initial"}  # show labels such as "lambda_p" in full
    if control == "slider":
        chooser = ipywidgets.SelectionSlider(
            options=labels, index=0, description=description, style=style, continuous_update=True
        )
    else:
        chooser = ipywidgets.Dropdown(options=labels, index=0, description=description, style=style)
    if has_stack:
        ipywidgets.jslink((chooser, "index"), (shown, "selected_index"))
    else:
        ipywidgets.dlink((chooser, "index"), (shown, "value"), transform=pngs.__getitem__)
    return ipywidgets.VBox([chooser, shown])
