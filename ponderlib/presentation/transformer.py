"""Chapter 4's tables of its Universal Transformer runs on assignment chains, as Markdown: the live runs
per seed and, for the report, the evidence per seed and per setting. A *run* is what
:func:`~ponderlib.tasks.chains.train_chains` returns; a *summary* its JSON record in the evidence.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ponderlib.core.validation import short
from ponderlib.experiments.transformer import LEARNT_ACCURACY, StepsDistribution, accuracy_at_depth
from ponderlib.figures import style
from ponderlib.presentation.tables import markdown_table, range_mean, require_groups

Runs = Mapping[str, Sequence[Any]]
"""Model name (``"act"``, ``"fixed"``, ...) -> its runs (each with ``config`` and ``tests``), one per seed."""


spread = range_mean
"""``"0.02 to 0.93 (mean 0.51)"``: the smallest, the largest and the mean of some values."""


def _r(value: float | None) -> str:
    """A correlation to two decimals; a dash where it is undefined (the fixed depth's constant steps)."""
    return "–" if value is None or math.isnan(value) else f"{value:.2f}"


def live_table(runs: Runs) -> str:
    """Per model and seed: held-out accuracy, mean ponder steps, and the correlation of ponder steps with
    the required depth, over all positions and within each position (:meth:`ChainsEvaluation.correlations`)."""
    require_groups("runs", runs)
    header = ["method", "seed", "accuracy", "ponder steps", "r(N, d)", "r(N, d) within position"]
    rows = []
    for method, method_runs in runs.items():
        for run in method_runs:
            trained = run.tests["trained"]
            correlations = trained.correlations()
            rows.append([style.label(method), run.config.seed, f"{trained.accuracy:.3f}", f"{trained.mean_ponder_steps:.2f}",
                         _r(correlations["depth"]), _r(correlations["depth_given_position"])])
    return markdown_table(header, rows, align="lrrrrr")


def seed_table(by_seed: Mapping[int, Mapping[str, Mapping]], deepest: int) -> str:
    """One row per seed, one column per model (``by_seed``: seed -> model name -> run summary): its
    held-out accuracy, accuracy at ``deepest`` hops and mean ponder steps per position, as
    ``"0.999 / 0.986 / 2.61"``; a learnt run (accuracy at least
    :data:`~ponderlib.experiments.transformer.LEARNT_ACCURACY`) in bold."""
    require_groups("by_seed", by_seed)
    models = list(next(iter(by_seed.values())))
    for seed, runs in by_seed.items():
        if not isinstance(runs, Mapping) or sorted(runs) != sorted(models):
            raise ValueError(f"by_seed[{seed!r}] must map the models {models} (the first seed's) to run summaries, "
                             f"got {short(repr(runs))}")

    def cell(summary: Mapping) -> str:
        text = (f"{summary['test_accuracy']:.3f} / {accuracy_at_depth(summary, deepest, 'a run of by_seed'):.3f} / "
                f"{summary['test_ponder_steps']:.2f}")
        return f"**{text}**" if summary["test_accuracy"] >= LEARNT_ACCURACY else text

    rows = [[seed, *(cell(by_seed[seed][model]) for model in models)] for seed in sorted(by_seed)]
    return markdown_table(["seed", *(style.label(model) for model in models)], rows, align="r" + "r" * len(models))


def setting_table(settings: Mapping[str, Sequence[Mapping]], deepest: int) -> str:
    """One row per setting (``settings``: label -> run summaries, one per seed): how many runs learn the
    chains, and as :func:`spread` over the runs the held-out accuracy, the accuracy at ``deepest`` hops,
    on longer programs with deeper chains, and the mean ponder steps per position."""
    require_groups("settings", settings)
    header = ["setting", "learn the chains", "accuracy", f"accuracy at {deepest} hops",
              "accuracy, longer and deeper", "ponder steps per position"]
    rows = []
    for label, summaries in settings.items():
        learnt = sum(s["test_accuracy"] >= LEARNT_ACCURACY for s in summaries)
        columns = ([s["test_accuracy"] for s in summaries], [accuracy_at_depth(s, deepest, f"settings[{label!r}]") for s in summaries],
                   [s["deeper_accuracy"] for s in summaries], [s["test_ponder_steps"] for s in summaries])
        rows.append([label, f"{learnt} of {len(summaries)}", *map(spread, columns)])
    return markdown_table(header, rows, align="lrllll")


def correlation_table(settings: Mapping[str, Sequence[Mapping]]) -> str:
    """One row per setting (``settings``: label -> run summaries, one per seed): Pearson's r of the ponder
    steps N with the required depth d, over all positions and within each position; of the expected
    steps E[N] (the halting distribution's mean) with d; and of d with the position in the test programs
    (the confound). Each as :func:`spread` over the seeds."""

    def cell(summaries: Sequence[Mapping], name: str) -> str:
        values = [s[name] for s in summaries if s.get(name) is not None]
        return spread(values) if values else "–"

    require_groups("settings", settings)
    header = ["setting", "r(N, d)", "r(N, d) within position", "r(E[N], d)", "r(d, position) in the data"]
    names = ("test_depth_correlation", "test_depth_correlation_given_position", "test_expected_depth_correlation",
             "test_depth_position_correlation")
    rows = [[label, *(cell(summaries, name) for name in names)] for label, summaries in settings.items()]
    return markdown_table(header, rows)


def distribution_table(distributions: Mapping[str, Mapping[int, StepsDistribution]]) -> str:
    """Ponder steps per required depth as the paper reports bAbI's, mean ± standard deviation over every
    position of that depth in every run (``distributions``: method -> :func:`pooled_steps`)."""
    require_groups("distributions", distributions)
    methods = list(distributions)
    depths = sorted(set.intersection(*(set(table) for table in distributions.values())))
    if not depths:  # a table of no row
        raise ValueError(f"distributions must share at least one required depth, got {', '.join(f'{m}: {sorted(t)}' for m, t in distributions.items())}")
    header = ["required depth", *(style.label(method) for method in methods)]
    rows = [[d, *(f"{distributions[m][d].mean:.1f} ± {distributions[m][d].sd:.1f}" for m in methods)] for d in depths]
    return markdown_table(header, rows, align="r" * len(header))
