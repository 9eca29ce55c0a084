"""Interactive figures that also work in the static HTML book, with no kernel.

Every figure is computed ahead of time and rendered to PNG; a control (a slider or a dropdown) is
linked to a :class:`ipywidgets.Stack` of those images with :func:`ipywidgets.jslink`. The link runs
in the browser, so when the notebook is executed with its widget state stored, the built HTML page
switches figures on its own: a reader moves the ``tau`` slider and sees the figure for that ``tau``.
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
        A :class:`ipywidgets.VBox` holding the control above a :class:`ipywidgets.Stack` of
        :class:`ipywidgets.Image` widgets; the control's ``index`` is ``jslink``-ed to the stack's
        ``selected_index``, so switching needs no kernel. The first figure is shown initially.

    The figures are closed after rendering, so a notebook does not also show them inline.

    Raises:
        ValueError: ``figures`` is empty, or ``control`` is not one of ``CONTROLS``.
    """
    if control not in CONTROLS:
        raise ValueError(f"control must be one of {CONTROLS}, got {control!r}")
    if not figures:
        raise ValueError("figures must hold at least one label -> figure pair, got an empty mapping")
    labels = [str(label) for label in figures]
    images = []
    for figure in figures.values():
        images.append(ipywidgets.Image(value=figure_png(figure), format="png"))
        plt.close(figure)
    stack = ipywidgets.Stack(images, selected_index=0)
    style = {"description_width": "initial"}  # show labels such as "lambda_p" in full
    if control == "slider":
        chooser = ipywidgets.SelectionSlider(
            options=labels, index=0, description=description, style=style, continuous_update=True
        )
    else:
        chooser = ipywidgets.Dropdown(options=labels, index=0, description=description, style=style)
    ipywidgets.jslink((chooser, "index"), (stack, "selected_index"))
    return ipywidgets.VBox([chooser, stack])
