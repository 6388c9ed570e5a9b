r"""LaTeX math as plain text, for people and for the napkin-math parser.

Vault text writes math in LaTeX (``5.88 \times 10^{22}``, ``\frac{a}{b}``).
:func:`latex_to_text` parses a fragment with pylatexenc and renders it in one of
two styles:

- :attr:`LatexStyle.READABLE`, for terminals: ``a/b``, ``√(x/2)``, ``10^22``,
  Greek letters as letters; a command pylatexenc does not know stays as written.
- :attr:`LatexStyle.NOTATION`, for the napkin tokenizer: every fraction and
  root is bracketed so that precedence survives (``((a)/(b))``, ``sqrt(x)``,
  ``10^(22)``), and an unknown command becomes its bare name (``\log`` → ``log``).

Both styles use pylatexenc's table of symbols (``\times`` → ``×``,
``\approx`` → ``≈``); the text outside commands, spacing included, stays as
written, and ``$``, ``%``, ``~`` and ``&`` are plain characters (prices,
percentages and the "about" tilde), not LaTeX syntax. pylatexenc takes about
45 ms to import, so it loads on the first conversion.

Speed: a pylatexenc parse costs a few hundred microseconds a line, which a
vault of 10,000 items with LaTeX in its napkin math feels. Lines written only
with the common commands (symbols such as ``\times`` and ``\approx``, spacing,
``\frac``, ``\sqrt``, ``\text`` and its kin, braces after ``^`` and ``_``) are
converted by a small reader of our own that gives the same text pylatexenc
gives (``tests/content/test_latex_text.py`` compares the two on seeded random
lines); anything else goes to pylatexenc.
"""

from __future__ import annotations

import re
from enum import Enum
from functools import cache, lru_cache
from typing import Any

__all__ = ["LatexStyle", "latex_to_text"]


class LatexStyle(Enum):
    """How :func:`latex_to_text` writes fractions, roots, powers and unknown commands."""

    READABLE = "readable"
    """For people: ``a/b``, ``√x``, ``10^22``; unknown commands kept as written."""
    NOTATION = "notation"
    """For the napkin parser: ``((a)/(b))``, ``sqrt(x)``, ``10^(22)``; unknown commands by name."""


_FRACTIONS = ("frac", "dfrac", "tfrac", "nicefrac")
_TEXT_COMMANDS = (
    "text",
    "mathrm",
    "textbf",
    "mathbf",
    "textit",
    "mathit",
    "mathsf",
    "operatorname",
    "emph",
)
_SYMBOLS: dict[str, str] = {
    # Where pylatexenc's table gives nothing (or the Greek letter for the micro
    # prefix), the symbol a napkin line means.
    "mu": "µ",
    "lt": "<",
    "gt": ">",
    "implies": "⟹",
    "percent": "%",
    "\\": " ",
    "left": "",
    "right": "",
}
_OWN = frozenset((*_FRACTIONS, "sqrt", *_TEXT_COMMANDS, *_SYMBOLS))
_NOTATION_CHARS = frozenset(
    [chr(code) for code in range(32, 127)]
    + list("\t\u00a0\u2002\u2003\u2009\u202f×·÷≈∼≃≅≤≥≠±→⇒⟹∞≪≫√πµ…⋯")
)
"""Characters the napkin parser reads; a command giving any other is written by name."""
_LITERAL = re.compile(r"(?<!\\)([$%])")
"""Characters LaTeX reads as syntax but vault text means literally."""
_NAME_END = re.compile(r"(\\[A-Za-z]+)(?=[^\x00-\x7f])")
"""A command name followed by a non-ASCII letter, which pylatexenc would read as part of it."""
_SIMPLE = re.compile(r"[\w.]+")
_UNKNOWN_BEFORE = re.compile(r"\\([A-Za-z]+)\s*\Z")


def _operand(text: str) -> str:
    """Parenthesise a readable fraction or root operand unless it is one number or name."""
    text = text.strip()
    return text if _SIMPLE.fullmatch(text) else f"({text})"


def _is_closed(group: Any) -> bool:
    """Whether a brace group node was closed (a tolerant parse leaves an unclosed one open)."""
    text = str(group.latex_verbatim())
    opened = text.count("{") - text.count("\\{")
    return text.endswith("}") and opened == text.count("}") - text.count("\\}")


def _closed(node: Any, count: int) -> bool:
    """Whether the last ``count`` arguments of a command node are all closed brace groups."""
    args = node.nodeargd.argnlist[-count:] if node.nodeargd else []
    return len(args) == count and all(arg is not None and _is_closed(arg) for arg in args)


