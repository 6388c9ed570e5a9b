"""Parametric items: draw a template's numbers from a seed and render a concrete item.

A template declares ``parameters`` (ranges with steps, or choices, each with a
unit), ``constraints`` over them, ``derived`` values and an ``answer_expr``; its
text holds ``{name}`` placeholders. :func:`draw_template` is a pure function of
(template, seed): the same seed always shows the same numbers, so a session that
records its seed can be replayed and a review traced to the numbers shown.
Expressions are evaluated by the napkin engine, with units; the rendered napkin
math is checked by it in :func:`audit_draw`.
"""

from __future__ import annotations

import ast
import hashlib
import math
import operator
import random
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sysdrill.content.models import Item, TemplateParameter
from sysdrill.errors import ContentInvalid, NapkinError
from sysdrill.napkin.claims import check_claims
from sysdrill.napkin.expression import evaluate, parse_unit
from sysdrill.napkin.quantity import format_number
from sysdrill.napkin.results import Verdict

__all__ = [
    "MAX_ATTEMPTS",
    "DrawProblem",
    "TemplateDraw",
    "audit_draw",
    "draw_seed",
    "draw_template",
    "placeholders",
    "render_template",
]

MAX_ATTEMPTS = 200
"""Draws tried per seed before a template's constraints are declared unsatisfiable."""

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
_MAX_RANGE_STEPS = 1_000_000
_TEXT_FIELDS = ("title", "scenario", "question")
_DETAIL_FIELDS = ("napkin_math", "realistic_solution", "common_mistake")


@dataclass(frozen=True, slots=True)
class TemplateDraw:
    """One draw of a template: the numbers shown and the item rendered with them."""

    item_id: str
    seed: int
    values: dict[str, float]
    """Drawn parameters and derived values, each in its declared unit."""
    answer_value: float
    """The computed answer, in the template's ``answer_unit``."""
    item: Item
    """The concrete item: placeholders filled, ``answer_value`` set, no parameters."""

    def to_dict(self) -> dict[str, Any]:
        """What a review log needs to know which numbers were shown (JSON-ready)."""
        return {
            "item_id": self.item_id,
            "seed": self.seed,
            "values": dict(self.values),
            "answer_value": self.answer_value,
        }


@dataclass(frozen=True, slots=True)
class DrawProblem:
    """Why one draw of a template does not make a sound item."""

    seed: int
    field: tuple[str, ...]
    """Field of the template the problem is in (``("details", "napkin_math")``)."""
    message: str

    def __str__(self) -> str:
        return f"seed {self.seed}: {self.message}"


def draw_seed(session_seed: int, item_id: str) -> int:
    """The seed of one item's draw in a session: stable across processes and runs."""
    digest = hashlib.sha256(f"{session_seed}:{item_id}".encode()).digest()
    return int.from_bytes(digest[:6], "big")


def placeholders(text: str) -> set[str]:
    """The ``{name}`` placeholders in ``text``."""
    return set(_PLACEHOLDER.findall(text))


def _shown(value: float, unit: str, *, digits: int) -> str:
    number = format_number(value, digits=digits)
    unit = unit.strip()
    if unit.startswith("$"):
        return f"${number}{unit[1:]}"
    if unit == "%":
        return f"{number}%"
    return f"{number} {unit}" if unit else number


def _pick(name: str, spec: TemplateParameter, rng: random.Random) -> float:
    if spec.choices:
        return float(rng.choice(spec.choices))
    if spec.min is None or spec.max is None:
        raise ContentInvalid(f"parameter {name!r} needs choices, or min and max")
    if spec.max < spec.min:
        raise ContentInvalid(f"parameter {name!r} has max below min")
    if spec.step is None:
        return rng.uniform(spec.min, spec.max)
    count = math.floor((spec.max - spec.min) / spec.step + 1e-9)
    if count > _MAX_RANGE_STEPS:
        raise ContentInvalid(f"parameter {name!r} spans more than {_MAX_RANGE_STEPS:,} steps")
    # Rounding keeps decimal steps (0.1) from showing float noise such as 0.30000000000000004.
    return round(spec.min + rng.randint(0, count) * spec.step, 9)


_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: operator.pow,
}
_COMPARE: dict[type[ast.cmpop], Callable[[float, float], bool]] = {
    ast.Eq: operator.eq,
    ast.NotEq: operator.ne,
    ast.Lt: operator.lt,
    ast.LtE: operator.le,
    ast.Gt: operator.gt,
    ast.GtE: operator.ge,
}


