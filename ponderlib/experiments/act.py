"""What chapter 1 computes about ACT on parity: runs scored at every difficulty during training, ponder
time and error against difficulty over seeds, time penalties over seeds, and ACT inside an RNN."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import torch
from torch import nn

from ponderlib.core.engine import History
from ponderlib.core.records import summary_number, summary_numbers, summary_value
from ponderlib.core.stats import least_squares_slope, pearson_correlation
from ponderlib.core.validation import check_finite, check_int, short
from ponderlib.tasks.parity import ParityConfig, ParityResult, scored_by_difficulty, train_parity
from ponderlib.tasks.parity_eval import DifficultyEvaluation
from ponderlib.tasks.sequence_parity import (
    SequenceConfig,
    SequenceEvaluation,
    SequenceResult,
    train_act_sequence,
)


@dataclass
class TrackedRun:
    """A parity run scored at every difficulty at several points of its training.

    Attributes:
        result: the trained run.
        snapshots: training updates done -> :class:`~ponderlib.tasks.parity.DifficultyEvaluation` of the
            model at that point, all on the same vectors as ``result.by_difficulty`` (which is the
            entry for the last training update).
    """

    result: ParityResult
    snapshots: dict[int, DifficultyEvaluation]

    def correlation_at(self, update: int) -> float:
        """Pearson's ``r`` between difficulty and ``N(t)``, per sample over the training range, after ``update``."""
        return self.snapshots[update].correlation_on(self.result.config.trained_difficulties)


def train_tracking_difficulty(config: ParityConfig, snapshot_every: int) -> TrackedRun:
    """Train parity as ``config`` says and score the model at every difficulty every ``snapshot_every`` updates.

    The snapshots are scored as the final score is (:func:`~ponderlib.tasks.parity.scored_by_difficulty`:
    the same vectors, label and cap) with their own random numbers, so tracking does not change
    training: the model at update ``u`` is the model a run with ``max_updates=u`` ends with.

    Raises:
        ValueError: ``snapshot_every`` is not a positive multiple of ``config.eval_every``.
    """
    check_int("snapshot_every", snapshot_every, minimum=1)
    if snapshot_every % config.eval_every:
        raise ValueError(f"snapshot_every must be a multiple of eval_every = {config.eval_every}, got {snapshot_every}")
    snapshots: dict[int, DifficultyEvaluation] = {}

    def snapshot(update: int, model: nn.Module) -> None:
        if update % snapshot_every == 0:
            snapshots[update] = scored_by_difficulty(model, config)

    result = train_parity(config, on_evaluate=snapshot)
    snapshots[result.fit.updates] = result.by_difficulty
    return TrackedRun(result=result, snapshots=snapshots)


def train_seeds(base: ParityConfig, seeds: Sequence[int], snapshot_every: int) -> list[TrackedRun]:
    """:func:`train_tracking_difficulty` once per seed, everything else as ``base``."""
    if len(seeds) == 0:
        raise ValueError("seeds must hold at least one seed, got an empty sequence")
    return [train_tracking_difficulty(replace(base, seed=seed), snapshot_every) for seed in seeds]


@dataclass
class SeedCurves:
    """Ponder time and error against difficulty, one row per seed.

    Attributes:
        seeds: the seeds, length ``S``.
        difficulty: the difficulties (non-zero entries), shape ``(D,)``.
        ponder_steps: mean ``N(t)`` per seed and difficulty, shape ``(S, D)``.
        error: fraction of wrong parities per seed and difficulty, shape ``(S, D)``.
        ponder_difficulty_correlation: per seed, Pearson's ``r`` between difficulty and ``N(t)`` over its
            samples, shape ``(S,)``.
    """

    seeds: list[int]
    difficulty: torch.Tensor
    ponder_steps: torch.Tensor
    error: torch.Tensor
    ponder_difficulty_correlation: torch.Tensor

    @classmethod
    def from_parity(cls, runs: Sequence[TrackedRun], update: int | None = None) -> SeedCurves:
        """The runs' scores after ``update`` training updates (default: after each run's last one)."""
        updates = [run.result.fit.updates if update is None else update for run in runs]
        evaluations = [run.snapshots[u] for run, u in zip(runs, updates)]
        return cls(
            seeds=[run.result.config.seed for run in runs],
            difficulty=evaluations[0].difficulty,
            ponder_steps=torch.stack([evaluation.ponder_steps for evaluation in evaluations]),
            error=1.0 - torch.stack([evaluation.accuracy for evaluation in evaluations]),
            ponder_difficulty_correlation=torch.tensor([run.correlation_at(u) for run, u in zip(runs, updates)]),
        )

    @classmethod
    def from_sequence(cls, seeds: Sequence[int], evaluations: Sequence[SequenceEvaluation]) -> SeedCurves:
        """Sequence-parity evaluations (one per seed), every time step of every sequence a sample."""
        if len(seeds) != len(evaluations) or not seeds:
            raise ValueError(f"seeds and evaluations must be non-empty and of one length, got {len(seeds)} and {len(evaluations)}")
        difficulty = torch.cat([evaluation.difficulty.flatten().cpu() for evaluation in evaluations]).unique()  # (D,)
        ponder_rows, error_rows, correlations = [], [], []
        for evaluation in evaluations:
            sample_difficulty = evaluation.difficulty.flatten().cpu()  # (B * T,)
            steps = evaluation.ponder_steps.flatten().float().cpu()  # (B * T,)
            wrong = (~evaluation.correct).flatten().float().cpu()  # (B * T,)
            ponder_rows.append(torch.stack([steps[sample_difficulty == d].mean() for d in difficulty]))
            error_rows.append(torch.stack([wrong[sample_difficulty == d].mean() for d in difficulty]))
            correlations.append(pearson_correlation(sample_difficulty.float(), steps))
        return cls(list(seeds), difficulty, torch.stack(ponder_rows), torch.stack(error_rows), torch.tensor(correlations))


