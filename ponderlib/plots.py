"""Plots shared by the chapters: one colour per method across the whole book.

Every figure function takes measured data (tensors or lists), returns a ``matplotlib`` ``Figure``
with labelled axes (units where there are units) and a title that says what it shows.
"""

from __future__ import annotations

METHOD_COLORS = {
    "act": "#1f77b4",
    "pondernet": "#d62728",
    "pointer": "#2ca02c",
    "seq2seq": "#7f7f7f",
    "seq2seq+attention": "#9467bd",
    "prior": "#555555",
}
"""The book's colour for each method (and for the geometric prior), the same in every chapter."""
