"""Explorables: a mechanism computed in the page, as the reader moves its inputs.

Each explorable is an `anywidget <https://anywidget.dev>`_ widget whose view is an ES module
saved in the widget state: ``halting.js``, the halting arithmetic of
:mod:`ponderlib.mechanisms.halting` for one input in the browser's float64, then ``controls.js``,
what the views share, then the explorable's own view (``act.js``, ...). So the page computes without a kernel:

- in Jupyter and Colab (with Colab's custom widget manager on, as the chapters' set-up cell does),
  anywidget's front end runs the module;
- in the static HTML book, the ipywidgets html-manager the pages load renders only ipywidgets' own
  models, so the book carries a small renderer of its own (``_ext/static/anywidget_static.js``)
  that runs the saved module from the page, with no network.

The Python object holds the reader's inputs as traits (synchronised from the page while a kernel
runs) and computes the same quantities with the library, so a reader in Jupyter can check what the
page shows: ``explorable.halting()``.
"""

from __future__ import annotations

import pathlib
from collections.abc import Sequence

import anywidget
import torch
import traitlets

from ponderlib.core.validation import check_fraction
from ponderlib.figures import style
from ponderlib.mechanisms.halting import ACTHalting, act_halting

HERE = pathlib.Path(__file__).resolve().parent

MAX_EXPLORABLE_STEPS = 8
"""The most ponder steps an explorable offers (the ``M`` of chapter 1's)."""


def module_source(view: str) -> str:
    """The ES module an explorable's page runs: ``halting.js`` (the arithmetic), ``controls.js`` (what
    the views share), then ``view``."""
    parts = ("halting.js", "controls.js", view)
    return "\n".join((HERE / part).read_text(encoding="utf-8") for part in parts)


def check_halting_units(halting_units: Sequence[float]) -> list[float]:
    """``halting_units`` as a list of floats, or ``ValueError`` naming it: 1 to 8 numbers in [0, 1]."""
    values = list(halting_units) if isinstance(halting_units, (list, tuple)) else None
    if values is None or not 1 <= len(values) <= MAX_EXPLORABLE_STEPS:
        raise ValueError(
            f"halting_units must be a list of 1 to {MAX_EXPLORABLE_STEPS} numbers in [0, 1], got {halting_units!r}"
        )
    for index, value in enumerate(values):
        check_fraction(f"halting_units[{index}]", value)
    return [float(value) for value in values]


class ACTExplorable(anywidget.AnyWidget):
    """Chapter 1's explorable: ACT's ``N(t)``, ``R(t)``, ``p_n``, ``rho`` and the gradient of ``rho``
    from halting units the reader sets (Graves 2016, eqs. 6-8, 10, 13, 14).

    Args:
        halting_units: the first ``h_1..h_M`` shown, 1 to :data:`MAX_EXPLORABLE_STEPS` numbers in
            [0, 1]; ``M`` is their number (the reader can change it in the page, up to 8).
        eps: the slack in ``1 - eps``, in [0, 1).

    Raises:
        ValueError: naming ``halting_units`` (or one of its entries) or ``eps``, with the range allowed.
    """

    _esm = traitlets.Unicode(module_source("act.js")).tag(sync=True)
    halting_units = traitlets.List(traitlets.Float()).tag(sync=True)
    eps = traitlets.Float(0.01).tag(sync=True)
    color = traitlets.Unicode(style.color("act")).tag(sync=True)

    def __init__(self, halting_units: Sequence[float] = (0.1, 0.3, 0.4, 0.5, 0.2), eps: float = 0.01) -> None:
        units = check_halting_units(halting_units)
        check_fraction("eps", eps, include_one=False)
        super().__init__(halting_units=units, eps=float(eps))

    @traitlets.validate("halting_units")
    def _valid_units(self, proposal):
        return check_halting_units(proposal["value"])

    @traitlets.validate("eps")
    def _valid_eps(self, proposal):
        check_fraction("eps", proposal["value"], include_one=False)
        return proposal["value"]

    def halting(self) -> ACTHalting:
        """What the page shows, computed by :func:`ponderlib.mechanisms.halting.act_halting` in float64
        (shapes ``(1, M)`` and ``(1,)``)."""
        return act_halting(torch.tensor([self.halting_units], dtype=torch.float64), self.eps)
