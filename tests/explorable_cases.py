"""Inputs the ACT explorable is checked on, in Node (tests/test_explorables.py) and in the browser
(tests/test_book_browser.py): the lesson's inputs, h = 0 and h = 1, the cap reached, eps at its
bounds, a running sum that lands on 1 - eps exactly, all eight steps."""

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
