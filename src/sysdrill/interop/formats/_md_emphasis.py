"""Where the delimiters of bold and italics go, so CommonMark reads them as meant.

From the emphasis of each atom (:attr:`~._md_atoms.Atom.style`) runs of bold
and italics are opened and closed (:func:`emit_emphasis`), then checked
(:func:`resolve_emphasis`): spaces and punctuation that keep a delimiter from
opening or closing move outside it, and CommonMark's own "process emphasis"
(its rule of three included) is run as each renderer sees the text; a pair it
would misread is dropped, the one holding least text first. The text never
changes, only where emphasis starts and ends.
"""

from __future__ import annotations

from dataclasses import dataclass

from sysdrill.interop.formats._md_atoms import (
    BOLD,
    CLOSE,
    DELIMITER,
    EXPORT,
    ITALIC,
    MARK,
    OPEN,
    TEXT,
    WEB,
    Atom,
    beside,
    blank,
    boundary,
    edge_class,
)

__all__ = ["emit_emphasis", "resolve_emphasis"]


def _styles(atoms: list[Atom]) -> list[int]:
    """The emphasis each atom is written with.

    A space keeps the emphasis only between two characters that both have it, so
    ``<b> bold </b>`` is ``**bold**`` with the spaces outside.
    """
    count = len(atoms)
    left, right = [0] * count, [0] * count
    running = 0
    for index, atom in enumerate(atoms):
        if boundary(atom):
            running = 0
        elif not blank(atom):
            running = atom.style
        left[index] = running
    running = 0
    for index in range(count - 1, -1, -1):
        atom = atoms[index]
        if boundary(atom):
            running = 0
        elif not blank(atom):
            running = atom.style
        right[index] = running
    return [
        0
        if boundary(atom)
        else (atom.style & left[index] & right[index] if blank(atom) else atom.style)
        for index, atom in enumerate(atoms)
    ]


def emit_emphasis(atoms: list[Atom]) -> list[Atom]:
    """The atoms with delimiters opening and closing each run of bold and italics.

    Where both open together, the one that lasts longer is outside, bold inside
    on a tie (CommonMark reads ``***x***`` as italics around bold).
    """
    styles = _styles(atoms)
    out: list[Atom] = []
    stack: list[tuple[int, int]] = []
    pairs = 0

    def close(until: int) -> None:
        while stack and sum(bit for bit, _ in stack) & ~until:
            bit, pair = stack.pop()
            out.append(Atom(CLOSE, DELIMITER[bit], pair=pair))

    def run_end(start: int, bit: int) -> int:
        end = start
        while end < len(atoms) and not boundary(atoms[end]) and styles[end] & bit:
            end += 1
        return end

    for index, atom in enumerate(atoms):
        wanted = styles[index]
        close(wanted)
        opening = wanted & ~sum(bit for bit, _ in stack)
        bits = sorted(
            (bit for bit in (ITALIC, BOLD) if opening & bit),
            key=lambda bit: (-run_end(index, bit), bit),
        )
        for bit in bits:
            pairs += 1
            stack.append((bit, pairs))
            out.append(Atom(OPEN, DELIMITER[bit], pair=pairs))
        out.append(atom)
    close(0)
    return out


