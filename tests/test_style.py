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


def test_an_unknown_style_key_is_an_error_not_a_fallback_colour():
    """The error names the parameter, ``key``: a key of STYLES is a method, a decoder or a variant."""
    for draw in (style.color, style.label, lambda key: style.seed_colors(key, 2)):
        with pytest.raises(ValueError, match=r"^key must be one of 'act', 'act-deep-start', .*; got 'seq2seq\+attention'$"):
            draw("seq2seq+attention")
    assert style.color(key="pointer") == style.STYLES["pointer"].color and style.label(key="act-deep-start") == "ACT, deep start"


def test_show_source_reads_the_library_when_it_runs():
    text = source_markdown(style.color)
    assert text.startswith("```python\ndef color(key: str) -> str:") and text.endswith("```")
    assert show_source(style.label).data == source_markdown(style.label)
    with pytest.raises(ValueError, match="obj must be a function, class or method"):
        source_markdown(3)
