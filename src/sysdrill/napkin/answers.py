"""Read a typed answer as a person reads it: ``about 7 GB, since fp16 is 2 bytes`` is 7 GB.

The rules (each measured on the labelled corpus of tests/data/grading, scored by
``bench/grading_accuracy.py``):

- the value is what an answer gives as its result: after the last ``=`` (a
  calculation, ``7B * 2 = 14 GB``), behind hedges and lead-ins (``about``,
  ``I think``, ``answer:``), before prose that follows it (``, since ...``,
  ``(bf16)``, ``of weights``, ``per GPU``);
- people's spellings: number words (``one million``, ``a third``, ``half a
  millisecond``, ``sixty-four``), unit names and plurals (``milliseconds``,
  ``terabytes``, ``GBs``, ``gigs``, ``gb``, ``TB/S``, ``3 d``, ``percent``),
  ``per`` for ``/``, a decimal comma (``3,6 ms``), ``1 << 20``, ``1/8 MiB``,
  ``1h 16m`` and ``1:16:40``;
- a range ``14-15 GB`` is read as its two ends;
- no value: a bound (``> 14 GB``, ``at least 140 GB``), two alternatives
  (``7 or 14 GB``) or text without a figure (``ms``, ``lots``) is unreadable, and
  the learner is asked again.

Reading in the expected unit: a bare number is in that unit; against a percentage
above 1 %, a bare number of at most 1 is a fraction (``0.33`` for 33 %); a count
the question implies may be left out or added (``1e6/day`` for requests per day,
``7 GB per GPU`` for 7 GB), as may a per-count denominator (``$1.80`` for
$1.8/GPU-hour), but never a per-time one (``170 GB`` is not 170 GB/s).
"""

from __future__ import annotations

import math
import re
from functools import cache

from sysdrill.errors import ExpressionSyntax, NapkinError, UnitMismatch
from sysdrill.napkin.expression import parse_unit
from sysdrill.napkin.quantity import is_plain, read_in_unit, read_quantity
from sysdrill.napkin.units import COUNT_DIMENSIONS, Dims, is_unit_spelling, unit_spellings
from sysdrill.napkin.values import TOO_LARGE

__all__ = ["read_answer", "typed_quantity_text"]

_HEDGE = re.compile(
    r"^(?:about|around|roughly|approximately|approx\.?|circa|ca\.)\s+", re.IGNORECASE
)
"""Words people put before an estimate ("about 128 KiB"); the number is read alone."""
_BOUND = re.compile(
    r"^(?:[<>≤≥⩽⩾]|(?:at\s+(?:least|most)|(?:more|less|fewer)\s+than|no\s+(?:more|less)\s+than"
    r"|over|under|above|below|up\s+to|min(?:imum)?|max(?:imum)?)\b)",
    re.IGNORECASE,
)
"""A bound, not a value (``> 14 GB``, ``at least 140 GB``): the learner is asked for one."""
_ALTERNATIVES = re.compile(r"\d[^,;(]*?\s(?:or|and/or)\s+[~≈]?\s*\$?\d", re.IGNORECASE)
"""Two values offered (``7 or 14 GB``): which one is the answer is not for the grader to pick."""
_THOUSANDS = re.compile(r"^([-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:e[-+]?\d+)?)\s*([kKMG])$")
"""A number with a bare multiplier, "128 k" or "1.2M"."""
_MULTIPLIERS = {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}
_SPACED_THOUSANDS = re.compile(r"^([-+~≈]?\s*\d{1,3})((?:[ \u00a0\u202f]\d{3})+)(?!\d)")
"""Digits grouped by spaces, "14 000 MB" (thin and no-break spaces too)."""
_DECIMAL_COMMA = re.compile(r"(?<![\d,.])(\d+),(\d{1,2})(?![\d,])")
"""``3,6 ms``: a comma before one or two digits is a decimal comma (before three, thousands)."""
_SCALE_WORDS = {"thousand": "e3", "million": "e6", "billion": "e9", "trillion": "e12"}
_SCALE_WORD = re.compile(r"(\d)\s*(thousand|million|billion|trillion)\b", re.IGNORECASE)
"""A count in words after a number, "14 billion bytes"."""
_SHIFT = re.compile(r"(\d+)\s*<<\s*(\d+)")
_FRACTION_OF_UNIT = re.compile(r"^([-+]?\d+(?:\.\d+)?)\s*/\s*(\d+(?:\.\d+)?)\s+(?=[A-Za-zµμ$])")
"""``1/8 MiB`` is an eighth of a MiB, not one per 8 MiB."""
_CLOCK = re.compile(r"^(\d+):([0-5]\d):([0-5]\d)$")
_HOURS_MINUTES = re.compile(
    r"^(\d+(?:\.\d+)?)\s*h(?:ours?|rs?)?\s*(\d+(?:\.\d+)?)\s*m(?:in(?:utes?|s)?)?"
    r"(?:\s*(\d+(?:\.\d+)?)\s*s(?:ec(?:onds?|s)?)?)?$",
    re.IGNORECASE,
)
_NUMBER = r"\$?\d[\d,]*\.?\d*(?:e[-+]?\d+)?"
_RANGE = re.compile(rf"^({_NUMBER})\s*(?:-|–|—|\bto\b)\s*({_NUMBER})(.*)$", re.IGNORECASE)
_WORD = re.compile(r"[A-Za-zµμ][A-Za-z]*(?![\d+-])")
_PER = re.compile(
    r"\s*\bper\s+cent\b|\s*\bper\s+([A-Za-z][\w-]*)(?:\s+([A-Za-z]\w*))?", re.IGNORECASE
)
_LEAD_WORD = re.compile(r"^([A-Za-z']+:?)\s+")

