"""A calculator run from a form: each refused input named as the form labels it.

The napkin calculators speak the terminal's language: a bad input is refused as
``--peak-flops: cannot evaluate 'abc' ...`` and a missing one as ``kv-cache needs
--kv-heads``. A form has fields, not options, so :func:`run_calculator_form`
checks each typed input on its own and says what is wrong with each in words
that name the field as the form labels it (:func:`field_label`) and the fix,
with no option names and no text of a Python exception.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sysdrill.errors import HardwareNotFound, SysdrillError, UnitMismatch, UsageError
from sysdrill.napkin.calculators.spec import Calculator, CalculatorResult, Kind, Param

__all__ = ["WHOLE_FORM", "CalculatorRun", "field_label", "run_calculator_form"]

WHOLE_FORM = ""
"""The key of a problem that belongs to no one field (the inputs together)."""

_OPTION = re.compile(r"--([a-z][a-z0-9-]*)")
_EXAMPLE = re.compile(r"\be\.g\.\s*([^;()]+?)\.?(?:[;()]|$)")
_FORM_NAMES = {"gpu": "accelerator", "link": "interconnect", "dtype": "precision of its peak"}
"""What the form calls the inputs that are not the calculator's own."""


@dataclass(frozen=True, slots=True)
class CalculatorRun:
    """What a calculator made of a form: its result, or why each input was refused."""

    result: CalculatorResult | None = None
    problems: dict[str, str] = field(default_factory=dict)
    """Reason in words by input name (:data:`WHOLE_FORM` for the inputs together)."""

    def lines(self) -> list[str]:
        """Each problem as one line that starts with the field's label."""
        return [
            f"{field_label(name)}: {reason}" if name != WHOLE_FORM else reason
            for name, reason in self.problems.items()
        ]


def field_label(name: str) -> str:
    """How the form labels input ``name`` (``peak_flops`` -> ``peak flops``)."""
    return _FORM_NAMES.get(name, name.replace("_", " "))


def _in_words(message: str) -> str:
    """A calculator's own message with each ``--option`` named as the form labels it."""
    return _OPTION.sub(lambda found: f"“{field_label(found.group(1).replace('-', '_'))}”", message)


def _example(param: Param) -> str:
    found = _EXAMPLE.search(param.help)
    if found:
        return found.group(1).strip()
    if param.default:
        return param.default
    if param.kind is Kind.COUNT:
        return "8"
    if param.kind is Kind.NUMBER:
        return "40%" if param.percent else "0.5"
    return f"2 {param.unit}" if param.unit else "2"


def _refusal(param: Param, text: str, error: SysdrillError) -> str:
    """Why ``text`` is not a value of ``param``, and the fix."""
    shown = repr(text) if len(text) <= 40 else f"{text[:40]!r}..."
    if param.kind is Kind.CHOICE and param.choices is not None:
        allowed = ", ".join(str(choice.value) for choice in param.choices)
        return f"{shown} is not one of the choices; pick one of {allowed}"
    example = _example(param)
    if param.kind is Kind.COUNT:
        return f"{shown} is not a whole number; type one such as {example}"
    if param.kind is Kind.NUMBER:
        return f"{shown} is not a number; type one such as {example}"
    if isinstance(error, UnitMismatch):
        return (
            f"{shown} is not in a unit of this field; type it in {param.unit} "
            f"or a unit that converts to it, such as {example}"
        )
    return f"{shown} is not a number with a unit; type one such as {example}"


def _missing(calc: Calculator, message: str) -> tuple[str, str]:
    """The field a calculator's ``needs --option`` message is about, and the fix."""
    for param in calc.params:
        if f"needs {param.option}" in message and not param.optional:
            fill = " or choose an accelerator" if "--gpu" in message else ""
            fill = " or choose an interconnect" if "--link" in message else fill
            return param.name, f"needs a value; type one such as {_example(param)}{fill}"
    return WHOLE_FORM, _in_words(message)


def run_calculator_form(
    calc: Calculator,
    raw: Mapping[str, str | None],
    *,
    gpu: str | None,
    precision: str,
    link: str | None,
) -> CalculatorRun:
    """Run ``calc`` on inputs typed into a form, or say why each was refused.

    Args:
        calc: The calculator.
        raw: Text typed by input name (None or blank: left empty).
        gpu: Accelerator chosen to fill its figures (None: none).
        precision: Precision of the accelerator's peak (``bf16``).
        link: Interconnect chosen to fill its figures (None: none).

    Raises:
        UsageError: An input name the calculator does not have (no form sends one).
    """
    known = {p.name for p in calc.params}
    unknown = sorted(set(raw) - known)
    if unknown:
        raise UsageError(f"{calc.name} has no input {', '.join(unknown)}")
    typed = {name: (text if text and text.strip() else None) for name, text in raw.items()}
    problems: dict[str, str] = {}
    for param in calc.params:
        text = typed.get(param.name)
        if text is None:
            continue
        try:
            param.parse(text)
        except SysdrillError as exc:
            problems[param.name] = _refusal(param, text, exc)
    if problems:
        return CalculatorRun(problems=problems)
    values: dict[str, Any]
    try:
        values = calc.resolve(typed, gpu=gpu, precision=precision, link=link)
    except HardwareNotFound as exc:
        return CalculatorRun(problems={"link" if link and not gpu else "gpu": _in_words(str(exc))})
    except UsageError as exc:
        name, reason = _missing(calc, str(exc))
        return CalculatorRun(problems={name: reason})
    try:
        return CalculatorRun(result=calc.compute(values))
    except (ArithmeticError, ValueError):
        # A formula's own math refusing the inputs (a logarithm of a negative, an
        # overflow); its Python words would mean nothing to the learner.
        reason = (
            f"{calc.name} cannot compute with these inputs; check that each is positive "
            "and of a sensible size"
        )
    except SysdrillError as exc:  # the calculator's own refusal names options
        reason = _in_words(str(exc))
    return CalculatorRun(problems={WHOLE_FORM: reason})
