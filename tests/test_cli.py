"""The ``python -m ponderlib`` CLI: one JSON object on stdout, one-line errors, exit codes."""

import json

import pytest
from cli_runner import run_cli


def test_train_parity_json():
    proc = run_cli("train", "parity", "--method", "act", "--n-elems", "4", "--hidden", "16", "--max-updates", "60",
                   "--target-accuracy", "0.99", "--max-seconds", "60", "--seed", "3", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)  # stdout holds exactly one JSON object
    assert summary["task"] == "parity" and summary["method"] == "act" and summary["n_elems"] == 4
    assert summary["seed"] == 3 and summary["device"] == "cpu"
    assert summary["updates"] <= 60
    assert 0.0 <= summary["final_accuracy"] <= 1.0
    assert summary["reached_target"] == (summary["seconds_to_target"] is not None)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--lambda-p", "1.5"], "lambda_p must be in (0, 1], got 1.5"),
        (["--tau", "-1"], "tau must be a finite number >= 0 and at most 1e+06, got -1.0"),
        (["--max-ponder-steps", "0"], "max_ponder_steps must be an integer in [1, 10000], got 0"),
        (["--n-elems", "0"], "n_elems must be an integer in [1, 10000], got 0"),
        (["--method", "lstm"], "invalid choice: 'lstm'"),
        (["--n-elems", "eight"], "--n-elems must be an integer, got 'eight'"),
        (["--kl-direction", "forward"], "argument --kl-direction: invalid choice: 'forward'"),
        (["--halting-rule", "always"], "argument --halting-rule: invalid choice: 'always'"),
        (["--lr", "fast"], "--lr must be a number or none, got 'fast'"),
        (["--max-updates", "none", "--target-accuracy", "none"], "training never stops"),
    ],
)
def test_bad_arguments_exit_with_one_line(args, message):
    proc = run_cli("train", "parity", "--json", *args)
    assert proc.returncode == 2
    assert proc.stdout == ""
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert "Traceback" not in proc.stderr


def test_unknown_task_is_one_line():
    proc = run_cli("train", "chess", "--json")
    assert proc.returncode == 2 and "invalid choice: 'chess'" in proc.stderr and "Traceback" not in proc.stderr


def test_every_config_field_is_an_option_with_its_help():
    import dataclasses

    from ponderlib.cli import build_parser
    from ponderlib.tasks.registry import TASKS

    parser = build_parser()
    for name, task in TASKS.items():
        help_text = " ".join(parser.parse_args(["train", name, "--json"]).__dict__)  # parses with defaults
        assert "json" in help_text
        proc = run_cli("train", name, "--help")
        assert proc.returncode == 0
        for field in dataclasses.fields(task.config):
            if field.name == "progress":
                continue
            assert "--" + field.name.replace("_", "-") in proc.stdout, (name, field.name)
            assert field.metadata["help"].split()[0] in proc.stdout, (name, field.name)


def test_sequence_parity_from_the_terminal():
    proc = run_cli("train", "sequence_parity", "--n-elems", "3", "--seq-len", "2", "--hidden", "8",
                   "--max-updates", "3", "--target-accuracy", "none", "--eval-size", "16", "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["task"] == "sequence_parity" and summary["updates"] == 3
    assert summary["config"]["target_accuracy"] is None and summary["seq_len"] == 2
