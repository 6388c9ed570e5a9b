"""The answers format: one line per prompt, so a session can be scripted.

A script is plain UTF-8 text, read from ``--answers FILE`` or standard input.
Blank lines and lines starting with ``#`` are ignored. Each other line answers
the prompt in front of the learner:

=====================  ==============================================================
prompt                 line
=====================  ==============================================================
rate a recall          a key of the session's rating scale: ``1``-``4`` for
                       Again/Hard/Good/Easy (the default), or ``1``-``5`` on the
                       confidence scale (1-2 Again, 3 Hard, 4 Good, 5 Easy); or
                       a name, ``again``/``hard``/``good``/``easy`` (``a``/``h``/``g``/``e``)
multiple choice        the option letter, ``a`` to ``d`` (or its number, ``1`` to ``4``)
numeric answer         a number with its unit, ``3.6 ms`` (``3600 us`` is the same)
free-text answer       the answer on one line (``-`` for "no idea"), then a rating
                       line once the model answer is shown; an answer of several
                       lines goes between two lines holding only three double quotes
gauntlet rubric        the numbers of the key points covered, ``1 3`` or ``1,3``,
                       or ``all`` / ``none``
next in chain?         ``y``/``yes`` or ``n``/``no``
any prompt             ``skip`` (no review recorded), ``quit`` (end the session) or
                       ``undo`` (take back the last rating; its item is asked again)
=====================  ==============================================================

A digit means what the session's one scale says (the learner's ``rating_scale``
setting when it started): ``3`` is Good on Again/Hard/Good/Easy and Hard on the
confidence scale, for flashcards and questions alike. Names mean the same on both.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from enum import StrEnum

from sysdrill.errors import UsageError
from sysdrill.study.ratings import Rating, RatingScale, rating_on_scale

__all__ = [
    "BLOCK_FENCE",
    "AnswerScript",
    "Command",
    "command_of",
    "parse_rating",
    "parse_rubric",
    "parse_yes_no",
]


BLOCK_FENCE = '"""'
"""A line holding only this opens a multi-line answer, and the next such line closes it."""


class Command(StrEnum):
    """Words that mean the same at every prompt."""

    SKIP = "skip"
    """Leave the item without recording a review."""
    QUIT = "quit"
    """End the session; reviews already given stay recorded."""
    UNDO = "undo"
    """Take back the last rating of the session: its item is asked again."""


def command_of(text: str) -> Command | None:
    """Return the command a line spells (``skip``, ``quit``, ``q``, ``undo``), or None."""
    cleaned = text.strip().lower()
    if cleaned == "skip":
        return Command.SKIP
    if cleaned in ("quit", "q", "exit"):
        return Command.QUIT
    if cleaned == "undo":
        return Command.UNDO
    return None


class AnswerScript:
    """Answer lines from a file or standard input, one per prompt.

    Args:
        lines: The text's lines (a file object or a list of strings).
        name: What to call the source in error messages (``answers.txt``, ``<stdin>``).
    """

    def __init__(self, lines: Iterable[str], *, name: str = "<answers>") -> None:
        self._lines: Iterator[str] = iter(lines)
        self.name = name
        self.line_number = 0
        """Line number (1-based) of the line returned last; 0 before the first."""

    def next_line(self) -> str | None:
        """Return the next answer line stripped of its newline, or None at the end.

        Blank lines and ``#`` comments are passed over. A line holding only
        :data:`BLOCK_FENCE` opens a multi-line answer: the lines up to the next such
        line are returned as one answer, joined by newlines, blank lines and ``#``
        included (the line number is then the closing line's).

        Raises:
            UsageError: If the script ends inside a multi-line answer.
        """
        for raw in self._lines:
            self.line_number += 1
            line = raw.rstrip("\r\n").strip()
            if line == BLOCK_FENCE:
                return self._block()
            if line and not line.startswith("#"):
                return line
        return None

    def _block(self) -> str:
        opened = self.line_number
        body: list[str] = []
        for raw in self._lines:
            self.line_number += 1
            line = raw.rstrip("\r\n")
            if line.strip() == BLOCK_FENCE:
                return "\n".join(body).strip("\n")
            body.append(line.rstrip())
        raise UsageError(
            f"{self.name}:{opened}: The multi-line answer opened here is never closed; "
            f"end it with a line holding only {BLOCK_FENCE}."
        )

    def error(self, message: str) -> UsageError:
        """Build the error for a bad line, naming the source and line number."""
        return UsageError(f"{self.name}:{self.line_number}: {message}")


def parse_rating(text: str, scale: RatingScale = RatingScale.AGAIN_TO_EASY) -> Rating:
    """Read a rating line on the session's ``scale`` (see the module table).

    Raises:
        UsageError: If the line is no rating.
    """
    return rating_on_scale(text, scale)


_RUBRIC_SPLIT = re.compile(r"[\s,;]+")


def parse_rubric(text: str, count: int) -> frozenset[int]:
    """Read which rubric points were covered; returns 0-based indexes.

    Args:
        text: ``1 3``, ``1,3``, ``all`` or ``none`` (points are numbered from 1).
        count: Number of points in the rubric.

    Raises:
        UsageError: If a number is out of range or the line is not a list of numbers.
    """
    cleaned = text.strip().lower()
    if cleaned == "all":
        return frozenset(range(count))
    if cleaned in ("none", "0", "-"):
        return frozenset()
    chosen: set[int] = set()
    for part in _RUBRIC_SPLIT.split(cleaned):
        if not part.isdigit() or not 1 <= int(part) <= count:
            raise UsageError(
                f"Unknown rubric point {part!r}. List the points covered as numbers "
                f"from 1 to {count}, or write all or none."
            )
        chosen.add(int(part) - 1)
    return frozenset(chosen)


def parse_yes_no(text: str) -> bool:
    """Read a yes/no line (``y``, ``yes``, ``n``, ``no``).

    Raises:
        UsageError: For anything else.
    """
    cleaned = text.strip().lower()
    if cleaned in ("y", "yes"):
        return True
    if cleaned in ("n", "no"):
        return False
    raise UsageError(f"Unknown reply {text.strip()[:20]!r}: the replies are y (yes) and n (no).")