_ONES = "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
_TEENS = "fifteen sixteen seventeen eighteen nineteen"
_SMALL_NUMBERS = {word: n for n, word in enumerate(f"{_ONES} {_TEENS}".split())}
_TENS = {
    w: 10 * (n + 2)
    for n, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split())
}
_SCALES = {"hundred": 100.0, "thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}
_FRACTIONS = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4,
    "fifth": 5, "fifths": 5, "tenth": 10, "tenths": 10,
}  # fmt: skip
_ARTICLES = ("a", "an")
_NUMBER_WORDS = frozenset({*_SMALL_NUMBERS, *_TENS, *_SCALES, *_FRACTIONS})

_UNIT_WORDS = {
    "gig": "GB", "gigs": "GB", "d": "day", "percent": "%", "pct": "%",
    "usec": "us", "usecs": "us", "nsec": "ns", "nsecs": "ns", "msecs": "msec",
}  # fmt: skip
"""Spellings people type that the napkin notation does not read (it reads claims too)."""
_PREFIX_NAMES = {
    "kilo": "k", "mega": "M", "giga": "G", "tera": "T", "peta": "P",
    "kibi": "Ki", "mebi": "Mi", "gibi": "Gi", "tebi": "Ti",
    "milli": "m", "micro": "u", "nano": "n",
}  # fmt: skip
_BASE_NAMES = {"byte": "B", "bit": "bit", "second": "s", "flop": "FLOP"}
_LONG_UNIT = re.compile(rf"({'|'.join(_PREFIX_NAMES)})({'|'.join(_BASE_NAMES)})s?", re.IGNORECASE)


@cache
def _spellings_by_case() -> dict[str, tuple[str, ...]]:
    """Unit spellings grouped by their lower-case form (``gb`` -> ``GB``, ``Gb``)."""
    grouped: dict[str, list[str]] = {}
    for spelling in unit_spellings():
        grouped.setdefault(spelling.lower(), []).append(spelling)
    return {key: tuple(sorted(names)) for key, names in grouped.items()}


def _unit_word(word: str) -> str | None:
    """The napkin spelling of a unit as typed (``milliseconds`` -> ``ms``), or None."""
    if is_unit_spelling(word):
        return word
    lower = word.lower()
    if lower in _UNIT_WORDS:
        return _UNIT_WORDS[lower]
    long = _LONG_UNIT.fullmatch(lower)
    if long is not None:
        return _PREFIX_NAMES[long.group(1)] + _BASE_NAMES[long.group(2)]
    if word.endswith("s") and is_unit_spelling(word[:-1]):
        return word[:-1]  # "GBs"
    same = _spellings_by_case().get(lower, ())
    if len(same) > 1:
        # "gb" is a size far more often than a count of bits; "gbps" a link speed in bits.
        bits = lower.endswith("bps")
        same = tuple(name for name in same if ("B" in name) != bits) or same
    return same[0] if same else None


