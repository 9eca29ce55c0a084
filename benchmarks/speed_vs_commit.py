"""Training speed of this checkout against another commit, measured side by side in one run.

    .venv/bin/python benchmarks/speed_vs_commit.py --base c4b6a79 --seeds 0 1 2 > speed.jsonl

Checks the base commit out into a temporary git worktree and runs the same benchmarks with both
versions' CLIs, alternating base and head run by run so that a busy machine slows both alike:
8-element parity to 0.99 held-out accuracy (ACT and PonderNet, library defaults) and integer
sorting (0..9, lengths 5..10) to 0.99 exact match. Prints one JSON line per run and a last line
with the medians per benchmark and version. Two names changed between versions, so the command is
chosen per checkout: the flag that names the training budget (``--max-train-steps`` became
``--max-updates``) and the sorting task (``sort`` became ``sorting``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

BENCHMARKS = {
    "parity-act": ["train", "parity", "--method", "act", "--n-elems", "8", "--target-accuracy", "0.99"],
    "parity-pondernet": ["train", "parity", "--method", "pondernet", "--n-elems", "8", "--target-accuracy", "0.99"],
    "sort-int": ["train", "sorting", "--values", "int", "--order", "asc", "--min-len", "5", "--max-len", "10",
                 "--target-accuracy", "0.99"],
}


def budget_flags(checkout: Path) -> list[str]:
    """A generous budget, in whichever flag the checkout's CLI knows."""
    cli = (checkout / "ponderlib" / "cli.py").read_text()
    if "--max-train-steps" in cli:
        return ["--max-seconds", "600"]
    return ["--max-updates", "20000"]


def task_names(checkout: Path, args: list[str]) -> list[str]:
    """``args`` with the task named as the checkout's CLI names it (``sort`` before the tasks had one name)."""
    if (checkout / "ponderlib" / "tasks" / "registry.py").exists():
        return args
    return ["sort" if arg == "sorting" else arg for arg in args]


def run(checkout: Path, args: list[str], seed: int) -> dict:
    env = {**os.environ, "PYTHONPATH": str(checkout), "PONDERLIB_DEVICE": "cpu"}
    args = task_names(checkout, args)
    command = [sys.executable, "-m", "ponderlib", *args, *budget_flags(checkout), "--seed", str(seed),
               "--threads", "1", "--json", "--quiet"]
    proc = subprocess.run(command, capture_output=True, text=True, env=env, cwd=checkout, check=True)
    summary = json.loads(proc.stdout)
    updates = summary.get("updates", summary.get("train_steps"))
    return {"seconds_to_target": summary["seconds_to_target"], "updates": updates}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the commit to compare against")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--benchmarks", nargs="+", choices=sorted(BENCHMARKS), default=sorted(BENCHMARKS))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder) / "base"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.base],
                       check=True, capture_output=True)
        try:
            results: dict[tuple[str, str], list[float]] = {}
            for name in args.benchmarks:
                for seed in args.seeds:
                    for version, checkout in (("base", base), ("head", ROOT)):
                        measured = run(checkout, BENCHMARKS[name], seed)
                        print(json.dumps({"benchmark": name, "seed": seed, "version": version, **measured}), flush=True)
                        if measured["seconds_to_target"] is not None:
                            results.setdefault((name, version), []).append(measured["seconds_to_target"])
            medians = {f"{name}/{version}": round(statistics.median(times), 2) for (name, version), times in results.items()}
            print(json.dumps({"medians_seconds_to_target": medians}))
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)


if __name__ == "__main__":
    main()
