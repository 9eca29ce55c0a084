"""A results file is never damaged by a call, and one sweep writes to it at a time (issue 26, items 1
and 2): files that are not results files are refused and left byte for byte, a line cut short is dropped
only once a run finishes, and two real processes racing on one file lose no run and write none twice."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from cli_runner import ROOT

from ponderlib.sweep import load_results, sweep
from ponderlib.sweep.results import ResultsAppender
from ponderlib.tasks.parity import ParityConfig
from ponderlib.tasks.registry import TASKS, Task

TINY = {"n_elems": 3, "hidden": 8, "max_updates": 2, "eval_size": 16, "batch_size": 8, "difficulty_eval_size": 8}


def always_fails(config: ParityConfig):
    raise RuntimeError("this run fails")


@pytest.fixture
def failing(monkeypatch):
    monkeypatch.setitem(TASKS, "parity-fails", Task(ParityConfig, always_fails, "parity whose every run fails"))
    return "parity-fails"


@pytest.mark.parametrize("text", ["my notes, not a results file", "my notes\n", "{\"task\": \"parity\"}\n", "[1, 2]"])
def test_a_file_that_is_not_a_results_file_is_refused_and_left_as_it_was(tmp_path, text):
    notes = tmp_path / "notes.txt"
    notes.write_text(text)
    with pytest.raises(ValueError, match="not a sweep record"):
        sweep("parity", {"lambda_p": [0.1]}, [0], notes, fixed=TINY, progress=False)
    assert notes.read_text() == text


def test_a_line_cut_short_is_dropped_only_when_a_run_finishes(tmp_path, monkeypatch):
    results = tmp_path / "runs.jsonl"
    sweep("parity", {"lambda_p": [0.1]}, [0], results, fixed=TINY, progress=False)
    whole = results.read_text()
    cut = whole + whole[: len(whole) // 2]  # a second record, cut short by a killed writer
    results.write_text(cut)
    with monkeypatch.context() as patch, pytest.raises(RuntimeError, match="1 of 1 runs failed"):
        # parity's runs fail this once: a results file holds one task's runs, so the task keeps its name
        patch.setitem(TASKS, "parity", Task(ParityConfig, always_fails, "parity whose every run fails"))
        sweep("parity", {"lambda_p": [0.1]}, [1], results, fixed=TINY, progress=False)
    assert results.read_text() == cut  # nothing finished: nothing written, nothing dropped
    sweep("parity", {"lambda_p": [0.1]}, [1], results, fixed=TINY, progress=False)
    assert [record["seed"] for record in load_results(results)] == [0, 1]
    assert results.read_text().startswith(whole) and results.read_text().count("\n") == 2


def test_a_sweep_that_finishes_nothing_leaves_no_new_file(tmp_path, failing):
    results = tmp_path / "new.jsonl"
    with pytest.raises(RuntimeError, match="runs failed"):
        sweep(failing, {"lambda_p": [0.1]}, [0], results, fixed=TINY, progress=False)
    assert not results.exists()


def test_a_pipe_or_a_folder_is_refused_at_once(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="not a regular file"):
        sweep("parity", {"lambda_p": [0.1]}, [0], fifo, fixed=TINY, progress=False)
    with pytest.raises(ValueError, match="not a regular file"):
        load_results(fifo)


def test_a_second_sweep_on_a_locked_file_is_refused_and_changes_nothing(tmp_path):
    results = tmp_path / "runs.jsonl"
    sweep("parity", {"lambda_p": [0.1]}, [0], results, fixed=TINY, progress=False)
    before = results.read_bytes()
    holder = ResultsAppender(results).open()  # another sweep, writing
    try:
        with pytest.raises(ValueError, match="being written by another sweep"):
            sweep("parity", {"lambda_p": [0.1]}, [1], results, fixed=TINY, progress=False)
    finally:
        holder.close()
    assert results.read_bytes() == before
    sweep("parity", {"lambda_p": [0.1]}, [1], results, fixed=TINY, progress=False)  # free again once it ends
    assert [record["seed"] for record in load_results(results)] == [0, 1]


RACE_ROUNDS = 15
"""Rounds of the race: in each, two processes start a sweep on one new results file at the same instant."""

RACER = """
import contextlib, io, json, sys, time
from pathlib import Path
from ponderlib import cli

