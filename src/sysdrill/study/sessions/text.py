r"""Readable text for terminals: LaTeX math as plain symbols, Markdown kept light.

Vault text carries LaTeX between ``$...$`` or ``$$...$$`` (``5.88 \times 10^{22}``).
A terminal cannot typeset it, so :func:`readable_math` rewrites each fragment
with :func:`sysdrill.content.latex_text.latex_to_text` (``×``, ``≈``, ``a/b``)
and drops the dollar signs, leaving commands it does not know as written.
"""

from __future__ import annotations

import re

from sysdrill.content.latex_text import latex_to_text
from sysdrill.content.media import name_media

__all__ = ["keep_line_breaks", "plain_text", "readable_math"]

_MATH = re.compile(r"\$\$(.+?)\$\$|\$(?!\s)([^$\n]+?)(?<!\s)\$", re.DOTALL)


def _math_to_plain(tex: str) -> str:
    """One LaTeX math fragment (without its dollar signs) as plain text, spaces tidied."""
    return re.sub(r"[ \t\u2009]{2,}", " ", latex_to_text(tex)).strip()


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
    """Markdown for a plain terminal: math made readable, media named, ``**`` and ``#`` dropped.

    Args:
        markdown: Item text as written in the vault.

    Returns:
        Text that reads well without a Markdown renderer (lists and tables are
        already readable as written).
    """
    text = readable_math(name_media(markdown))
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
