"""cjson.py: the C programs' JSON, whose numbers printf writes (inf and nan too), read and
written back as strict JSON (issue 60: an overflowing run's summary was a JSONDecodeError)."""

import json
import math

import pytest

from mcsgen import cjson


def test_printf_words_are_read_as_floats_and_strings_are_left_alone():
    text = (
        '{"a": inf, "b": -inf, "c": nan, "d": -nan, "e": [1e308, -INF, NaN], '
        '"status": "inf, nan: -inf", "name": "info", "x": 2.5}'
    )
    value = cjson.loads(text)
    assert value["a"] == math.inf and value["b"] == -math.inf
    assert math.isnan(value["c"]) and math.isnan(value["d"])
    assert value["e"][0] == 1e308 and value["e"][1] == -math.inf and math.isnan(value["e"][2])
    assert value["status"] == "inf, nan: -inf" and value["name"] == "info" and value["x"] == 2.5


def test_without_it_the_text_is_not_json():
    with pytest.raises(json.JSONDecodeError):
        json.loads('{"energy_drift": inf}')


def test_written_back_strictly_a_non_finite_number_is_null():
    text = cjson.dumps({"a": math.inf, "b": [math.nan, 1.0], "c": {"d": -math.inf}}, indent=1)
    assert json.loads(text, parse_constant=pytest.fail) == {
        "a": None,
        "b": [None, 1.0],
        "c": {"d": None},
    }
