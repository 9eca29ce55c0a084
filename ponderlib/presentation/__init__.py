"""The tables a chapter shows, built from results as Markdown: one module per chapter on the shared helpers
of :mod:`~ponderlib.presentation.tables`. A chapter calls one function in a cell tagged ``remove-input``;
its sentences are the chapter's own Markdown.
"""
