"""What the hostile-input tests ask of a refusal: the exact kind of error, and one line that names the problem."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest


def assert_refused(call: Callable[[], object], kind: type[BaseException], message: str) -> None:
    """``call()`` raises ``kind`` itself (not a subclass: a ``ValueError`` where a ``TypeError`` is due is a
    wrong answer), with a message of one line in which the regular expression ``message`` is found."""
    with pytest.raises(Exception) as caught:
        call()
    assert type(caught.value) is kind, f"{type(caught.value).__name__}: {caught.value}"
    text = str(caught.value)
    assert "\n" not in text and re.search(message, text), text
