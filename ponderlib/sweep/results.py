"""The results file of a sweep: one JSON line per finished run, appended as each run ends, read back
to resume.

The file holds one JSON object per line, one per finished run::

    {"task": "parity", "point": {"tau": 0.001}, "seed": 0,
     "config": {...}, "summary": {...}, "source": {...}}

where ``config`` is the run's whole config as the sweep built it
(:meth:`~ponderlib.core.config.TrainConfig.to_dict`, seed included), ``summary`` the task result's
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
holds an exclusive lock on the file itself (``flock``; no lock file beside it), and a second sweep on
the same file is refused. A sweep that creates the file and finishes no run removes it again (one
killed outright, by ``SIGKILL``, before its first run ended may leave it empty: an empty results file).
A path that is not a regular file (a folder, a pipe, a device) or is a link to a missing file is
refused before it is opened.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ponderlib.core.records import RunSummary
from ponderlib.core.seeds import SEED_MAX
from ponderlib.core.validation import ensure_path, short

try:
    import fcntl
except ImportError:  # not POSIX: no lock (one sweep per results file is then up to the user)
    fcntl = None

RECORD_KEYS = ("task", "point", "seed", "config", "summary")
"""The keys of every record in a results file."""

RECORD_TYPES = {"task": str, "point": dict, "seed": int, "config": dict, "summary": dict}
"""The JSON type of each of :data:`RECORD_KEYS` (the seed an integer, not a bool)."""

RECORD_START = b'{"task": '
"""How every record's line begins (a record is written as ``json.dumps`` of a dict whose first key is
``task``). A last line that does not parse as JSON is a record cut short by a killed writer, and
dropped when the next record is written, only if it begins so (or is a beginning of it)."""


OPEN_FLAGS = getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
"""Added to every open of a results or spec file: a pipe swapped in after the ``stat`` check does not
block the open (POSIX; 0 where the system lacks them)."""

OPEN_ATTEMPTS = 5
"""How often :meth:`ResultsAppender.open` opens the path afresh when the file it locked was removed
meanwhile (by a sweep that created it, finished nothing and removed it)."""


def run_key(task: str, config: Mapping[str, Any]) -> str:
    """A run's identity: its task name and its whole config dict (seed included), as canonical JSON."""
    return json.dumps({"task": task, "config": dict(config)}, sort_keys=True)


def load_results(path: str | os.PathLike) -> list[dict]:
    """The records of a results file, in the order they were written (``[]`` if there is no file).

    A last line cut short (its writer was killed mid-line) is left out; any other line that is not a
    record raises ``ValueError`` naming the file and the line, as does a path that is not a regular
    file or a link to a missing file; ``TypeError`` naming ``path`` unless it is a path.
    """
    ensure_path("path", path)
    path = Path(path)
    if not check_regular(path):
        return []
    try:
        fd = os.open(path, os.O_RDONLY | OPEN_FLAGS)
    except OSError as exc:
        raise ValueError(f"results file {str(path)!r} cannot be read: {exc.strerror}") from None
    try:
        _check_open_regular(path, fd)
        return parse_results(path, _read_all(fd))[0]
    finally:
        os.close(fd)


def check_regular(path: Path, what: str = "results file") -> bool:
    """Whether ``path`` exists, without opening it (so a pipe cannot block the call).

    Raises ``ValueError`` naming ``what`` when it exists but is not a regular file (a folder, a pipe, a
    device), is a link to a missing file, or cannot be looked at."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise ValueError(f"{what} {str(path)!r} is a link to a missing file: give a file, or remove the link") from None
        return False
    except OSError as exc:
        raise ValueError(f"{what} {str(path)!r} cannot be read: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(f"{what} {str(path)!r} is not a regular file (a folder, a pipe or a device): give a file")
    return True


def _check_open_regular(path: Path, fd: int) -> None:
    """What :func:`check_regular` checked, again on the opened file (the path may have changed since)."""
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        raise ValueError(f"results file {str(path)!r} is not a regular file (a folder, a pipe or a device): give a file")


def _read_all(fd: int) -> bytes:
    """The whole file open at ``fd``, from its start."""
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def parse_results(path: Path, data: bytes) -> tuple[list[dict], int, bool]:
    """What a sweep needs to resume from the bytes ``data`` of the results file ``path``: the records;
    the length in bytes of the file up to its last newline, or of the whole file when its last line is
    a whole record; whether that last line is a whole record (written, but its newline was not).

    Raises ``ValueError`` naming ``path`` and the line when a line is not a record: any line but the
    last, or a last line that is valid JSON but not a record, or that does not begin as every record
    does (:data:`RECORD_START`): only a record cut short by a killed writer is let through, to be
    dropped."""
    *lines, tail = data.split(b"\n")
    records = [_parse_record(path, number, line) for number, line in enumerate(lines, start=1) if line.strip()]
    if not tail.strip():
        return _one_sweep(path, records), len(data), False
    try:
        json.loads(tail)
    except (ValueError, RecursionError):
        if tail.startswith(RECORD_START) or RECORD_START.startswith(tail):
            return _one_sweep(path, records), len(data) - len(tail), False  # a record cut short
    records.append(_parse_record(path, len(lines) + 1, tail))
    return _one_sweep(path, records), len(data), True


def _one_sweep(path: Path, records: list[dict]) -> list[dict]:
    """``records``, unless they are not one sweep's: ``ValueError`` naming ``path`` for records of two
    tasks, or a run recorded twice (a sweep skips the runs its file holds, so it never writes one twice);
    the summary's mean would otherwise mix tasks or count a seed twice, and a sweep append to it."""
    tasks = list(dict.fromkeys(record["task"] for record in records))
    if len(tasks) > 1:
        raise ValueError(
            f"results file {str(path)!r} holds runs of the tasks {short(repr(tasks))}: a results file holds one "
            "sweep's runs, of one task; give another results file"
        )
    seen: set[str] = set()
    for number, record in enumerate(records, start=1):
        key = run_key(record["task"], record["config"])
        if key in seen:
            raise ValueError(
                f"results file {str(path)!r}, record {number}: the run of seed {record['seed']} at "
                f"{short(repr(record['point']))} is there twice; remove one, or give another results file"
            )
        seen.add(key)
    return records