@dataclass
class TauGrid:
    """ACT trained once per time penalty ``tau`` and seed, all scored after the same ``updates``.

    Attributes:
        taus: the time penalties, length ``T``.
        updates: the budget in training updates every run is compared at.
        runs: ``runs[i][j]`` is ``taus[i]`` trained with the ``j``-th seed.
    """

    taus: list[float]
    updates: int
    runs: list[list[TrackedRun]]

    def curves(self, index: int) -> SeedCurves:
        """Ponder time and error against difficulty for ``taus[index]`` after ``updates``, one row per seed."""
        return SeedCurves.from_parity(self.runs[index], self.updates)

    def held_out(self, metric: str) -> torch.Tensor:
        """A metric of the held-out evaluation (``"accuracy"``, ``"ponder_steps"``) after ``updates``, shape ``(T, S)``."""
        return torch.tensor(
            [[history_value(run.result.history, metric, self.updates) for run in row] for row in self.runs]
        )

    @property
    def error(self) -> torch.Tensor:
        """Held-out error ``1 - accuracy`` after ``updates``, shape ``(T, S)``."""
        return 1.0 - self.held_out("accuracy")

    @property
    def ponder_steps(self) -> torch.Tensor:
        """Mean ``N(t)`` on the held-out set after ``updates``, shape ``(T, S)``."""
        return self.held_out("ponder_steps")


def history_value(history: History, metric: str, update: int) -> float:
    """The value of ``metric`` at the evaluation after ``update`` training updates.

    Raises:
        ValueError: there was no evaluation after ``update`` training updates.
    """
    if update not in history.update:
        raise ValueError(f"update must be one of the evaluated updates {history.update}, got {update}")
    return history.metrics[metric][history.update.index(update)]


def train_tau_grid(
    taus: Sequence[float], seeds: Sequence[int], base: ParityConfig, snapshot_every: int,
    trained: Mapping[float, Sequence[TrackedRun]] | None = None,
) -> TauGrid:
    """Train ACT once per ``tau`` and seed for ``base.max_updates``, everything else as ``base``.

    ``trained`` maps a ``tau`` to runs already trained with these seeds and ``base``'s fields but a
    longer budget (e.g. the chapter's main experiment): their snapshot after ``base.max_updates`` is
    the model a run of ``base.max_updates`` ends with, so they are reused instead of trained again.

    Raises:
        ValueError: ``base`` is not ACT, ``taus`` is empty, or a reused run does not match.
    """
    if base.method != "act":
        raise ValueError(f"base.method must be 'act' for a tau sweep, got {base.method!r}")
    if len(taus) == 0:
        raise ValueError("taus must hold at least one value, got an empty sequence")
    check_int("base.max_updates", base.max_updates, minimum=1)
    trained = dict(trained or {})
    rows = []
    for tau in taus:
        if tau not in trained:
            rows.append(train_seeds(replace(base, tau=tau), seeds, snapshot_every))
            continue
        reused = list(trained[tau])
        matches = [replace(run.result.config, max_updates=base.max_updates) for run in reused] == [
            replace(base, tau=tau, seed=seed) for seed in seeds
        ]
        if not matches or any(base.max_updates not in run.snapshots for run in reused):
            raise ValueError(
                f"trained[{tau}] must be runs of base with tau = {tau}, seeds {list(seeds)} and a snapshot "
                f"after {base.max_updates} training updates"
            )
        rows.append(reused)
    return TauGrid(taus=list(taus), updates=base.max_updates, runs=rows)


