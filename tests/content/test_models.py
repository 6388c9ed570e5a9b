"""Every field of StaffML schema 1.0 is a known field of our item model."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
from pydantic import ValidationError

from sysdrill.content.enums import ReviewStatus
from sysdrill.content.models import ChainRef, Item, Visual, validate_item

# Field names of StaffML's schema 1.0 Question, HumanReview, Details and Visual.
STAFFML_QUESTION_FIELDS = (
    "schema_version id track level zone topic competency_area bloom_level phase title "
    "scenario question visual details status provenance requires_explanation "
    "expected_time_minutes deletion_reason chains validated validation_status "
    "validation_date validation_model validation_issues validation_status_pro "
    "validation_issues_pro math_verified math_status math_date math_model math_issues "
    "human_reviewed classification_review tags created_at updated_at last_modified"
).split()


def _question(**extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "id": "cloud-0001",
        "track": "cloud",
        "level": "L2",
        "zone": "fluency",
        "topic": "vram-budgeting",
        "competency_area": "memory",
        "bloom_level": "apply",
        "phase": "inference",
        "title": "Weights of a Small Model",
        "scenario": "A 1B-parameter model is served in FP16 on one accelerator.",
        "question": "How much memory do its weights take?",
        "details": {"realistic_solution": "About 2 GB."},
    }
    data.update(extra)
    return data


def test_every_schema_field_is_a_model_field() -> None:
    assert [name for name in STAFFML_QUESTION_FIELDS if name not in Item.model_fields] == []


@pytest.mark.parametrize("status", ["not-reviewed", "verified", "flagged", "needs-rework"])
def test_every_staffml_review_status_validates(status: str) -> None:
    item = validate_item(_question(human_reviewed={"status": status, "by": "a", "date": None}))
    assert item.human_reviewed is not None
    assert item.human_reviewed.status is ReviewStatus(status)


def test_bookkeeping_fields_load_as_written() -> None:
    item = validate_item(
        _question(
            visual={"kind": "svg", "path": "a.svg", "alt": "Two bars", "caption": "Bars"},
            chains=[{"id": "cloud-chain-1", "position": 0}],
            deletion_reason=None,
            validation_issues=["one"],
            validation_status_pro="OK",
            validation_issues_pro=[],
            math_issues=["off by 2x"],
            classification_review="Level fits.",
            last_modified=datetime.date(2026, 5, 2),
            human_reviewed={"status": "flagged", "date": datetime.date(2026, 5, 3)},
        )
    )
    assert item.visual == Visual(kind="svg", path="a.svg", alt="Two bars", caption="Bars")
    assert item.chains == [ChainRef(id="cloud-chain-1", position=0)]
    assert item.math_issues == ["off by 2x"]
    # Unquoted YAML dates stay the strings the author wrote.
    assert item.last_modified == "2026-05-02"
    assert item.human_reviewed is not None and item.human_reviewed.date == "2026-05-03"
    assert item.model_extra == {}


def test_visual_without_alt_text_is_a_schema_error() -> None:
    with pytest.raises(ValidationError) as caught:
        validate_item(_question(visual={"kind": "svg", "path": "a.svg"}))
    assert [error["loc"] for error in caught.value.errors()] == [("visual", "alt")]
