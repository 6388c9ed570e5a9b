r"""Read the subset of EDN that Mochi's ``data.edn`` uses, into plain Python values.

EDN (Clojure's data notation) maps become dicts, vectors and lists become
lists, sets become lists too (in source order, repeats dropped), keywords
become their name without the colon (``:parent-id`` is ``"parent-id"``),
strings, integers, floats, ``true``, ``false`` and ``nil`` become the
obvious values, and a tagged value such as ``#inst "2024-01-01"`` or
``#uuid "..."`` becomes the value after the tag. Commas are whitespace,
``;`` starts a comment and ``#_`` discards the next form. Character
literals (``\a``) and symbols become strings.

``edn-format``, the EDN package in our package index, was not adopted: it
brings a parser generator (ply) and date libraries with it, and returns its
own keyword and immutable collection types that we would convert back to
plain values anyway. Mochi writes a small, regular subset, so this reader is
ours: an iterative parser (an explicit stack, so deep nesting cannot exhaust
Python's recursion) that stops at :data:`MAX_DEPTH` levels. It was not
measured against ``edn-format``.
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["MAX_DEPTH", "EdnError", "read_edn"]

MAX_DEPTH = 256
"""Deepest nesting of collections accepted; Mochi's data is a few levels deep."""

_ATOM = re.compile(r"[^\s,()\[\]{}\";]+")
_INT = re.compile(r"[+-]?\d+N?")
_FLOAT = re.compile(r"[+-]?\d+(?:\.\d*)?(?:[eE][+-]?\d+)?M?")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", '"': '"', "\\": "\\", "b": "\b", "f": "\f"}
_CHARACTERS = {"newline": "\n", "space": " ", "tab": "\t", "return": "\r"}
_CLOSERS = {"(": ")", "[": "]", "{": "}", "#{": "}"}


class EdnError(ValueError):
    """The text is not EDN this reader understands; the message names the offset."""


def _string(text: str, start: int) -> tuple[str, int]:
    out: list[str] = []
    pos = start + 1
    while True:
        end = text.find('"', pos)
        slash = text.find("\\", pos)
        if end < 0:
            raise EdnError(f"unterminated string starting at offset {start}")
        if 0 <= slash < end:
            out.append(text[pos:slash])
            code = text[slash + 1 : slash + 2]
            if code == "u":
                try:
                    out.append(chr(int(text[slash + 2 : slash + 6], 16)))
                except ValueError as exc:
                    raise EdnError(f"bad \\u escape at offset {slash}") from exc
                pos = slash + 6
            else:
                out.append(_ESCAPES.get(code, code))
                pos = slash + 2
            continue
        out.append(text[pos:end])
        return "".join(out), end + 1


def _atom(token: str) -> Any:
    if token == "nil":
        return None
    if token == "true":
        return True
    if token == "false":
        return False
    if token.startswith(":"):
        return token[1:]
    if _INT.fullmatch(token):
        return int(token.rstrip("N"))
    if _FLOAT.fullmatch(token):
        return float(token.rstrip("M"))
    if token.startswith("\\"):
        return _CHARACTERS.get(token[1:], token[1:])
    return token


def _close(kind: str, items: list[Any], offset: int) -> Any:
    if kind == "{":
        if len(items) % 2:
            raise EdnError(f"map ending at offset {offset} has a key without a value")
        result: dict[Any, Any] = {}
        for key, value in zip(items[::2], items[1::2], strict=True):
            plain = key is None or isinstance(key, str | int | float | bool)
            result[key if plain else repr(key)] = value
        return result
    if kind == "#{":
        unique: list[Any] = []
        for item in items:
            if item not in unique:
                unique.append(item)
        return unique
    return items


def read_edn(text: str) -> Any:
    """Parse one EDN value (the first top-level form of ``text``).

    Args:
        text: The EDN text.

    Returns:
        Plain Python values as described in the module docstring.

    Raises:
        EdnError: If the text is malformed, nests deeper than
            :data:`MAX_DEPTH`, or holds no value.
    """
    # Each frame: (opening kind, items so far, pending tag/discard markers).
    stack: list[tuple[str, list[Any]]] = [("top", [])]
    discard: list[int] = []
    """Stack depths at which the next completed form is dropped (``#_``)."""
    pos, length = 0, len(text)

    def emit(value: Any) -> None:
        if discard and discard[-1] == len(stack):
            discard.pop()
            return
        stack[-1][1].append(value)

    while pos < length:
        char = text[pos]
        if char in " \t\r\n,":
            pos += 1
        elif char == ";":
            end = text.find("\n", pos)
            pos = length if end < 0 else end + 1
        elif char == '"':
            value, pos = _string(text, pos)
            emit(value)
        elif char in "([{" or text.startswith("#{", pos):
            kind = "#{" if char == "#" else char
            if len(stack) > MAX_DEPTH:
                raise EdnError(f"nesting deeper than {MAX_DEPTH} levels at offset {pos}")
            stack.append((kind, []))
            pos += len(kind)
        elif char in ")]}":
            kind, items = stack.pop() if len(stack) > 1 else ("top", [])
            if _CLOSERS.get(kind) != char:
                raise EdnError(f"unexpected '{char}' at offset {pos}")
            emit(_close(kind, items, pos))
            pos += 1
        elif text.startswith("#_", pos):
            discard.append(len(stack))
            pos += 2
        elif char == "#":
            # A tagged literal (#inst, #uuid, #mochi/x): the tag is dropped and
            # the value after it stands for the whole form.
            match = _ATOM.match(text, pos + 1)
            pos = pos + 1 + (len(match.group()) if match else 0)
        else:
            match = _ATOM.match(text, pos)
            if match is None:  # pragma: no cover - every other character starts an atom
                raise EdnError(f"unexpected '{char}' at offset {pos}")
            emit(_atom(match.group()))
            pos = match.end()
        if len(stack) == 1 and stack[0][1]:
            return stack[0][1][0]
    if len(stack) > 1:
        raise EdnError(f"'{stack[-1][0]}' opened but never closed")
    raise EdnError("holds no value")
