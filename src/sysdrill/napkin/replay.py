"""Replay a stored claim plan's arithmetic without re-parsing its sides.

A plan (see :mod:`sysdrill.napkin.claims`) is reused for every span of the same
shape, with that span's numbers refilled into its tokens. Re-running the parser on
each side costs more than the arithmetic it does, so the first time a plan is
reused its sides are parsed once more with *traced* numbers: every number field of
every literal (value, 1024-based value, ulp, significant digits) is a
:class:`_Traced` that computes its real value and writes each operation done on
it as a line of Python. Every comparison on a traced number (``right.v == 0`` in a
division, ``5 < 7`` in a range test, ``min``/``max``) is written as a *guard* that
gives up when the new numbers would take the other branch; anything else that
looks at a number (``float()``, ``math.sqrt``, ``round``) stops the tracing, and
the plan is then always re-parsed. The lines are compiled into a function (one
per distinct source: plans alike up to where their numbers stand share it), which
returns the sides' values for the refilled tokens, or None when a guard fails or
the arithmetic raises, so that the caller parses instead. The generated source
holds only operators, names it made up and constant indices; every text from the
checked line reaches it as a constant.

Replaying gives exactly what parsing the refilled tokens gives: the same Python
float operations run in the same order on the same numbers, and everything else
the parser looks at (token kinds, texts, spacing, units, exactness) is fixed by
the shape; names with digits in them, which the shape does not pin down
(``H100``), are compared too.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from sysdrill.napkin.lexer import Kind, Token
from sysdrill.napkin.values import Value

__all__ = ["Replay", "SideSpec", "record"]

SideSpec = tuple[int, int, Callable[[list[Token]], Value]] | None
"""A side to record: its token span and how the plan evaluates it; None for no side."""

Replay = Callable[[list[Token]], list[tuple[Value | None, Value | None]] | None]
"""A compiled plan: the values of every link's sides, or None to parse instead."""

_FIELDS = ("value", "alt", "ulp", "sig")
_LOAD_NAME = re.compile(r"\bt(\d+)([vaus])\b")

MAX_COMPILED = 1024
"""Compiled replay functions kept, by source (cleared when full)."""
_COMPILED: dict[str, Callable[..., list[tuple[Value | None, Value | None]] | None]] = {}


class _Untraceable(Exception):
    """The parse looked at a traced number in a way that cannot be replayed."""