def check_record(record: object, where: str) -> None:
    """``TypeError`` naming ``where`` unless ``record`` is a sweep record: a mapping with ``task`` (a str),
    ``point`` (a mapping whose every field is the config's, at the config's value), ``seed`` (an integer in
    ``[0, SEED_MAX]``, the config's own), ``config`` and ``summary`` (mappings)."""
    if not (
        isinstance(record, dict)
        and all(
            isinstance(record.get(key), kind) and not isinstance(record.get(key), bool) for key, kind in RECORD_TYPES.items()
        )
        and 0 <= record["seed"] <= SEED_MAX
        and record["config"].get("seed", record["seed"]) == record["seed"]
    ):
        raise TypeError(
            f"{where}: not a sweep record (a JSON object with task, a string; point, a mapping; seed, an integer "
            f"in [0, {SEED_MAX}], the config's; config and summary, mappings)"
        )
    config = record["config"]
    wrong = [name for name, value in record["point"].items() if name not in config or config[name] != value]
    if wrong:  # a sweep writes a run's grid point from its config: another point would count it elsewhere
        raise TypeError(
            f"{where}: not a sweep record: its point {short(repr(record['point']))} is not its config's "
            f"({', '.join(f'{name} = {short(repr(config.get(name)))}' for name in wrong)})"
        )


def _parse_record(path: Path, number: int, line: bytes) -> dict:
    try:
        record = json.loads(line)
    except (ValueError, RecursionError):
        record = None
    try:
        check_record(record, f"results file {str(path)!r}, line {number}")
    except TypeError as exc:
        raise ValueError(f"{exc}; fix or remove that line, or give another results file") from None
    record["summary"] = RunSummary.from_json(record["summary"])  # read back, one type with a live run's
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
            ValueError: another sweep holds the file; it is not a results file (:func:`parse_results`);
                or it cannot be opened for writing (read-only, in a folder this user may not write to).
        """
        for _ in range(OPEN_ATTEMPTS):
            self._fd, self._created = self._open_file()
            try:
                self._lock()
                if self._still_at_path():
                    self.records, self._length, self._tail_is_record = parse_results(self.path, _read_all(self._fd))
                    return self
                self._created = False  # removed by the sweep that held it: open the path afresh
                self.close()
            except BaseException:
                self.close()
                raise
        raise ValueError(f"results file {str(self.path)!r} keeps being replaced while this sweep opens it")

    def _open_file(self) -> tuple[int, bool]:
        """The file opened for appending, and whether this call created it."""
        flags = os.O_RDWR | os.O_APPEND | OPEN_FLAGS
        try:
            if not check_regular(self.path):
                try:
                    return os.open(self.path, flags | os.O_CREAT | os.O_EXCL, 0o644), True
                except FileExistsError:
                    pass  # created meanwhile (by another sweep): open it as it is
            fd = os.open(self.path, flags)
        except OSError as exc:
            raise ValueError(f"results file {str(self.path)!r} cannot be opened for writing: {exc.strerror}") from None
        try:
            _check_open_regular(self.path, fd)
        except ValueError:
            os.close(fd)
            raise
        return fd, False

    def _lock(self) -> None:
        if fcntl is None:
            return
        try:
            fcntl.flock(self._fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._created = False  # the other sweep's file now
            raise ValueError(
                f"results file {str(self.path)!r} is being written by another sweep: wait for it to end, "
                "or give another results file"
            ) from None

    def _still_at_path(self) -> bool:
        """Whether the locked file is still the one at the path (not removed or replaced meanwhile)."""
        try:
            here = os.stat(self.path)
        except OSError:
            return False
        mine = os.fstat(self._fd)
        return (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino)

    def append(self, record: dict) -> None:
        """Write ``record`` as one line, synced to disk (the first call first drops a line cut short)."""
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
        if self._created and not self._written and os.fstat(self._fd).st_size == 0 and self._still_at_path():
            self.path.unlink(missing_ok=True)
        os.close(self._fd)  # closing releases the lock
        self._fd = None
