"""The book's one colour and one label for every method and decoder, the same in every chapter and figure.

A figure takes the method it draws explicitly (``"act"``, ``"pondernet"``, ``"fixed"``, or a decoder of
:data:`ponderlib.mechanisms.pointer.DECODERS`) and asks :func:`color` and :func:`label`; nothing parses a
colour out of a display label.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Style:
    """How a method is drawn: its colour and its label in legends and tables."""

    color: str
    label: str


STYLES: dict[str, Style] = {
    "act": Style("#1f77b4", "ACT"),
    "pondernet": Style("#d62728", "PonderNet"),
    "fixed": Style("#8c564b", "fixed depth"),
    "pointer": Style("#2ca02c", "pointer network"),
    "seq2seq": Style("#7f7f7f", "seq2seq"),
    "bahdanau": Style("#9467bd", "seq2seq+attention (Bahdanau)"),
    "luong": Style("#e377c2", "seq2seq+attention (Luong-style)"),
}
"""Every method (ACT, PonderNet, the Universal Transformer's fixed depth) and every decoder (the pointer
network and the three seq2seq baselines), each with a colour of its own."""

PRIOR_COLOR = "#555555"
"""The geometric prior ``p_G``, drawn beside PonderNet's learned distribution."""


def _style(method: str) -> Style:
    if method not in STYLES:
        raise ValueError(f"method must be one of {', '.join(map(repr, STYLES))}; got {method!r}")
    return STYLES[method]


def color(method: str) -> str:
    """The book's colour for ``method`` (a key of :data:`STYLES`)."""
    return _style(method).color


def label(method: str) -> str:
    """The book's name for ``method`` in legends and tables (a key of :data:`STYLES`)."""
    return _style(method).label
