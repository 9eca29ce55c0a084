"""The cost of one training update of each sweep preset, measured on this machine, one torch thread.

    .venv/bin/python benchmarks/update_cost.py [--updates 200] [--warmup 20] [--presets NAME ...]

For each preset, every grid point's config with seed 0 is trained for ``--warmup`` plus ``--updates``
training updates; the wall time of the last ``--updates`` divided by their number is the cost of one
update (the warm-up, which allocates, is left out; a held-out evaluation of 64 samples every
``--warmup`` updates is in the time, a few percent at most). Prints one JSON line per grid point: the
preset, the point, the milliseconds per update, the updates timed, and the CPU-hours of that point's
runs at the preset's budget and this cost (a network that learns to ponder longer costs more per
update later in training, so for ACT this is a lower bound). Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace

from ponderlib.core.engine import on_evaluate
from ponderlib.sweep import PRESETS, make_spec
from ponderlib.tasks.registry import get_task


def measure(train, config, updates: int, warmup: int) -> float:
    """Milliseconds per training update after ``warmup`` updates, timed by the engine's evaluation
    callback (an evaluation every ``warmup`` updates)."""
    marks: dict[int, float] = {}

    def mark(update: int, model) -> None:
        marks[update] = time.perf_counter()

    config = replace(config, max_updates=warmup + updates, eval_every=warmup, eval_size=64, progress=False, threads=1)
    with on_evaluate(mark):
        train(config)
    if updates % warmup:
        raise ValueError(f"updates must be a multiple of warmup = {warmup}, got {updates}")
    return 1000.0 * (marks[warmup + updates] - marks[warmup]) / updates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", nargs="+", choices=sorted(PRESETS), default=sorted(PRESETS))
    parser.add_argument("--updates", type=int, default=200, help="training updates timed per config")
    parser.add_argument("--warmup", type=int, default=20, help="updates before the timing starts (and between evaluations)")
    args = parser.parse_args()
    for name in args.presets:
        preset = PRESETS[name]
        spec = preset.spec()
        runs = make_spec(spec.task, spec.grid, [0], spec.fixed).runs
        train = get_task(spec.task).train
        for run in runs:
            ms = measure(train, run.config, args.updates, args.warmup)
            hours = len(preset.seeds) * preset.max_updates * ms / 1000.0 / 3600.0
            print(json.dumps({
                "preset": name, "point": run.point, "ms_per_update": round(ms, 2), "updates_timed": args.updates,
                "cpu_hours_of_its_runs": round(hours, 2),
            }), flush=True)


if __name__ == "__main__":
    main()
