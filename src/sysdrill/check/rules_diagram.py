"""``diagram``: an item's declared diagram must be drawable from its numbers.

The kind must be known and its parameters present, in range and small enough to
draw (:func:`sysdrill.napkin.diagrams.build_diagram`). A template's ``"{name}"``
references are filled from its draws, so the rule checks :data:`DIAGRAM_DRAWS`
draws: a range whose far end makes a picture too large is reported like a typo.
"""

from __future__ import annotations

from sysdrill.check.context import FileContext

__all__ = ["DIAGRAM_DRAWS", "check_diagram"]

DIAGRAM_DRAWS = 20
"""Draws of a template whose diagram is checked (seeds 0, 1, ...)."""


def check_diagram(ctx: FileContext) -> None:
    """``diagram``."""
    diagram = ctx.item.diagram
    if diagram is None:
        return
    from sysdrill.errors import ContentInvalid
    from sysdrill.napkin.diagrams import diagram_problems

    if not ctx.item.is_template:
        for problem in diagram_problems(diagram):
            ctx.add("diagram", problem, ("diagram",))
        return
    from sysdrill.napkin.templates import draw_template

    for seed in range(DIAGRAM_DRAWS):
        try:
            drawn = draw_template(ctx.item, seed).item.diagram
        except ContentInvalid:
            return  # the template-draw rule reports a draw that fails
        problems = diagram_problems(drawn) if drawn is not None else []
        if problems:
            ctx.add("diagram", f"seed {seed}: {problems[0]}", ("diagram",))
            return
