r"""Atoms written out as Markdown, escaping only what a renderer would read as syntax.

See :mod:`._html_markdown` for what is escaped and why; :func:`assemble` is
the one entry point, run on a field and on each table cell.
"""

from __future__ import annotations

import re

from sysdrill.interop.formats._md_atoms import (
    CLOSE,
    EXPORT,
    MARK,
    OPEN,
    RAW,
    TEXT,
    Atom,
    boundary,
    edge_class,
    is_punct,
    is_space,
)
from sysdrill.interop.formats._md_emphasis import emit_emphasis, resolve_emphasis

__all__ = ["assemble", "code_markdown"]

_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
# Dollars the renderers pair into a formula: $$...$$ anywhere, $...$ opening before and
# closing after a non-space, not before a digit (the web app's rule, the wider one).
_DOLLAR_MATH = re.compile(r"\$\$.+?\$\$|\$(?=\S)[^$\n]+?(?<=\S)\$(?!\d)", re.DOTALL)
_ORDERED = re.compile(r"\d{1,9}[.)](?:[ \t]|$)")
_HEADING_MARK = re.compile(r"#{1,6}(?:[ \t]|$)")
_RULE = re.compile(r"([-*_])[ \t]*(?:\1[ \t]*){2,}")
_UNDERLINE = re.compile(r"(?:=+|-+)[ \t]*")
_DELIMITER_ROW = re.compile(r"\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")
_DOLLAR = "\ue024"
"""Stands for a ``$`` of the text until it is known whether it must be escaped."""
_NOT_ESCAPED = "\ue025"
"""Stands for a ``$`` of code or a link while dollars are paired (never a formula's)."""
_ESCAPED_DOLLAR = "\ue026"
"""Stands for a ``$`` of the text that will be written ``&#36;``."""


def join_breaks(atoms: list[Atom]) -> list[Atom]:
    """Line breaks in a row (spaces between them aside) as one paragraph break."""
    joined: list[Atom] = []
    run: list[Atom] = []

    def flush() -> None:
        last = max((at for at, atom in enumerate(run) if atom.kind == MARK), default=-1)
        if sum(atom.text.count("\n") for atom in run) > 1:
            # Spaces after the last break begin the next line (its indentation).
            joined.append(Atom(MARK, "\n\n"))
            joined.extend(run[last + 1 :])
        else:
            joined.extend(run)
        run.clear()

    for atom in atoms:
        newline = atom.kind == MARK and "\n" in atom.text and not atom.text.strip("\n")
        if newline or (run and atom.kind == TEXT and is_space(atom.text)):
            run.append(atom)
            continue
        flush()
        joined.append(atom)
    flush()
    return joined


def code_markdown(content: str) -> str:
    """A code span of ``content``: fenced by more backticks than it holds in a row."""
    fence = "`" * (max((len(run) for run in re.findall(r"`+", content)), default=0) + 1)
    pad = content[0] == "`" or content[-1] == "`" or (content[0] == content[-1] == " ")
    space = " " if pad else ""
    return f"{fence}{space}{content}{space}{fence}"


def join_code(atoms: list[Atom]) -> list[Atom]:
    """Code spans side by side as one: their backticks would meet and read as one run."""
    joined: list[Atom] = []
    for atom in atoms:
        if atom.code and joined and joined[-1].code:
            content = joined[-1].code + atom.code
            joined[-1] = Atom(MARK, code_markdown(content), words=EXPORT, code=content)
            continue
        joined.append(atom)
    return joined


