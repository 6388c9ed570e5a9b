"""``template-draw``: every draw of a parametric item must make a sound item.

A template's numbers change each time it is shown, so its text cannot be
checked once; the rule draws it :data:`CHECK_DRAWS` times (seeds 0, 1, ...) and
reports the first draws whose constraints cannot be met, whose answer cannot be
computed in ``answer_unit``, or whose rendered napkin math holds a claim the
napkin engine does not accept (see :func:`sysdrill.napkin.templates.audit_draw`).
"""

from __future__ import annotations

from sysdrill.check.context import FileContext

__all__ = ["CHECK_DRAWS", "check_template"]

CHECK_DRAWS = 50
"""Draws checked per template: enough to meet the edges of small ranges.

``bench/template_bench.py`` times a draw and a check of the starter vault."""

_REPORTED = 3
"""Problems reported per template at most (one broken formula fails every draw)."""


def check_template(ctx: FileContext) -> None:
    """``template-draw``."""
    item = ctx.item
    if not item.is_template:
        for field in ("answer_expr", "answer_calculator", "constraints", "derived"):
            if getattr(item, field):
                ctx.add("template-draw", f"{field} is set but parameters is not", (field,))
        return
    if (item.answer_expr is None) == (item.answer_calculator is None):
        ctx.add(
            "template-draw",
            "a template needs exactly one of answer_expr and answer_calculator",
            ("answer_expr",),
        )
        return
    from sysdrill.napkin.templates import DrawProblem, audit_draw

    problems: list[DrawProblem] = []
    for seed in range(CHECK_DRAWS):
        problems.extend(audit_draw(item, seed))
        if len(problems) >= _REPORTED:
            break
    for problem in problems[:_REPORTED]:
        ctx.add("template-draw", str(problem), problem.field)