def resolve_emphasis(atoms: list[Atom]) -> list[Atom]:
    """Move what keeps a pair of delimiters from working outside it, or drop the pair.

    Punctuation that keeps a delimiter from opening or closing (``x**(a)**``,
    ``**Note:**text``) goes outside, so every pair left reads as emphasis in
    CommonMark, to both renderers. A pair that cannot (bold code right after a
    letter) or has nothing inside is dropped: the text stays.
    """
    opens = {a.pair for a in atoms if a.kind == OPEN}
    closes = {a.pair for a in atoms if a.kind == CLOSE}
    paired = opens & closes
    atoms = [a for a in atoms if a.kind not in (OPEN, CLOSE) or a.pair in paired]
    for close in [a for a in atoms if a.kind == CLOSE]:
        opening = next(a for a in atoms if a.kind == OPEN and a.pair == close.pair)
        start = next(i for i, a in enumerate(atoms) if a is opening)
        end = next(i for i, a in enumerate(atoms) if a is close)
        keep = start < end
        while keep:
            first = beside(atoms, start, 1)
            last = beside(atoms, end, -1)
            if first is None or last is None or first > end or last < start:
                keep = False
                break
            inside = [a for a in atoms[start + 1 : end] if a.kind not in (OPEN, CLOSE)]
            if all(blank(a) for a in inside):
                keep = False
                break
            if blank(atoms[first]) or (
                _movable(atoms[first])
                and (not _opens(atoms, start, first) or _ambiguous(atoms, start, atoms[first]))
            ):
                atoms.insert(start, atoms.pop(first))
                start += 1
                continue
            if blank(atoms[last]) or (
                _movable(atoms[last])
                and (not _closes(atoms, end, last) or _ambiguous(atoms, end, atoms[last]))
            ):
                atoms.insert(end, atoms.pop(last))
                end -= 1
                continue
            keep = _opens(atoms, start, first) and _closes(atoms, end, last)
            break
        if not keep:
            atoms.remove(close)
            atoms.remove(opening)
    _bold_inside(atoms)
    while misread := _misread_pairs(atoms):
        # Of the pairs a renderer would misread, give up the one holding least text.
        dropped = min(misread, key=lambda pair: (_letters_in(atoms, pair), -pair))
        atoms = [a for a in atoms if a.kind not in (OPEN, CLOSE) or a.pair != dropped]
        # A pair given up can leave two of a kind touching: one run, as they read back.
        atoms = _join_touching(atoms)
    return atoms


def _join_touching(atoms: list[Atom]) -> list[Atom]:
    """``*a**b*`` as ``*ab*``: a close touching an open of its kind joins the two pairs."""
    joined: list[Atom] = []
    renamed: dict[int, int] = {}
    for atom in atoms:
        if atom.kind == CLOSE and atom.pair in renamed:
            atom.pair = renamed[atom.pair]
        if atom.kind == OPEN and joined and joined[-1].kind == CLOSE:
            if joined[-1].text == atom.text:
                renamed[atom.pair] = joined.pop().pair
                continue
        joined.append(atom)
    return joined


def _bold_inside(atoms: list[Atom]) -> None:
    """Bold inside italics where both open and close together (``***x***``).

    CommonMark reads the two delimiter characters next to the text as bold, so
    bold written outside would be misread; moving text out of a pair can leave
    two pairs so.
    """
    for index in range(len(atoms) - 1):
        outer, inner = atoms[index], atoms[index + 1]
        if not (outer.kind == inner.kind == OPEN and (outer.text, inner.text) == ("**", "*")):
            continue
        ends = [
            at
            for at, atom in enumerate(atoms)
            if atom.kind == CLOSE and atom.pair in (outer.pair, inner.pair)
        ]
        if len(ends) == 2 and ends[1] == ends[0] + 1 and atoms[ends[0]].pair == inner.pair:
            atoms[index], atoms[index + 1] = inner, outer
            atoms[ends[0]], atoms[ends[1]] = atoms[ends[1]], atoms[ends[0]]


def _letters_in(atoms: list[Atom], pair: int) -> int:
    """How many letters and digits a pair of delimiters holds."""
    inside = False
    count = 0
    for atom in atoms:
        if atom.kind in (OPEN, CLOSE) and atom.pair == pair:
            if inside:
                break
            inside = True
        elif inside and atom.kind != CLOSE and atom.kind != OPEN:
            count += sum(char.isalnum() for char in atom.text)
    return count


@dataclass(slots=True)
class _Run:
    """A run of delimiters as CommonMark sees it: each character's pair, what it can do."""

    pairs: list[int]
    length: int
    can_open: bool
    can_close: bool
    members: frozenset[int] = frozenset()
    """Every pair with a delimiter in the run."""


def _contexts(atoms: list[Atom]) -> list[list[int]]:
    """The atoms of each paragraph, list item, heading: emphasis never crosses them."""
    contexts: list[list[int]] = [[]]
    for index, atom in enumerate(atoms):
        if boundary(atom):
            contexts.append([])
            if atom.prefix:
                contexts[-1].append(index)
            continue
        contexts[-1].append(index)
    return [context for context in contexts if context]


def _misread_pairs(atoms: list[Atom]) -> set[int]:
    """Pairs of delimiters a renderer would not read as written (none when all are).

    Runs CommonMark's "process emphasis" over each paragraph (its rule of three
    included), as the exporter and as the web app see the text, and compares what
    it matches with the pairs meant.
    """
    for view in (EXPORT, WEB):
        for context in _contexts(atoms):
            misread = _misread_in(atoms, context, view)
            if misread:
                return misread
    return set()


