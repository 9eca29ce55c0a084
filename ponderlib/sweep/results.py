"""The results file of a sweep: one JSON line per finished run, appended as each run ends, read back
to resume.

The file holds one JSON object per line, one per finished run::

    {"task": "parity", "point": {"tau": 0.001}, "seed": 0, "config": {...}, "summary": {...}, "source": {...}}

where ``config`` is the run's whole config as the sweep built it
(:meth:`~ponderlib.core.engine.TrainConfig.to_dict`, seed included), ``summary`` the task result's
whole :meth:`~ponderlib.core.engine.TrainResult.summary` (metrics, training updates, seconds, and where
it ran: device, CPU model or GPU name, CPU instruction set, threads, torch and library versions), and
``source`` the git commit the sweep's library was loaded from and whether its files differed from it
(:func:`~ponderlib.core.provenance.source_revision`; files written before it was recorded lack it). A line is appended, flushed and synced to disk as each run ends
(:class:`ResultsAppender`). A run's identity is its **key**: the task and its config (:func:`run_key`).
Running the same sweep again skips every run whose key is already in the file, so an interrupted sweep
(Ctrl-C, a lost worker, a killed machine) loses only the runs that were in flight; a last line cut
short by a killed writer is dropped. One sweep writes to a results file at a time.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

RECORD_KEYS = ("task", "point", "seed", "config", "summary")
"""The keys of every record in a results file."""


def run_key(task: str, config: Mapping[str, Any]) -> str:
    """A run's identity: its task name and its whole config dict (seed included), as canonical JSON."""
    return json.dumps({"task": task, "config": dict(config)}, sort_keys=True)


def load_results(path: str | os.PathLike) -> list[dict]:
    """The records of a results file, in the order they were written (``[]`` if there is no file).

    A last line cut short (its writer was killed mid-line) is left out; any other line that is not a
    record raises ``ValueError`` naming the file and the line.
    """
    return read_results(Path(path))[0]


def read_results(path: Path) -> tuple[list[dict], int, bool]:
    """What a sweep needs to resume ``path``: the records; the length in bytes of the file up to its
    last newline; whether the text after that newline is a whole record (written, but its newline was
    not)."""
    if not path.exists():
        return [], 0, False
    data = path.read_bytes()
    *lines, tail = data.split(b"\n")
    records = [_parse_record(path, number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    if not tail.strip():
        return records, len(data), False
    try:
        records.append(_parse_record(path, len(lines) + 1, tail))
    except ValueError:
        return records, len(data) - len(tail), False
    return records, len(data), True


def _parse_record(path: Path, number: int, line: bytes) -> dict:
    try:
        record = json.loads(line)
    except ValueError:
        record = None
    if not (
        isinstance(record, dict)
        and all(key in record for key in RECORD_KEYS)
        and isinstance(record["config"], dict)
        and isinstance(record["summary"], dict)
    ):
        raise ValueError(
            f"results file {str(path)!r}, line {number}: not a sweep record (a JSON object with "
            f"{', '.join(RECORD_KEYS)}); fix or remove that line"
        )
    return record


class ResultsAppender:
    """Appends records to a results file, one JSON line each, flushed and synced to disk as it is written.

    ``length`` and ``tail_is_record`` are what :func:`read_results` said of the file: a line cut short
    after ``length`` bytes is dropped first; a whole last record gets its newline.
    """

    def __init__(self, path: Path, length: int, tail_is_record: bool) -> None:
        if path.exists() and path.stat().st_size > length:
            os.truncate(path, length)  # drop a line cut short by a killed writer
        self.file = open(path, "a")
        if tail_is_record:
            self.file.write("\n")

    def append(self, record: dict) -> None:
        self.file.write(json.dumps(record) + "\n")
        self.file.flush()
        os.fsync(self.file.fileno())

    def close(self) -> None:
        self.file.close()