def train_sequence_seeds(
    base: SequenceConfig, seeds: Sequence[int]
) -> tuple[list[SequenceResult], SeedCurves, list[SequenceEvaluation]]:
    """Sequence parity (ACT in an RNN) trained once per seed, each model scored on ``base.eval_size``
    fresh sequences of its own seed (:attr:`~ponderlib.tasks.sequence_parity.SequenceResult.test`).

    Returns:
        the results, their :class:`SeedCurves` (every time step a sample) and their evaluations.
    """
    if len(seeds) == 0:
        raise ValueError("seeds must hold at least one seed, got an empty sequence")
    results = [train_act_sequence(replace(base, seed=seed)) for seed in seeds]
    evaluations = [result.test for result in results]
    return results, SeedCurves.from_sequence(seeds, evaluations), evaluations


def _check_tau_summary(summary: Mapping, where: str, first: Mapping) -> None:
    """What :meth:`TauEvidence.from_summaries` reads of one summary, each entry named where it is missing,
    NaN or out of its range; its difficulties and curve's updates those of the ``first`` summary."""
    config = summary_value(summary, "config", where)
    summary_number(config, "tau", 0.0, where=f"{where}'s config")
    summary_number(config, "seed", 0.0, where=f"{where}'s config")
    summary_number(summary, "final_accuracy", 0.0, 1.0, where)
    summary_number(summary, "mean_ponder_steps", 0.0, where=where)
    by_difficulty = summary_numbers(summary, "ponder_steps_by_difficulty", 0.0, where=where, keyed=True)
    summary_numbers(summary, "accuracy_by_difficulty", 0.0, 1.0, where, keyed=True)
    curve = summary_value(summary, "curve", where)
    updates = summary_numbers(curve, "update", 0.0, where=f"{where}'s curve")
    accuracy = summary_numbers(curve, "accuracy", 0.0, 1.0, f"{where}'s curve")
    ponder = summary_numbers(curve, "ponder_steps", 0.0, where=f"{where}'s curve")
    for key, mine, theirs in (
        ("ponder_steps_by_difficulty", set(by_difficulty), set(first["ponder_steps_by_difficulty"])),
        ("accuracy_by_difficulty", set(summary["accuracy_by_difficulty"]), set(by_difficulty)),
        ("curve's update", updates, first["curve"]["update"]),
        ("curve's accuracy", len(accuracy), len(updates)),
        ("curve's ponder_steps", len(ponder), len(updates)),
    ):
        if mine != theirs:
            raise ValueError(
                f"{where}'s {key} must match the other runs' (the same difficulties and updates), got {short(repr(mine))}"
            )