def _misread_in(atoms: list[Atom], context: list[int], view: int) -> set[int]:
    """:func:`_misread_pairs` for one paragraph and one renderer.

    Returns:
        The pairs at the first place where the reading differs from what was meant.
    """
    inside = set(context)
    runs: list[_Run] = []
    position = 0
    while position < len(context):
        index = context[position]
        if atoms[index].kind not in (OPEN, CLOSE):
            position += 1
            continue
        last = position
        while last + 1 < len(context) and atoms[context[last + 1]].kind in (OPEN, CLOSE):
            last += 1
        members = [atoms[i] for i in context[position : last + 1]]
        pairs = [atom.pair for atom in members for _ in atom.text]
        before = context[position] - 1
        after = context[last] + 1
        prev_class = edge_class(atoms[before] if before in inside else None, last=True, view=view)
        next_class = edge_class(atoms[after] if after in inside else None, last=False, view=view)
        left = next_class != "space" and (next_class == "word" or prev_class != "word")
        right = prev_class != "space" and (prev_class == "word" or next_class != "word")
        runs.append(_Run(pairs, len(pairs), left, right, frozenset(pairs)))
        position = last + 1
    for closer_at, closer in enumerate(runs):
        while closer.can_close and closer.pairs:
            opener_at = next(
                (
                    at
                    for at in range(closer_at - 1, -1, -1)
                    if runs[at].pairs
                    and runs[at].can_open
                    and not (
                        (runs[at].can_close or closer.can_open)
                        and (runs[at].length + closer.length) % 3 == 0
                        and not (runs[at].length % 3 == 0 and closer.length % 3 == 0)
                    )
                ),
                None,
            )
            if opener_at is None:
                break
            opener = runs[opener_at]
            use = 2 if len(opener.pairs) >= 2 and len(closer.pairs) >= 2 else 1
            opened, closed = opener.pairs[-use:], closer.pairs[:use]
            del opener.pairs[-use:], closer.pairs[:use]
            meant = next(a for a in atoms if a.kind == OPEN and a.pair == closed[0])
            if (
                set(opened) | set(closed) != {closed[0]}
                or len(meant.text) != use
                or any(between.pairs for between in runs[opener_at + 1 : closer_at])
            ):
                return set().union(*(run.members for run in runs[opener_at : closer_at + 1]))
    return set().union(*(run.members for run in runs if run.pairs))


def _movable(atom: Atom) -> bool:
    """Whether an atom may leave emphasis: text, or markup whole in itself.

    A link's brackets must stay around their label, and a block is no inline part.
    """
    if atom.kind == TEXT:
        return True
    return (
        atom.kind == MARK
        and atom.text != "["
        and not atom.text.startswith("](")
        and "\n" not in atom.text
    )


def _ambiguous(atoms: list[Atom], at: int, inner: Atom) -> bool:
    """Whether a delimiter could both open and close, and punctuation inside may go out.

    Such a delimiter can pair with another than meant; with the punctuation next to
    it moved outside the emphasis, it can only do what it is for.
    """
    if inner.kind != TEXT or edge_class(inner, last=False) != "punct":
        return False
    before = None if (i := beside(atoms, at, -1)) is None else atoms[i]
    after = None if (i := beside(atoms, at, 1)) is None else atoms[i]
    for view in (EXPORT, WEB):
        prev_class = edge_class(before, last=True, view=view)
        next_class = edge_class(after, last=False, view=view)
        left = next_class != "space" and (next_class == "word" or prev_class != "word")
        right = prev_class != "space" and (prev_class == "word" or next_class != "word")
        if left and right:
            return True
    return False


def _opens(atoms: list[Atom], start: int, first: int) -> bool:
    """Whether the delimiter at ``start`` is left-flanking (can open) to both renderers."""
    before = None if (at := beside(atoms, start, -1)) is None else atoms[at]
    return all(
        edge_class(atoms[first], last=False, view=view) == "word"
        or edge_class(before, last=True, view=view) != "word"
        for view in (EXPORT, WEB)
    )


def _closes(atoms: list[Atom], end: int, last: int) -> bool:
    """Whether the delimiter at ``end`` is right-flanking (can close) to both renderers."""
    after = None if (at := beside(atoms, end, 1)) is None else atoms[at]
    return all(
        edge_class(atoms[last], last=True, view=view) == "word"
        or edge_class(after, last=False, view=view) != "word"
        for view in (EXPORT, WEB)
    )
