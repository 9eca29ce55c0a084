"""What a chapter shows in words, built from results: tables, sentences and captions.

A chapter's page shows prose, math, figures and the short code that teaches; the code that turns a
result into a Markdown table or a sentence lives here, one module per chapter
(:mod:`~ponderlib.presentation.act`, :mod:`~ponderlib.presentation.pondernet`,
:mod:`~ponderlib.presentation.pointer`, :mod:`~ponderlib.presentation.transformer`), on the shared helpers of
:mod:`~ponderlib.presentation.tables`.
A chapter calls one function in a cell tagged ``remove-input`` and the reader sees the table.
"""
