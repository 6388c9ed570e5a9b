"""``numeric-answer``: an item's declared numeric answer must be one a learner can give.

Numeric items are graded automatically (``answer_value`` in ``answer_unit``, within the
relative ``answer_tolerance``). The rule grades the item's own answer against itself:
if the unit cannot be read or the fields disagree, no learner could ever be marked right.
"""

from __future__ import annotations

from sysdrill.check.context import FileContext
from sysdrill.content.models import DEFAULT_ANSWER_TOLERANCE
from sysdrill.errors import NapkinError

__all__ = ["check_numeric_answer"]


def check_numeric_answer(ctx: FileContext) -> None:
    """``numeric-answer``."""
    item = ctx.item
    value, unit = item.answer_value, item.answer_unit
    if value is None and (item.answer_expr is not None or item.answer_calculator is not None):
        return  # a template: rules_template grades the answer of every draw
    if value is None:
        for field in ("answer_unit", "answer_tolerance"):
            if getattr(item, field) is not None:
                ctx.add("numeric-answer", f"{field} is set but answer_value is not", (field,))
        return
    if unit is None:
        ctx.add(
            "numeric-answer",
            "answer_value is set but answer_unit is not",
            ("answer_value",),
            fix="add answer_unit, such as 'ms' or 'GB/s' ('' for a pure number)",
        )
        return
    from sysdrill.napkin.grading import example_answer, grade_numeric_answer

    written = example_answer(value, unit)
    tolerance = (
        item.answer_tolerance if item.answer_tolerance is not None else DEFAULT_ANSWER_TOLERANCE
    )
    try:
        grade = grade_numeric_answer(
            written, expected_value=value, expected_unit=unit, tolerance=tolerance
        )
    except NapkinError as exc:
        ctx.add("numeric-answer", f"answer_unit {unit!r} cannot be read: {exc}", ("answer_unit",))
        return
    if not grade.correct:
        ctx.add(
            "numeric-answer",
            f"the declared answer {written!r} cannot be typed and graded: {grade.message}",
            ("answer_unit",),
        )
