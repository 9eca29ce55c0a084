"""Inputs a hostile (or careless) user gives the sweep command and its files (issue 26, items 3 and 5):
each gets a one-line error naming what is wrong, promptly, and changes nothing."""

from __future__ import annotations

import os
import time

import pytest

from ponderlib import cli
from ponderlib.core.config import PROGRESS_VARIABLE, progress_enabled
from ponderlib.sweep.spec import SPEC_MAX_BYTES, load_spec

SPEC = "task: parity\ngrid: {tau: [0.1]}\nseeds: [0]\n"


def run_sweep_command(capsys, *args: str) -> tuple[int, str]:
    try:
        status = cli.main(["sweep", *args])
    except SystemExit as exit_:
        status = exit_.code
    _, err = capsys.readouterr()
    return status, err


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("aliases.yaml", "task: parity\ngrid: {tau: &t [0.1]}\nseeds: [0]\nfixed: {}\nx: *t\n", "YAML alias"),
        ("bomb.yaml", "a: &a [x, x]\nb: &b [*a, *a]\nc: &c [*b, *b]\ntask: *c\ngrid: {}\nseeds: [0]\n", "YAML alias"),
        ("twice.yaml", "task: parity\ngrid: {tau: [0.1]}\nseeds: [0]\nseeds: [1]\n", "gives the key 'seeds' twice"),
        ("twice.json", '{"task": "parity", "grid": {"tau": [0.1]}, "seeds": [0], "seeds": [1]}', "'seeds' is given twice"),
        ("deep.json", "[" * 100_000 + "]" * 100_000, "not valid JSON"),
        ("deep.yaml", "[" * 100_000 + "]" * 100_000, "spec file"),
    ],
)
def test_spec_files_that_would_change_or_explode_the_request_are_refused(tmp_path, name, text, message):
    path = tmp_path / name
    path.write_text(text)
    start = time.perf_counter()
    with pytest.raises(ValueError, match=message) as caught:
        load_spec(path)
    assert time.perf_counter() - start < 10 and len(str(caught.value)) < 600  # prompt, and a bounded message


def test_a_spec_that_is_a_pipe_or_too_big_is_refused_without_reading_it(tmp_path):
    fifo = tmp_path / "spec.yaml"
    os.mkfifo(fifo)  # reading it would wait for a writer forever
    with pytest.raises(ValueError, match="not a regular file"):
        load_spec(fifo)
    big = tmp_path / "big.yaml"
    big.write_text(SPEC + "#" * SPEC_MAX_BYTES)
    with pytest.raises(ValueError, match=f"a spec holds at most {SPEC_MAX_BYTES}"):
        load_spec(big)


def test_a_wrongly_typed_value_is_named_but_not_printed_whole(tmp_path):
    path = tmp_path / "spec.json"
    path.write_text('{"task": "parity", "grid": {"tau": [0.1]}, "seeds": "' + "x" * 100_000 + '"}')
    with pytest.raises(ValueError, match="seeds must be a list of integers") as caught:
        load_spec(path)
    assert len(str(caught.value)) < 300


def test_summary_of_a_missing_or_empty_file_is_an_error(tmp_path, capsys):
    status, err = run_sweep_command(capsys, "--summary", str(tmp_path / "missing.jsonl"))
    assert status == 2 and "no such results file" in err and len(err.strip().splitlines()) == 1
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    status, err = run_sweep_command(capsys, "--summary", str(empty))
    assert status == 2 and "holds no sweep record" in err


def test_a_field_in_two_grid_options_is_an_error_not_the_last_one_wins(tmp_path, capsys):
    results = tmp_path / "runs.jsonl"
    status, err = run_sweep_command(capsys, "parity", "--grid", "tau=0.1", "--grid", "tau=0.01", "--seeds", "0",
                                    "--results", str(results))
    assert status == 2 and "--grid tau is given twice" in err
    assert not results.exists()


@pytest.mark.parametrize(
    ("value", "shown"), [("false", False), ("OFF", False), ("no", False), ("yes", True), ("True", True), ("", True)]
)
def test_progress_variable_words(monkeypatch, value, shown):
    monkeypatch.setenv(PROGRESS_VARIABLE, value)
    assert progress_enabled(None) is shown


def test_an_unknown_progress_value_is_an_error_naming_the_variable(monkeypatch):
    monkeypatch.setenv(PROGRESS_VARIABLE, "sometimes")
    with pytest.raises(ValueError, match=f"{PROGRESS_VARIABLE} must be one of"):
        progress_enabled(None)


@pytest.mark.parametrize("device", ["meta", "mps", "cuda:7", "tpu", "x" * 10_000])
def test_a_device_the_book_cannot_run_on_is_an_error_naming_where_it_came_from(monkeypatch, device):
    from ponderlib.core.device import ENV_VAR, get_device

    with pytest.raises(ValueError, match="device") as caught:
        get_device(device)
    assert len(str(caught.value)) < 200
    monkeypatch.setenv(ENV_VAR, device)
    with pytest.raises(ValueError, match=ENV_VAR):
        get_device()
