r"""Normalise napkin-math text (LaTeX, Unicode, Markdown) and split it into tokens.

Normalising first means the parser sees one notation: ``\times``, ``·`` and a
spaced ``x`` all become ``×``; ``6×10⁻⁵`` becomes ``6e-5``; ``$...$`` math
delimiters and ``**bold**`` markers disappear, while a ``$`` that prices
something (``$3.50/GPU-hour``) stays.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from enum import Enum
from functools import lru_cache
from typing import NamedTuple

from sysdrill.content.latex_text import LatexStyle, latex_to_text
from sysdrill.napkin.notation import rewrite_operands
from sysdrill.napkin.units import is_unit_spelling

__all__ = ["Kind", "Token", "digits_change", "normalize", "refill", "scan", "shape_of", "tokenize"]

_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
_CHAR_MAP = str.maketrans(
    {
        "−": "-",
        "–": "-",
        "‑": "-",
        "·": "×",
        "⋅": "×",
        "∙": "×",
        "✕": "×",
        "÷": "/",
        "≃": "≈",
        "≅": "≈",
        "∼": "~",
        "\u00a0": " ",
        "\u2009": " ",
        "\u202f": " ",
        "—": ";",
        "’": "'",
        "⇒": "→",
        "⟹": "→",
        "⟶": "→",
        "⇨": "→",
        "≦": "≤",
        "≧": "≥",
    }
)
_MAPPED_CHAR = re.compile("[" + re.escape("".join(chr(code) for code in _CHAR_MAP)) + "]")
"""Any character :data:`_CHAR_MAP` rewrites: translating a line costs more than looking."""
_SUPER_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")
_SUB_RUN = re.compile(r"[₀₁₂₃₄₅₆₇₈₉]+")
_UNICODE_REWRITE = re.compile(
    "[" + re.escape("".join(chr(code) for code in _CHAR_MAP)) + "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺₀₁₂₃₄₅₆₇₈₉]"
)
"""Any character the three Unicode rewrites change: most lines that are not ASCII hold
only ``×`` or ``≈``, and one look costs less than three passes."""
# The exponent may be in parentheses (superscripts become "^(6)"); a ")" after a bare
# exponent closes an outer group ("(55 × 10^6)") and stays. A mantissa that is itself an
# exponent ("10^9 × 10^3", as "10⁹ × 10³" is written) is no mantissa: that is a product.
_SCI = re.compile(
    r"(?<![\d.^])(?<!\^[-+])(\d+(?:\.\d+)?)\s*(?:×|\*|x)\s*10\s*\^"
    r"\s*(?:\(\s*([-+]?\d+)\s*\)|([-+]?\d+))(?![\d.])"
)
_WHOLE_POWER = re.compile(r"\^\(\s*(?:\+\s*)?(-?)\s*(\d+)\s*\)(?!\w|\.\d)")
"""A whole-number exponent in parentheses (``^(2)``, ``^(-1)``), as superscripts and
``^{2}`` are first written: unwrapped to the typed form ``^2``, so that a power after a
unit squares the unit (``cm²``, ``\\text{cm}^{2}`` read as ``cm^2``), not the quantity.
A digit or letter right after it (``2²3``, ``m²s``) keeps the parentheses, lest the
exponent grow to ``23`` or take ``s`` for its unit."""
_MATH_DOLLAR = re.compile(r"(?<![\\$])\$(?=[^\s$])([^$\n]*?[^\s\\$])\$(?!\d)")
_POWER_GROUP = re.compile(r"\^\{([^{}]*)\}")
_INDEX_GROUP = re.compile(r"_\{([^{}]*)\}")
_BOLD = re.compile(r"\*\*(?!\d)|(?<!\d)\*\*|__|`")
_POWER_STARS = re.compile(r"\d\*\*\d")
"""A Python power between digits (``2**16``), the one ``**`` that :data:`_BOLD` keeps."""
_STRUCK = re.compile(r"~~[^~]*~~")
_ASCII_ARROW = re.compile(r"-+>|(?<![<>!=])=>")
_DECIMAL_COMMA = re.compile(r"(?<![\d,.])(\d{1,3}),(\d{1,2}|\d{4,})(?![\d,])")
_DECIMAL_COMMA_GATE = re.compile(r",(?:\d{1,2}|\d{4,})(?![\d,])")
"""What follows the comma of every :data:`_DECIMAL_COMMA` match: a pattern that starts
with its literal comma is found far faster than one that starts with a look-behind."""
_USD = re.compile(r"\bUSD\s*(?=\d)")
_POINTS = re.compile(r"(\d)\s*(?:pp|p\.p\.|percentage points?|%-points?)(?![\w])")
_POINTS_GATE = re.compile(r"\dpp|\d pp")
_OPS_COUNT = re.compile(r"\b([kKMGTP]?)(?:OP|Op)(s?)\b")
_FRACTION_OF = re.compile(r"(?<![\w.,/])(\d+\s*/\s*\d+)\s+of\s+(?=[\d$(])")
_TO_RANGE = re.compile(
    r"(?<![\w.,])(\d+(?:\.\d+)?)([KMBT]?)\s+to\s+(\d+(?:\.\d+)?)(?=[KMBT]?(?![\w.,]))"
)
_FRACTION_GATE = re.compile(r"/\s*\d+\s+of\s")
_NINES = re.compile(r"\b([2-9]) nines\b")
_SCALE_AFTER_NUMBER = re.compile(r"(\d)\s+(thousand|million|billion|trillion)\b", re.IGNORECASE)
"""``$3.84 million``, ``10 billion x``: a scale word after digits is a magnitude suffix."""
_RATIO = re.compile(r"(?<=[\d)]) : (?=[\d(])")
"""``2.0 : 0.6 = 3.33 : 1``: a spaced colon between numbers is a ratio, read as a quotient."""
_SCALE_SUFFIX = {"thousand": "K", "million": "M", "billion": "B", "trillion": "T"}
_LATEX_MICRO = re.compile(r"(?<![A-Za-z])(µ) (?=[A-Za-z])")
"""``\\mu s`` as pylatexenc writes it (``µ s``): the micro sign and its unit rejoined."""
_WATT_SECONDS = re.compile(r"(?<=[\d\s])([mkµuμ]?)Ws\b")
"""``10 mWs`` is milliwatt-seconds: a watt-second is a joule, so it reads as ``10 mJ``."""
_ONE_TO_TWELVE = "one two three four five six seven eight nine ten eleven twelve".split()
_WORD_NUMBERS = {word: number for number, word in enumerate(_ONE_TO_TWELVE, 1)}
_WORD_NUMBERS |= {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60}
_WORD_NUMBERS |= {"hundred": 100, "a": 1, "an": 1}
_WORD_SCALES = {"dozen": 12, "hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_WORD_FRACTIONS = {
    "half": "1/2",
    "third": "1/3",
    "thirds": "1/3",
    "quarter": "1/4",
    "quarters": "1/4",
}
_COUNT_WORD = "|".join(w for w in _WORD_NUMBERS if w not in ("a", "an"))
# "two replicas", "a dozen nodes", "ten thousand steps", "half of", "three quarters of",
# "one-third of": number words that start an operand (a word alone, "one pass over
# the data", stays prose because only a following unit, label or "of" makes it one).
# The lookahead names every word's first letter: most word starts fail on it, before
# the engine tries each alternative in turn.
_NUMBER_WORDS = re.compile(
    r"\b(?=[otfsenha])"
    rf"(?:(?P<count>{_COUNT_WORD}|a|an)[ -](?P<part>half|thirds?|quarters?)\s+of\s+"
    rf"|(?P<half>half)\s+of\s+"
    rf"|(?P<lead>{_COUNT_WORD}|a|an)(?:[ -](?P<scale>dozen|hundred|thousand|million|billion))?"
    rf"(?=\s+(?!of\b|the\b|or\b|and\b|nines\b)[A-Za-z$])"
    rf"|(?P<bare>{_COUNT_WORD})(?=\s+nines\b))",
    re.IGNORECASE,
)


_WORD_GATE = frozenset(
    spelling
    for word in [
        *(w for w in _WORD_NUMBERS if w not in ("a", "an")),
        *_WORD_SCALES,
        *_WORD_FRACTIONS,
        *(f"{w}-{part}" for w in _WORD_NUMBERS for part in _WORD_FRACTIONS),
    ]
    for spelling in (word, word.capitalize(), word.upper())
)
"""Words without which a line holds no number word (a cheap test before the regex)."""


def _number_word(match: re.Match[str]) -> str:
    groups = match.groupdict()
    if groups["half"]:
        return "(1/2) × "
    if groups["part"]:
        count = _WORD_NUMBERS[groups["count"].lower()]
        numerator, _, denominator = _WORD_FRACTIONS[groups["part"].lower()].partition("/")
        return f"({count * int(numerator)}/{denominator}) × "
    if groups["bare"]:
        return str(_WORD_NUMBERS[groups["bare"].lower()])
    lead = groups["lead"].lower()
    scale = groups["scale"]
    if lead in ("a", "an") and not scale:
        return match.group(0)  # "a GPU", "an hour": an article, not a count
    value = _WORD_NUMBERS[lead] * (_WORD_SCALES[scale.lower()] if scale else 1)
    return str(value)


def _scale_suffix(match: re.Match[str]) -> str:
    return match.group(1) + _SCALE_SUFFIX[match.group(2).lower()]


def _to_range(match: re.Match[str]) -> str:
    """``4 to 8 nodes`` as the range ``4-8 nodes`` (rising only: a range reads low-high)."""
    low, suffix, high = match.groups()
    if float(low) < float(high) or suffix:
        return f"{low}{suffix}-{high}"
    return match.group(0)


def _nines(match: re.Match[str]) -> str:
    """``5 nines`` availability as a percentage (99.999%)."""
    count = int(match.group(1))
    return f"{100 - 10.0 ** (2 - count):.{count - 2}f}%"


def _latex(text: str) -> str:
    """Rewrite the LaTeX commands napkin math uses into plain notation.

    A line without a backslash only has braces to read (``2^{10}``), which a
    LaTeX parse would cost time for; the rest goes through pylatexenc.
    """
    if "\\" in text:
        text = latex_to_text(text, style=LatexStyle.NOTATION)
        # "5\,\mu s": a macro's trailing space is not the author's; the unit is "µs".
        return _LATEX_MICRO.sub(r"\1", text) if "µ " in text else text
    text = _POWER_GROUP.sub(r"^(\1)", text)
    text = _INDEX_GROUP.sub(lambda m: "_" + m.group(1).replace(" ", ""), text)
    return text.replace("{", "").replace("}", "")


def normalize(line: str) -> str:
    """Rewrite one line into the plain notation the tokenizer reads.

    Args:
        line: A line of Markdown, plain text or LaTeX.

    Returns:
        The line with math delimiters, bold markers and LaTeX commands removed,
        Unicode operators and superscripts replaced, and ``a × 10^b`` written as
        ``aeb``.
    """
    text = line
    if "~~" in text:
        text = _STRUCK.sub(" ", text)  # struck through: the author's own correction
    if ">" in text:
        text = _ASCII_ARROW.sub("→", text)
    if "," in text and _DECIMAL_COMMA_GATE.search(text) is not None:
        text = _DECIMAL_COMMA.sub(r"\1.\2", text)
    if "$" in text:
        text = text.replace("$$", " ")
        text = _MATH_DOLLAR.sub(lambda m: m.group(1), text)
    if "\\" in text or "{" in text:
        text = _latex(text)
    if "**" in text or "__" in text or "`" in text:  # every way _BOLD can match
        if _POWER_STARS.search(text) is None:
            # No "**" between digits: _BOLD removes every "**", "__" and backtick,
            # which plain replaces do for less.
            text = text.replace("**", " ").replace("__", " ").replace("`", " ")
        else:
            text = _BOLD.sub(" ", text)
    if not text.isascii() and _UNICODE_REWRITE.search(text) is not None:
        if _MAPPED_CHAR.search(text) is not None:
            text = text.translate(_CHAR_MAP)
        text = _SUPER_RUN.sub(lambda m: "^(" + m.group(0).translate(_SUPERSCRIPTS) + ")", text)
        text = _SUB_RUN.sub(lambda m: "_" + m.group(0).translate(_SUBSCRIPTS), text)
    if "^(" in text:
        text = _WHOLE_POWER.sub(r"^\1\2", text)
    if "10" in text and "^" in text:  # _SCI needs both (superscripts are "^" by now)
        text = _SCI.sub(lambda m: f"{m.group(1)}e{m.group(2) or m.group(3)}", text)
    return _words(text)


def _words(text: str) -> str:
    """Rewrite the words napkin math uses for numbers and units into notation."""
    if "USD" in text:
        text = _USD.sub("$", text)
    if ("pp" in text and _POINTS_GATE.search(text)) or "point" in text or "p.p." in text:
        text = _POINTS.sub(r"\1%", text)
    if "OPs" in text or "Ops" in text:
        text = _OPS_COUNT.sub(r"\1FLOP\2", text)
    if " to " in text:
        text = _TO_RANGE.sub(_to_range, text)
    if "/" in text and _FRACTION_GATE.search(text):
        text = _FRACTION_OF.sub(r"(\1) × ", text)
    if "illion" in text or "thousand" in text:
        text = _SCALE_AFTER_NUMBER.sub(_scale_suffix, text)
    if not _WORD_GATE.isdisjoint(text.split()):
        text = _NUMBER_WORDS.sub(_number_word, text)
    if " : " in text:
        text = _RATIO.sub(" / ", text)
    text = rewrite_operands(text)
    if "Ws" in text:
        text = _WATT_SECONDS.sub(r"\1J", text)
    if "nines" in text:
        text = _NINES.sub(_nines, text)
    return text


class Kind(Enum):
    """Token kinds."""

    NUM = "num"
    """A number literal (``65,536``, ``1.5e-7``, ``70B`` with its magnitude suffix)."""
    NAME = "name"
    """An identifier, unit spelling, function or model name."""
    OP = "op"
    """An arithmetic operator: ``+ - × / ^``."""
    LP = "("
    RP = ")"
    REL = "rel"
    """A claim relation: ``=``, ``≈``, ``~``."""
    CMP = "cmp"
    """A comparison or arrow that ends a chain: ``<``, ``≥``, ``→``, ``≠``, ``±``."""
    PCT = "%"
    DOLLAR = "$"
    COMMA = ","
    SQRT = "√"
    PUNCT = "punct"
    """Anything else; ends an expression."""


# The kinds as module constants, which the checker reads instead of ``Kind.NUM``: on
# Python 3.11 a member read through its enum class takes the slow road of
# ``EnumType.__getattr__`` (ten times a global's cost), and a line costs hundreds of reads.
NUM, NAME, OP, LP, RP, REL = Kind.NUM, Kind.NAME, Kind.OP, Kind.LP, Kind.RP, Kind.REL
CMP, PCT, DOLLAR, COMMA = Kind.CMP, Kind.PCT, Kind.DOLLAR, Kind.COMMA
SQRT, PUNCT = Kind.SQRT, Kind.PUNCT


class Token(NamedTuple):
    """One token of a normalised line.

    Tokens are immutable: a claim plan's tokens are shared by every thread that
    reuses the plan, and :func:`refill` makes new tokens instead of changing them.

    Attributes:
        kind: Token kind.
        text: The text as written (``"x"`` for a spaced times, ``"65,536"``).
        start: Offset of the first character in the normalised line.
        end: Offset after the last character.
        space_before: Whether whitespace precedes the token.
        value: For NUM: the number with its magnitude suffix applied.
        alt: For NUM: the value with a 1024-based suffix (``16K`` = 16384).
        exact: For NUM: an integer written in full (no decimals, exponent or suffix).
        ulp: For NUM: one unit in the last written significant digit.
        sig: For NUM: count of significant digits written.
        unit: For NUM: a unit spelling glued to the number (``100MB``).
        piece: Index of the scanned piece it came from (see :func:`scan`).
    """

    kind: Kind
    text: str
    start: int
    end: int
    space_before: bool
    value: float = 0.0
    alt: float = 0.0
    exact: bool = False
    ulp: float = 0.0
    sig: int = 0
    unit: str = ""
    piece: int = -1


_make_token = tuple.__new__
"""``_make_token(Token, fields)``: a token from all twelve fields, without the Python-level
NamedTuple constructor (what ``Token(*fields)`` gives, for a fraction of the cost)."""

# "G" is giga on a bare number ("0.5G / 200T"): authors write it for FLOP counts and rates.
_SUFFIXES = {"K": 1e3, "k": 1e3, "M": 1e6, "B": 1e9, "G": 1e9, "T": 1e12}
_ALT_SUFFIXES = {
    "K": 2.0**10,
    "k": 2.0**10,
    "M": 2.0**20,
    "B": 2.0**30,
    "G": 2.0**30,
    "T": 2.0**40,
}

_NUM = r"(?:(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:\.\d+)?(?:[eE][-+]?\d+(?![A-Za-z]))?|\.\d+)"
_GLUE = r"(?:[A-Za-zµμ°_](?:[\w°µμ]|\.\d)*(?:-(?!\d)\w+)*|-[A-Za-z]\w*(?:-\w+)*)"
_NAME = r"[A-Za-zµμ°_π][\w°µμ']*(?:-(?:[A-Za-z]\w*|\d+[A-Za-z]\w*|\d+(?=-)))*"
# One pattern without groups, so findall returns the pieces at C speed.
_PIECES = re.compile(
    rf"\s*(?:{_NUM}{_GLUE}?|{_NAME}|≈|=~|~=|==|!=|<=|>=|->|=>|<<|>>|\*\*|\S)",
)
_NUM_GLUE = re.compile(rf"({_NUM})({_GLUE})?$")
_CMP_RELS = {"==", "!="}
_RELATION_SPELLINGS = {"=~": "≈", "~=": "≈", "<=": "≤", ">=": "≥", "<<": "≪", ">>": "≫"}
_SYMBOL_KINDS: dict[str, Kind] = {
    "(": LP,
    "[": LP,
    ")": RP,
    "]": RP,
    "%": PCT,
    "$": DOLLAR,
    ",": COMMA,
    "√": SQRT,
    "=": REL,
    "~": REL,
    "≈": REL,
    "=~": REL,
    "~=": REL,
    "**": OP,
    "+": OP,
    "-": OP,
    "×": OP,
    "*": OP,
    "/": OP,
    "^": OP,
    "@": OP,
    **dict.fromkeys(("<", ">", "≤", "≥", "→", "≪", "≫", "<=", ">=", "<<", ">>"), REL),
    **dict.fromkeys(("≠", "±", "∞"), CMP),
    **dict.fromkeys(_CMP_RELS, CMP),
}


def _number(text: str) -> tuple[float, bool, float, int]:
    """Value, exactness, ulp and significant digits of a number literal."""
    plain = text.replace(",", "")
    mantissa, _, exponent = plain.lower().partition("e")
    value = float(plain)
    try:
        scale = 10.0 ** int(exponent) if exponent else 1.0
    except OverflowError:  # 6e610: float() already says inf, and so does the ulp
        scale = math.inf
    if "." in mantissa:
        whole, frac = mantissa.split(".")
        digits = (whole + frac).lstrip("0")
        ulp = 10.0 ** -len(frac)
        sig = len(digits) or 1
    else:
        stripped = mantissa.rstrip("0")
        zeros = len(mantissa) - len(stripped) if stripped else 0
        # Past 308 zeros the value is inf as well, and refused as too large later on.
        ulp = 10.0**zeros if zeros <= 308 else math.inf
        sig = len(stripped.lstrip("0")) or 1
    exact = not exponent and "." not in mantissa
    return value, exact, ulp * scale, sig


_Literal = tuple[float, float, bool, float, int, str] | None


@lru_cache(maxsize=16384)
def _literal(raw: str) -> _Literal:
    """(value, 1024-based value, exact, ulp, sig, unit) of a number piece; None for a name."""
    match = _NUM_GLUE.match(raw)
    if match is None:  # pragma: no cover - the scanner only sends numbers here
        return None
    number, glue = match.group(1), match.group(2)
    value, exact, ulp, sig = _number(number)
    if not glue:
        return value, value, exact, ulp, sig, ""
    factor, alt_factor, unit, is_name = _glue(glue)
    if is_name:
        return None
    if factor != 1.0:
        return value * factor, value * alt_factor, False, ulp * factor, sig, unit
    return value, value, exact and bool(unit), ulp, sig, unit


def scan(text: str) -> list[str]:
    """Split text into pieces, each a token with the whitespace before it."""
    return _PIECES.findall(text)


def tokenize(text: str, offset: int = 0, pieces: list[str] | None = None) -> list[Token]:
    """Split a normalised line into tokens.

    A number glued to letters is a number with a unit (``100MB``), with a
    magnitude suffix (``70B``, ``16K``) or both (``1.4Ttokens``); any other glue
    (``15N``, ``8x22B``, ``1F1B``, ``8-bit``) makes a name, never arithmetic.

    Args:
        text: Output of :func:`normalize` (or a span of it).
        offset: Added to token positions (the span's start in the line).
        pieces: ``scan(text)``, when the caller has it already.

    Returns:
        The tokens, whitespace dropped (recorded in ``space_before``).
    """
    tokens: list[Token] = []
    append = tokens.append
    start = offset
    name, num = NAME, NUM
    for index, piece in enumerate(_PIECES.findall(text) if pieces is None else pieces):
        end = start + len(piece)
        raw = piece
        space = piece[0].isspace() or start == offset
        if space:
            raw = piece.lstrip()
        begin = end - len(raw)
        first = raw[0]
        # Tokens are built as tuples (_make_token): the NamedTuple constructor is a
        # Python call, and this loop makes every token of every span planned.
        if first.isdigit() or (first == "." and len(raw) > 1):
            literal = _literal(raw)
            if literal is None:
                append(
                    _make_token(
                        Token, (name, raw, begin, end, space, 0.0, 0.0, False, 0.0, 0, "", index)
                    )
                )
            else:
                value, alt, exact, ulp, sig, unit = literal
                append(
                    _make_token(
                        Token,
                        (num, raw, begin, end, space, value, alt, exact, ulp, sig, unit, index),
                    )
                )
        elif first.isalpha() or first in "_°":
            append(
                _make_token(
                    Token, (name, raw, begin, end, space, 0.0, 0.0, False, 0.0, 0, "", index)
                )
            )
        else:
            kind = _SYMBOL_KINDS.get(raw, PUNCT)
            raw = _RELATION_SPELLINGS.get(raw, raw)
            append(
                _make_token(
                    Token, (kind, raw, begin, end, space, 0.0, 0.0, False, 0.0, 0, "", index)
                )
            )
        start = end
    if "x" in text:
        _mark_spaced_x(tokens)
    return tokens


_MASK = re.compile(r"\d(?<![A-Za-z_µμ°π]\d)")
"""A digit not glued to a name's letter (the digit first: the engine skips to digits)."""


def shape_of(text: str) -> str:
    """The text with every digit that is not part of a name masked as ``#``.

    Texts with one shape tokenise and parse alike (digits are one character
    class to the scanner; names keep their digits, so ``log2`` stays a function),
    so a span's tokens and claim plan can be reused for another span of the same
    shape with its numbers filled in (:func:`refill`).
    """
    return _MASK.sub("#", text)


def refill(
    tokens: Sequence[Token], chunk: str, offset: int, moved: int, changing: Sequence[int]
) -> list[Token]:
    """Tokens of a span, made from the tokens of an earlier span of the same shape.

    Spans of one :func:`shape_of` have the same length and split into pieces at the
    same places (the scanner sees digits only as a class), so each token keeps its
    place relative to the span's start and only tokens with digits change text.
    ``tokens`` are not changed: they may be a stored plan's, shared between threads.

    Args:
        tokens: Tokens of an earlier span with the same :func:`shape_of`.
        chunk: This span.
        offset: This span's start in its line.
        moved: ``offset`` minus the start of the span ``tokens`` were made from.
        changing: Indices of the tokens whose text has digits (:func:`digits_change`).

    Returns:
        A new list: what :func:`tokenize` gives for ``chunk`` at ``offset``, less the
        rewrites a plan made (the tokens it dropped or merged stay so).
    """
    if moved:
        out = [
            _make_token(Token, (k, x, s + moved, e + moved, sp, v, a, ex, u, sg, un, p))
            for k, x, s, e, sp, v, a, ex, u, sg, un, p in tokens
        ]
    else:
        out = list(tokens)
    for index in changing:
        token = out[index]
        raw = chunk[token.start - offset : token.end - offset]
        if raw == token.text:
            continue  # every field of a token follows from its text
        literal = _literal(raw) if token.kind is NUM else None
        if literal is None:
            out[index] = token._replace(text=raw)
        else:
            value, alt, exact, ulp, sig, _ = literal
            kind, _, start, end, space, _, _, _, _, _, unit, piece = token
            fields = (kind, raw, start, end, space, value, alt, exact, ulp, sig, unit, piece)
            out[index] = _make_token(Token, fields)
    return out


def digits_change(tokens: Sequence[Token]) -> tuple[int, ...]:
    """Indices of the tokens :func:`refill` may give another text: those with digits."""
    return tuple(
        index
        for index, token in enumerate(tokens)
        if token.kind is NUM
        or (
            token.kind is NAME
            and not token.text.isalpha()
            and any(char.isdigit() for char in token.text)
        )
    )


@lru_cache(maxsize=1024)
def _glue(glue: str) -> tuple[float, float, str, bool]:
    """How letters glued to a number read: (factor, 1024-based factor, unit, is a name)."""
    if glue in _SUFFIXES:
        return _SUFFIXES[glue], _ALT_SUFFIXES[glue], "", False
    if glue in ("x", "×"):
        return 1.0, 1.0, "", False
    if is_unit_spelling(glue):
        return 1.0, 1.0, glue, False
    if len(glue) > 1 and glue[0] in _SUFFIXES and is_unit_spelling(glue[1:]):
        return _SUFFIXES[glue[0]], _ALT_SUFFIXES[glue[0]], glue[1:], False
    return 1.0, 1.0, "", True


def _mark_spaced_x(tokens: list[Token]) -> None:
    """Turn a spaced ``x`` between operands (``4 x 4``) into the times operator."""
    for index, token in enumerate(tokens):
        if (
            token.kind is NAME
            and token.text == "x"
            and 0 < index < len(tokens) - 1
            and tokens[index - 1].kind in (NUM, RP, NAME)
            and tokens[index + 1].kind in (NUM, LP, DOLLAR)
        ):
            tokens[index] = token._replace(kind=OP, text="×")