class _Recorder:
    """Collects the lines and constants of the function being recorded."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.consts: list[object] = []
        self.loads: dict[str, tuple[int, str]] = {}
        self.used: set[str] = set()
        self.count = 0

    def const(self, value: object) -> str:
        self.consts.append(value)
        return f"c[{len(self.consts) - 1}]"

    def operand(self, value: object) -> str:
        if isinstance(value, _Traced):
            self.used.add(value.name)
            return value.name
        if type(value) not in (float, int, bool):
            raise _Untraceable(f"operand of type {type(value).__name__}")
        return self.const(value)

    def node(self, left: object, op: str, right: object, result: object) -> _Traced:
        if type(result) is not float:
            raise _Untraceable("not a float")
        text = f"{self.operand(left)} {op} {self.operand(right)}"
        name = f"n{self.count}"
        self.count += 1
        self.lines.append(f"{name} = {text}")
        return _Traced(self, result, name)

    def guard(self, left: object, op: str, right: object, result: object) -> bool:
        if type(result) is not bool:
            raise _Untraceable("comparison is not a bool")
        text = f"{self.operand(left)} {op} {self.operand(right)}"
        self.lines.append(f"if {'not ' if result else ''}({text}): return None")
        return result


def _concrete(value: object) -> Any:
    return value.real if isinstance(value, _Traced) else value


class _Traced:
    """A number whose operations are written down (see the module docstring)."""

    __slots__ = ("name", "real", "rec")
    __hash__ = None  # type: ignore[assignment]

    def __init__(self, rec: _Recorder, real: Any, name: str) -> None:
        self.rec = rec
        self.real = real
        self.name = name

    def _op(self, other: object, op: str, func: Callable[[Any, Any], Any]) -> _Traced:
        try:
            result = func(self.real, _concrete(other))
        except Exception as exc:
            raise _Untraceable("the arithmetic raised") from exc
        return self.rec.node(self, op, other, result)

    def _rop(self, other: object, op: str, func: Callable[[Any, Any], Any]) -> _Traced:
        try:
            result = func(_concrete(other), self.real)
        except Exception as exc:
            raise _Untraceable("the arithmetic raised") from exc
        return self.rec.node(other, op, self, result)

    def _cmp(self, other: object, op: str, func: Callable[[Any, Any], Any]) -> bool:
        return self.rec.guard(self, op, other, func(self.real, _concrete(other)))

    def __add__(self, other: object) -> _Traced:
        return self._op(other, "+", lambda a, b: a + b)

    def __radd__(self, other: object) -> _Traced:
        return self._rop(other, "+", lambda a, b: a + b)

    def __sub__(self, other: object) -> _Traced:
        return self._op(other, "-", lambda a, b: a - b)

    def __rsub__(self, other: object) -> _Traced:
        return self._rop(other, "-", lambda a, b: a - b)

    def __mul__(self, other: object) -> _Traced:
        return self._op(other, "*", lambda a, b: a * b)

    def __rmul__(self, other: object) -> _Traced:
        return self._rop(other, "*", lambda a, b: a * b)

    def __truediv__(self, other: object) -> _Traced:
        return self._op(other, "/", lambda a, b: a / b)

    def __rtruediv__(self, other: object) -> _Traced:
        return self._rop(other, "/", lambda a, b: a / b)

    def __pow__(self, other: object) -> _Traced:
        return self._op(other, "**", lambda a, b: a**b)

    def __rpow__(self, other: object) -> _Traced:
        return self._rop(other, "**", lambda a, b: a**b)

    def __neg__(self) -> _Traced:
        result = -self.real
        if type(result) is not float:
            raise _Untraceable("not a float")
        name = f"n{self.rec.count}"
        self.rec.count += 1
        self.rec.lines.append(f"{name} = -{self.rec.operand(self)}")
        return _Traced(self.rec, result, name)

    def __eq__(self, other: object) -> bool:
        return self._cmp(other, "==", lambda a, b: a == b)

    def __ne__(self, other: object) -> bool:
        return self._cmp(other, "!=", lambda a, b: a != b)

    def __lt__(self, other: object) -> bool:
        return self._cmp(other, "<", lambda a, b: a < b)

    def __le__(self, other: object) -> bool:
        return self._cmp(other, "<=", lambda a, b: a <= b)

    def __gt__(self, other: object) -> bool:
        return self._cmp(other, ">", lambda a, b: a > b)

    def __ge__(self, other: object) -> bool:
        return self._cmp(other, ">=", lambda a, b: a >= b)

    def __bool__(self) -> bool:
        return self._cmp(0.0, "!=", lambda a, b: a != b)

    def __float__(self) -> float:
        raise _Untraceable("float()")

    def __int__(self) -> int:
        raise _Untraceable("int()")

    def __index__(self) -> int:
        raise _Untraceable("index")

    def __format__(self, spec: str) -> str:
        raise _Untraceable("format")

    def __repr__(self) -> str:
        return f"_Traced({self.name}={self.real!r})"


def _traced_tokens(rec: _Recorder, tokens: list[Token]) -> list[Token]:
    out: list[Token] = []
    for index, token in enumerate(tokens):
        if token.kind is not Kind.NUM:
            out.append(token)
            continue
        traced: dict[str, Any] = {}
        for field in _FIELDS:
            name = f"t{index}{field[0]}"
            rec.loads[name] = (index, field)
            traced[field] = _Traced(rec, getattr(token, field), name)
        out.append(token._replace(**traced))
    return out


def _result(rec: _Recorder, value: Value) -> str:
    fields = ("v", "w", "a", "dims", "exact", "ulp", "sig", "why", "unit", "scale")
    args = [rec.operand(getattr(value, field)) for field in fields[:3]]
    for field in fields[3:]:
        item = getattr(value, field)
        if isinstance(item, _Traced):
            args.append(f"{field}={rec.operand(item)}")
        elif field == "dims" or type(item) in (float, int, bool, str, type(None)):
            args.append(f"{field}={rec.const(item)}")
        else:
            raise _Untraceable(f"{field} of type {type(item).__name__}")
    return f"V({', '.join(args[:3])}, {', '.join(args[3:])})"


def record(tokens: list[Token], sides: list[tuple[SideSpec, SideSpec]]) -> Replay | None:
    """Record a plan's sides as one compiled function (None when it cannot be replayed).

    Args:
        tokens: The plan's tokens, filled with some span's numbers.
        sides: For each link, its left and right side: the span and a function that
            evaluates it over a token list (the parser, or the chain folder).

    Returns:
        A function of the refilled tokens giving each link's side values, or None
        to say that this plan must always be parsed.
    """
    rec = _Recorder()
    traced = _traced_tokens(rec, tokens)
    results: list[str] = []
    try:
        for pair in sides:
            texts = []
            for side in pair:
                if side is None:
                    texts.append("None")
                    continue
                _, _, evaluate = side
                texts.append(_result(rec, evaluate(traced)))
            results.append(f"({texts[0]}, {texts[1]})")
    except _Untraceable:
        return None
    except Exception:  # noqa: BLE001 - a parse that fails here is parsed for real later
        return None
    named = [
        (index, token.text)
        for index, token in enumerate(tokens)
        if token.kind is Kind.NAME and any(char.isdigit() for char in token.text)
    ]
    loads = {name: rec.loads[name] for name in rec.used if name in rec.loads}
    # Token indices become slots, so that plans alike up to where their numbers
    # stand share one compiled function.
    indices = sorted({index for index, _ in loads.values()} | {index for index, _ in named})
    slots = {index: slot for slot, index in enumerate(indices)}

    def rename(match: re.Match[str]) -> str:
        return f"s{slots[int(match.group(1))]}{match.group(2)}"

    body = [
        f"if t[k[{slots[index]}]].text != {rec.const(text)}: return None" for index, text in named
    ]
    body += [
        f"s{slots[index]}{field[0]} = t[k[{slots[index]}]].{field}"
        for index, field in sorted(loads.values())
    ]
    body += [_LOAD_NAME.sub(rename, line) for line in rec.lines]
    body.append(_LOAD_NAME.sub(rename, f"return [{', '.join(results)}]"))
    source = "def replay(t, k, c, V):\n" + "".join(f"    {line}\n" for line in body)
    function = _COMPILED.get(source)
    if function is None:
        namespace: dict[str, Any] = {}
        exec(compile(source, "<napkin plan>", "exec"), namespace)  # noqa: S102 - generated here
        function = namespace["replay"]
        if len(_COMPILED) >= MAX_COMPILED:
            _COMPILED.clear()
        _COMPILED[source] = function
    consts = tuple(rec.consts)
    where = tuple(indices)

    def replay(new_tokens: list[Token]) -> list[tuple[Value | None, Value | None]] | None:
        try:
            result: list[tuple[Value | None, Value | None]] | None = function(
                new_tokens, where, consts, Value
            )
        except Exception:  # noqa: BLE001 - e.g. an overflow: parse, which handles it
            return None
        return result

    return replay
