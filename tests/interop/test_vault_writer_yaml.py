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


def _pyyaml_text(data: object) -> str:
    """What PyYAML alone writes for ``data`` (the writer's settings, one document)."""
    from sysdrill.interop import vault_writer

    return vault_writer._yaml_dump(data)


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=30),
    st.from_regex(r"[ -~]{1,40}", fullmatch=True),
    st.from_regex(r"[-?:#. a-z]{1,6}", fullmatch=True),
    st.sampled_from([*TRICKY, "a: b", "a #b", "a#b", "a:", "--- x", "x ", "(y)", "it's"]),
)
_VALUES = st.one_of(
    _SCALARS,
    st.lists(_SCALARS, max_size=3),
    st.dictionaries(st.sampled_from(["format", "key", "1", "yes", "a b"]), _SCALARS, max_size=3),
    st.dictionaries(st.just("options"), st.lists(_SCALARS, max_size=2), max_size=1),
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z_]{1,12}|[ -~]{1,5}", fullmatch=True), _VALUES))
def test_the_direct_writer_writes_what_pyyaml_writes(data: dict[str, object]) -> None:
    assert dump_yaml(data) == _pyyaml_text(data)


def test_a_shared_list_is_written_by_pyyaml_with_its_anchor() -> None:
    shared = ["a", "b"]
    data = {"tags": shared, "authors": shared}
    assert dump_yaml(data) == _pyyaml_text(data)
    assert "&id001" in dump_yaml(data)


def test_every_bundled_item_is_written_as_pyyaml_writes_it() -> None:
    from sysdrill.content.loader import load_vault
    from sysdrill.content.sample import default_vault_path

    vault = load_vault(default_vault_path())
    raws = [f.raw for f in vault.files if isinstance(f.raw, dict)]
    assert len(raws) > 10
    for raw in raws:
        assert dump_yaml(raw) == _pyyaml_text(raw)


_NESTED_SCALARS = st.one_of(
    _SCALARS,
    st.text(alphabet=st.sampled_from("ab 水\n\t:#-'\"|"), max_size=20),
    st.sampled_from(["a\nb", "a\n\nb", "  lead\nx", "end\n", "end\n\n", ".card {\n  x: y;\n}"]),
)
_NESTED = st.recursive(
    st.one_of(_NESTED_SCALARS, st.lists(_NESTED_SCALARS, max_size=3)),
    lambda inner: st.one_of(
        st.dictionaries(
            st.sampled_from(["anki", "fields", "css", "1", "a b", "水"]), inner, max_size=3
        ),
        st.lists(
            st.dictionaries(st.sampled_from(["name", "front"]), inner, max_size=2), max_size=2
        ),
    ),
    max_leaves=8,
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.sampled_from(["source", "details", "id", "x"]), _NESTED, max_size=3))
def test_the_direct_writer_writes_nested_mappings_as_pyyaml_does(data: dict[str, object]) -> None:
    # Issue 31: an Anki item's `source.anki` nests mappings, lists of mappings and CSS.
    assert dump_yaml(data) == _pyyaml_text(data)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            _SCALARS,
            st.fixed_dictionaries(
                {"name": _SCALARS, "items": st.lists(_SCALARS, max_size=4)},
                optional={"title": _SCALARS, "skip_napkin_check": st.booleans()},
            ),
            st.dictionaries(st.sampled_from(["name", "a b"]), _NESTED, max_size=2),
        ),
        max_size=4,
    )
)
def test_a_list_of_decks_is_written_as_pyyaml_writes_it(decks: list[object]) -> None:
    # decks.yaml of a 100,000-card import lists every id under its deck.
    data = {"decks": decks}
    assert dump_yaml(data) == _pyyaml_text(data)
