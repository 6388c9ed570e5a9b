"""The vault writer's YAML: every string reads back as the same string in YAML 1.1 and 1.2."""

from __future__ import annotations

import pytest
import yaml
import yaml_rs
from hypothesis import given, settings
from hypothesis import strategies as st

from sysdrill.content.yaml_source import SAFE_LOADER, parse_text
from sysdrill.interop.vault_writer import dump_yaml

TRICKY = [
    "0Xa_8",
    "_0",
    "+_1",
    "_1e3",
    "1e3",
    "0o17",
    "0x1F",
    "0b101",
    "+12",
    "-.5",
    ".5e3",
    "1_000",
    "12:30",
    ".inf",
    "-.Inf",
    ".NaN",
    "yes",
    "No",
    "ON",
    "off",
    "y",
    "n",
    "true",
    "False",
    "null",
    "Null",
    "~",
    "=",
    "<<",
    "2026-01-01",
    "2026-1-1 10:00:00",
    "2026-01-01T10:00:00Z",
    "",
    " 1e3 ",
]


def _read_back(value: str) -> tuple[object, ...]:
    text = dump_yaml({"question": value, "tags": [value]})
    # As the vault loader reads (parse_datetime off: dates stay text there), and as
    # any YAML 1.2 reader reads (quoted dates are text), and PyYAML (YAML 1.1).
    fast = yaml_rs.loads(text, parse_datetime=False)
    slow = yaml.load(text, Loader=SAFE_LOADER)  # noqa: S506 - the project's safe loader
    plain = yaml.safe_load(text)
    parsed, findings = parse_text(text, "item.yaml")
    assert findings == []
    return fast, slow, plain, parsed


@pytest.mark.parametrize("value", TRICKY)
def test_strings_that_look_like_numbers_dates_or_booleans_stay_strings(value: str) -> None:
    for loaded in _read_back(value):
        assert loaded == {"question": value, "tags": [value]}


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(),
        st.from_regex(r"[-+]?[0-9._][0-9a-zA-Z_.:+-]{0,8}", fullmatch=True),
        st.sampled_from(TRICKY),
    )
)
def test_any_string_round_trips_through_pyyaml_and_yaml_rs(value: str) -> None:
    # Strings a YAML file cannot hold at all (lone surrogates, most C0 controls)
    # are not what importers write; the writer may refuse or escape them.
    if any(0xD800 <= ord(ch) <= 0xDFFF for ch in value):
        return
    for loaded in _read_back(value):
        assert loaded == {"question": value, "tags": [value]}