@dataclass
class TauEvidence:
    """Graves' figs. 4-6 from a committed sweep over the time penalty ``tau`` (e.g. the evidence of
    ``graves-parity-16``): every run's error, ponder time, and ponder time at each number of non-zero
    entries, after its whole budget.

    Attributes:
        taus: the time penalties, ascending, length ``T``.
        seeds: the seeds, ascending, length ``S`` (every ``tau`` has a run of each).
        difficulty: the numbers of non-zero entries scored, ``1..n_elems``, length ``D``.
        error: held-out error ``1 - accuracy`` over all difficulties, ``(T, S)``.
        ponder_steps: mean ponder time ``N(t)`` over all difficulties, ``(T, S)``.
        by_difficulty: mean ``N(t)`` at each number of non-zero entries, ``(T, S, D)``.
        error_by_difficulty: the error at each number of non-zero entries, ``(T, S, D)``.
        ponder_difficulty_correlation: Pearson's r between the number of non-zero entries and ``N(t)``
            over the scored vectors, ``(T, S)``; NaN where every vector ran the same number of steps.
        updates: the training updates after which held-out accuracy was measured, length ``K``.
        curve: held-out accuracy after each of ``updates``, ``(T, S, K)``.
        ponder_curve: mean ``N(t)`` on the held-out vectors after each of ``updates``, ``(T, S, K)``.
    """

    taus: list[float]
    seeds: list[int]
    difficulty: list[int]
    error: torch.Tensor
    ponder_steps: torch.Tensor
    by_difficulty: torch.Tensor
    error_by_difficulty: torch.Tensor
    ponder_difficulty_correlation: torch.Tensor
    updates: list[int]
    curve: torch.Tensor
    ponder_curve: torch.Tensor

    @classmethod
    def from_summaries(cls, summaries: Sequence[Mapping]) -> TauEvidence:
        """Group run summaries (with ``config``, ``final_accuracy``, ``mean_ponder_steps``,
        ``ponder_steps_by_difficulty``, ``accuracy_by_difficulty``, ``ponder_difficulty_correlation`` and
        ``curve`` with its ``accuracy`` and ``ponder_steps``) by ``tau`` and seed.

        Raises:
            TypeError: ``summaries`` is not a list of mappings.
            ValueError: no summaries, a ``tau`` without a run of every seed the others have, or an entry
                missing, NaN or out of its range (naming the summary and the entry).
        """
        if not isinstance(summaries, Sequence) or isinstance(summaries, str):
            raise TypeError(f"summaries must be a list of run summaries (mappings), got {type(summaries).__name__}")
        if len(summaries) == 0:
            raise ValueError("summaries must hold at least one run summary, got none")
        for index, summary in enumerate(summaries):
            _check_tau_summary(summary, f"summaries[{index}]", summaries[0])
        runs = {(s["config"]["tau"], s["config"]["seed"]): s for s in summaries}
        taus = sorted({tau for tau, _ in runs})
        seeds = sorted({seed for _, seed in runs})
        missing = [(tau, seed) for tau in taus for seed in seeds if (tau, seed) not in runs]
        if missing:
            raise ValueError(f"summaries must hold a run of every seed at every tau; missing (tau, seed) {missing[:3]}")
        difficulty = sorted(int(d) for d in runs[taus[0], seeds[0]]["ponder_steps_by_difficulty"])

        def table(value) -> torch.Tensor:
            return torch.tensor([[value(runs[tau, seed]) for seed in seeds] for tau in taus], dtype=torch.float64)

        def by_difficulty(key: str) -> torch.Tensor:
            return torch.tensor(
                [[[runs[tau, seed][key][str(d)] for d in difficulty] for seed in seeds] for tau in taus], dtype=torch.float64
            )

        def during_training(key: str) -> torch.Tensor:
            return torch.tensor([[runs[tau, seed]["curve"][key] for seed in seeds] for tau in taus], dtype=torch.float64)

        def correlation(summary: Mapping) -> float:
            r = summary["ponder_difficulty_correlation"]
            return math.nan if r is None else r

        return cls(
            taus=taus,
            seeds=seeds,
            difficulty=difficulty,
            error=table(lambda s: 1.0 - s["final_accuracy"]),
            ponder_steps=table(lambda s: s["mean_ponder_steps"]),
            by_difficulty=by_difficulty("ponder_steps_by_difficulty"),
            error_by_difficulty=1.0 - by_difficulty("accuracy_by_difficulty"),
            ponder_difficulty_correlation=table(correlation),
            updates=list(runs[taus[0], seeds[0]]["curve"]["update"]),
            curve=during_training("accuracy"),
            ponder_curve=during_training("ponder_steps"),
        )

    def curves(self, index: int) -> SeedCurves:
        """Ponder time and error against the number of non-zero entries at ``taus[index]``, one row per
        seed (what :func:`ponderlib.figures.act.tau_pages` draws, one page per ``tau``)."""
        check_int("index", index, minimum=0, maximum=len(self.taus) - 1)
        return SeedCurves(
            seeds=list(self.seeds),
            difficulty=torch.tensor(self.difficulty),
            ponder_steps=self.by_difficulty[index],
            error=self.error_by_difficulty[index],
            ponder_difficulty_correlation=self.ponder_difficulty_correlation[index],
        )

    def late_gain(self, updates: int) -> torch.Tensor:
        """How much held-out accuracy rose over the last ``updates`` training updates of each run,
        ``(T, S)``: near zero where training had stopped improving."""
        check_int("updates", updates, minimum=1, maximum=self.updates[-1])
        earlier = max(k for k, update in enumerate(self.updates) if update <= self.updates[-1] - updates)
        return self.curve[:, :, -1] - self.curve[:, :, earlier]

    @property
    def slope(self) -> torch.Tensor:
        """Ponder steps per extra non-zero entry: the least-squares slope of ``N(t)`` on the number of
        non-zero entries, each number weighted alike, ``(T, S)`` (Graves' fig. 6 "roughly linear" growth)."""
        return torch.tensor(
            [[least_squares_slope(self.difficulty, row.tolist()) for row in by_seed] for by_seed in self.by_difficulty],
            dtype=torch.float64,
        )

    def growing(self, minimum_slope: float) -> list[int]:
        """For each ``tau``, how many seeds' ponder time grows with the number of non-zero entries by at
        least ``minimum_slope`` steps per entry (a finite number: NaN counted no seed, silently)."""
        check_finite("minimum_slope", minimum_slope)
        return (self.slope >= minimum_slope).sum(dim=1).tolist()