@cache
def _converter(style: LatexStyle) -> Any:
    """The pylatexenc renderer for ``style`` and the parsing context it reads with.

    Built once per style and never changed afterwards, so threads may share it:
    every conversion parses with a walker of its own.
    """
    import logging

    from pylatexenc import latex2text, latexwalker, macrospec  # type: ignore[import-untyped]

    # pylatexenc logs tolerated parse errors (an unclosed brace); the caller
    # gets the best-effort text, not a log line on stderr.
    log = logging.getLogger("pylatexenc")
    log.addHandler(logging.NullHandler())
    log.propagate = False

    walker_context = latexwalker.get_default_latex_context_db().filter_context(
        keep_which=["macros", "environments"]
    )
    walker_context.add_context_category(
        "sysdrill",
        prepend=True,
        macros=[macrospec.std_macro(name, False, 2) for name in _FRACTIONS]
        + [macrospec.std_macro("sqrt", True, 1)]
        + [macrospec.std_macro(name, False, 1) for name in _TEXT_COMMANDS],
    )
    readable = style is LatexStyle.READABLE

    def fraction(node: Any, l2tobj: Any) -> str:
        top, bottom = (l2tobj.node_arg_to_text(node, k) for k in (0, 1))
        if not _closed(node, 2):
            return f"{top}{bottom}"
        if readable:
            return f"{_operand(top)}/{_operand(bottom)}"
        return f"(({top})/({bottom}))"

    def root(node: Any, l2tobj: Any) -> str:
        body = l2tobj.node_arg_to_text(node, 1)
        if not _closed(node, 1):
            return f"√{body}"
        return f"√{_operand(body)}" if readable else f"sqrt({body})"

    text_context = latex2text.get_default_latex_context_db().filter_context(
        keep_which=["macros", "environments"]
    )
    text_context.add_context_category(
        "sysdrill",
        prepend=True,
        macros=[latex2text.MacroTextSpec(name, simplify_repl=fraction) for name in _FRACTIONS]
        + [latex2text.MacroTextSpec("sqrt", simplify_repl=root)]
        + [latex2text.MacroTextSpec(name, discard=False) for name in _TEXT_COMMANDS]
        + [latex2text.MacroTextSpec(name, text) for name, text in _SYMBOLS.items()],
    )

    class Renderer(latex2text.LatexNodes2Text):  # type: ignore[misc]
        def macro_node_to_text(self, node: Any) -> str:
            name = node.macroname
            args = [arg for arg in (node.nodeargd.argnlist if node.nodeargd else ()) if arg]
            if text_context.get_macro_spec(name) is None:
                text = node.latex_verbatim() if readable else name
            else:
                text = str(super().macro_node_to_text(node))
                if not readable and name not in _OWN and not _NOTATION_CHARS.issuperset(text):
                    # A letter or accent the parser cannot read (θ, 𝔼, g̅): the
                    # command's name keeps it one identifier, as ``theta``.
                    text = name + "".join(self._groupnodecontents_to_text(arg) for arg in args)
            # Keep the author's space after a bare command (``\\alpha \\leq``),
            # which LaTeX would swallow.
            if not args:
                text += node.macro_post_space
            return str(text)

        def group_node_to_text(self, node: Any) -> str:
            inner = str(self._groupnodecontents_to_text(node))
            if not _is_closed(node):
                return inner  # unclosed: no structure to keep
            before = node.parsing_state.s[max(0, node.pos - 40) : node.pos]
            if before.endswith("^"):
                return inner if readable else f"({inner})"
            if before.endswith("_"):
                return inner if readable else inner.replace(" ", "")
            unknown = _UNKNOWN_BEFORE.search(before)
            if readable and unknown and text_context.get_macro_spec(unknown.group(1)) is None:
                return f"{{{inner}}}"
            return inner

    renderer = Renderer(
        latex_context=text_context,
        math_mode="text",
        strict_latex_spaces={
            "between-macro-and-chars": True,
            "between-latex-constructs": True,
            "after-comment": False,
            "in-equations": False,
        },
    )
    return renderer, walker_context


_FAST_SYMBOLS = frozenset(
    (
        "times cdot cdots ldots dots approx sim simeq le leq ge geq ll gg ne neq pm to "
        "rightarrow Rightarrow leftarrow implies infty mu lt gt percent left right "
        "quad qquad alpha beta gamma delta epsilon eta theta lambda pi rho sigma tau phi "
        "log ln exp"
    ).split()
    + [",", ";", "!", ":", " ", "%", "$"]
)
"""Commands the fast reader copies from pylatexenc's rendering of the bare command:
they take no argument, so their text never depends on what follows."""
_FAST_PIECE = re.compile(r"[^\\{}]+|\\[A-Za-z]+|\\[^A-Za-z]|[{}]")


class _Unusual(Exception):
    """The fast reader met something it leaves to pylatexenc."""