def _constraint_value(node: ast.AST, names: Mapping[str, float]) -> float:
    # A deliberately tiny language: numbers, names, arithmetic, comparisons, and/or/not.
    if isinstance(node, ast.Expression):
        return _constraint_value(node.body, names)
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.Name):
        if node.id not in names:
            raise ContentInvalid(f"constraint names {node.id!r}, which is not a parameter")
        return names[node.id]
    if isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
        left = _constraint_value(node.left, names)
        right = _constraint_value(node.right, names)
        try:
            return _BINARY[type(node.op)](left, right)
        except (ZeroDivisionError, OverflowError) as exc:
            raise ContentInvalid(f"constraint cannot be computed: {exc}") from None
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.Not):
        operand = _constraint_value(node.operand, names)
        return -operand if isinstance(node.op, ast.USub) else float(not operand)
    if isinstance(node, ast.BoolOp):
        values = [bool(_constraint_value(v, names)) for v in node.values]
        return float(all(values) if isinstance(node.op, ast.And) else any(values))
    if isinstance(node, ast.Compare):
        left = _constraint_value(node.left, names)
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = _constraint_value(comparator, names)
            if type(op) not in _COMPARE or not _COMPARE[type(op)](left, right):
                return 0.0
            left = right
        return 1.0
    raise ContentInvalid(f"constraint uses {type(node).__name__}, which is not allowed")


def _holds(constraint: str, names: Mapping[str, float]) -> bool:
    try:
        tree = ast.parse(constraint, mode="eval")
    except SyntaxError as exc:
        raise ContentInvalid(f"constraint {constraint!r} is not an expression: {exc.msg}") from None
    return bool(_constraint_value(tree, names))


def _substitute(text: str, shown: Mapping[str, str], *, parenthesise: bool) -> str:
    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in shown:
            raise ContentInvalid(f"placeholder {{{name}}} is not a parameter or derived value")
        return f"({shown[name]})" if parenthesise else shown[name]

    return _PLACEHOLDER.sub(one, text)


def _compute(expr: str, unit: str, exact: Mapping[str, str], *, what: str) -> float:
    try:
        value = evaluate(_substitute(expr, exact, parenthesise=True))
        scale, dims = parse_unit(unit) if unit.strip() else (1.0, ())
    except NapkinError as exc:
        raise ContentInvalid(f"{what} cannot be computed: {exc}") from None
    if tuple(value.dims) != tuple(dims):
        raise ContentInvalid(f"{what} is not in {unit or 'a pure number'!r}: its units disagree")
    result = value.v / scale
    if not math.isfinite(result):
        raise ContentInvalid(f"{what} is not a finite number")
    return result


def _draw_parameters(template: Item, seed: int) -> dict[str, float]:
    parameters = template.parameters or {}
    rng = random.Random(f"{template.id}:{seed}")
    for _ in range(MAX_ATTEMPTS):
        values = {name: _pick(name, spec, rng) for name, spec in parameters.items()}
        if all(_holds(c, values) for c in template.constraints or ()):
            return values
    raise ContentInvalid(
        f"no draw of {template.id} within {MAX_ATTEMPTS} attempts meets its constraints "
        f"(seed {seed}); widen the ranges or relax the constraints"
    )


def draw_template(template: Item, seed: int) -> TemplateDraw:
    """Draw a template's numbers from ``seed`` and render the item they make.

    Args:
        template: An item with ``parameters`` and ``answer_expr``.
        seed: Any integer; the same (template, seed) always gives the same draw.

    Returns:
        The drawn values, the computed answer and the rendered item.

    Raises:
        ContentInvalid: The template is not one (no parameters or answer_expr), its
            constraints cannot be met, a placeholder is unknown, or an expression
            cannot be computed in its unit.
    """
    if not template.is_template or (
        template.answer_expr is None and template.answer_calculator is None
    ):
        raise ContentInvalid(
            f"{template.id} is not a template: it needs parameters, and answer_expr "
            "or answer_calculator"
        )
    if template.answer_unit is None:
        raise ContentInvalid(f"template {template.id} needs answer_unit")
    parameters = template.parameters or {}
    values = _draw_parameters(template, seed)
    exact: dict[str, str] = {}
    shown: dict[str, str] = {}
    for name, value in values.items():
        unit = parameters[name].unit
        exact[name] = _shown(value, unit, digits=12)
        shown[name] = _shown(value, unit, digits=12)
    for name, derived in (template.derived or {}).items():
        number = _compute(derived.expr, derived.unit, exact, what=f"derived value {name!r}")
        values[name] = number
        exact[name] = _shown(number, derived.unit, digits=12)
        shown[name] = _shown(number, derived.unit, digits=4)
    if template.answer_expr is not None:
        answer = _compute(template.answer_expr, template.answer_unit, exact, what="answer_expr")
    else:
        answer = _calculated(template, exact)
    shown["answer"] = _shown(answer, template.answer_unit, digits=4)
    item = render_template(template, shown, answer_value=answer)
    if template.diagram is not None:
        # The picture is drawn from this draw's numbers, not the template's.
        from sysdrill.napkin.diagrams import resolve_references

        item = item.model_copy(update={"diagram": resolve_references(template.diagram, values)})
    return TemplateDraw(template.id, seed, values, answer, item)


