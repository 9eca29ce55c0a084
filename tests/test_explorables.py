"""The explorables (ponderlib.figures.explorables): the Python class checks its inputs and computes what
the page shows with the library; the page's arithmetic (halting.js), run here in Node, gives the
library's numbers on the same inputs. tests/test_book_browser.py drives the built page itself."""

from __future__ import annotations

import base64
import json
import math
import os
import shutil
import subprocess

import pytest
import torch
from ipywidgets.embed import dependency_state

from ponderlib.figures.explorables import MAX_EXPLORABLE_STEPS, ACTExplorable, module_source
from ponderlib.mechanisms.halting import act_halting

# (halting units, eps): the lesson's inputs, h = 0 and h = 1, the cap reached, eps at its bounds, a sum
# that lands on 1 - eps exactly, eight steps.
ACT_CASES = [
    ([0.1, 0.3, 0.4, 0.5, 0.2], 0.01),
    ([0.995, 0.5, 0.5, 0.5, 0.5], 0.01),
    ([0.05, 0.05, 0.05, 0.05, 0.05], 0.01),
    ([0.0, 0.0, 1.0, 0.3], 0.01),
    ([1.0, 1.0], 0.0),
    ([0.0], 0.0),
    ([0.3, 0.3, 0.3], 0.0),
    ([0.5, 0.49, 0.2], 0.01),
    ([0.25, 0.25, 0.25, 0.25], 0.0),
    ([0.001, 0.002], 0.999),
    ([0.2, 0.1, 0.15, 0.05, 0.1, 0.1, 0.1, 0.1], 0.05),
]


def _node(script: str) -> object:
    """Run ``script`` (an ES module that may call the explorable's functions) in Node; its JSON output."""
    if shutil.which("node") is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("Node is not installed (CI=true: .ci/run installs it with npm)")
        pytest.skip("Node is not installed")
    module = base64.b64encode((module_source("act.js").replace("export default { render };", "") + script).encode())
    code = f'await import("data:text/javascript;base64,{module.decode()}");'
    result = subprocess.run(["node", "--input-type=module", "-e", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _library(units: list[float], eps: float) -> dict:
    halting_units = torch.tensor([units], dtype=torch.float64, requires_grad=True)
    halted = act_halting(halting_units, eps)
    halted.ponder_cost.sum().backward()
    return {
        "ponderSteps": int(halted.ponder_steps.item()),
        "remainder": halted.remainder.item(),
        "ponderCost": halted.ponder_cost.item(),
        "haltingProbs": halted.halting_probs[0].tolist(),
        "gradient": halting_units.grad[0].tolist(),
    }


def test_the_page_computes_act_as_the_library_does():
    script = f"console.log(JSON.stringify({json.dumps(ACT_CASES)}.map(([h, eps]) => actHalting(h, eps))));"
    for (units, eps), page in zip(ACT_CASES, _node(script)):
        library = _library(units, eps)
        assert page["ponderSteps"] == library["ponderSteps"], (units, eps)
        for name in ("remainder", "ponderCost"):
            assert math.isclose(page[name], library[name], abs_tol=1e-12), (units, eps, name)
        for name in ("haltingProbs", "gradient"):
            assert page[name] == pytest.approx(library[name], abs=1e-12), (units, eps, name)


def test_the_page_names_the_input_it_cannot_take():
    cases = [([], 0.01), ([0.2, 1.5], 0.01), ([-0.1], 0.01), ([0.2, ""], 0.01), ([0.2], 1), ([0.2], "")]
    script = f"""console.log(JSON.stringify({json.dumps(cases)}.map(([h, eps]) => {{
        try {{ actHalting(h, eps); return null; }}
        catch (error) {{ return [error instanceof InputError, error.message]; }}
    }})));"""
    found = _node(script)
    assert all(kind for kind, _ in found)
    assert [message for _, message in found] == [
        "the halting units must hold at least one h_n, got none",
        "h_2 must be a number in [0, 1], got 1.5",
        "h_1 must be a number in [0, 1], got -0.1",
        'h_2 must be a number in [0, 1], got ""',
        "eps must be a number in [0, 1), got 1",
        'eps must be a number in [0, 1), got ""',
    ]


def test_the_explorable_computes_with_the_library():
    explorable = ACTExplorable([0.1, 0.3, 0.4, 0.5, 0.2], eps=0.01)
    halted = explorable.halting()
    assert halted.ponder_steps.tolist() == [4]
    assert halted.halting_probs[0].tolist() == pytest.approx([0.1, 0.3, 0.4, 0.2, 0.0])
    explorable.halting_units, explorable.eps = [0.995, 0.5], 0.01
    assert explorable.halting().ponder_cost.tolist() == [2.0]


def test_the_widget_state_carries_the_arithmetic_and_the_inputs():
    explorable = ACTExplorable([0.3, 0.3, 0.3], eps=0.05)
    state = dependency_state([explorable], drop_defaults=False)[explorable.model_id]
    assert (state["model_module"], state["model_name"]) == ("anywidget", "AnyModel")
    saved = state["state"]
    assert saved["halting_units"] == [0.3, 0.3, 0.3] and saved["eps"] == 0.05
    assert "export function actHalting" in saved["_esm"] and "export default { render }" in saved["_esm"]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (dict(halting_units=[]), r"halting_units must be a list of 1 to 8 numbers in \[0, 1\], got \[\]"),
        (dict(halting_units=[0.1] * (MAX_EXPLORABLE_STEPS + 1)), "halting_units must be a list of 1 to 8"),
        (dict(halting_units="0.5"), "halting_units must be a list"),
        (dict(halting_units=[0.2, 1.2]), r"halting_units\[1\] must be in \[0, 1\], got 1.2"),
        (dict(halting_units=[float("nan")]), r"halting_units\[0\] must be in \[0, 1\], got nan"),
        (dict(eps=1.0), r"eps must be in \[0, 1\), got 1.0"),
        (dict(eps=-0.01), r"eps must be in \[0, 1\), got -0.01"),
    ],
)
def test_bad_input_is_refused_by_name(arguments, message):
    with pytest.raises(ValueError, match=message):
        ACTExplorable(**arguments)


def test_bad_input_set_later_is_refused_by_name():
    explorable = ACTExplorable()
    with pytest.raises(ValueError, match=r"halting_units\[0\] must be in \[0, 1\], got -1"):
        explorable.halting_units = [-1]
    with pytest.raises(ValueError, match=r"eps must be in \[0, 1\), got 2"):
        explorable.eps = 2
    assert explorable.halting_units == [0.1, 0.3, 0.4, 0.5, 0.2] and explorable.eps == 0.01
