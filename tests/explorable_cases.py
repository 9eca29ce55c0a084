"""Inputs the explorables are checked on, in Node (tests/test_explorables.py) and in the browser
(tests/test_book_browser.py): each lesson's inputs and the edge cases of its equations."""

# (h_1..h_M, eps) for ACT: the lesson's inputs, h = 0 and h = 1, the cap reached, eps at its bounds, a
# running sum that lands on 1 - eps exactly, all eight steps.
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

# (lambda_1..lambda_N, lambda_p, truncation, L_1..L_N) for PonderNet (lambda_N is not used: step N takes
# what is left): the lesson's inputs, lambda = 0 and 1, lambda_p near 0 and near 1, both truncations,
# one step.
PONDERNET_CASES = [
    ([0.1, 0.3, 0.5, 0.3, 0.2, 1.0], 0.2, "normalised", [0.9, 0.6, 0.3, 0.2, 0.2, 0.2]),
    ([0.1, 0.3, 0.5, 0.3, 0.2, 1.0], 0.2, "last", [0.9, 0.6, 0.3, 0.2, 0.2, 0.2]),
    ([0.0, 1.0, 0.5, 1.0], 0.5, "normalised", [1.0, 0.0, 2.0, 3.0]),
    ([0.0, 1.0, 0.5, 1.0], 0.5, "last", [1.0, 0.0, 2.0, 3.0]),
    ([1.0, 0.2, 1.0], 0.3, "last", [0.5, 0.5, 0.5]),
    ([0.2] * 8, 0.001, "normalised", [0.1 * n for n in range(8)]),
    ([0.2] * 8, 0.999, "last", [1.0] * 8),
    ([0.05, 0.05, 1.0], 0.999, "normalised", [0.0, 0.0, 0.0]),
    ([1.0], 0.4, "normalised", [0.7]),
]

# (x_1..x_n, u_1..u_n, the positions already chosen, counted from 1) for one decoder step of the
# pointer: the lesson's inputs, nothing masked, one element (open and masked), everything masked, equal
# scores (the first wins), eight positions, scores far beyond the sliders' range.
POINTER_CASES = [
    ([4.0, 1.0, 3.0, 1.0], [0.5, 2.0, 1.0, 1.8], [2]),
    ([4.0, 1.0, 3.0, 1.0], [0.5, 2.0, 1.0, 1.8], []),
    ([7.0], [0.3], []),
    ([7.0], [0.3], [1]),
    ([2.0, 5.0, 1.0], [1.0, 1.0, 1.0], [1, 2, 3]),
    ([2.0, 5.0, 1.0, 3.0], [1.5, 1.5, 0.0, -2.0], []),
    ([0.5, -1.0, 2.0, 8.0, 3.0, 1.0, 0.0, 4.0], [-6.0, 6.0, 0.0, 5.9, -3.0, 2.5, 0.1, 6.0], [2, 8]),
    ([3.0, 3.0, 1.0], [1000.0, 0.0, -1000.0], [1]),
]

# (h^1_i..h^M_i for each of the 5 positions of chapter 4's program, eps, the step n shown): the lesson's
# inputs, a position at h = 0 that reaches the cap, h = 1 everywhere (every position halts at once),
# sums that land on 1 - eps exactly, one step allowed, eight steps, eps near 1.
UT_PROGRAM = ["c = 1", "f = c", "a = not f", "e = 0", "b = e"]
UT_CASES = [
    ([[0.995, 0.5, 0.5, 0.5], [0.1, 0.95, 0.5, 0.5], [0.05, 0.1, 0.9, 0.5], [0.995, 0.5, 0.5, 0.5],
      [0.2, 0.85, 0.5, 0.5]], 0.01, 2),
    ([[0.995, 0.5, 0.5, 0.5], [0.1, 0.95, 0.5, 0.5], [0.0, 0.0, 0.0, 0.0], [0.995, 0.5, 0.5, 0.5],
      [0.2, 0.85, 0.5, 0.5]], 0.01, 4),
    ([[1.0, 1.0, 1.0]] * 5, 0.0, 1),
    ([[0.5, 0.5, 0.2], [0.25, 0.75, 0.0], [0.3, 0.3, 0.3], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], 0.0, 3),
    ([[0.3], [0.0], [1.0], [0.6], [0.995]], 0.01, 1),
    ([[0.1] * 8, [0.2] * 8, [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4], [0.9] * 8, [0.0] * 7 + [1.0]], 0.05, 6),
    ([[0.001, 0.002], [0.0, 0.0], [0.5, 0.5], [0.0005, 0.9], [1.0, 1.0]], 0.999, 2),
]
