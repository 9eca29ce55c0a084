"""What chapter 2 computes about PonderNet on parity: the compute real halting saves, every ponder step's
own accuracy, the numbers a run's summary gives against difficulty (:class:`DifficultySummary`, for
live runs and evidence alike) and its learning curve beyond the trained range (:class:`ExtrapolationCurve`)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import torch

from ponderlib.core.records import RunSummary, summary_numbers, summary_value
from ponderlib.core.stats import mean, pearson_correlation
from ponderlib.core.validation import MAX_LENGTH, check_fraction, check_int
from ponderlib.tasks.parity import ParityResult, trained_range


@dataclass(frozen=True)
class DifficultySummary:
    """The numbers chapter 2 compares across methods and seeds, from one parity run's scores at every
    difficulty, read from its summary: the same numbers for a run trained live and for a record of the
    committed evidence, so that a claim counted in the evidence is checked on a live run as it was counted.

    Attributes:
        interpolation_accuracy: mean accuracy over the difficulties seen in training (the summary's
            ``interpolation_accuracy``, recomputed from ``accuracy_by_difficulty``).
        extrapolation_accuracy: mean accuracy over the harder difficulties never seen in training.
        hardest_accuracy: accuracy at the largest difficulty, ``n_elems``.
        ponder_steps: mean ponder steps executed at inference, over the trained difficulties.
        expected_ponder_steps: mean ``E[n]`` over the trained difficulties.
        easiest_expected: ``E[n]`` at the easiest trained difficulty.
        hardest_expected: ``E[n]`` at the hardest trained difficulty.
        expected_difficulty_correlation: Pearson's ``r`` between difficulty and ``E[n]`` over the
            trained difficulties, one point per difficulty (its sign: whether ``E[n]`` grows with
            difficulty); NaN where ``E[n]`` is the same at every difficulty, which has no correlation
            (the tables say "undefined" in words).
        extrapolation_ponder_steps: mean ponder steps executed at inference over the unseen
            difficulties (Banino et al.: about 5 there, against about 3 on the trained range).
    """

    interpolation_accuracy: float
    extrapolation_accuracy: float
    hardest_accuracy: float
    ponder_steps: float
    expected_ponder_steps: float
    easiest_expected: float
    hardest_expected: float
    expected_difficulty_correlation: float
    extrapolation_ponder_steps: float

    @property
    def expected_change(self) -> float:
        """How far ``E[n]`` moves between the easiest and the hardest trained difficulty, either way."""
        return abs(self.hardest_expected - self.easiest_expected)

    @classmethod
    def of(cls, run: ParityResult | Mapping[str, Any]) -> DifficultySummary:
        """The summary of a run whose training range leaves some difficulties unseen: a trained
        :class:`~ponderlib.tasks.parity.ParityResult` or its summary (``result.summary()``, or a record
        of the evidence), read from the summary's per-difficulty entries (4 decimals) either way.

        Raises:
            ValueError: the run was trained on every difficulty (nothing is unseen), or its summary
                has no per-difficulty scores, or one that is not a number >= 0 (NaN), or none at a difficulty
                it needs; naming the entry (a KeyError, or a NaN accuracy, before).
        """
        summary = RunSummary.of(run)
        config = summary_value(summary, "config")
        for name in ("min_nonzero", "n_elems"):
            summary_value(config, name, "run's config")
        trained = trained_range(config)
        unseen = range(trained.stop, config["n_elems"] + 1)
        if not unseen:
            raise ValueError(f"run must be trained on fewer than n_elems = {config['n_elems']} non-zero entries")
        missing = [key for key in _BY_DIFFICULTY if summary.get(key) is None]
        if missing:
            raise ValueError(f"run's summary must score every difficulty; it has no {', '.join(missing)}")

        for key in _BY_DIFFICULTY:
            scores = summary_numbers(summary, key, 0.0, MAX_LENGTH, keyed=True)
            absent = [d for d in range(config["min_nonzero"], config["n_elems"] + 1) if str(d) not in scores]
            if absent:
                raise ValueError(f"run's summary entry {key!r} must score every difficulty; it has none at {absent[0]}")

        def at(key: str, difficulties: range) -> list[float]:
            return [summary[key][str(d)] for d in difficulties]

        expected = at("expected_ponder_steps_by_difficulty", trained)
        return cls(
            interpolation_accuracy=mean(at("accuracy_by_difficulty", trained)),
            extrapolation_accuracy=mean(at("accuracy_by_difficulty", unseen)),
            hardest_accuracy=summary["accuracy_by_difficulty"][str(config["n_elems"])],
            ponder_steps=mean(at("ponder_steps_by_difficulty", trained)),
            expected_ponder_steps=mean(expected),
            easiest_expected=expected[0],
            hardest_expected=expected[-1],
            expected_difficulty_correlation=pearson_correlation(
                torch.tensor(list(trained), dtype=torch.float64), torch.tensor(expected, dtype=torch.float64)
            ),
            extrapolation_ponder_steps=mean(at("ponder_steps_by_difficulty", unseen)),
        )


@dataclass(frozen=True)
class ExtrapolationCurve:
    """A parity run's learning curve inside and beyond its training range, from its summary's ``curve``
    (recorded by runs trained on ``1..max_nonzero < n_elems`` entries, see
    :func:`~ponderlib.tasks.parity.extrapolation_held_out`).

    Attributes:
        updates: training updates done at each evaluation.
        accuracy: held-out accuracy on the trained range at each evaluation.
        extrapolation: held-out accuracy beyond it at each evaluation.
    """

    updates: list[int]
    accuracy: list[float]
    extrapolation: list[float]

    @classmethod
    def of(cls, run: ParityResult | Mapping[str, Any]) -> ExtrapolationCurve:
        """From a trained result or its summary (a record of the evidence).

        Raises:
            ValueError: the run's curve has no extrapolation accuracy (a run trained on every
                difficulty, or recorded before runs scored it during training).
        """
        curve = RunSummary.of(run).get("curve") or {}
        if not curve.get("extrapolation_accuracy"):
            raise ValueError("run's curve must record extrapolation_accuracy (a run trained on 1..max_nonzero < n_elems)")
        updates = summary_numbers(curve, "update", 0.0, where="run's curve")
        accuracy = summary_numbers(curve, "accuracy", 0.0, 1.0, where="run's curve")
        extrapolation = summary_numbers(curve, "extrapolation_accuracy", 0.0, 1.0, where="run's curve")
        if not len(updates) == len(accuracy) == len(extrapolation):
            raise ValueError(f"run's curve must hold one accuracy and one extrapolation_accuracy per update ({len(updates)}), "
                             f"got {len(accuracy)} and {len(extrapolation)}")
        return cls(list(updates), list(accuracy), list(extrapolation))

    @property
    def best(self) -> tuple[float, int]:
        """The highest extrapolation accuracy at any evaluation, and the update where it was first reached."""
        index = max(range(len(self.extrapolation)), key=lambda i: (self.extrapolation[i], -i))
        return self.extrapolation[index], self.updates[index]


_BY_DIFFICULTY = ("accuracy_by_difficulty", "ponder_steps_by_difficulty", "expected_ponder_steps_by_difficulty")


PRIOR_TRUNCATIONS = ("last", "normalised")
"""The two ways of cutting a halting distribution at ``N`` (Banino et al., sec. 2.3): put the mass left
on the last step, or normalise (condition on ``n <= N``)."""


SUMMED_BELOW = 1e-3
"""Below this ``lambda_p N``, :func:`prior_mean` sums the prior's steps rather than use its closed forms, whose
terms near ``1 / lambda_p`` cancel to a mean near ``N / 2`` (relative error about ``1e-16 / (lambda_p N)``)."""


def prior_mean(lambda_p: float, max_ponder_steps: int, truncation: str = "normalised") -> float:
    """The mean ``E[n]`` of the geometric prior ``p_G(lambda_p)`` cut at ``N = max_ponder_steps``, in
    closed form. With ``q = 1 - lambda_p``: ``(1 - q^N) / lambda_p`` with the tail on the last step
    (``truncation="last"``), ``1 / lambda_p - N q^N / (1 - q^N)`` normalised. Both tend to
    ``1 / lambda_p`` as ``N`` grows. Where ``lambda_p N < SUMMED_BELOW`` the closed forms cancel to noise (at
    ``lambda_p = 1e-12`` the normalised one gave -22 million; below 1e-16, ``q = 1`` and a division by zero): the
    mean is summed over the ``N`` steps instead.

    Raises:
        ValueError: ``lambda_p`` outside ``(0, 1]``, ``max_ponder_steps`` outside ``[1, MAX_LENGTH]`` (the
            prior's own bound, :func:`~ponderlib.mechanisms.halting.geometric_prior`) or an unknown truncation.
    """
    check_fraction("lambda_p", lambda_p, include_zero=False)
    check_int("max_ponder_steps", max_ponder_steps, minimum=1, maximum=MAX_LENGTH)
    if truncation not in PRIOR_TRUNCATIONS:
        raise ValueError(f"truncation must be one of {PRIOR_TRUNCATIONS}, got {truncation!r}")
    q, n = 1.0 - lambda_p, max_ponder_steps
    if lambda_p * n < SUMMED_BELOW:
        weights = [math.exp(k * math.log1p(-lambda_p)) for k in range(n)]  # q^(n-1), n = 1..N, exact for tiny lambda_p
        probs = [lambda_p * w for w in weights[:-1]] + [weights[-1]] if truncation == "last" else weights
        return math.fsum(step * p for step, p in enumerate(probs, start=1)) / math.fsum(probs)
    if truncation == "last":
        return (1 - q**n) / lambda_p
    return 1 / lambda_p - n * q**n / (1 - q**n)


def spike_threshold(max_ponder_steps: int, iterations: int = 60) -> float:
    """The ``lambda_p`` below which the prior with its tail on the last step puts more mass on the cap
    ``N = max_ponder_steps`` than on step 1: the root of ``(1 - lambda_p)^(N - 1) = lambda_p``, found by
    bisection (the left side falls and the right side grows with ``lambda_p``, so there is one root).

    Raises:
        ValueError: ``max_ponder_steps`` outside ``[2, MAX_LENGTH]`` (with one step there is no tail), or
            ``iterations`` outside ``[1, 1100]`` (after about 1,075 halvings the interval is one float64).
    """
    check_int("max_ponder_steps", max_ponder_steps, minimum=2, maximum=MAX_LENGTH)
    check_int("iterations", iterations, minimum=1, maximum=1100)  # float64's interval is one point after 1,075
    low, high = 0.0, 1.0
    for _ in range(iterations):
        middle = (low + high) / 2
        low, high = (middle, high) if (1 - middle) ** (max_ponder_steps - 1) > middle else (low, middle)
    return low
