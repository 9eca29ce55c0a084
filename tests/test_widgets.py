"""figure_switcher: on ipywidgets 8, one image per figure and a control jslinked to the stack; on
ipywidgets 7 (Colab's, no Stack), one image whose PNG follows the control; figures closed.

The ipywidgets 7 path runs here with Stack removed, and for real on ipywidgets 7.7.1 in
tests/test_colab_start.py."""

import ipywidgets
import matplotlib.pyplot as plt
import pytest
from ipywidgets.embed import embed_data

from ponderlib.figures.widgets import figure_switcher


def _figures(labels):
    figures = {}
    for value, label in enumerate(labels):
        figure, axes = plt.subplots(figsize=(2, 1.5))
        axes.plot([0, 1], [0, value])
        axes.set_title(f"tau = {label}")
        figures[label] = figure
    return figures


def _embedded_links(switcher):
    """The jslinks in the widget state that a built HTML page embeds for ``switcher``."""
    state = embed_data(views=[switcher])["manager_state"]["state"]
    return [model["state"] for model in state.values() if model["model_name"] == "LinkModel"]


@pytest.mark.parametrize(
    ("control", "chooser_type"),
    [("slider", ipywidgets.SelectionSlider), ("dropdown", ipywidgets.Dropdown)],
)
def test_switcher_holds_one_png_per_figure_linked_client_side(control, chooser_type):
    labels = ["0.001", "0.01", "0.1"]
    switcher = figure_switcher(_figures(labels), "tau", control=control)

    chooser, stack = switcher.children
    assert isinstance(chooser, chooser_type)
    assert chooser.description == "tau"
    assert list(chooser.options) == labels
    assert chooser.index == 0
    assert isinstance(stack, ipywidgets.Stack)
    assert stack.selected_index == 0
    assert len(stack.children) == len(labels)
    pngs = [bytes(image.value) for image in stack.children]
    assert all(isinstance(image, ipywidgets.Image) and image.format == "png" for image in stack.children)
    assert all(png.startswith(b"\x89PNG\r\n\x1a\n") for png in pngs)
    assert len(set(pngs)) == len(labels), "each figure must render to its own image"

    (link,) = [link for link in _embedded_links(switcher) if link["source"][0] == f"IPY_MODEL_{chooser.model_id}"]
    assert link["source"][1] == "index"
    assert link["target"] == [f"IPY_MODEL_{stack.model_id}", "selected_index"]


@pytest.mark.parametrize(
    ("control", "chooser_type"),
    [("slider", ipywidgets.SelectionSlider), ("dropdown", ipywidgets.Dropdown)],
)
def test_switcher_without_stack_swaps_the_png_of_one_image(monkeypatch, control, chooser_type):
    monkeypatch.delattr(ipywidgets, "Stack")  # as in ipywidgets 7
    labels = ["0.001", "0.01", "0.1"]
    switcher = figure_switcher(_figures(labels), "tau", control=control)

    assert isinstance(switcher, ipywidgets.VBox)
    chooser, image = switcher.children
    assert isinstance(chooser, chooser_type)
    assert chooser.description == "tau"
    assert list(chooser.options) == labels
    assert chooser.index == 0
    assert isinstance(image, ipywidgets.Image) and image.format == "png"
    shown = [bytes(image.value)]
    for index in [1, 2, 0]:
        chooser.index = index
        shown.append(bytes(image.value))
    assert all(png.startswith(b"\x89PNG\r\n\x1a\n") for png in shown)
    assert len(set(shown[:3])) == len(labels), "each position of the control must show its own figure"
    assert shown[3] == shown[0], "back at the first position, the first figure again"
    mine = {f"IPY_MODEL_{chooser.model_id}", f"IPY_MODEL_{image.model_id}"}
    assert not [link for link in _embedded_links(switcher) if {link["source"][0], link["target"][0]} & mine], (
        "no jslink: the kernel swaps the image"
    )


def test_switcher_closes_the_figures_so_they_are_not_shown_twice():
    plt.close("all")
    figures = _figures(["a", "b"])
    assert len(plt.get_fignums()) == 2
    figure_switcher(figures, "example", control="dropdown")
    assert plt.get_fignums() == []


def test_switcher_rejects_empty_figures():
    with pytest.raises(ValueError, match="figures"):
        figure_switcher({}, "tau")


def test_switcher_rejects_unknown_control():
    figures = _figures(["a"])
    with pytest.raises(ValueError, match="control.*'knob'"):
        figure_switcher(figures, "tau", control="knob")
    plt.close("all")
