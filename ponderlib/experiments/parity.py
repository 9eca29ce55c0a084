"""What the chapters on ACT and PonderNet share about parity runs: what a run's summary says about its
halting (:class:`HaltingSummary`, the same for a live run and a record of the evidence), the mean of a
halting distribution, and means over seeds.

Runs over seeds and settings, whose results are committed as evidence, are :mod:`ponderlib.sweep`'s.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import torch

from ponderlib.core.records import RunSummary, finite_numbers, summary_number, summary_numbers, summary_value
from ponderlib.core.stats import mean
from ponderlib.core.validation import (
    MAX_LENGTH,
    check_groups,
    check_int,
    check_lambda_p,
    check_not_empty,
    check_rank,
    ensure_type,
)
from ponderlib.mechanisms.halting import expected_ponder_steps


def mean_of(items: Sequence[object], attribute: str) -> float:
    """The mean of one attribute over results (one per seed): ``mean_of(summaries, "ponder_steps")``."""
    check_not_empty("items", items, "result")
    if not isinstance(attribute, str):
        raise TypeError(f"attribute must be the name of a result's attribute (a str), got {type(attribute).__name__}")
    for index, item in enumerate(items):
        if not hasattr(item, attribute):
            raise TypeError(f"items[{index}] must be a result with the attribute {attribute!r}, got {type(item).__name__}")
    finite_numbers(f"items' {attribute}", [getattr(item, attribute) for item in items])
    return mean([getattr(item, attribute) for item in items])


def check_halting_runs(runs: Mapping[float, Sequence[HaltingSummary]], max_ponder_steps: int | None = None) -> None:
    """``runs`` (``lambda_p`` -> its runs) holds at least one ``lambda_p``, each in (0, 1] with at least one
    :class:`HaltingSummary`, whose distribution has ``max_ponder_steps`` steps: the cap its prior is cut at
    (another cap gave another prior's mean beside the runs, silently); None: as many as the first run's."""
    check_groups("runs", runs)
    first = None  # the first run's name and steps, where max_ponder_steps is None
    for value, seeds in runs.items():
        check_lambda_p(value)
        for index, run in enumerate(seeds):
            name = f"runs[{value!r}][{index}]"
            ensure_type(name, run, HaltingSummary)
            steps = len(run.halting_distribution)
            if max_ponder_steps is None:
                first = first or (name, steps)
                if steps != first[1]:
                    raise ValueError(f"{name} must have as many steps as {first[0]}, {first[1]}; got {steps}")
            elif steps != max_ponder_steps:
                raise ValueError(
                    f"max_ponder_steps must be the runs' cap, {steps} (the steps of {name}'s halting distribution), "
                    f"got {max_ponder_steps!r}"
                )


def distribution_mean(halting_probs: torch.Tensor) -> float:
    """``E[n] = sum_n n p_n`` of one halting distribution (or prior) ``p`` of shape ``(N,)``."""
    check_rank("halting_probs", halting_probs, 1, "(N,)")
    return expected_ponder_steps(halting_probs.unsqueeze(0)).item()


RIGHT_STEP = 0.95
"""The accuracy from which a ponder step's prediction counts as right (:attr:`HaltingSummary.first_right_step`)."""

TAIL_FLOOR = 0.001
"""The smallest ``p_n`` :attr:`HaltingSummary.tail_ratio` fits: records keep four decimals, so a smaller one
is off by more than 5 %."""


@dataclass(frozen=True, eq=False)
class HaltingSummary:
    """What a parity run's summary says about its accuracy and its halting: the same numbers for a run
    trained live and for a record of the evidence, so that a claim about one is a claim about the other.

    Attributes:
        interpolation_accuracy: accuracy over the difficulties seen in training, each scored on the same
            number of fresh vectors (the summary's ``interpolation_accuracy``);
            ``error = 1 - interpolation_accuracy``.
        mean_ponder_steps: mean ponder steps executed at inference on the held-out set, at the last
            evaluation (``N(t)`` for ACT, the sampled halting step for PonderNet).
        halting_distribution: the mean halting distribution ``p_n`` over the difficulties seen in training,
            shape ``(max_ponder_steps,)``, step 1 first: the summary's ``halting_distribution``, which
            stops at the last step the unroll ran (that step took the mass left, less than the
            model's ``unroll_tolerance``), zero-padded to ``max_ponder_steps`` as
            :func:`mean_halting_distribution` pads, so that the last entry is the mass on the cap.
        step_accuracy: PonderNet's accuracy of each step's prediction ``y_n`` on the trained range, shape
            ``(max_ponder_steps,)``, or None (ACT, and records written before runs kept their step profile:
            :class:`~ponderlib.tasks.parity.StepProfile`).
        kl_optimal_halting_distribution: the halting distribution that would minimise the paper's loss
            for those steps' losses (the mean over vectors of
            :func:`~ponderlib.mechanisms.losses.kl_optimal_halting`), shape ``(max_ponder_steps,)``, or None
            (as above, for the reverse KL, and for a run that cut ``p_n`` at each input's own ``N``,
            ``unroll="mass"``: its loss is not the one this optimum minimises).
    """

    interpolation_accuracy: float
    mean_ponder_steps: float
    halting_distribution: torch.Tensor
    step_accuracy: torch.Tensor | None = None
    kl_optimal_halting_distribution: torch.Tensor | None = None

    @classmethod
    def of(cls, run: Any) -> HaltingSummary:
        """From a trained :class:`~ponderlib.tasks.parity.ParityResult` or its summary.

        Raises:
            ValueError: naming the entry, where the summary has no halting distribution (records
                written before summaries carried one, or a run never scored by difficulty), no
                ``config`` with ``max_ponder_steps``, or an accuracy, a mean or a ``p_n`` that is missing,
                NaN or out of its range.
        """
        summary = RunSummary.of(run)
        probs = torch.tensor(summary_numbers(summary, "halting_distribution", 0.0, 1.0), dtype=torch.float64)  # (n_run,)
        if abs(float(probs.sum()) - 1.0) > 0.01:  # records keep four decimals: 20 steps round by 0.001 at most
            raise ValueError(f"the run's summary's 'halting_distribution' must sum to 1 (to 0.01), got {float(probs.sum()):.4f}")
        config = summary_value(summary, "config")
        max_ponder_steps = summary_value(config, "max_ponder_steps", "run's config")
        cut_at_own_n = isinstance(config, Mapping) and config.get("unroll") == "mass"

        def per_step(name: str) -> torch.Tensor | None:  # (max_ponder_steps,), where the run kept it
            if summary.get(name) is None:
                return None
            values = torch.tensor(summary_numbers(summary, name, 0.0, 1.0), dtype=torch.float64)
            if len(values) != max_ponder_steps:
                raise ValueError(f"the run's summary's {name!r} must hold one value per ponder step "
                                 f"({max_ponder_steps}); got {len(values)}")
            return values

        return cls(
            interpolation_accuracy=summary_number(summary, "interpolation_accuracy", 0.0, 1.0),
            mean_ponder_steps=summary_number(summary, "mean_ponder_steps", 0.0, MAX_LENGTH),
            halting_distribution=mean_halting_distribution(probs.unsqueeze(0), max_ponder_steps),
            step_accuracy=per_step("step_accuracy"),
            kl_optimal_halting_distribution=None if cut_at_own_n else per_step("kl_optimal_halting_distribution"),
        )

    @property
    def error(self) -> float:
        """``1 - interpolation_accuracy``."""
        return 1.0 - self.interpolation_accuracy

    @property
    def expected_ponder_steps(self) -> float:
        """``E_p[n] = sum_n n p_n`` of :attr:`halting_distribution`."""
        return distribution_mean(self.halting_distribution)

    @property
    def mass_on_cap(self) -> float:
        """``p_N``, the halting probability on the last step ``N = max_ponder_steps``."""
        return self.halting_distribution[-1].item()

    @property
    def mode(self) -> int:
        """The most likely ponder step (1-based; the first, on a tie)."""
        return int(self.halting_distribution.argmax()) + 1

    @property
    def tail_ratio(self) -> float | None:
        """The geometric ratio ``p_{n+1} / p_n`` of the distribution's tail: ``exp`` of the least-squares
        slope of ``log p_n`` over the steps after the :attr:`mode` and before the cap (which holds the
        truncation's mass) with ``p_n >= TAIL_FLOOR``. None with fewer than three such steps.

        Where the steps' losses tie, PonderNet's loss is least with ``p_n`` in the prior's proportions
        (:func:`~ponderlib.mechanisms.losses.kl_optimal_halting`): a tail ratio of ``1 - lambda_p``."""
        p = self.halting_distribution  # (N,)
        steps = [n for n in range(self.mode + 1, len(p)) if p[n - 1] >= TAIL_FLOOR]
        if len(steps) < 3:
            return None
        x = torch.tensor(steps, dtype=torch.float64)
        y = torch.log(p[[n - 1 for n in steps]].double())
        slope = ((x - x.mean()) * (y - y.mean())).sum() / ((x - x.mean()) ** 2).sum()
        return float(torch.exp(slope))

    @property
    def first_right_step(self) -> int | None:
        """The first ponder step whose prediction is right on at least ``RIGHT_STEP`` of the trained range
        (:attr:`step_accuracy`), None where no step is or the run kept no step profile."""
        if self.step_accuracy is None:
            return None
        right = (self.step_accuracy >= RIGHT_STEP).nonzero()
        return int(right[0]) + 1 if len(right) else None

    @property
    def distance_from_optimum(self) -> float | None:
        """The total variation distance ``(1/2) sum_n |p_n - p*_n|`` between the learned halting distribution
        and :attr:`kl_optimal_halting_distribution`: 0 where the network halts exactly where its loss, for its
        own steps' losses, is least; None without a ``kl_optimal_halting_distribution``."""
        if self.kl_optimal_halting_distribution is None:
            return None
        return 0.5 * float((self.halting_distribution - self.kl_optimal_halting_distribution).abs().sum())

    def mass_on(self, first: int, last: int | None = None) -> float:
        """The halting probability on ponder steps ``first..last`` (1-based, both included; ``last``
        defaults to ``first``: one step)."""
        last = first if last is None else last
        check_int("first", first, minimum=1, maximum=len(self.halting_distribution))
        check_int("last", last, minimum=first, maximum=len(self.halting_distribution))
        return self.halting_distribution[first - 1:last].sum().item()

    def mass_after(self, step: int) -> float:
        """The halting probability on every ponder step after ``step`` (0 after the last)."""
        check_int("step", step, minimum=0, maximum=len(self.halting_distribution))
        return self.halting_distribution[step:].sum().item()


def mean_halting_distribution(halting_probs: torch.Tensor, max_ponder_steps: int) -> torch.Tensor:
    """Mean of ``p_n`` over a batch ``(B, n_run)``, zero-padded to shape ``(max_ponder_steps,)``, on the CPU;
    ``max_ponder_steps`` in ``[n_run, MAX_LENGTH]``."""
    check_rank("halting_probs", halting_probs, 2, "(batch, n_run)")
    check_int("max_ponder_steps", max_ponder_steps, minimum=halting_probs.shape[1], maximum=MAX_LENGTH)
    mean = halting_probs.mean(dim=0).detach().cpu()  # (n_run,)
    return torch.cat([mean, mean.new_zeros(max_ponder_steps - mean.shape[0])])