def _number_phrase(words: list[str]) -> tuple[float, int] | None:
    """The number that ``words`` open with when written out, and how many words it takes.

    ``one third`` is 1/3, ``three quarters`` 0.75, ``a million`` 1e6, ``half a``
    0.5 (of the unit that follows), ``one and a half`` 1.5, ``sixty four`` 64.
    """
    total, current, used, counted = 0.0, None, 0, False
    lowered = [word.lower() for word in words]
    while used < len(lowered):
        word = lowered[used]
        if word in _SMALL_NUMBERS or word in _TENS:
            current = (current or 0.0) + _SMALL_NUMBERS.get(word, _TENS.get(word, 0))
        elif word == "hundred":
            current = (current or 1.0) * 100
        elif word in _SCALES:
            total, current = total + (current or 1.0) * _SCALES[word], None
        elif word in _FRACTIONS:
            total, current = total + (current or 1.0) / _FRACTIONS[word], None
        elif lowered[used : used + 3] == ["and", "a", "half"] and counted:
            total, used = total + 0.5, used + 3
            continue
        elif word in _ARTICLES:
            if counted:
                used += 1  # "half a millisecond": the article of the unit
                break
            current = 1.0
        else:
            break
        counted = counted or word not in _ARTICLES
        used += 1
    if not used:
        return None
    if not counted:
        # "an hour" is one hour; "a lot" is no number.
        follows = words[used] if used < len(words) else ""
        if not follows or _unit_word(follows) is None:
            return None
    return total + (current or 0.0), used


def _spell_numbers(text: str) -> str:
    """``text`` with a number written out at its start in digits (``one million GB``)."""
    words = re.split(r"[\s-]+", text)
    found = _number_phrase(words)
    if found is None:
        return text
    value, used = found
    return " ".join([repr(value), *words[used:]])


def _per(match: re.Match[str]) -> str:
    if match.group(1) is None:
        return "%"
    first, second = match.group(1), match.group(2)
    if second and is_unit_spelling(f"{first}-{second}"):
        return f"/{first}-{second}"  # "per GPU hour"
    unit = _unit_word(first)
    if unit is None:
        return match.group(0)  # "per step" is prose
    return f"/{unit}" + (f" {second}" if second else "")


def typed_quantity_text(text: str) -> str:
    """``text`` in the napkin notation: number words as digits, units as it spells them.

    ``one million requests per day`` -> ``1000000.0 requests/day``; ``3,6
    milliseconds`` -> ``3.6 ms``; ``1 << 20`` -> ``(1*2^20)``. Text it cannot
    improve is returned as it is.
    """
    text = _SCALE_WORD.sub(lambda m: m.group(1) + _SCALE_WORDS[m.group(2).lower()], text)
    text = _spell_numbers(text)
    text = _PER.sub(_per, text)
    text = _WORD.sub(lambda m: _unit_word(m.group(0)) or m.group(0), text)
    text = _DECIMAL_COMMA.sub(r"\1.\2", text)
    text = _SPACED_THOUSANDS.sub(lambda m: m.group(1) + re.sub(r"\s", "", m.group(2)), text)
    text = _SHIFT.sub(r"(\1*2^\2)", text)
    text = _FRACTION_OF_UNIT.sub(r"(\1/\2) ", text)
    duration = _CLOCK.match(text) or _HOURS_MINUTES.match(text)
    if duration is not None:
        hours, minutes, seconds = (float(part or 0) for part in duration.groups())
        return f"{hours * 3600 + minutes * 60 + seconds!r} s"  # "1:16:40", "1h 16m"
    return text


def _result(text: str) -> str:
    """What an answer gives as its value: behind ``=``, hedges and lead-in words."""
    text = text.strip().rstrip(" .!?;,")
    for sign in ("=", "≈"):
        head, found, tail = text.rpartition(sign)
        if found and head.strip() and tail.strip():
            text = tail.strip()
    for _ in range(4):
        text = _HEDGE.sub("", text).strip()
        lead = _LEAD_WORD.match(text)
        if lead is None or _BOUND.match(text):
            break
        word = lead.group(1).rstrip(":").lower()
        if word in _NUMBER_WORDS or word in _ARTICLES or _unit_word(word) is not None:
            break
        text = text[lead.end() :]  # "I think", "it's", "answer:"
    return text


def _bare_multiplier(text: str, *, unit_dims: Dims, one_unit: float) -> float | None:
    """``128 k`` in the unit: thousands of bytes against a size, else of the unit itself."""
    bare = _THOUSANDS.match(text)
    if bare is None:
        return None
    number = float(bare.group(1).replace(",", "")) * _MULTIPLIERS[bare.group(2)]
    if not math.isfinite(number):  # "1e400 k": refused as the parser refuses "1e400"
        raise ExpressionSyntax(f"{TOO_LARGE}: {bare.group(1)}")
    if unit_dims == (("information", 1),):
        # "128 k" against KiB is 128 thousand bytes: the multiplier scales the base unit.
        return number / one_unit
    return number