folder, me, seeds, rounds, flags = Path(sys.argv[1]), sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5:]
for round_ in range(rounds):
    (folder / f"ready-{round_}-{me}").touch()
    while len(list(folder.glob(f"ready-{round_}-*"))) < 2:  # both here: go
        time.sleep(0.001)
    if me == "later":
        time.sleep(0.03 * (round_ % 5))  # at once, during the other's runs, or after them
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(["sweep", "parity", "--grid", "lambda_p=0.1", "--seeds", seeds, "--quiet",
                               "--results", str(folder / f"runs-{round_}.jsonl"), *flags])
        except SystemExit as exit_:
            status = exit_.code
    print(json.dumps({"status": status, "stderr": err.getvalue()}), flush=True)
"""
"""One racer: a real process that runs ``python -m ponderlib sweep`` (its ``cli.main``) once per round,
after waiting for the other racer, and prints each round's exit status and stderr as a JSON line."""


@pytest.mark.slow
def test_two_processes_racing_on_one_file_lose_no_run_and_write_none_twice(tmp_path):
    flags = [f"--set={name}={value}" for name, value in TINY.items()]
    env = {**os.environ, "PYTHONPATH": str(ROOT), "PONDERLIB_DEVICE": "cpu", "PONDERLIB_PROGRESS": "0"}
    racers = {
        seeds: subprocess.Popen([sys.executable, "-c", RACER, str(tmp_path), me, seeds, str(RACE_ROUNDS), *flags],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        for me, seeds in (("first", "0-3"), ("later", "2-5"))
    }
    outcomes = {}
    for seeds, racer in racers.items():
        out, err = racer.communicate(timeout=600)
        assert racer.returncode == 0, err[-2000:]
        outcomes[seeds] = [json.loads(line) for line in out.splitlines()]
    for round_ in range(RACE_ROUNDS):
        seeds = [record["seed"] for record in load_results(tmp_path / f"runs-{round_}.jsonl")]
        assert len(seeds) == len(set(seeds)), (round_, seeds)  # none written twice
        for wanted, first, last in (("0-3", 0, 3), ("2-5", 2, 5)):
            status, err = outcomes[wanted][round_]["status"], outcomes[wanted][round_]["stderr"]
            if status == 0:
                assert set(range(first, last + 1)) <= set(seeds), (round_, seeds)  # none lost
            else:
                assert status == 2 and "being written by another sweep" in err and err.count("\n") == 1, err
        assert any(outcomes[wanted][round_]["status"] == 0 for wanted in outcomes)
    statuses = [outcome["status"] for wanted in outcomes for outcome in outcomes[wanted]]
    assert 2 in statuses  # the racers did meet: one found the file locked (and, mostly, not at every round)


def test_a_read_only_or_dangling_results_file_is_a_one_line_error(tmp_path):
    read_only = tmp_path / "read-only.jsonl"
    sweep("parity", {"lambda_p": [0.1]}, [0], read_only, fixed=TINY, progress=False)
    before = read_only.read_bytes()
    read_only.chmod(0o444)
    try:
        if os.access(read_only, os.W_OK):
            pytest.skip("running as a user who may write a read-only file (root)")
        with pytest.raises(ValueError, match="cannot be opened for writing"):
            sweep("parity", {"lambda_p": [0.1]}, [1], read_only, fixed=TINY, progress=False)
    finally:
        read_only.chmod(0o644)
    assert read_only.read_bytes() == before
    dangling = tmp_path / "dangling.jsonl"
    dangling.symlink_to(tmp_path / "missing-folder" / "runs.jsonl")
    with pytest.raises(ValueError, match="results_path must be a file in an existing folder|cannot be opened"):
        sweep("parity", {"lambda_p": [0.1]}, [0], dangling, fixed=TINY, progress=False)
