"""The ``python -m ponderlib`` CLI: one JSON object on stdout, one-line errors, exit codes."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "ponderlib", *args], capture_output=True, text=True, env=env, timeout=120
    )


def test_train_parity_json():
    proc = run_cli("train", "parity", "--method", "act", "--n-elems", "4", "--hidden", "16", "--max-train-steps", "60",
                   "--target-accuracy", "0.99", "--max-seconds", "60", "--seed", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)  # stdout holds exactly one JSON object
    assert summary["task"] == "parity" and summary["method"] == "act" and summary["n_elems"] == 4
    assert summary["seed"] == 3 and summary["device"] == "cpu"
    assert summary["train_steps"] <= 60
    assert 0.0 <= summary["final_accuracy"] <= 1.0
    assert summary["reached_target"] == (summary["seconds_to_target"] is not None)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--lambda-p", "1.5"], "lambda_p must be in (0, 1], got 1.5"),
        (["--tau", "-1"], "tau must be a finite number >= 0, got -1.0"),
        (["--max-steps", "0"], "max_steps must be an integer >= 1, got 0"),
        (["--n-elems", "0"], "n_elems must be an integer >= 1, got 0"),
        (["--method", "lstm"], "invalid choice: 'lstm'"),
        (["--n-elems", "eight"], "invalid int value: 'eight'"),
    ],
)
def test_bad_arguments_exit_with_one_line(args, message):
    proc = run_cli("train", "parity", "--json", *args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr
