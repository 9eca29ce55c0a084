"""The explorables (ponderlib.figures.explorables): the Python class checks its inputs and computes what
the page shows with the library; the page's arithmetic (act_halting.js, pondernet_halting.js), run here in Node, gives the
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

from ponderlib.figures.explorables import MAX_EXPLORABLE_STEPS, ACTExplorable, PonderNetExplorable, module_source
from ponderlib.mechanisms.halting import act_halting
from tests.explorable_cases import ACT_CASES


def _node(script: str, view: str = "act.js") -> object:
    """Run ``script`` (an ES module that may call the functions of ``view``'s module) in Node; its JSON output."""
    if shutil.which("node") is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("Node is not installed (CI=true: .ci/run installs it with npm)")
        pytest.skip("Node is not installed")
    module = base64.b64encode((module_source(view).replace("export default { render };", "") + script).encode())
    code = f'await import("data:text/javascript;base64,{module.decode()}");'
    result = subprocess.run(["node", "--input-type=module", "-e", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def _input_errors(function: str, cases: list, view: str = "act.js") -> list:
    """Call the page's ``function`` on each case's arguments in Node: for each, ``[is an InputError,
    its message]``, or None where the call did not raise."""
    script = f"""console.log(JSON.stringify({json.dumps(cases)}.map((args) => {{
        try {{ {function}(...args); return null; }}
        catch (error) {{ return [error instanceof InputError, error.message]; }}
    }})));"""
    return _node(script, view)


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
    found = _input_errors("actHalting", cases)
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


# (lambdas, lambda_p, truncation, step losses): the defaults, lambda = 0 and 1, lambda_p near 0 and 1, one step.
PONDERNET_CASES = [
    ([0.1, 0.3, 0.5, 0.3, 0.2, 1.0], 0.2, "normalised", [0.9, 0.6, 0.3, 0.2, 0.2, 0.2]),
    ([0.1, 0.3, 0.5, 0.3, 0.2, 1.0], 0.2, "last", [0.9, 0.6, 0.3, 0.2, 0.2, 0.2]),
    ([0.0, 1.0, 0.5, 1.0], 0.5, "normalised", [1.0, 0.0, 2.0, 3.0]),
    ([1.0, 0.2, 1.0], 0.3, "last", [0.5, 0.5, 0.5]),
    ([0.2] * 8, 0.001, "normalised", [0.1 * n for n in range(8)]),
    ([0.2] * 8, 0.999, "last", [1.0] * 8),
    ([0.05, 0.05, 1.0], 0.999, "normalised", [0.0, 0.0, 0.0]),
    ([1.0], 0.4, "normalised", [0.7]),
]


def test_the_page_computes_pondernet_as_the_library_does():
    script = f"""console.log(JSON.stringify({json.dumps(PONDERNET_CASES)}.map(
        ([lambdas, lambdaP, truncation, losses]) => pondernetQuantities(lambdas, lambdaP, truncation, losses))));"""
    names = {"probs": "p", "prior": "prior", "expectedSteps": "expected_steps", "priorExpectedSteps": "prior_expected_steps",
             "reconstruction": "reconstruction", "paper": "kl_paper", "reverse": "kl_reverse", "entropy": "entropy",
             "stepPrice": "step_price", "rest": "rest", "priorEntropy": "prior_entropy", "crossEntropy": "cross_entropy"}
    for case, page in zip(PONDERNET_CASES, _node(script, "pondernet.js")):
        library = PonderNetExplorable(*case).quantities()
        for ours, theirs in names.items():
            # the library's prior is float32 (geometric_prior), the page's float64
            assert page[ours] == pytest.approx(library[theirs], abs=1e-6), (case, ours)
        lambda_p, truncation = case[1], case[2]
        if truncation == "normalised":  # the rest of (kl-decomposed) is a constant (to the prior's float32)
            q, steps = 1 - lambda_p, len(case[0])
            assert page["rest"] == pytest.approx(-math.log(lambda_p) + math.log(1 - q**steps), abs=1e-6)


def test_the_page_names_the_pondernet_input_it_cannot_take():
    cases = [([0.2, 1.0], 0.0, "last", [1, 1]), ([0.2, 1.0], 1, "last", [1, 1]), ([1.3, 1.0], 0.2, "last", [1, 1]),
             ([0.2, 1.0], 0.2, "both", [1, 1]), ([0.2, 1.0], 0.2, "last", [1, -1]), ([0.2, 1.0], 0.2, "last", [1]),
             ([], 0.2, "last", [])]
    found = _input_errors("pondernetQuantities", cases, "pondernet.js")
    assert all(kind for kind, _ in found)
    assert [message for _, message in found] == [
        "lambda_p must be a number in (0, 1), got 0",
        "lambda_p must be a number in (0, 1), got 1",
        "lambda_1 must be a number in [0, 1], got 1.3",
        'the truncation must be one of normalised, last, got "both"',
        "L_2 must be a finite number >= 0, got -1",
        "there must be one L_n per step: 2, got 1",
        "the lambdas must hold at least one value, got none",
    ]


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (dict(lambdas=[], step_losses=[]), r"lambdas must be a list of 1 to 8 numbers in \[0, 1\], got \[\]"),
        (dict(lambdas=[0.2, 1.5], step_losses=[1, 1]), r"lambdas\[1\] must be in \[0, 1\], got 1.5"),
        (dict(lambda_p=1.0), r"lambda_p must be in \(0, 1\), got 1.0"),
        (dict(lambda_p=0.0), r"lambda_p must be in \(0, 1\), got 0.0"),
        (dict(truncation="tail"), "truncation must be one of 'normalised', 'last'; got 'tail'"),
        (dict(step_losses=[1.0]), r"step_losses must be a list of 6 finite numbers >= 0 \(one per step\)"),
        (dict(step_losses=[1.0, 1.0, 1.0, 1.0, 1.0, float("inf")]), r"step_losses\[5\] must be a finite number >= 0"),
    ],
)
def test_bad_pondernet_input_is_refused_by_name(arguments, message):
    with pytest.raises(ValueError, match=message):
        PonderNetExplorable(**arguments)


def test_the_pondernet_widget_state_carries_the_arithmetic_and_the_inputs():
    explorable = PonderNetExplorable([0.5, 1.0], lambda_p=0.3, truncation="last", step_losses=[1.0, 0.0])
    saved = dependency_state([explorable], drop_defaults=False)[explorable.model_id]["state"]
    assert (saved["lambdas"], saved["lambda_p"], saved["truncation"], saved["step_losses"]) == (
        [0.5, 1.0], 0.3, "last", [1.0, 0.0])
    assert "export function pondernetQuantities" in saved["_esm"] and "data-explorable" in saved["_esm"]
    assert explorable.quantities()["reconstruction"] == pytest.approx(0.5)