def _without_counts(dims: Dims) -> tuple[Dims, Dims]:
    """``dims`` split into its other dimensions and its counts (GPUs, tokens, requests)."""
    other = tuple(d for d in dims if d[0] not in COUNT_DIMENSIONS)
    return other, tuple(d for d in dims if d[0] in COUNT_DIMENSIONS)


def _read_one(text: str, *, unit: str, expected_value: float) -> float:
    """One typed value in ``unit``, or NapkinError (UnitMismatch when of another kind)."""
    one_unit, unit_dims = parse_unit(unit) if unit else (1.0, ())
    bare = _bare_multiplier(text, unit_dims=unit_dims, one_unit=one_unit)
    if bare is not None:
        return bare
    if unit == "%" and expected_value > 1 and is_plain(text):
        number = read_quantity(text)
        if not number.dims and abs(number.v) <= 1:
            return number.v * 100  # "0.33" for 33 %: the fraction
    try:
        return read_in_unit(text, unit=unit, plain_in_unit=True)
    except UnitMismatch:
        value = read_quantity(text)
        other, counts = _without_counts(value.dims)
        want_other, want_counts = _without_counts(unit_dims)
        if other == want_other and (
            set(counts) <= set(want_counts) or set(want_counts) <= set(counts)
        ):
            return value.v / one_unit  # a count the question implies, left out or added
        numerator, slash, denominator = unit.rpartition("/")
        if slash and numerator.strip() and _without_counts(parse_unit(denominator)[1])[1]:
            return read_in_unit(text, unit=numerator.strip())  # "$1.80" for $1.8/GPU-hour
        raise


_COUNTED = re.compile(r"[a-z]{4,}")
"""A noun a plain number may count ("steps", "images"): a lowercase word of four letters
or more, so a unit mistyped after a figure ("12 msx", "7 GBB") is still a typo."""


def _prose_cuts(text: str, *, plain_expected: bool) -> list[str]:
    """Shorter readings of ``text`` when prose follows the value, best first.

    Against a plain number (``plain_expected``) a bare figure may be kept before a
    noun that counts it: "781 steps", "8192 images".
    """
    cuts = []
    head = re.split(r"[;(]|,\s", text, maxsplit=1)[0].strip()
    if head and head != text:
        cuts.append(head)
    words = head.split()
    for count in range(len(words) - 1, 0, -1):
        kept, next_word = " ".join(words[:count]), words[count]
        # Only words that are no unit may be dropped, and the value kept must say its
        # unit when one is expected: "7 GBB" is a typo, not 7 and a word.
        if (
            _unit_word(next_word) is None
            and next_word[0] not in "/*^"
            and (not is_plain(kept) or (plain_expected and _COUNTED.fullmatch(next_word)))
        ):
            cuts.append(kept)
    return cuts


def _read_value(text: str, *, unit: str, expected_value: float) -> float:
    try:
        return _read_one(text, unit=unit, expected_value=expected_value)
    except NapkinError as exc:
        for cut in _prose_cuts(text, plain_expected=not unit.strip()):
            try:
                return _read_one(cut, unit=unit, expected_value=expected_value)
            except NapkinError:
                continue
        raise exc from None


def read_answer(given: str, *, unit: str, expected_value: float) -> tuple[float, float]:
    """Read a typed answer as a value in ``unit``, or the two ends of a range.

    Args:
        given: What the learner typed.
        unit: The expected unit (``""`` for a pure number).
        expected_value: The expected value in ``unit`` (a bare fraction is read as
            a percentage only against a percentage above 1 %).

    Returns:
        The lowest and highest value the answer gives, in ``unit``; equal unless it
        is a range (``14-15 GB``).

    Raises:
        ExpressionSyntax: The answer gives no value (no figure, a bound, two
            alternatives, a typo).
        UnitMismatch: The value is of another kind than ``unit``.
    """
    text = _result(given)
    if _BOUND.match(text) or _ALTERNATIVES.search(text):
        raise ExpressionSyntax(f"{given.strip()!r} gives no single value")
    text = typed_quantity_text(text)
    if not re.search(r"\d", text):
        raise ExpressionSyntax(f"no figure in {given.strip()!r}")
    span = _RANGE.match(text)
    if span is not None:
        low_text, high_text, rest = span.groups()
        low = _read_value(low_text + rest, unit=unit, expected_value=expected_value)
        high = _read_value(high_text + rest, unit=unit, expected_value=expected_value)
        return min(low, high), max(low, high)
    value = _read_value(text, unit=unit, expected_value=expected_value)
    return value, value
