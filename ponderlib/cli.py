r"""``python -m ponderlib``: train from a terminal and get one JSON object back::

    python -m ponderlib train parity --method pondernet --n-elems 8 \
        --target-accuracy 0.99 --json
    python -m ponderlib train sorting --values int --order asc \
        --min-len 5 --max-len 10 --test-max-len 20 --json
    python -m ponderlib sweep parity --grid tau=1e-3,1e-2 --set method=act \
        --seeds 0,1,2 --results runs.jsonl
    python -m ponderlib sweep --summary runs.jsonl --json

Every option of ``train TASK`` is a field of the task's config dataclass (``--max-ponder-steps`` is
``max_ponder_steps``), with the field's help text, default and allowed values, so the CLI and the
library cannot drift apart. Write ``none`` for an optional field's None (``--max-updates none``).

``sweep`` trains a task over a grid of those fields times a list of seeds (:mod:`ponderlib.sweep`):
``--grid FIELD=V1,V2`` and ``--set FIELD=VALUE`` read their values as ``train``'s options do, or
``--spec FILE`` / ``--preset NAME`` give the whole sweep. Finished runs are appended to ``--results``
and skipped when the same command runs again; it prints the mean and spread over seeds per grid point.
If runs fail (a worker dies), the others still finish and the command exits with status 1. A field is
given once on the command line (in one ``--grid`` or one ``--set``), and overrides the spec's. Everything
is checked before the first run: every run's config, the seeds (at most
:data:`~ponderlib.core.seeds.SEED_MAX`) and their count (at most :data:`~ponderlib.sweep.spec.MAX_RUNS`
runs), the spec file (at most :data:`~ponderlib.sweep.spec.SPEC_MAX_BYTES`, no YAML alias, no key
twice), the results file (a results file, and no other sweep writing it: it is locked while a sweep
runs), a Ray cluster's address (answering within :data:`~ponderlib.sweep.executors.RAY_CONNECT_SECONDS`).
A file that is not a results file is refused and left as it was.

Progress goes to stderr; with ``--json`` the only thing on stdout is the final JSON summary, so the
command doubles as the benchmark the README's figures come from. ``PONDERLIB_PROGRESS`` (``0``/``1``,
``false``/``true``, ``no``/``yes``, ``off``/``on``) turns the bars off or on where ``--quiet`` is not
given. Bad arguments, and environment variables it does not understand, exit with status 2 and a
one-line message (at most :data:`MESSAGE_MAX` characters), never a traceback; Ctrl-C ends a sweep
with status 130, its finished runs kept (on Ray, once the local cluster it started has started, so
that the cluster is stopped with it).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
import textwrap
import types
import typing
from collections.abc import Sequence
from pathlib import Path

from ponderlib.core.config import progress_enabled
from ponderlib.core.seeds import SEED_MAX
from ponderlib.core.validation import short
from ponderlib.sweep import (
    EXECUTORS,
    PRESETS,
    SweepIncomplete,
    SweepSpec,
    format_summary,
    load_results,
    load_spec,
    summarize,
    sweep,
)
from ponderlib.sweep.evidence import check_preset_records
from ponderlib.sweep.results import check_regular
from ponderlib.sweep.spec import MAX_RUNS
from ponderlib.tasks.registry import TASKS, Task, get_task

MESSAGE_MAX = 600
"""The longest error message the command prints: one line, values cut (an error never prints an
unbounded value)."""


class _OneLineErrorParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr (no usage block), exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {short(' '.join(message.split()), MESSAGE_MAX)}\n")


def _once(action: type[argparse.Action]) -> type[argparse.Action]:
    """``action``, refusing its option given a second time (``--n-elems 4 --n-elems 5``, or ``--flag`` with
    ``--no-flag``) where argparse would let the last one win, as ``sweep`` refuses a field given twice."""

    class Once(action):
        def __call__(self, parser, namespace, values, option_string=None):
            given = namespace.__dict__.setdefault("_options_given", {})
            if self.dest in given:
                parser.error(f"{option_string} is given twice ({given[self.dest]} too): give it once")
            given[self.dest] = option_string
            super().__call__(parser, namespace, values, option_string)

    return Once


STORE_ONCE = _once(argparse._StoreAction)
FLAG_ONCE = _once(argparse.BooleanOptionalAction)


def _field_type(config_class: type, field: dataclasses.Field) -> tuple[type, bool]:
    """The scalar type of a config field and whether it may be None (``int | None``)."""
    hint = typing.get_type_hints(config_class)[field.name]
    if isinstance(hint, types.UnionType) or typing.get_origin(hint) is typing.Union:
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return args[0], True
    return hint, False


def _parse_as(kind: type, optional: bool, name: str):
    """An argparse ``type=`` that reads ``kind`` and, for an optional field, ``none``."""

    def parse(text: str):
        if optional and text.lower() == "none":
            return None
        try:
            return kind(text)
        except ValueError:
            allowed = f"{'an integer' if kind is int else 'a number'}{' or none' if optional else ''}"
            raise argparse.ArgumentTypeError(f"{name} must be {allowed}, got {text!r}") from None

    parse.__name__ = kind.__name__
    return parse


def add_config_arguments(parser: argparse.ArgumentParser, config_class: type, skip: tuple[str, ...] = ("progress",)) -> None:
    """One option per field of ``config_class``: ``--field-name``, typed, with its help and choices."""
    for field in dataclasses.fields(config_class):
        if field.name in skip:
            continue
        flag = "--" + field.name.replace("_", "-")
        kind, optional = _field_type(config_class, field)
        help_text = f"{field.metadata.get('help', '')} (default: {field.default})"
        if kind is bool:
            parser.add_argument(flag, action=FLAG_ONCE, default=field.default, help=help_text)
        elif "choices" in field.metadata:
            parser.add_argument(flag, action=STORE_ONCE, choices=field.metadata["choices"], default=field.default, help=help_text)
        else:
            parser.add_argument(
                flag, action=STORE_ONCE, type=_parse_as(kind, optional, flag), default=field.default, help=help_text
            )


def config_from_arguments(config_class: type, args: argparse.Namespace, **extra):
    """The config whose fields the parsed ``args`` hold (fields the parser skipped take ``extra`` or defaults)."""
    values = {f.name: getattr(args, f.name) for f in dataclasses.fields(config_class) if hasattr(args, f.name)}
    return config_class(**values, **extra)


def _run_training(task: Task, args: argparse.Namespace) -> dict:
    config = config_from_arguments(task.config, args, progress=_progress(args))
    return task.train(config).summary()


def _show_summary(summary: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(summary))
    else:
        for key, value in summary.items():
            print(f"{key:>20}: {value}")


def _parse_true_or_false(name: str):
    """An argparse-style ``type=`` for a bool field: true/false (also yes/no, 1/0)."""

    def parse(text: str) -> bool:
        if text.lower() in ("true", "yes", "1"):
            return True
        if text.lower() in ("false", "no", "0"):
            return False
        raise argparse.ArgumentTypeError(f"{name} must be true or false, got {text!r}")

    return parse


def _field_values(config_class: type, text: str, flag: str) -> tuple[str, list]:
    """``FIELD=V1,V2,...`` as the field's name and its values, each read as the field's type, as
    ``train``'s options read them (``none`` for an optional field's None)."""
    name, equals, values = text.partition("=")
    name = name.strip().replace("-", "_")
    if not equals or not name or not values:
        raise ValueError(f"{flag} takes FIELD=VALUE[,VALUE...], got {text!r}")
    by_name = {field.name: field for field in dataclasses.fields(config_class)}
    if name not in by_name:
        raise ValueError(f"{flag} {text!r}: {name!r} is not a field of {config_class.__name__}; fields: {', '.join(by_name)}")
    kind, optional = _field_type(config_class, by_name[name])
    parse = _parse_true_or_false(f"{flag} {name}") if kind is bool else _parse_as(kind, optional, f"{flag} {name}")
    try:
        return name, [parse(value.strip()) for value in values.split(",")]
    except argparse.ArgumentTypeError as exc:
        raise ValueError(str(exc)) from None


def _parse_seeds(text: str) -> list[int]:
    """``0,1,2`` or ``0-9`` (or both: ``0-4,10``) as a list of seeds, each at most
    :data:`~ponderlib.core.seeds.SEED_MAX`, at most :data:`~ponderlib.sweep.spec.MAX_RUNS` of them
    (counted before any list is built)."""
    parts = []
    for part in text.split(","):
        match = re.fullmatch(r"\s*([0-9]{1,30})\s*(?:-\s*([0-9]{1,30})\s*)?", part)
        if match is None or (match[2] and int(match[2]) < int(match[1])):
            raise ValueError(f"--seeds takes integers >= 0 and ranges, as 0,1,2 or 0-9; got {short(repr(text))}")
        first, last = int(match[1]), int(match[2] or match[1])
        if last > SEED_MAX:
            raise ValueError(f"--seeds: a seed is at most {SEED_MAX} (torch's 64-bit seed range), got {last}")
        parts.append(range(first, last + 1))
    count = sum(map(len, parts))
    if count > MAX_RUNS:
        raise ValueError(f"--seeds {short(text)} gives {count:,} seeds; a sweep runs at most {MAX_RUNS:,} runs")
    return [seed for part in parts for seed in part]


def _summary_of(path: str) -> dict:
    """What ``--summary FILE`` prints: ``FILE`` must be a results file holding at least one record."""
    if not check_regular(Path(path)):
        raise ValueError(f"--summary {short(repr(path))}: no such results file")
    records = load_results(path)
    if not records:
        raise ValueError(f"--summary {short(repr(path))} holds no sweep record")
    return {"results": path, "runs": len(records), "summary": summarize(records)}


def _command_line_fields(config_class: type, args: argparse.Namespace) -> tuple[dict, dict]:
    """``--set`` as fixed fields and ``--grid`` as grid fields; a field given twice on the command line
    (in two ``--grid``, two ``--set``, or both) is an error, not the last one winning."""
    given: dict[str, str] = {}
    fixed, grid = {}, {}
    for flag, texts in (("--set", args.set), ("--grid", args.grid)):
        for text in texts:
            name, values = _field_values(config_class, text, flag)
            if name in given:
                raise ValueError(
                    f"{flag} {name} is given twice ({given[name]} {name} too): give it once"
                    + (f", with all its values in one --grid {name}=V1,V2" if flag == given[name] == "--grid" else "")
                )
            given[name] = flag
            if flag == "--set" and len(values) != 1:
                raise ValueError(f"--set takes one value, got {short(repr(text))}; --grid takes several")
            if flag == "--set":
                fixed[name] = values[0]
            else:
                grid[name] = values
    return fixed, grid


def _run_sweep(args: argparse.Namespace) -> dict:
    if args.summary is not None:
        given = [flag for flag in ("task", "spec", "preset", "grid", "set", "seeds", "results") if getattr(args, flag)]
        if given:
            raise ValueError(f"--summary FILE only prints a results file's summary; drop {given[0]!r}")
        return _summary_of(args.summary)
    sources = [flag for flag, value in (("TASK", args.task), ("--spec", args.spec), ("--preset", args.preset)) if value]
    if len(sources) != 1:
        raise ValueError(f"give one of TASK, --spec FILE, --preset NAME (or --summary FILE); got {' and '.join(sources) or 'none'}")
    if args.results is None:
        raise ValueError("--results FILE is required: finished runs are appended to it")
    if Path(args.results).is_dir() or not Path(args.results).parent.is_dir():  # '' is the current folder
        raise ValueError(f"--results must name a file in an existing folder, got {short(repr(args.results))}")
    spec = load_spec(args.spec) if args.spec else PRESETS[args.preset].spec() if args.preset else SweepSpec(args.task, {}, [])
    set_here, grid_here = _command_line_fields(get_task(spec.task).config, args)
    # The command line overrides the spec or preset: a field it sets leaves the spec's grid, and one it
    # grids leaves the spec's fixed fields.
    fixed = {name: value for name, value in spec.fixed.items() if name not in grid_here} | set_here
    grid = {name: values for name, values in spec.grid.items() if name not in set_here} | grid_here
    seeds = spec.seeds if args.seeds is None else _parse_seeds(args.seeds)
    if args.preset and not (args.set or args.grid or args.seeds) and Path(args.results).is_file():
        # the preset as it stands: its file holds its runs only (read here; sweep() locks it, and checks again)
        check_preset_records(args.preset, load_results(args.results), args.results)
    try:
        report = sweep(
            spec.task, grid, seeds, args.results, fixed=fixed, executor=args.executor, workers=args.workers,
            address=args.address, num_gpus=args.num_gpus, progress=_progress(args),
        )
    except KeyboardInterrupt:
        sys.stderr.write(f"interrupted: the finished runs are in {args.results}; run the same command again to resume\n")
        raise SystemExit(130) from None
    return {
        "results": args.results, "runs": report.runs, "skipped": report.skipped, "finished": report.finished,
        "summary": summarize(report.records),
    }


def _progress(args: argparse.Namespace) -> bool:
    """Whether to show progress bars: not with ``--quiet``, else as ``PONDERLIB_PROGRESS`` says (unset: yes)."""
    return not args.quiet and progress_enabled(None)


def _show_sweep(output: dict, as_json: bool) -> None:
    if as_json:
        print(json.dumps(output))
        return
    counts = f": {output['skipped']} already there, {output['finished']} ran now" if "finished" in output else ""
    print(f"{output['results']}, {output['runs']} runs{counts}\n\n{format_summary(output['summary'])}")


def _presets_help() -> str:
    lines = ["presets (--preset NAME): the chapters' live settings over 20 seeds, and the papers' sweeps at their scale, for a GPU or a Ray cluster (--seeds, --grid, --set override them):"]
    for name, preset in PRESETS.items():
        lines.append(f"  {name}: {preset.runs} runs of {preset.max_updates:,} training updates")
        lines.extend(textwrap.wrap(preset.description, 96, initial_indent="      ", subsequent_indent="      "))
    return "\n".join(lines)


def add_sweep_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``sweep``: what to train (TASK with --grid, --set, --seeds; or --spec; or
    --preset), where the results go, which executor runs it; or --summary of a results file."""
    parser.add_argument("task", nargs="?", metavar="TASK", help=f"one of {', '.join(TASKS)} (or --spec, --preset)")
    parser.add_argument("--grid", action="append", default=[], metavar="FIELD=V1,V2",
                        help="a config field and its values; repeat for more fields: every combination is trained")
    parser.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                        help="a config field every run shares (the config's default otherwise); repeat for more")
    parser.add_argument("--seeds", action=STORE_ONCE, metavar="SEEDS", help="seeds each grid point is trained with: 0,1,2 or 0-9")
    parser.add_argument("--spec", action=STORE_ONCE, metavar="FILE", help="a YAML or JSON spec with task, grid, seeds and, optionally, fixed")
    parser.add_argument("--preset", action=STORE_ONCE, choices=list(PRESETS), metavar="NAME", help="a paper's sweep, listed below")
    parser.add_argument("--results", action=STORE_ONCE, metavar="FILE", help="JSON-lines file finished runs are appended to; runs in it are skipped")
    parser.add_argument("--executor", action=STORE_ONCE, choices=EXECUTORS, default="inprocess",
                        help="inprocess (default), pool (local processes) or ray (pip install 'ponderlib[ray]')")
    parser.add_argument("--workers", action=STORE_ONCE, type=_parse_as(int, False, "--workers"),
                        help="pool: worker processes (default: one per core); ray: CPUs of the local cluster it starts")
    parser.add_argument("--address", action=STORE_ONCE, help="ray: an existing cluster, auto or HOST:PORT (default: start a local one)")
    parser.add_argument("--num-gpus", action=STORE_ONCE, type=_parse_as(float, False, "--num-gpus"),
                        help="ray: share of a GPU per run (default: 0.25 where CUDA is available, else 0)")
    parser.add_argument("--summary", action=STORE_ONCE, metavar="FILE", help="print the mean and spread over seeds in a results file; run nothing")
    parser.add_argument("--json", action="store_true", help="print only one JSON object on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress bar on stderr")


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m ponderlib`` argument parser: ``train TASK`` for every task in
    :data:`~ponderlib.tasks.registry.TASKS`, and ``sweep``."""
    parser = _OneLineErrorParser(prog="python -m ponderlib", description=__doc__.split("\n\n")[0].rstrip(":"))
    commands = parser.add_subparsers(dest="command", required=True)
    train = commands.add_parser("train", help="train a model and report the result")
    tasks = train.add_subparsers(dest="task", required=True)
    for name, task in TASKS.items():
        sub = tasks.add_parser(name, help=task.help, description=task.help)
        add_config_arguments(sub, task.config)
        sub.add_argument("--json", action="store_true", help="print only the final JSON summary on stdout")
        sub.add_argument("--quiet", action="store_true", help="no progress bar on stderr")
        sub.set_defaults(run=lambda args, task=task: _run_training(task, args), show=_show_summary)
    sweep_parser = commands.add_parser(
        "sweep", help="train a task over a grid of settings times seeds, appending each run to a results file",
        description=textwrap.fill(
            "Train TASK at every combination of the --grid values, once per seed. Each finished run is appended "
            "to --results as one JSON line; running the same command again skips the runs already there, so an "
            "interrupted sweep resumes. Prints the mean and spread over seeds per grid point.", 96,
        ),
        epilog=_presets_help(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_sweep_arguments(sweep_parser)
    sweep_parser.set_defaults(run=_run_sweep, show=_show_sweep)
    return parser


ALLOCATION_FAILURES = (
    "can't allocate memory", "out of memory", "not enough memory", "std::bad_alloc", "could not create a primitive",
    "defaultcpuallocator",
)
"""How torch says an allocation failed, lower-cased: its CPU allocator, CUDA, C++'s ``std::bad_alloc`` (a
vector too large for a capped address space) and oneDNN's "could not create a primitive" (a kernel's
workspace that would not fit)."""


def _out_of_memory(exc: BaseException) -> bool:
    """An allocation that failed (CPU or GPU), as torch or Python reports it, and nothing else."""
    if isinstance(exc, MemoryError):
        return True
    text = str(exc).lower()
    return any(sign in text for sign in ALLOCATION_FAILURES)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        progress_enabled(None)  # a PONDERLIB_PROGRESS this does not understand is an error, whatever the command
        output = args.run(args)
    except (ValueError, TypeError) as exc:
        parser.error(str(exc))
    except SweepIncomplete as exc:
        parser.exit(1, f"{parser.prog}: {exc}\n")
    except (MemoryError, RuntimeError) as exc:  # after SweepIncomplete, a RuntimeError too
        if not _out_of_memory(exc):
            raise
        parser.error(
            "out of memory: the run's tensors do not fit this machine (batch_size times the model's width, the "
            "input's length and max_ponder_steps); lower one of them. torch: " + str(exc).split(". Error code")[0]
        )
    args.show(output, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
