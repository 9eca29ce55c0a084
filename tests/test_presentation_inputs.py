"""The chapters' table builders (ponderlib.presentation) on input a caller can get wrong: nothing, NaN, a
row count or key that is not there. Each is refused with a ValueError naming the argument, never a
table of nothing, a printed ``nan``, a KeyError or a StopIteration."""

import pytest

from ponderlib.presentation import pointer, pondernet, tables, transformer

NAN = float("nan")
HULLS = {"accuracy": {5: [1.0]}, "area_coverage": {5: [1.0]}, "invalid": {5: [0.0]}}


def test_the_shared_number_formats_by_hand():
    assert tables.mean_range([1, 2, 6]) == "3.00 (1.00 to 6.00)"
    assert tables.mean_range([0.9, 1.0], 3) == "0.950 (0.900 to 1.000)"
    assert tables.range_mean([0.5, 0.25, 1.0]) == "0.25 to 1.00 (mean 0.58)"
    assert tables.mean_sd([1.0, 3.0], 1) == "2.0 ± 1.4"  # sd = sqrt(((1-2)^2 + (3-2)^2) / 1)
    assert tables.mean_sd([2.0]) == "2.00"


@pytest.mark.parametrize("format_", [tables.mean_range, tables.range_mean, tables.mean_sd])
def test_the_shared_number_formats_refuse_nothing_and_nan(format_):
    with pytest.raises(ValueError, match="values must hold at least one number"):
        format_([])
    with pytest.raises(ValueError, match="values must hold no NaN"):
        format_([1.0, NAN])


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: tables.markdown_table(["a"], [5]), r"rows\[0\] must be a sequence of cells"),
        (lambda: tables.markdown_table(["a"], ["x"]), r"rows\[0\] must be a sequence of cells"),
        (lambda: pointer.per_seed_table([0], {"a": [NAN]}), r"columns\['a'\] must hold no NaN"),
        (lambda: pointer.sort_length_table({0: {5: 1.0}}), "lengths holds 10"),
        (lambda: pointer.decoder_table({"pointer": {}}), r"comparison\['pointer'\] must hold at least one run"),
        (lambda: pointer.hull_table({**HULLS, "accuracy": {}}, (5,)), r"metrics\['accuracy'\] must hold"),
        (lambda: pointer.hull_table(HULLS, (6,)), "point_counts holds 6"),
        (lambda: pointer.hull_table({**HULLS, "accuracy": {5: [NAN]}}, (5,)), "must hold no NaN"),
        (lambda: pondernet.trend_table({}, 6), "groups must hold at least one entry"),
        (lambda: pondernet.extrapolation_table({}), "groups must hold at least one entry"),
        (lambda: transformer.live_table({}), "runs must hold at least one entry"),
        (lambda: transformer.setting_table({}, 4), "settings must hold at least one entry"),
        (lambda: transformer.setting_table({"a": []}, 4), r"settings\['a'\] must hold at least one run"),
        (lambda: transformer.correlation_table({}), "settings must hold at least one entry"),
        (lambda: transformer.distribution_table({}), "distributions must hold at least one entry"),
        (
            lambda: transformer.setting_table({"a": [{"test_accuracy": NAN, "accuracy_by_depth": {"4": 1.0},
                                                      "deeper_accuracy": 1.0, "test_ponder_steps": 2.0}]}, 4),
            "must hold no NaN",
        ),
    ],
)
def test_a_table_of_nothing_or_nan_is_refused_by_name(build, message):
    with pytest.raises(ValueError, match=message):
        build()