def _run_escapes(atoms: list[Atom]) -> set[int]:
    """Indexes of ``*``, ``_`` and ``~`` of the text that could open or close emphasis."""
    escaped: set[int] = set()
    index = 0
    while index < len(atoms):
        atom = atoms[index]
        if atom.kind != TEXT or atom.text not in "*_~":
            index += 1
            continue
        end = index
        while (
            end + 1 < len(atoms)
            and atoms[end + 1].kind == TEXT
            and atoms[end + 1].text == atom.text
        ):
            end += 1
        before = edge_class(atoms[index - 1] if index else None, last=True)
        after = edge_class(atoms[end + 1] if end + 1 < len(atoms) else None, last=False)
        inert = before == after == "space"
        if atom.text == "_":
            inert = inert or before == after == "word"
            if end + 1 < len(atoms) and atoms[end + 1].text.startswith("{") and before != "space":
                inert = False  # x_{1} is a subscript to the exporter
        if not inert:
            escaped.update(range(index, end + 1))
        index = end + 1
    return escaped


def _line_text(atoms: list[Atom], start: int) -> tuple[str, list[int]]:
    """The rest of the line from ``start``, and the index of the atom at each character."""
    chars: list[str] = []
    owners: list[int] = []
    for index in range(start, len(atoms)):
        text = atoms[index].text
        cut = text.find("\n")
        piece = text if cut < 0 else text[:cut]
        chars.append(piece.replace("\xa0", " "))
        owners.extend([index] * len(piece))
        if cut >= 0:
            break
    return "".join(chars), owners


_CLOSING_HASHES = re.compile(r"(?:^|[ \t])(#+)[ \t]*$")
"""A heading's optional closing sequence, which CommonMark drops from its text."""


def _block_escapes(atoms: list[Atom], start: int) -> set[int]:
    """Indexes of text atoms to escape so the line from ``start`` starts no block.

    In a heading, ``#`` that would be read as its closing sequence is escaped too.
    """
    line, owners = _line_text(atoms, start)
    if not line:
        return set()
    before = atoms[start - 1] if start else None
    if before is not None and before.prefix and before.text.lstrip(" ").startswith("#"):
        closing = _CLOSING_HASHES.search(line)
        if closing is not None and atoms[owners[closing.start(1)]].kind == TEXT:
            return {owners[closing.start(1)]}
        return set()
    first = line[0]
    if first in "-+*" and (len(line) == 1 or line[1] in " \t"):
        return {owners[0]}
    if first == "#" and _HEADING_MARK.match(line):
        return {owners[0]}
    if first == ">":
        return {owners[0]}
    if first.isdigit():
        found = _ORDERED.match(line)
        if found:
            return {owners[found.end() - (2 if found.group().endswith((" ", "\t")) else 1)]}
    if _RULE.fullmatch(line) or (first in "=-" and _UNDERLINE.fullmatch(line)):
        return {owners[0]}
    if line.startswith("~~~"):
        return {owners[0]}
    if "|" in line and _DELIMITER_ROW.fullmatch(line):
        return {owners[i] for i, char in enumerate(line) if char == "|"}
    return set()


def _escape(atoms: list[Atom], index: int, *, cell: bool, forced: set[int]) -> str:
    """The Markdown of one character of text."""
    char = atoms[index].text
    following = atoms[index + 1].text if index + 1 < len(atoms) else ""
    if index in forced:
        return "\\" + char
    if char == "\\":
        if following[:1] in ("(", "["):
            return "&#92;"
        after = following[:1]
        # A no-break space may be written "&nbsp;": a backslash would escape its "&".
        if (after == "\xa0" and not cell and _nbsp_kept(atoms, index + 1)) or (
            after.isascii() and after and is_punct(after)
        ):
            return "\\\\"
        if _breaks_line(atoms, index + 1):
            return "\\\\"  # at a line's end it would be a hard line break
        return char  # literal before a letter or a space, and at the very end
    if char == "`" or (char in "^!" and following.startswith("{" if char == "^" else "[")):
        return "\\" + char
    if char == "$":
        return _DOLLAR
    if char == "&":
        rest = "".join(atom.text for atom in atoms[index : index + 40])
        return "\\&" if _ENTITY.match(rest) else char
    if char == "]" and (atoms[index].link or following[:1] in ("(", "[", ":")):
        return "\\]"
    if char == "[" and atoms[index].link:
        return "&#91;"
    if char == "|" and cell:
        return "\\|"
    if cell and char in " \xa0":
        # A cell is one line of single spaces.
        before = atoms[index - 1] if index else None
        return "" if before is not None and before.kind == TEXT and before.text in " \xa0" else " "
    if char == "\xa0":
        return "&nbsp;" if _nbsp_kept(atoms, index) else " "
    return char


