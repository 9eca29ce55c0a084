"""Explorables: a mechanism computed in the page, as the reader moves its inputs.

Each explorable is an `anywidget <https://anywidget.dev>`_ widget whose view is an ES module
saved in the widget state, made of small files (:data:`MODULES`): ``checks.js`` (an input the
equations do not allow, named), the arithmetic of :mod:`ponderlib.mechanisms` for one input in the
browser's float64 (``act_halting.js``, ``pondernet_halting.js``), ``controls.js`` (what the views
share), then the explorable's own view (``act.js``, ``pondernet.js``). So the page computes without a
kernel:

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

import math
import pathlib
from collections.abc import Sequence

import anywidget
import torch
import traitlets

from ponderlib.core.validation import check_choice, check_fraction, check_non_negative
from ponderlib.figures import style
from ponderlib.mechanisms.halting import (
    PRIOR_TRUNCATIONS,
    ACTHalting,
    act_halting,
    expected_ponder_steps,
    geometric_prior,
    pondernet_halting,
)
from ponderlib.mechanisms.losses import kl_to_geometric, reconstruction_loss

HERE = pathlib.Path(__file__).resolve().parent

MAX_EXPLORABLE_STEPS = 8
"""The most ponder steps an explorable offers (the ``M`` of chapter 1's)."""


MODULES = {
    "act.js": ("checks.js", "act_halting.js", "controls.js", "act.js"),
    "pondernet.js": ("checks.js", "pondernet_halting.js", "controls.js", "pondernet.js"),
}
"""Each view and the files its ES module is made of, in order: the input checks, the arithmetic, the
controls the views share, the view (whose functions call the others' by name)."""


def module_source(view: str) -> str:
    """The ES module the page runs for ``view`` (a key of :data:`MODULES`): its files, one after the other."""
    return "\n".join((HERE / part).read_text(encoding="utf-8") for part in MODULES[view])


def check_halting_units(halting_units: Sequence[float], name: str = "halting_units") -> list[float]:
    """``halting_units`` as a list of floats, or ``ValueError`` naming ``name``: 1 to 8 numbers in [0, 1]."""
    values = list(halting_units) if isinstance(halting_units, (list, tuple)) else None
    if values is None or not 1 <= len(values) <= MAX_EXPLORABLE_STEPS:
        raise ValueError(f"{name} must be a list of 1 to {MAX_EXPLORABLE_STEPS} numbers in [0, 1], got {halting_units!r}")
    for index, value in enumerate(values):
        check_fraction(f"{name}[{index}]", value)
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


def _check_lambda_p(lambda_p: float) -> float:
    """``lambda_p`` in (0, 1): at 1 the prior leaves every step after the first without mass, and the
    price of a step, ``-log(1 - lambda_p)``, has no bound."""
    check_fraction("lambda_p", lambda_p, include_one=False, include_zero=False)
    return float(lambda_p)


def _check_step_losses(step_losses: Sequence[float], steps: int) -> list[float]:
    values = list(step_losses) if isinstance(step_losses, (list, tuple)) else None
    if values is None or len(values) != steps:
        raise ValueError(f"step_losses must be a list of {steps} finite numbers >= 0 (one per step), got {step_losses!r}")
    for index, value in enumerate(values):
        check_non_negative(f"step_losses[{index}]", value)
    return [float(value) for value in values]


class PonderNetExplorable(anywidget.AnyWidget):
    """Chapter 2's explorable: PonderNet's ``p_n`` beside the truncated geometric prior, ``E[n]``, both KL
    directions with their terms and the expected loss ``L_Rec`` (Banino et al. 2021, eqs. 2-3), from
    ``lambda_n``, ``lambda_p``, the prior's truncation and per-step losses the reader sets.

    Args:
        lambdas: ``lambda_1..lambda_N``, 1 to :data:`MAX_EXPLORABLE_STEPS` numbers in [0, 1]; ``N`` is
            their number, and the last is not used: step ``N`` takes what is left (``lambda_N := 1``),
            as in :func:`ponderlib.mechanisms.halting.pondernet_halting`.
        lambda_p: the prior's parameter, in (0, 1).
        truncation: how the prior is cut at ``N``, one of
            :data:`ponderlib.mechanisms.halting.PRIOR_TRUNCATIONS`.
        step_losses: ``L_n``, the loss of each step's prediction, one finite number ``>= 0`` per step.

    Raises:
        ValueError: naming the argument (or the entry) out of its range, with the range allowed.
    """

    _esm = traitlets.Unicode(module_source("pondernet.js")).tag(sync=True)
    lambdas = traitlets.List(traitlets.Float()).tag(sync=True)
    lambda_p = traitlets.Float(0.2).tag(sync=True)
    truncation = traitlets.Unicode("normalised").tag(sync=True)
    step_losses = traitlets.List(traitlets.Float()).tag(sync=True)
    color = traitlets.Unicode(style.color("pondernet")).tag(sync=True)
    prior_color = traitlets.Unicode(style.PRIOR_COLOR).tag(sync=True)

    def __init__(
        self,
        lambdas: Sequence[float] = (0.1, 0.3, 0.5, 0.3, 0.2, 1.0),
        lambda_p: float = 0.2,
        truncation: str = "normalised",
        step_losses: Sequence[float] = (0.9, 0.6, 0.3, 0.2, 0.2, 0.2),
    ) -> None:
        values = check_halting_units(lambdas, "lambdas")
        losses = _check_step_losses(step_losses, len(values))
        check_choice("truncation", truncation, PRIOR_TRUNCATIONS)
        super().__init__(lambdas=values, lambda_p=_check_lambda_p(lambda_p), truncation=truncation, step_losses=losses)

    @traitlets.validate("lambdas")
    def _valid_lambdas(self, proposal):
        return check_halting_units(proposal["value"], "lambdas")

    @traitlets.validate("lambda_p")
    def _valid_lambda_p(self, proposal):
        return _check_lambda_p(proposal["value"])

    @traitlets.validate("truncation")
    def _valid_truncation(self, proposal):
        check_choice("truncation", proposal["value"], PRIOR_TRUNCATIONS)
        return proposal["value"]

    @traitlets.validate("step_losses")
    def _valid_step_losses(self, proposal):
        return _check_step_losses(proposal["value"], len(self.lambdas) if self.lambdas else len(proposal["value"]))

    def quantities(self) -> dict[str, float | list[float]]:
        """What the page shows, computed by the library in float64: ``p`` and ``prior`` (lists of ``N``),
        ``expected_steps``, ``prior_expected_steps``, ``reconstruction``, ``kl_paper`` (``KL(p || p_G)``),
        ``kl_reverse`` (``KL(p_G || p)``), ``entropy`` (``H(p)``), ``step_price``
        (``(E[n] - 1)(-log(1 - lambda_p))``), ``rest`` (``kl_paper + entropy - step_price``),
        ``prior_entropy`` and ``cross_entropy`` (``sum_n p_G(n)(-log p_n)``, ``p_n`` clamped at 1e-12 as
        :func:`ponderlib.mechanisms.losses.kl_to_geometric` takes it)."""
        p = pondernet_halting(torch.tensor([self.lambdas], dtype=torch.float64))  # (1, N)
        prior = geometric_prior(self.lambda_p, p.shape[1], self.truncation).to(torch.float64)  # (N,)
        expected = expected_ponder_steps(p).item()
        entropy = -torch.xlogy(p, p).sum().item()
        step_price = (expected - 1) * -math.log1p(-self.lambda_p)
        kl_paper = kl_to_geometric(p, self.lambda_p, "paper", self.truncation).item()
        return {
            "p": p[0].tolist(),
            "prior": prior.tolist(),
            "expected_steps": expected,
            "prior_expected_steps": expected_ponder_steps(prior[None]).item(),
            "reconstruction": reconstruction_loss(torch.tensor([self.step_losses], dtype=torch.float64), p).item(),
            "kl_paper": kl_paper,
            "kl_reverse": kl_to_geometric(p, self.lambda_p, "reverse", self.truncation).item(),
            "entropy": entropy,
            "step_price": step_price,
            "rest": kl_paper + entropy - step_price,
            "prior_entropy": -torch.xlogy(prior, prior).sum().item(),
            "cross_entropy": -(prior * torch.log(p[0].clamp_min(1e-12))).sum().item(),
        }