class _FastReader:
    """Converts a span written with the common commands only, as pylatexenc would."""

    def __init__(self, style: LatexStyle, source: str) -> None:
        self.readable = style is LatexStyle.READABLE
        self.style = style
        self.source = source
        self.pieces: list[str] = _FAST_PIECE.findall(source)
        if sum(map(len, self.pieces)) != len(source):
            raise _Unusual  # a lone backslash at the end
        self.index = 0
        self.offset = 0

    def _take(self) -> str:
        piece = self.pieces[self.index]
        self.index += 1
        self.offset += len(piece)
        return piece

    def text(self, *, nested: bool = False) -> str:
        parts: list[str] = []
        while self.index < len(self.pieces):
            piece = self.pieces[self.index]
            if piece == "}":
                if not nested:
                    raise _Unusual
                return "".join(parts)
            if piece == "{":
                parts.append(self._group())
            elif piece[0] == "\\":
                parts.append(self._command())
            elif "%" in piece or "$" in piece:
                raise _Unusual  # a comment or math shift (latex_to_text escapes both)
            else:
                parts.append(self._take())
        if nested:
            raise _Unusual  # an unclosed brace: pylatexenc's tolerant reading
        return "".join(parts)

    def _group(self) -> str:
        start = self.offset
        self._take()
        inner = self.text(nested=True)
        self._take()
        before = self.source[max(0, start - 40) : start]
        if before.endswith("^"):
            return inner if self.readable else f"({inner})"
        if before.endswith("_"):
            return inner if self.readable else inner.replace(" ", "")
        return inner

    def _argument(self) -> str:
        if self.index >= len(self.pieces) or self.pieces[self.index] != "{":
            raise _Unusual  # spaces or a bare token before the argument
        self._take()
        inner = self.text(nested=True)
        self._take()
        return inner

    def _command(self) -> str:
        name = self._take()[1:]
        if name in _FRACTIONS:
            top, bottom = self._argument(), self._argument()
            if self.readable:
                return f"{_operand(top)}/{_operand(bottom)}"
            return f"(({top})/({bottom}))"
        if name == "sqrt":
            body = self._argument()
            return f"√{_operand(body)}" if self.readable else f"sqrt({body})"
        if name in _TEXT_COMMANDS:
            return self._argument()
        text = _symbol(name, self.style) if name in _FAST_SYMBOLS else "\\"
        if text.startswith("\\"):
            raise _Unusual  # a command pylatexenc keeps as written (and the braces after it)
        return text


@lru_cache(maxsize=128)
def _symbol(name: str, style: LatexStyle) -> str:
    """The text pylatexenc gives one bare command, without the space after it."""
    return _parse(f"\\{name}", style)


def _parse(source: str, style: LatexStyle) -> str:
    from pylatexenc import latexwalker

    renderer, walker_context = _converter(style)
    walker = latexwalker.LatexWalker(source, latex_context=walker_context, tolerant_parsing=True)
    try:
        nodes = walker.get_latex_nodes()[0]
        return str(renderer.nodelist_to_text(nodes))
    except (ValueError, IndexError, TypeError, KeyError, AttributeError):
        # pylatexenc's table formatter fails on some environments cut at a line end
        # (``\begin{array}{cc} 1 & 2`` alone: max() of no rows); the text as written
        # is the best reading left, and a reader of it must never see an error.
        return source


def _prepared(span: str) -> str:
    """The span as LaTeX source: ``$`` and ``%`` escaped, command names ended."""
    # LaTeX command names are ASCII letters: ``\\timesµs`` is ``\\times`` then ``µs``.
    return _NAME_END.sub(r"\1{}", _LITERAL.sub(r"\\\1", span))


def _convert(source: str, style: LatexStyle) -> str:
    """The span's text: by the fast reader when it can, else by pylatexenc."""
    try:
        return _FastReader(style, source).text()
    except _Unusual:
        return _parse(source, style)


@lru_cache(maxsize=4096)
def latex_to_text(tex: str, *, style: LatexStyle = LatexStyle.READABLE) -> str:
    r"""Rewrite LaTeX commands in ``tex`` as plain text.

    Args:
        tex: Text holding LaTeX math without its ``$`` delimiters
            (``\frac{a}{b} \times 2``).
        style: Whether the result is read by people or by the napkin parser.

    Returns:
        The text with commands replaced and braces dropped: ``a/b × 2`` in the
        readable style, ``((a)/(b)) × 2`` in the notation style. Malformed
        LaTeX (an unclosed brace) gives its best-effort reading, never an error.
    """
    # pylatexenc reads plain text one character at a time, so only the span
    # from the first command or brace (with a ``^`` or ``_`` just before it)
    # to the last closing brace is parsed; the prose around it stays as it is.
    marks = [index for index in (tex.find("\\"), tex.find("{"), tex.find("}")) if index >= 0]
    if not marks:
        return tex
    start = min(marks)
    if start and tex[start - 1] in "^_":
        start -= 1
    end = tex.rfind("}") + 1
    if end <= max(tex.rfind("\\"), tex.rfind("{")):
        end = len(tex)
    return tex[:start] + _convert(_prepared(tex[start:end]), style) + tex[end:]