def _nbsp_kept(atoms: list[Atom], index: int) -> bool:
    """Whether a no-break space is written ``&nbsp;``.

    It is where a plain space would be lost: beside another space, at a line's end.
    """
    before = atoms[index - 1].text[-1:] if index else ""
    after = atoms[index + 1].text[:1] if index + 1 < len(atoms) else ""
    return not after or after in " \xa0\n" or before in (" ", "\xa0")


def _breaks_line(atoms: list[Atom], start: int) -> bool:
    """Whether a line break inside the paragraph comes next, only spaces before it."""
    breaks = 0
    for atom in atoms[start:]:
        if boundary(atom):
            return False
        if atom.kind in (OPEN, CLOSE) or not atom.text.strip(" \xa0\n"):
            breaks += atom.text.count("\n")
            if breaks > 1:
                return False  # a blank line: the paragraph ends there
            continue
        return breaks == 1
    return False


def _escape_dollars(text: str) -> str:
    """Write the text's ``$`` as ``&#36;`` where a renderer would pair it into a formula.

    A formula's own dollars pair too (a ``$`` of the text may close one early);
    dollars in code never do (the renderers cut code out first).
    """
    if _DOLLAR not in text:
        return text
    chars = list(text)
    position = 0
    while True:
        probe = "".join(chars).replace(_DOLLAR, "$")
        found = _DOLLAR_MATH.search(probe, position)
        if found is None:
            break
        start, end = found.start(), found.end()
        ends = (
            [start, start + 1, end - 2, end - 1]
            if found.group().startswith("$$")
            else [start, end - 1]
        )
        ours = [i for i in ends if chars[i] == _DOLLAR]
        if ours:
            chars[ours[0]] = _ESCAPED_DOLLAR
            position = 0  # an escape can let an earlier dollar pair further on
        else:
            position = end
    return "".join(chars).replace(_DOLLAR, "$").replace(_ESCAPED_DOLLAR, "&#36;")


def assemble(atoms: list[Atom], *, cell: bool = False) -> str:
    """Write atoms out as Markdown, escaping what the renderers would read as syntax.

    A table cell's ``$`` are left as :data:`_DOLLAR`: whether they pair into a
    formula depends on the whole table line, so the table's text decides.
    """
    atoms = join_code(resolve_emphasis(emit_emphasis(join_breaks(atoms))))
    runs = _run_escapes(atoms)
    forced: set[int] = set()
    out: list[str] = []
    line_start = True
    for index, atom in enumerate(atoms):
        if atom.kind != TEXT:
            if atom.kind in (RAW, MARK) and not atom.formula and "$" in atom.text:
                out.append(atom.text.replace("$", _NOT_ESCAPED))
            else:
                out.append(atom.text)
            if atom.text.endswith("\n"):
                line_start = True
            elif atom.text and not atom.prefix:
                line_start = False
            continue
        if line_start and not cell:
            if atom.text == " ":
                continue
            if atom.text == "\xa0":
                # Indentation the author typed: kept, and never a code block.
                out.append("&nbsp;")
                continue
            line_start = False
            forced |= _block_escapes(atoms, index)
        if index in runs:
            out.append("\\" + atom.text)
            continue
        out.append(_escape(atoms, index, cell=cell, forced=forced))
    if cell:
        return "".join(out).replace(_NOT_ESCAPED, "$")
    return _escape_dollars("".join(out)).replace(_NOT_ESCAPED, "$")