def _calculated(template: Item, exact: Mapping[str, str]) -> float:
    """The answer of ``answer_calculator``, in ``answer_unit``."""
    from sysdrill.errors import SysdrillError
    from sysdrill.napkin.calculators.registry import get_calculator

    spec = template.answer_calculator
    assert spec is not None and template.answer_unit is not None
    calculator = get_calculator(spec.name)
    if calculator is None:
        raise ContentInvalid(f"answer_calculator names {spec.name!r}, which is no calculator")
    raw = {k: _substitute(v, exact, parenthesise=False) for k, v in spec.inputs.items()}
    try:
        result = calculator.compute(calculator.resolve(raw))
    except SysdrillError as exc:
        raise ContentInvalid(f"calculator {spec.name} rejects the draw: {exc}") from None
    outputs = dict(result.outputs)
    if spec.output not in outputs:
        raise ContentInvalid(
            f"calculator {spec.name} has no output {spec.output!r}; it gives {', '.join(outputs)}"
        )
    value = outputs[spec.output]
    magnitude = getattr(value, "magnitude", None)
    # Pint quantities are handed to the napkin reader as text so that one unit
    # table (the napkin engine's) decides what answer_unit means.
    text = repr(float(value)) if magnitude is None else f"{float(magnitude)!r} {value.units:~}"
    return _compute(text, template.answer_unit, {}, what=f"calculator output {spec.output!r}")


def render_template(template: Item, shown: Mapping[str, str], *, answer_value: float) -> Item:
    """The template's item with each ``{name}`` replaced by ``shown[name]``.

    The result is an ordinary numeric item: ``answer_value`` set, template fields gone.

    Raises:
        ContentInvalid: A placeholder names no value in ``shown``.
    """
    updates: dict[str, Any] = {}
    for field in _TEXT_FIELDS:
        text = getattr(template, field)
        if text:
            updates[field] = _substitute(text, shown, parenthesise=False)
    details: dict[str, Any] = {}
    for field in _DETAIL_FIELDS:
        text = getattr(template.details, field)
        if text:
            details[field] = _substitute(text, shown, parenthesise=False)
    if template.details.options:
        details["options"] = [
            _substitute(str(o), shown, parenthesise=False) for o in template.details.options
        ]
    if template.parts:
        updates["parts"] = [
            part.model_copy(
                update={
                    "text": _substitute(part.text, shown, parenthesise=False),
                    "answer": None
                    if part.answer is None
                    else _substitute(part.answer, shown, parenthesise=False),
                }
            )
            for part in template.parts
        ]
    updates["details"] = template.details.model_copy(update=details)
    updates.update(
        answer_value=answer_value,
        parameters=None,
        constraints=None,
        derived=None,
        answer_expr=None,
        answer_calculator=None,
    )
    return template.model_copy(update=updates)


def audit_draw(template: Item, seed: int) -> list[DrawProblem]:
    """Problems with one draw of a template; empty when the draw is sound.

    A sound draw meets its constraints, computes its answer in ``answer_unit``,
    and its rendered napkin math and model answer hold claim by claim, with at
    least one claim checked.
    """
    try:
        draw = draw_template(template, seed)
    except ContentInvalid as exc:
        return [DrawProblem(seed, ("parameters",), str(exc))]
    problems: list[DrawProblem] = []
    checked = 0
    for field in ("napkin_math", "realistic_solution"):
        text = getattr(draw.item.details, field)
        if not text:
            continue
        for verdict in check_claims(text):
            if verdict.verdict is Verdict.OK:
                checked += 1
            elif verdict.verdict is not Verdict.SKIPPED:
                problems.append(
                    DrawProblem(
                        seed,
                        ("details", field),
                        f"{field}: '{verdict.claim}': {verdict.verdict.value}: {verdict.message}",
                    )
                )
    if checked == 0 and not problems:
        problems.append(
            DrawProblem(
                seed, ("details", "napkin_math"), "no claim of the rendered napkin math was checked"
            )
        )
    return problems
