"""``python -m ponderlib``: train from a terminal and get one JSON object back::

    python -m ponderlib train parity --method pondernet --n-elems 8 --target-accuracy 0.99 --json
    python -m ponderlib train sort --values int --order asc --min-len 5 --max-len 10 --json

Progress goes to stderr; with ``--json`` the only thing on stdout is the final JSON summary, so
the command doubles as the benchmark the README's figures come from. Bad arguments exit with
status 2 and a one-line message, never a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

from ponderlib.pointer import DECODERS, SortConfig, train_sort
from ponderlib.sorting import ORDERS, VALUE_KINDS
from ponderlib.training import METHODS, ParityConfig, train_parity


class _OneLineErrorParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr (no usage block), exit status 2."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message}\n")


def _add_training_arguments(parser: argparse.ArgumentParser, defaults, target_help: str, lr_help: str) -> None:
    """The options every training task shares: batch, learning rate, stopping rules, seed, device."""
    parser.add_argument("--batch-size", type=int, default=defaults.batch_size)
    parser.add_argument("--lr", type=float, default=defaults.lr, help=lr_help)
    parser.add_argument("--target-accuracy", type=float, default=defaults.target_accuracy, help=target_help)
    parser.add_argument("--max-seconds", type=float, default=defaults.max_seconds)
    parser.add_argument("--max-train-steps", type=int, default=defaults.max_train_steps)
    parser.add_argument("--seed", type=int, default=defaults.seed)
    parser.add_argument("--device", default=defaults.device, help="cpu, cuda, ... (default: auto)")
    parser.add_argument("--threads", type=int, default=defaults.threads,
                        help="torch CPU threads (1 is fastest for these small models on a 2-core CPU)")
    parser.add_argument("--json", action="store_true", help="print only the final JSON summary on stdout")
    parser.add_argument("--quiet", action="store_true", help="no progress bar on stderr")


def _training_fields(args: argparse.Namespace) -> dict:
    """The config fields :func:`_add_training_arguments` options set."""
    return {
        "batch_size": args.batch_size,
        "lr": args.lr,
        "target_accuracy": args.target_accuracy,
        "max_seconds": args.max_seconds,
        "max_train_steps": args.max_train_steps,
        "seed": args.seed,
        "device": args.device,
        "threads": args.threads,
        "progress": not args.quiet,
    }


def _add_parity_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = ParityConfig()
    parser.add_argument("--method", choices=METHODS, default=defaults.method)
    parser.add_argument("--n-elems", type=int, default=defaults.n_elems, help="parity vector length")
    parser.add_argument("--hidden", type=int, default=defaults.hidden, help="GRU cell size (both methods)")
    parser.add_argument("--max-steps", type=int, default=defaults.max_steps, help="cap on ponder steps")
    parser.add_argument("--tau", type=float, default=defaults.tau, help="ACT time penalty, >= 0")
    parser.add_argument("--lambda-p", type=float, default=defaults.lambda_p, help="PonderNet prior, in (0, 1]")
    parser.add_argument("--beta", type=float, default=defaults.beta, help="PonderNet KL weight, >= 0")
    parser.add_argument("--kl-direction", default=defaults.kl_direction, help="'paper' (KL(p||p_G)) or 'reverse'")
    parser.add_argument("--min-nonzero", type=int, default=defaults.min_nonzero)
    parser.add_argument("--max-nonzero", type=int, default=defaults.max_nonzero)
    _add_training_arguments(
        parser,
        defaults,
        target_help="stop at this held-out accuracy",
        lr_help="Adam learning rate (default: 5e-3 for ACT, 1e-2 for PonderNet)",
    )


def _run_parity(args: argparse.Namespace) -> dict:
    config = ParityConfig(
        method=args.method,
        n_elems=args.n_elems,
        hidden=args.hidden,
        max_steps=args.max_steps,
        tau=args.tau,
        lambda_p=args.lambda_p,
        beta=args.beta,
        kl_direction=args.kl_direction,
        min_nonzero=args.min_nonzero,
        max_nonzero=args.max_nonzero,
        **_training_fields(args),
    )
    return train_parity(config).summary()


def _add_sort_arguments(parser: argparse.ArgumentParser) -> None:
    defaults = SortConfig()
    parser.add_argument("--decoder", choices=DECODERS, default=defaults.decoder,
                        help="pointer network, or the seq2seq / seq2seq+attention baseline")
    parser.add_argument("--values", choices=VALUE_KINDS, default=defaults.values, help="int: 0..9; float: U[0, 1)")
    parser.add_argument("--order", choices=ORDERS, default=defaults.order)
    parser.add_argument("--min-len", type=int, default=defaults.min_len)
    parser.add_argument("--max-len", type=int, default=defaults.max_len)
    parser.add_argument("--hidden", type=int, default=defaults.hidden, help="LSTM size")
    parser.add_argument("--attention-dim", type=int, default=defaults.attention_dim)
    parser.add_argument("--unidirectional", action="store_true", help="unidirectional encoder")
    parser.add_argument("--teacher-forcing", type=float, default=defaults.teacher_forcing, help="in [0, 1]")
    _add_training_arguments(
        parser, defaults, target_help="stop at this held-out exact match", lr_help="Adam learning rate"
    )


def _run_sort(args: argparse.Namespace) -> dict:
    config = SortConfig(
        decoder=args.decoder,
        values=args.values,
        order=args.order,
        min_len=args.min_len,
        max_len=args.max_len,
        hidden=args.hidden,
        attention_dim=args.attention_dim,
        bidirectional=not args.unidirectional,
        teacher_forcing=args.teacher_forcing,
        **_training_fields(args),
    )
    return train_sort(config).summary()


def build_parser() -> argparse.ArgumentParser:
    """The ``python -m ponderlib`` argument parser: ``train parity`` and ``train sort``."""
    parser = _OneLineErrorParser(prog="python -m ponderlib", description=__doc__.split("\n\n")[0].rstrip(":"))
    commands = parser.add_subparsers(dest="command", required=True)
    train = commands.add_parser("train", help="train a model and report the result")
    tasks = train.add_subparsers(dest="task", required=True)

    parity = tasks.add_parser("parity", help="ACT or PonderNet on parity")
    _add_parity_arguments(parity)
    parity.set_defaults(run=_run_parity)

    sort = tasks.add_parser("sort", help="pointer network (or a seq2seq baseline) on sorting")
    _add_sort_arguments(sort)
    sort.set_defaults(run=_run_sort)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the process exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        summary = args.run(args)
    except ValueError as exc:
        parser.error(str(exc))
    if args.json:
        print(json.dumps(summary))
    else:
        for key, value in summary.items():
            print(f"{key:>20}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
