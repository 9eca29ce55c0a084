"""Explorables: a mechanism computed in the page, as the reader moves its inputs.

Each explorable is an `anywidget <https://anywidget.dev>`_ widget whose view is an ES module
saved in the widget state, made of small files (:data:`MODULES`): ``checks.js`` (an input the
equations do not allow, named), the arithmetic of :mod:`ponderlib.mechanisms` for one input in the
browser's float64 (``act_halting.js``, ``pondernet_halting.js``, ``pointer_step.js``, and
``ut_halting.js`` over ``act_halting.js``), ``controls.js`` (what the views share), then the
explorable's own view (``act.js``, ``pondernet.js``, ``pointer.js``, ``ut.js``). So the page computes
without a kernel:

- in Jupyter and Colab (with Colab's custom widget manager on, as the chapters' set-up cell does),
  anywidget's front end runs the module;
- in the static HTML book, the ipywidgets html-manager the pages load renders only ipywidgets' own
  models, so the book carries a small renderer of its own (``_ext/static/anywidget_static.js``)
  that runs the saved module from the page, with no network.

The Python object holds the reader's inputs as traits (synchronised from the page while a kernel
runs) and computes the same quantities with the library, so a reader in Jupyter can check what the
page shows: ``explorable.halting()``, ``explorable.quantities()``, ``explorable.step()``.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable, Sequence

import anywidget
import torch
import traitlets

from ponderlib.core.validation import (
    check_choice,
    check_finite,
    check_fraction,
    check_int,
    check_non_negative,
    ensure_type,
)
from ponderlib.figures import style
from ponderlib.mechanisms.halting import (
    PRIOR_TRUNCATIONS,
    ACTHalting,
    act_halting,
    expected_ponder_steps,
    geometric_prior,
    pondernet_halting,
)
from ponderlib.mechanisms.losses import kl_to_geometric, reconstruction_loss, step_price
from ponderlib.mechanisms.pointer import PointerStep, pointer_step

HERE = pathlib.Path(__file__).resolve().parent

MAX_EXPLORABLE_STEPS = 8
"""The most ponder steps an explorable offers (the ``M`` of chapter 1's)."""


MODULES = {
    "act.js": ("checks.js", "act_halting.js", "controls.js", "act.js"),
    "pondernet.js": ("checks.js", "pondernet_halting.js", "controls.js", "pondernet.js"),
    "pointer.js": ("checks.js", "pointer_step.js", "controls.js", "pointer.js"),
    "ut.js": ("checks.js", "act_halting.js", "ut_halting.js", "controls.js", "ut.js"),
}
"""Each view and the files its ES module is made of, in order: the input checks, the arithmetic, the
controls the views share, the view (whose functions call the others' by name)."""


def _check_list(name: str, values: object, most: int, what: str) -> list:
    """``values`` as a list of 1 to ``most`` entries, or ``ValueError`` naming ``name`` and saying ``what`` they must be."""
    if not isinstance(values, (list, tuple)) or not 1 <= len(values) <= most:
        raise ValueError(f"{name} must be a list of 1 to {most} {what}, got {values!r}")
    return list(values)


def module_source(view: str) -> str:
    """The ES module the page runs for ``view`` (a key of :data:`MODULES`): its files, one after the other."""
    return "\n".join((HERE / part).read_text(encoding="utf-8") for part in MODULES[view])


def check_halting_units(halting_units: Sequence[float], name: str = "halting_units") -> list[float]:
    """``halting_units`` as a list of floats, or ``ValueError`` naming ``name``: 1 to 8 numbers in [0, 1]."""
    values = _check_list(name, halting_units, MAX_EXPLORABLE_STEPS, "numbers in [0, 1]")
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


def _check_each(name: str, values: object, count: int, check: Callable[[str, float], None], what: str) -> list[float]:
    """``values`` as a list of ``count`` floats, each passing ``check``, or ``ValueError`` naming ``name`` (or
    the entry) and saying ``what`` they must be."""
    given = list(values) if isinstance(values, (list, tuple)) else None
    if given is None or len(given) != count:
        raise ValueError(f"{name} must be a list of {count} {what}, got {values!r}")
    for index, value in enumerate(given):
        check(f"{name}[{index}]", value)
    return [float(value) for value in given]


def _check_step_losses(step_losses: Sequence[float], steps: int) -> list[float]:
    return _check_each("step_losses", step_losses, steps, check_non_negative, "finite numbers >= 0 (one per step)")


def pondernet_quantities(
    lambdas: Sequence[float], lambda_p: float, truncation: str, step_losses: Sequence[float]
) -> dict[str, float | list[float]]:
    """What chapter 2's explorable shows, computed by the library in float64, with no widget (so a lesson's
    hidden check saves no second explorable with its page): ``p`` and ``prior`` (lists of ``N``),
    ``expected_steps``, ``prior_expected_steps``, ``reconstruction``, ``kl_paper`` (``KL(p || p_G)``),
    ``kl_reverse`` (``KL(p_G || p)``), ``entropy`` (``H(p)``), ``step_price``
    (``(E[n] - 1)(-log(1 - lambda_p))``), ``rest`` (``kl_paper + entropy - step_price``), ``prior_entropy``
    and ``cross_entropy`` (``sum_n p_G(n)(-log p_n)``, ``p_n`` clamped at 1e-12 as
    :func:`ponderlib.mechanisms.losses.kl_to_geometric` takes it). The arguments are those of
    :class:`PonderNetExplorable`.

    Raises:
        ValueError: as :class:`PonderNetExplorable` does, naming the argument out of its range.
    """
    values = check_halting_units(lambdas, "lambdas")
    losses = _check_step_losses(step_losses, len(values))
    _check_lambda_p(lambda_p)
    check_choice("truncation", truncation, PRIOR_TRUNCATIONS)
    p = pondernet_halting(torch.tensor([values], dtype=torch.float64))  # (1, N)
    prior = geometric_prior(lambda_p, p.shape[1], truncation).to(torch.float64)  # (N,)
    expected = expected_ponder_steps(p).item()
    entropy = -torch.xlogy(p, p).sum().item()
    price = (expected - 1) * step_price(lambda_p, 1.0)  # (E[n] - 1)(-log(1 - lambda_p))
    kl_paper = kl_to_geometric(p, lambda_p, "paper", truncation).item()
    return {
        "p": p[0].tolist(),
        "prior": prior.tolist(),
        "expected_steps": expected,
        "prior_expected_steps": expected_ponder_steps(prior[None]).item(),
        "reconstruction": reconstruction_loss(torch.tensor([losses], dtype=torch.float64), p).item(),
        "kl_paper": kl_paper,
        "kl_reverse": kl_to_geometric(p, lambda_p, "reverse", truncation).item(),
        "entropy": entropy,
        "step_price": price,
        "rest": kl_paper + entropy - price,
        "prior_entropy": -torch.xlogy(prior, prior).sum().item(),
        "cross_entropy": -(prior * torch.log(p[0].clamp_min(1e-12))).sum().item(),
    }


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
        """What the page shows, computed by the library in float64: :func:`pondernet_quantities` of the inputs."""
        return pondernet_quantities(self.lambdas, self.lambda_p, self.truncation, self.step_losses)


MAX_EXPLORABLE_POSITIONS = 8
"""The most input positions chapter 3's explorable offers (an array of 1 to 8 elements)."""


def _check_array(array: Sequence[float]) -> list[float]:
    values = _check_list("array", array, MAX_EXPLORABLE_POSITIONS, "finite numbers")
    for index, value in enumerate(values):
        check_finite(f"array[{index}]", value)
    return [float(value) for value in values]


def _check_scores(scores: Sequence[float], positions: int) -> list[float]:
    return _check_each("scores", scores, positions, check_finite, "finite numbers (one per position)")


def _check_emitted(emitted: Sequence[int], positions: int) -> list[int]:
    values = list(emitted) if isinstance(emitted, (list, tuple)) else None
    if values is None:
        raise ValueError(f"emitted must be a list of positions in 1..{positions}, got {emitted!r}")
    for index, value in enumerate(values):
        check_int(f"emitted[{index}]", value, minimum=1, maximum=positions)
    return sorted(set(values))


class PointerExplorable(anywidget.AnyWidget):
    """Chapter 3's explorable: one decoder step of the pointer. From an input array, the scores ``u^i_j`` of
    the step and the positions already chosen, the pointer distribution ``p(C_i = j)`` (the masked softmax
    over input positions, Vinyals et al. eq. 3 and sec. 2.3), the positions the mask removes and greedy
    decoding's next choice, as :func:`ponderlib.mechanisms.pointer.pointer_step` computes them.

    Args:
        array: ``x_1..x_n``, 1 to :data:`MAX_EXPLORABLE_POSITIONS` finite numbers.
        scores: ``u^i_1..u^i_n``, one finite number per position.
        emitted: the positions (counted from 1) chosen at earlier decoder steps, which the mask removes.

    Raises:
        ValueError: naming the argument (or the entry) out of its range, with the range allowed.
    """

    _esm = traitlets.Unicode(module_source("pointer.js")).tag(sync=True)
    array = traitlets.List(traitlets.Float()).tag(sync=True)
    scores = traitlets.List(traitlets.Float()).tag(sync=True)
    emitted = traitlets.List(traitlets.Int()).tag(sync=True)
    color = traitlets.Unicode(style.color("pointer")).tag(sync=True)

    def __init__(
        self,
        array: Sequence[float] = (4.0, 1.0, 3.0, 1.0),
        scores: Sequence[float] = (0.5, 2.0, 1.0, 1.8),
        emitted: Sequence[int] = (2,),
    ) -> None:
        values = _check_array(array)
        super().__init__(array=values, scores=_check_scores(scores, len(values)), emitted=_check_emitted(emitted, len(values)))

    @traitlets.validate("array")
    def _valid_array(self, proposal):
        return _check_array(proposal["value"])

    @traitlets.validate("scores")
    def _valid_scores(self, proposal):
        return _check_scores(proposal["value"], len(self.array) if self.array else len(proposal["value"]))

    @traitlets.validate("emitted")
    def _valid_emitted(self, proposal):
        return _check_emitted(proposal["value"], len(self.array) if self.array else MAX_EXPLORABLE_POSITIONS)

    def available(self) -> torch.Tensor:
        """``(1, n)`` bool: True at the positions not chosen yet."""
        chosen = torch.zeros(1, len(self.array), dtype=torch.bool)
        chosen[0, [position - 1 for position in self.emitted]] = True
        return ~chosen

    def step(self) -> PointerStep:
        """What the page shows, computed by :func:`ponderlib.mechanisms.pointer.pointer_step` in float64
        (``probs (1, n)``, ``choice (1,)``: counted from 0, -1 when every position is masked)."""
        return pointer_step(torch.tensor([self.scores], dtype=torch.float64), self.available())


MAX_EXPLORABLE_PROGRAM = 6
"""The most positions chapter 4's explorable offers (lines of its program)."""


def _check_unit_rows(halting_units: Sequence[Sequence[float]], positions: int) -> list[list[float]]:
    rows = list(halting_units) if isinstance(halting_units, (list, tuple)) else None
    if rows is None or len(rows) != positions:
        raise ValueError(f"halting_units must be a list of {positions} rows (one per position), got {halting_units!r}")
    checked = [check_halting_units(row, f"halting_units[{index}]") for index, row in enumerate(rows)]
    if len({len(row) for row in checked}) != 1:
        raise ValueError(f"halting_units' rows must be equally long (M steps each), got lengths {[len(row) for row in checked]}")
    return checked


class UTHaltingExplorable(anywidget.AnyWidget):
    """Chapter 4's explorable: per-position ACT halting in a Universal Transformer on a short program. From
    each position's halting units ``h^1_i..h^M_i`` and ``eps``, every position's ``N_i``, ``R_i``, ``p^n_i``
    and ``rho_i`` (Graves eqs. 6-8, 10, 13, one row per position, as
    :class:`ponderlib.mechanisms.universal_transformer.UniversalTransformer` computes them with
    :func:`ponderlib.mechanisms.halting.act_halting`), the steps the loop runs, and which positions are
    frozen at ponder step ``n``.

    Args:
        program: the program's lines, one per position, 1 to :data:`MAX_EXPLORABLE_PROGRAM` strings.
        halting_units: one row of ``M`` halting units in [0, 1] per position, ``M`` from 1 to
            :data:`MAX_EXPLORABLE_STEPS` (the cap, the same for every position).
        eps: the slack in ``1 - eps``, in [0, 1).
        step: the ponder step ``n`` shown, in ``1..M``.

    Raises:
        ValueError: naming the argument (or the entry) out of its range, with the range allowed.
    """

    _esm = traitlets.Unicode(module_source("ut.js")).tag(sync=True)
    program = traitlets.List(traitlets.Unicode()).tag(sync=True)
    halting_units = traitlets.List(traitlets.List(traitlets.Float())).tag(sync=True)
    eps = traitlets.Float(0.01).tag(sync=True)
    step = traitlets.Int(1).tag(sync=True)
    color = traitlets.Unicode(style.color("act")).tag(sync=True)

    def __init__(
        self,
        program: Sequence[str] = ("c = 1", "f = c", "a = not f", "e = 0", "b = e"),
        halting_units: Sequence[Sequence[float]] = (
            (0.995, 0.5, 0.5, 0.5),
            (0.1, 0.95, 0.5, 0.5),
            (0.05, 0.1, 0.9, 0.5),
            (0.995, 0.5, 0.5, 0.5),
            (0.2, 0.85, 0.5, 0.5),
        ),
        eps: float = 0.01,
        step: int = 2,
    ) -> None:
        lines = _check_list("program", program, MAX_EXPLORABLE_PROGRAM, "lines")
        for index, line in enumerate(lines):
            ensure_type(f"program[{index}]", line, str)
        rows = _check_unit_rows(halting_units, len(lines))
        check_fraction("eps", eps, include_one=False)
        check_int("step", step, minimum=1, maximum=len(rows[0]))
        super().__init__(program=lines, halting_units=rows, eps=float(eps), step=step)

    @traitlets.validate("halting_units")
    def _valid_units(self, proposal):
        return _check_unit_rows(proposal["value"], len(self.program) if self.program else len(proposal["value"]))

    @traitlets.validate("eps")
    def _valid_eps(self, proposal):
        check_fraction("eps", proposal["value"], include_one=False)
        return proposal["value"]

    @traitlets.validate("step")
    def _valid_step(self, proposal):
        most = len(self.halting_units[0]) if self.halting_units else MAX_EXPLORABLE_STEPS
        check_int("step", proposal["value"], minimum=1, maximum=most)
        return proposal["value"]

    def halting(self) -> ACTHalting:
        """Each position's ``N_i``, ``R_i``, ``p^n_i`` and ``rho_i``, computed by
        :func:`ponderlib.mechanisms.halting.act_halting` on one row per position, in float64 (shapes
        ``(T, M)`` and ``(T,)``), as the Universal Transformer computes them."""
        return act_halting(torch.tensor(self.halting_units, dtype=torch.float64), self.eps)

    def frozen_at(self, step: int) -> list[int]:
        """The positions (counted from 1) frozen at ponder step ``step``: those that halted at an earlier step."""
        return [i + 1 for i, steps in enumerate(self.halting().ponder_steps.tolist()) if steps < step]
