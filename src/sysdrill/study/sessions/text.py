r"""Readable text for terminals: LaTeX math as plain symbols, Markdown kept light.

Vault text carries LaTeX between ``$...$`` or ``$$...$$`` (``5.88 \times 10^{22}``).
A terminal cannot typeset it, so :func:`readable_math` rewrites the common
commands to Unicode (``×``, ``≈``, ``a/b``) and drops the dollar signs, leaving
anything it does not know as the author wrote it.
"""

from __future__ import annotations

import re

__all__ = ["keep_line_breaks", "plain_text", "readable_math"]

_SYMBOLS: dict[str, str] = {
    "times": "×",
    "cdot": "·",
    "div": "÷",
    "pm": "±",
    "approx": "≈",
    "sim": "~",
    "neq": "≠",
    "ne": "≠",
    "leq": "≤",
    "le": "≤",
    "geq": "≥",
    "ge": "≥",
    "ll": "≪",
    "gg": "≫",
    "infty": "∞",
    "to": "→",
    "rightarrow": "→",
    "leftarrow": "←",
    "Rightarrow": "⇒",
    "sum": "Σ",
    "prod": "Π",
    "partial": "∂",
    "nabla": "∇",
    "alpha": "α",
    "beta": "β",
    "gamma": "γ",
    "delta": "δ",
    "Delta": "Δ",
    "epsilon": "ε",
    "eta": "η",
    "theta": "θ",
    "lambda": "λ",
    "mu": "µ",
    "pi": "π",
    "rho": "ρ",
    "sigma": "σ",
    "tau": "τ",
    "phi": "φ",
    "omega": "ω",
    "ldots": "…",
    "dots": "…",
    "cdots": "⋯",
    "percent": "%",
}
"""LaTeX commands (without the backslash) and the character that stands for each."""

_BRACED = r"\{((?:[^{}]|\{[^{}]*\})*)\}"
"""One brace group, allowing one level of nested braces inside it."""

_FRAC = re.compile(r"\\[dt]?frac\s*" + _BRACED + r"\s*" + _BRACED)
_SQRT = re.compile(r"\\sqrt\s*" + _BRACED)
_TEXT = re.compile(r"\\(?:text|mathrm|mathbf|mathit|operatorname|textbf|mathsf)\s*" + _BRACED)
_COMMAND = re.compile(r"\\([A-Za-z]+)")
_SCRIPT = re.compile(r"([_^])" + _BRACED)
_SPACING = re.compile(r"\\[,;:! ]|~")
_MATH = re.compile(r"\$\$(.+?)\$\$|\$(?!\s)([^$\n]+?)(?<!\s)\$", re.DOTALL)
_SIMPLE = re.compile(r"^[\w.]+$")


def _group(text: str) -> str:
    """Parenthesise a fraction operand unless it is one number or name."""
    text = text.strip()
    return text if _SIMPLE.match(text) else f"({text})"


def _math_to_plain(tex: str) -> str:
    """Rewrite one LaTeX math fragment (without its dollar signs) as plain text."""
    previous = None
    # Nested constructs (\frac inside \sqrt) resolve from the inside out.
    while previous != tex:
        previous = tex
        tex = _TEXT.sub(lambda m: m.group(1), tex)
        tex = _FRAC.sub(lambda m: f"{_group(m.group(1))}/{_group(m.group(2))}", tex)
        tex = _SQRT.sub(lambda m: f"√{_group(m.group(1))}", tex)
    tex = _SPACING.sub(" ", tex)
    tex = tex.replace(r"\%", "%").replace(r"\left", "").replace(r"\right", "")
    tex = _COMMAND.sub(lambda m: _SYMBOLS.get(m.group(1), m.group(0)), tex)
    tex = _SCRIPT.sub(lambda m: m.group(1) + m.group(2), tex)
    return re.sub(r"[ \t]{2,}", " ", tex).strip()


def readable_math(text: str) -> str:
    r"""Replace every ``$...$`` and ``$$...$$`` fragment with readable plain text.

    Args:
        text: Markdown that may hold LaTeX math.

    Returns:
        The same text with math rewritten (``$\frac{a}{b} \times 2$`` becomes
        ``a/b × 2``); dollar amounts such as ``$5 and $6`` stay as written
        because a fragment may not start or end with a space.
    """
    return _MATH.sub(lambda m: _math_to_plain(m.group(1) or m.group(2)), text)


_BOLD = re.compile(r"\*\*(.+?)\*\*|__(.+?)__")
_HEADING = re.compile(r"^#{1,6}\s+", re.MULTILINE)


def plain_text(markdown: str) -> str:
    """Markdown for a plain terminal: math made readable, bold markers and ``#`` dropped.

    Args:
        markdown: Item text as written in the vault.

    Returns:
        Text that reads well without a Markdown renderer (lists and tables are
        already readable as written).
    """
    text = readable_math(markdown)
    text = _BOLD.sub(lambda m: m.group(1) or m.group(2), text)
    return _HEADING.sub("", text).strip()


def keep_line_breaks(markdown: str) -> str:
    """Make every line break of ``markdown`` a hard break.

    Authors write ``**The Pitfall:** ...`` and ``**The Rationale:** ...`` on
    lines of their own; Markdown would join them into one paragraph.

    Args:
        markdown: Item text as written in the vault.

    Returns:
        The text with a Markdown hard break (two trailing spaces) at the end of
        each line that another non-blank line follows; blank lines stay
        paragraph breaks.
    """
    lines = markdown.splitlines()
    kept = []
    for index, line in enumerate(lines):
        following = lines[index + 1] if index + 1 < len(lines) else ""
        if line.strip() and following.strip() and not line.endswith("  "):
            line = line.rstrip() + "  "
        kept.append(line)
    return "\n".join(kept)
