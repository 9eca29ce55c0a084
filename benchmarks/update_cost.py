"""The cost of one training update of each sweep preset, measured on this machine, one torch thread.

    .venv/bin/python benchmarks/update_cost.py [--updates 200] [--warmup 20] [--presets NAME ...]
        [--set FIELD=VALUE ...] [--first N]

For each preset, every grid point's config with seed 0 is trained for ``--warmup`` plus ``--updates``
training updates; the wall time of the last ``--updates`` divided by their number is the cost of one
update (the warm-up, which allocates, is left out; a held-out evaluation of 64 samples every
``--warmup`` updates is in the time, a few percent at most). Prints one JSON line per grid point: the
preset, the point, the milliseconds per update, the updates timed, and the CPU-hours of that point's
runs at the preset's budget and this cost (a network that learns to ponder longer costs more per
update later in training, so for ACT this is a lower bound). ``--set`` overrides config fields of
every point (``--set n_elems=16``, values as JSON); ``--first N`` measures the first N grid points of
each preset only. Run it on a quiet machine.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace

from ponderlib.sweep import PRESETS, make_spec
from ponderlib.tasks.registry import get_task


def measure(train, config, updates: int, warmup: int) -> float:
    """Milliseconds per training update after ``warmup`` updates, timed by the training loop's
    ``on_evaluate`` callback (an evaluation every ``warmup`` updates)."""
    marks: dict[int, float] = {}

    def mark(update: int, model) -> None:
        marks[update] = time.perf_counter()

    config = replace(config, max_updates=warmup + updates, eval_every=warmup, eval_size=64, progress=False, threads=1)
    train(config, on_evaluate=mark)
    if updates % warmup:
        raise ValueError(f"updates must be a multiple of warmup = {warmup}, got {updates}")
    return 1000.0 * (marks[warmup + updates] - marks[warmup]) / updates


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presets", nargs="+", choices=sorted(PRESETS), default=sorted(PRESETS))
    parser.add_argument("--updates", type=int, default=200, help="training updates timed per config")
    parser.add_argument("--warmup", type=int, default=20, help="updates before the timing starts (and between evaluations)")
    parser.add_argument("--set", nargs="+", default=[], metavar="FIELD=VALUE", help="override a config field (JSON value)")
    parser.add_argument("--first", type=int, default=None, help="only the first N grid points of each preset")
    args = parser.parse_args()
    if any("=" not in item for item in args.set):
        parser.error(f"--set takes FIELD=VALUE items, got {args.set}")
    overrides = {name: json.loads(value) for name, value in (item.split("=", 1) for item in args.set)}
    for name in args.presets:
        preset = PRESETS[name]
        spec = preset.spec()
        runs = make_spec(spec.task, spec.grid, [0], spec.fixed).runs[: args.first]
        train = get_task(spec.task).train
        for run in runs:
            ms = measure(train, replace(run.config, **overrides), args.updates, args.warmup)
            hours = len(preset.seeds) * preset.max_updates * ms / 1000.0 / 3600.0
            print(json.dumps({
                "preset": name, "point": run.point, "set": overrides,
                "ms_per_update": round(ms, 2), "updates_timed": args.updates,
                "cpu_hours_of_its_runs": round(hours, 2),
            }), flush=True)


if __name__ == "__main__":
    main()
