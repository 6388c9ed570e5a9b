"""Result types of the napkin engine: evaluated expressions, claim verdicts, numeric grades.

These are plain frozen dataclasses with no pint dependency, so importing them is cheap.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

__all__ = ["CalcResult", "ClaimVerdict", "NumericGrade", "Verdict"]


class Verdict(StrEnum):
    """What the claim checker concluded about one ``lhs = rhs`` link."""

    OK = "ok"
    """Both sides agree within the relation's tolerance."""
    WRONG = "wrong"
    """Both sides are numeric with the same dimension, and they disagree."""
    UNIT_MISMATCH = "unit-mismatch"
    """Both sides are numeric but their dimensions differ."""
    PREFIX_AMBIGUOUS = "prefix-ambiguous"
    """Right with 1024-based prefixes and wrong with 1000-based ones, or the reverse."""
    SKIPPED = "skipped"
    """Not checkable: symbolic, a range, a comparison, or prose."""


@dataclass(frozen=True, slots=True)
class CalcResult:
    """An evaluated expression.

    Attributes:
        magnitude: The value expressed in ``unit``.
        unit: The unit of ``magnitude`` (``""`` for a pure number).
        display: Value and unit formatted for people, such as ``"3.5 ms"``.
    """

    magnitude: float
    unit: str
    display: str


@dataclass(frozen=True, slots=True)
class NumericGrade:
    """The grade of a typed numeric answer.

    Attributes:
        correct: Whether the answer is within the tolerance of the expected value.
        given_value: The answer converted to the expected unit; None when unreadable
            or of the wrong dimension.
        message: One sentence for the learner, naming the expected unit on a mismatch.
    """

    correct: bool
    given_value: float | None
    message: str


@dataclass(frozen=True, slots=True)
class ClaimVerdict:
    """The verdict on one link of a claim chain (``lhs = rhs``, ``lhs ≈ rhs``).

    Attributes:
        line: 1-based line number in the checked text.
        column: 1-based column of the relation sign in the (normalised) line.
        relation: ``"="``, ``"≈"`` or ``"~"``.
        lhs: The left side as read.
        rhs: The right side as read.
        verdict: The conclusion.
        computed: The left side's value expressed in the right side's unit (None
            when a side could not be evaluated).
        claimed: The right side's value in its own unit (None when not evaluated).
        unit: The unit of ``computed`` and ``claimed`` (``""`` for pure numbers).
        message: Why, in one sentence.
        suggestion: For ``wrong``: the line with the right side corrected.
        unsure: For ``skipped``: the checker abstained on a claim it read but could
            not understand well enough to judge (``check`` reports it as the info
            ``napkin-unsure``); False for a claim that is simply not checkable.
    """

    line: int
    column: int
    relation: str
    lhs: str
    rhs: str
    verdict: Verdict
    computed: float | None = None
    claimed: float | None = None
    unit: str = ""
    message: str = ""
    suggestion: str | None = None
    unsure: bool = False

    @property
    def claim(self) -> str:
        """The link as text, ``lhs = rhs``."""
        return f"{self.lhs} {self.relation} {self.rhs}"

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON shape of the verdict (``verdict`` as its string value)."""
        data = asdict(self)
        data["verdict"] = self.verdict.value
        data["claim"] = self.claim
        if not self.unsure:
            # The JSON shape predates abstentions: the key appears only when it says something.
            del data["unsure"]
        return data
