"""Library source shown in a chapter, so a reader studies the code that ran.

:func:`show_source` displays an object's source as a highlighted Python block. A chapter's cell that
calls it carries the tag ``nbval-ignore-output``: the source is read from the library when the cell
runs (in Jupyter, Colab, Binder, and when ``make book`` executes the chapters), and ``pytest --nbval``
does not compare it with the committed output, so editing a docstring or a comment in the library
never requires re-executing a chapter.
"""

from __future__ import annotations

import inspect
import textwrap

from IPython.display import Markdown


def source_markdown(obj: object) -> str:
    """The source of a function, class or method ``obj`` as a fenced Python block (Markdown)."""
    try:
        source = inspect.getsource(obj)
    except (TypeError, OSError) as exc:
        raise ValueError(f"obj must be a function, class or method defined in a source file, got {obj!r}") from exc
    return f"```python\n{textwrap.dedent(source).rstrip()}\n```"


def show_source(obj: object) -> Markdown:
    """Display the source of ``obj`` (a function, class or method of ``ponderlib``) in a notebook."""
    return Markdown(source_markdown(obj))
