"""One colour and one label per method and decoder, the same in every figure."""

import matplotlib

matplotlib.use("Agg")

import pytest

from ponderlib.figures import style
from ponderlib.figures.source import show_source, source_markdown
from ponderlib.mechanisms.pointer import DECODERS
from ponderlib.mechanisms.universal_transformer import METHODS as TRANSFORMER_METHODS
from ponderlib.tasks.parity import METHODS as PARITY_METHODS


def test_every_method_and_decoder_has_a_style():
    assert set(PARITY_METHODS) | set(TRANSFORMER_METHODS) | set(DECODERS) <= set(style.STYLES)


def test_each_has_its_own_colour_and_label():
    colours = [style.color(method) for method in style.STYLES]
    labels = [style.label(method) for method in style.STYLES]
    assert len(set(colours)) == len(colours), colours
    assert len(set(labels)) == len(labels), labels
    assert style.PRIOR_COLOR not in colours


def test_an_unknown_method_is_an_error_not_a_fallback_colour():
    with pytest.raises(ValueError, match="method must be one of"):
        style.color("seq2seq+attention")


def test_show_source_reads_the_library_when_it_runs():
    text = source_markdown(style.color)
    assert text.startswith("```python\ndef color(method: str) -> str:") and text.endswith("```")
    assert show_source(style.label).data == source_markdown(style.label)
    with pytest.raises(ValueError, match="obj must be a function, class or method"):
        source_markdown(3)
