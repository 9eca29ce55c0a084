"""The results file of a sweep: one JSON line per finished run, appended as each run ends, read back
to resume.

The file holds one JSON object per line, one per finished run::

    {"task": "parity", "point": {"tau": 0.001}, "seed": 0,
     "config": {...}, "summary": {...}, "source": {...}}

where ``config`` is the run's whole config as the sweep built it
(:meth:`~ponderlib.core.engine.TrainConfig.to_dict`, seed included), ``summary`` the task result's
whole :meth:`~ponderlib.core.engine.TrainResult.summary` (metrics, training updates, seconds, and where
it ran: device, CPU model or GPU name, CPU instruction set, threads, torch and library versions), and
``source`` the git commit the sweep's library was loaded from and whether its files differed from it
(:func:`~ponderlib.core.provenance.source_revision`; files written before it was recorded lack it). A line is appended, flushed and synced to disk as each run ends
(:class:`ResultsAppender`). A run's identity is its **key**: the task and its config (:func:`run_key`).
Running the same sweep again skips every run whose key is already in the file, so an interrupted sweep
(Ctrl-C, a lost worker, a killed machine) loses only the runs that were in flight. A last line cut
short by a killed writer (the beginning of a JSON object) is dropped, but only when the next record is
written: a call that finishes no run leaves the file byte for byte as it was, and a file that is not a
results file is refused, never repaired. One sweep writes to a results file at a time: the appender
holds an exclusive lock on it (``flock``), and a second sweep on the same file is refused.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

try:
    import fcntl
except ImportError:  # not POSIX: no lock (one sweep per results file is then up to the user)
    fcntl = None

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
    not).

    Raises ``ValueError`` when ``path`` is not a regular file, or holds a line that is not a record:
    any line but the last, or a last line that is not the beginning of a JSON object (a record cut short
    by a killed writer is ``{...`` up to where it stopped)."""
    if not path.exists():
        return [], 0, False
    _check_regular(path)
    data = path.read_bytes()
    *lines, tail = data.split(b"\n")
    records = [_parse_record(path, number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    if not tail.strip():
        return records, len(data), False
    try:
        records.append(_parse_record(path, len(lines) + 1, tail))
    except ValueError:
        if not tail.lstrip().startswith(b"{"):
            raise
        return records, len(data) - len(tail), False
    return records, len(data), True


def _check_regular(path: Path) -> None:
    if not stat.S_ISREG(path.stat().st_mode):
        raise ValueError(f"results file {str(path)!r} is not a regular file (a folder, a pipe or a device): give a file")


def _parse_record(path: Path, number: int, line: bytes) -> dict:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        record = None
    if not (
        isinstance(record, dict)
        and all(key in record for key in RECORD_KEYS)
        and isinstance(record["config"], dict)
        and isinstance(record["summary"], dict)
    ):
        raise ValueError(
            f"results file {str(path)!r}, line {number}: not a sweep record (a JSON object with "
            f"{', '.join(RECORD_KEYS)}); fix or remove that line, or give another results file"
        )
    return record


class ResultsAppender:
    """The results file of one sweep, locked while the sweep runs: :meth:`open` it, read what it holds
    (:attr:`records`), :meth:`append` records, :meth:`close` it.

    Nothing is written before the first :meth:`append`: only then is a line cut short dropped, or a whole
    last record given its newline. A file the sweep created and never wrote to is removed on close.
    Each record is flushed and synced to disk as it is written.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.records: list[dict] = []
        self._length = 0
        self._tail_is_record = False
        self._written = False
        self._created = False
        self._fd: int | None = None

    def open(self) -> ResultsAppender:
        """Lock the file (creating it if missing) and read it.

        Raises:
            ValueError: another sweep holds the file, or it is not a results file (:func:`read_results`).
        """
        if self.path.exists():
            _check_regular(self.path)
        self._created = not self.path.exists()
        try:
            self._fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644)
        except OSError as exc:
            raise ValueError(f"results file {str(self.path)!r} cannot be opened for writing: {exc.strerror}") from None
        try:
            if fcntl is not None:
                try:
                    fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    self._created = False  # the other sweep's file
                    raise ValueError(
                        f"results file {str(self.path)!r} is being written by another sweep: wait for it to end, "
                        "or give another results file"
                    ) from None
            self.records, self._length, self._tail_is_record = read_results(self.path)
        except BaseException:
            self.close()
            raise
        return self

    def append(self, record: dict) -> None:
        if self._fd is None:
            raise ValueError("the results file is not open: call open() first")
        if not self._written:
            if os.fstat(self._fd).st_size > self._length:
                os.ftruncate(self._fd, self._length)  # drop a line cut short by a killed writer
            if self._tail_is_record:
                self._write(b"\n")
            self._written = True
        self._write((json.dumps(record) + "\n").encode())
        os.fsync(self._fd)

    def _write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[os.write(self._fd, view):]

    def close(self) -> None:
        """Unlock and close; remove the file if this sweep created it and wrote nothing."""
        if self._fd is None:
            return
        if self._created and not self._written:
            self.path.unlink(missing_ok=True)
        os.close(self._fd)  # closing releases the lock
        self._fd = None
