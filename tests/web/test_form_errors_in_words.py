"""A bad value in a web form is told in the form's words, beside its field.

No ``--option`` names, no Python exception text: the calculator form and the
settings form show themselves again (422) with what was typed kept and the
reason under the field, as the page labels it.
"""

from __future__ import annotations

import html
import re

import pytest
from fastapi.testclient import TestClient

CLI_OR_PYTHON = re.compile(
    r"--[a-z]|could not convert|invalid literal|Traceback|ValueError|symbolic|cannot evaluate"
)


def _problem(page: str, name: str) -> str:
    found = re.search(rf'<p id="problem-{name}" class="field-problem">(.*?)</p>', page)
    assert found is not None, f"no problem shown by the field {name}"
    return html.unescape(found.group(1))


def _summary(page: str) -> str:
    found = re.search(r'<div class="form-problems" role="alert">(.*?)</div>', page, re.S)
    assert found is not None, "no summary of the problems"
    return html.unescape(found.group(1))


def test_roofline_peak_flops_that_is_no_number_is_named_by_its_label(client: TestClient) -> None:
    response = client.get(
        "/calculators/roofline",
        params={"run": "1", "peak_flops": "abc", "bandwidth": "3 TB/s", "intensity": "100"},
    )
    assert response.status_code == 422
    page = response.text
    assert "peak flops: 'abc' is not a number with a unit; type one such as" in _summary(page)
    assert "'abc' is not a number with a unit" in _problem(page, "peak_flops")
    assert 'id="in-peak_flops" name="peak_flops" value="abc"' in page  # what was typed is kept
    assert 'value="3 TB/s"' in page
    assert not CLI_OR_PYTHON.search(_summary(page))


def test_kv_cache_without_kv_heads_asks_for_that_field(client: TestClient) -> None:
    given = {"layers": "32", "head_dim": "128", "sequence_length": "4096", "batch": "1"}
    response = client.get("/calculators/kv-cache", params={"run": "1", **given})
    assert response.status_code == 422
    reason = _problem(response.text, "kv_heads")
    assert reason.startswith("needs a value; type one such as")
    assert "kv heads: needs a value" in _summary(response.text)
    assert not CLI_OR_PYTHON.search(_summary(response.text))
    api = client.post("/api/calculators/kv-cache", json={"inputs": given})
    assert api.status_code == 422
    assert api.json()["error"]["message"].startswith("kv heads: needs a value")


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"ranks": "x", "message": "1GB", "bandwidth": "1GB/s"}, "ranks"),
        ({"ranks": "8", "message": "1 s", "bandwidth": "1GB/s"}, "message"),
        ({"ranks": "8", "message": "1GB"}, "bandwidth"),
    ],
)
def test_no_calculator_refusal_speaks_cli_or_python(
    client: TestClient, params: dict[str, str], field: str
) -> None:
    page = client.get("/calculators/ring-allreduce", params={"run": "1", **params}).text
    assert _problem(page, field)
    assert not CLI_OR_PYTHON.search(_summary(page)), _summary(page)


def test_settings_learning_steps_with_a_word_show_the_form_again(
    fresh_client: TestClient,
) -> None:
    response = fresh_client.post(
        "/settings", data={"learning_steps_minutes": "1,10,abc", "new_per_day": "7"}
    )
    assert response.status_code == 422
    page = response.text
    assert _problem(page, "learning_steps_minutes") == (
        "'abc' is not a number; type minutes separated by commas, such as 1,10"
    )
    assert "Learning steps (minutes): 'abc' is not a number" in _summary(page)
    assert 'name="learning_steps_minutes" value="1,10,abc"' in page
    assert not CLI_OR_PYTHON.search(page.split("<main", 1)[1])
    shown = {s["key"]: s["shown"] for s in fresh_client.get("/api/settings").json()["settings"]}
    assert (shown["learning_steps_minutes"], shown["new_per_day"]) == ("1,10", "20")


@pytest.mark.parametrize(
    ("key", "typed", "reason"),
    [
        ("desired_retention", "lots", "expected a number from 0.70 to 0.97"),
        ("desired_retention", "2", "must be between 0.70 and 0.97"),
        ("maximum_interval_days", "ten", "expected a whole number from 1 to 36500"),
        ("deadline", "next week", "expected a date as YYYY-MM-DD"),
        ("deadline", "2020-01-01", "has passed"),
    ],
)
def test_each_refused_setting_says_why_by_its_field(
    fresh_client: TestClient, key: str, typed: str, reason: str
) -> None:
    response = fresh_client.post("/settings", data={key: typed})
    assert response.status_code == 422
    assert reason in _problem(response.text, key)
    assert not CLI_OR_PYTHON.search(_summary(response.text))


def test_an_overlong_calculator_input_is_named_by_its_label(client: TestClient) -> None:
    response = client.get("/calculators/roofline", params={"run": "1", "peak_flops": "9" * 300})
    assert response.status_code == 422
    assert "roofline: peak flops is too long; shorten it" in response.text
    assert "inputs." not in response.text
