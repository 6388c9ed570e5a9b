"""Every template of the starter vault draws only what a practitioner would meet (issue 32).

Each template documents its realistic ranges in comments just above ``parameters:``::

    # range answer: 25 .. 65  (%: the MFU of a healthy dense training run)

``answer`` is the drawn answer in ``answer_unit``; any other name is a parameter or a
derived value of the template, in its declared unit. The tests draw every template
1,000 times from fixed seeds and check every documented range, and that every answer
is a positive, finite number.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from sysdrill.content.loader import load_vault
from sysdrill.content.models import Item
from sysdrill.napkin.templates import draw_template

STARTER_VAULT = Path(__file__).resolve().parents[2] / "src/sysdrill/content/starter_vault"
DRAWS = 1_000
_RANGE_LINE = re.compile(
    r"^# range (?P<name>[A-Za-z_][A-Za-z0-9_]*): (?P<low>\S+) \.\. (?P<high>\S+)"
    r"(?:\s+\((?P<why>.+)\))?$"
)


@dataclass(frozen=True)
class DocumentedRange:
    """A realistic range a template documents for one of its values."""

    name: str
    low: float
    high: float
    why: str


def _templates() -> list[Item]:
    return [item for item in load_vault(STARTER_VAULT).items if item.is_template]


TEMPLATES = _templates()


def _ranges(item: Item) -> dict[str, DocumentedRange]:
    (path,) = (STARTER_VAULT / "questions").rglob(f"{item.id}.yaml")
    ranges: dict[str, DocumentedRange] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("# range "):
            continue
        match = _RANGE_LINE.match(line)
        assert match is not None, f"{item.id}: unreadable range comment {line!r}"
        name = match["name"]
        assert name not in ranges, f"{item.id}: range {name!r} documented twice"
        ranges[name] = DocumentedRange(
            name, float(match["low"]), float(match["high"]), match["why"] or ""
        )
    return ranges


def test_the_vault_has_templates_to_check() -> None:
    assert len(TEMPLATES) >= 25


@pytest.mark.parametrize("item", TEMPLATES, ids=lambda item: item.id)
def test_every_template_documents_a_sane_answer_range(item: Item) -> None:
    ranges = _ranges(item)
    assert "answer" in ranges, f"{item.id} documents no '# range answer:' comment"
    known = {"answer", *(item.parameters or {}), *(item.derived or {})}
    for documented in ranges.values():
        assert documented.name in known, f"{item.id}: no value named {documented.name!r}"
        assert documented.low < documented.high, f"{item.id}: empty range {documented}"
        assert documented.why, f"{item.id}: range {documented.name!r} does not say why"


@pytest.mark.parametrize("item", TEMPLATES, ids=lambda item: item.id)
def test_a_thousand_draws_stay_in_the_documented_ranges(item: Item) -> None:
    ranges = _ranges(item)
    outside: list[str] = []
    for seed in range(DRAWS):
        draw = draw_template(item, seed)
        assert math.isfinite(draw.answer_value) and draw.answer_value > 0, (item.id, seed)
        values = {**draw.values, "answer": draw.answer_value}
        assert all(math.isfinite(v) for v in values.values()), (item.id, seed)
        for documented in ranges.values():
            value = values[documented.name]
            # A relative slack of 1e-9 keeps float noise on an exact bound from failing.
            slack = 1e-9 * max(abs(documented.low), abs(documented.high))
            if not documented.low - slack <= value <= documented.high + slack:
                outside.append(
                    f"seed {seed}: {documented.name} = {value:.6g} outside "
                    f"{documented.low:g} .. {documented.high:g} ({documented.why})"
                )
    assert outside == [], f"{item.id}: {len(outside)} values out of range, e.g. {outside[:5]}"


@pytest.mark.parametrize(
    ("item_id", "low", "high"),
    [
        ("cloud-4005", 25.0, 65.0),  # MFU of a dense run, in %
        ("cloud-4012", 0.1, 10.0),  # AdamW peak rate 1e-5 .. 1e-3, in units of 1e-4
    ],
)
def test_the_ranges_issue_32_names_are_documented_no_wider(
    item_id: str, low: float, high: float
) -> None:
    (item,) = (item for item in TEMPLATES if item.id == item_id)
    documented = _ranges(item)["answer"]
    assert (documented.low, documented.high) == (low, high)
