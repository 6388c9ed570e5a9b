"""How much note text changes on a round trip from Anki to sysdrill and back (issue 31).

No real Anki deck is on this machine, so the collection is built with the official
``anki`` package from note HTML in the styles real decks use: emphasis with spaces
inside, lists, tables, sub/superscripts, code, cloze blanks with hints, LaTeX and
MathJax, furigana (``<ruby>``), images, and text Markdown would reinterpret
(``__x__``, a leading ``+`` or ``#``, ``*`` and ``_`` in prose). Each construct
appears in several notes (Basic, reversed with an IPA field, Cloze).

Two trips are measured, each note's fields compared as Anki compares notes for
duplicates (tags stripped but media file names, entities decoded, whitespace runs
as one space):

- ``unchanged``: import the package here, export it (``sysdrill export``), and
  import the export into the collection it came from with Anki; a note counts as
  changed when any field's text differs afterwards (and the note count must stay);
- ``edited``: each field as it goes back when the learner edits it here, i.e.
  converted to Markdown by the importer and rendered by the exporter
  (``html_to_markdown``, ``FieldRenderer``, then the original markup Markdown
  cannot say put back, ``restore_anki_markup``), what the ``unchanged`` trip
  keeps only because nothing was edited.

Prints the share of notes whose text changed on each trip, and for the edited trip
which constructs change, with an example. Accuracy only: nothing here is timed.

Usage: ``.venv/bin/python bench/anki_round_trip.py [--copies N]`` (needs the
``anki`` package, installed by the ``test-anki`` extra).
"""

from __future__ import annotations

import argparse
import html
import re
import sys
import tempfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

# A 1x1 PNG and the start of an MP3 (real magic bytes), for the image and sound notes.
PNG_BYTES = bytes.fromhex(
    "89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4"
    "890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)
MP3_BYTES = b"ID3\x03\x00\x00\x00\x00\x00\x0a" + b"\x00" * 10 + b"\xff\xfb\x90\x64" + b"\x00" * 64
MEDIA = {"board.png": PNG_BYTES, "board.mp3": MP3_BYTES}

CONSTRUCTS: dict[str, tuple[str, str]] = {
    # name: (front HTML, back HTML), as decks write them
    "plain": ("What does HBM stand for?", "High-bandwidth memory"),
    "bold": ("What is <b>ZeRO</b>?", "Sharding of <b>optimizer state</b>"),
    "bold inner spaces": ("Which <b> collective </b>?", "An<b> all-reduce </b>ring"),
    "italic inner spaces": ("The <i>ring </i>algorithm", "is <i> bandwidth optimal</i>"),
    "nested emphasis": ("<b><i>NCCL</i> library</b>", "<i>by <b>NVIDIA</b></i>"),
    "underline": ("<u>Pipeline</u> bubbles", "idle <u>stages</u>"),
    "bullet list": ("Name three collectives", "<ul><li>all-reduce</li><li>all-gather</li></ul>"),
    "ordered list": ("Steps of ring all-reduce", "<ol><li>reduce-scatter</li><li>gather</li></ol>"),
    "table": (
        "HBM per GPU",
        "<table><tr><th>GPU</th><th>HBM</th></tr><tr><td>A100</td><td>80 GB</td></tr></table>",
    ),
    "table no header": (
        "Link speeds",
        "<table><tbody><tr><td>NVLink</td><td>900 GB/s</td></tr></tbody></table>",
    ),
    "sub and sup": ("Scale of 10<sup>4</sup>", "CO<sub>2</sub> and x<sup>2</sup>"),
    "code span": ("The call <code>dist.all_reduce(t)</code>", "Returns <code>None</code>"),
    "code block": (
        "Launch line?",
        "<pre><code>torchrun --nproc_per_node=8 train.py\n  --fp16</code></pre>",
    ),
    "latex": ("[$]E = mc^2[/$]", "[$$]\\sum_i x_i[/$$]"),
    "mathjax": ("\\(a_1 * b_2\\)", "\\[\\frac{N}{B}\\]"),
    "ruby": (
        "<ruby>漢字<rt>かんじ</rt></ruby>",
        "<ruby>本<rp>(</rp><rt>ほん</rt><rp>)</rp></ruby>",
    ),
    "image": ('<img src="board.png">', 'See <img src="board.png"> above'),
    "dunder": ("What is __proto__?", "The __init__ method"),
    "leading plus": ("+ pro: fewer bubbles", "+ con: more memory"),
    "leading hash": ("#1 cause of OOM", "# of GPUs"),
    "stars in prose": ("2 * 3 * 4 = 24", "a*b and c*d"),
    "underscores in names": ("my_var_name", "snake_case_id"),
    "line breaks": ("one<br>two", "a<br><br>b"),
    "divs": ("<div>first</div><div>second</div>", "<div>x</div><div><br></div><div>y</div>"),
    "entities": ("a &lt; b &amp;&amp; c &gt; d", "&nbsp;spaced&nbsp;out"),
    "link": ('<a href="https://example.org/a_b">docs</a>', "See https://example.org"),
    "font colour": ('<font color="#ff0000">red</font> text', '<span style="color:red">hot</span>'),
    "indented": ("&nbsp;&nbsp;&nbsp;&nbsp;indented code?", "    four spaces"),
    "numbered prose": ("1. Not a list", "2) Nor this"),
    "brackets": ("[not a link](x)", "<angle> brackets &lt;tag&gt;"),
    "backslash": ("C:\\path\\to", "a \\* b"),
    "html comment": ("visible<!-- hidden -->", "text"),
    "adjacent emphasis": ("<b>bold</b><i>italic</i>", "x<b>y</b>z"),
    "styled bold": ('<span style="font-weight: bold;">bold span</span>', "<strong>strong</strong>"),
    "strike": ("<s>old</s> new", "<del>gone</del>"),
    "heading": ("<h3>Heading</h3>text", "<h1>Big</h1>"),
    "blockquote": ("<blockquote>quoted</blockquote>", "after"),
    "nested list": ("Tree", "<ul><li>a<ul><li>b</li></ul></li><li>c</li></ul>"),
    "sound": ("Say it [sound:board.mp3]", "HBM"),
    "emphasis and nbsp": ("<b>&nbsp;HBM&nbsp;</b>is", "<i>fast&nbsp;</i>&nbsp;memory"),
    "tilde and pipes": ("~approx~ 3", "a | b | c"),
}
CLOZES: dict[str, str] = {
    "cloze with hint": "{{c1::NCCL::library}} runs {{c2::all-reduce::collective}}",
    "cloze emphasis": "<b>{{c1::Ring}}</b> all-reduce sends {{c2::2(N-1)}} steps",
    "cloze math": "Bandwidth {{c1::\\(\\frac{2(N-1)}{N}\\)}} of the data",
    "cloze list": "<ul><li>{{c1::TP}}</li><li>{{c2::PP}}</li></ul>",
    "cloze bold spaces": "The<b> {{c1::ring}} </b>topology",
    "cloze latex": "Energy {{c1::[$]E = mc^2[/$]}}",
}

_IMG = re.compile(r"<img[^>]*\bsrc=[\"']?([^\"' >]+)[^>]*>", re.IGNORECASE)
_BLOCK_TAG = re.compile(
    r"</?(?:br|div|p|li|ul|ol|tr|td|th|table|tbody|pre|hr|h[1-6])\b[^>]*>", re.I
)
_TAG = re.compile(r"<[^>]*>", re.DOTALL)
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_STYLE = re.compile(r"<(style|script)\b.*?</\1>", re.DOTALL | re.IGNORECASE)


def anki_text(field: str) -> str:
    """A field as Anki compares it: tags gone but media names, entities decoded, spaces."""
    text = _COMMENT.sub("", _STYLE.sub("", field))
    text = _IMG.sub(lambda m: f" {m.group(1)} ", text)
    # Inline tags (emphasis, ruby) join their text; block tags separate it.
    text = html.unescape(_TAG.sub("", _BLOCK_TAG.sub(" ", text)))
    return " ".join(text.replace("\xa0", " ").split())


def build_collection(folder: Path, copies: int) -> tuple[Path, Path, dict[str, str]]:
    """Write the collection and its package; return them and each note's construct by GUID."""
    from anki.collection import Collection, ExportAnkiPackageOptions

    col = Collection(str(folder / "collection.anki2"))
    construct_of: dict[str, str] = {}
    try:
        for name, data in MEDIA.items():
            (folder / name).write_bytes(data)
            col.media.add_file(str(folder / name))
        models = col.models
        vocab = models.copy(models.by_name("Basic (and reversed card)"), add=False)
        vocab["name"] = "Vocab (and reversed card)"
        models.add_field(vocab, models.new_field("IPA"))
        models.add(vocab)
        deck = col.decks.id("Round trip")
        for copy in range(copies):
            for name, (front, back) in CONSTRUCTS.items():
                for kind in ("Basic", "Vocab (and reversed card)"):
                    note = col.new_note(models.by_name(kind))
                    note["Front"], note["Back"] = f"{front} ({copy})", back
                    if kind != "Basic":
                        note["IPA"] = back
                    col.add_note(note, deck)
                    construct_of[note.guid] = name
            for name, text in CLOZES.items():
                note = col.new_note(models.by_name("Cloze"))
                note["Text"], note["Back Extra"] = f"{text} ({copy})", "Ring or <i>tree </i>"
                col.add_note(note, deck)
                construct_of[note.guid] = name
        package = folder / "source.apkg"
        col.export_anki_package(
            out_path=str(package),
            options=ExportAnkiPackageOptions(
                with_scheduling=False, with_deck_configs=False, with_media=True, legacy=False
            ),
            limit=None,
        )
        return folder / "collection.anki2", package, construct_of
    finally:
        col.close()


def _fields(collection: Path) -> dict[str, list[str]]:
    from anki.collection import Collection

    col = Collection(str(collection))
    try:
        return {
            col.get_note(nid).guid: list(col.get_note(nid).fields) for nid in col.find_notes("")
        }
    finally:
        col.close()


def unchanged_trip(collection: Path, package: Path, work: Path) -> tuple[int, int, int]:
    """Import here, export, import into the original: (notes before, after, notes changed)."""
    from anki.collection import Collection, ImportAnkiPackageOptions, ImportAnkiPackageRequest

    from sysdrill.interop.export import export_vault
    from sysdrill.interop.importer import import_source

    now = datetime.now(UTC)
    before = _fields(collection)
    vault = work / "vault"
    import_source(package, into=vault, now=now, audit=False)
    out = work / "back.apkg"
    export_vault(vault, format="apkg", out=out, now=now)
    col = Collection(str(collection))
    try:
        col.import_anki_package(
            ImportAnkiPackageRequest(
                package_path=str(out), options=ImportAnkiPackageOptions(with_scheduling=False)
            )
        )
    finally:
        col.close()
    after = _fields(collection)
    changed = sum(
        1
        for guid, fields in before.items()
        if [anki_text(f) for f in after.get(guid, [])] != [anki_text(f) for f in fields]
    )
    return len(before), len(after), changed


def edited_trip(fields_by_guid: dict[str, list[str]]) -> dict[str, tuple[str, str]]:
    """Each note whose text an edit here would change: its first changed field, before/after."""
    from sysdrill.interop.export.anki_media import flatten_media
    from sysdrill.interop.export.anki_original import restore_anki_markup
    from sysdrill.interop.export.cards import FieldRenderer
    from sysdrill.interop.formats._common import html_to_markdown

    render = FieldRenderer()
    media = {name: name for name in MEDIA}
    changed: dict[str, tuple[str, str]] = {}
    for guid, fields in fields_by_guid.items():
        for field in fields:
            markdown = html_to_markdown(field, media_names=media)[0]
            back = restore_anki_markup(field, flatten_media(render(markdown), set()))
            if anki_text(back) != anki_text(field):
                changed[guid] = (anki_text(field), anki_text(back))
                break
    return changed


def main(argv: list[str] | None = None) -> int:
    """Build the collection, run both trips, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--copies", type=int, default=3, help="notes of each construct and type")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        collection, package, construct_of = build_collection(work, args.copies)
        originals = _fields(collection)
        edited = edited_trip(originals)
        notes, after, unchanged = unchanged_trip(collection, package, work)
    print(f"notes: {notes}, constructs: {len(CONSTRUCTS) + len(CLOZES)}")
    print(
        f"unchanged trip: {unchanged}/{notes} notes changed ({unchanged / notes:.1%}); "
        f"notes in the collection after: {after}"
    )
    print(f"edited trip: {len(edited)}/{notes} notes changed ({len(edited) / notes:.1%})")
    by_construct = Counter(construct_of[guid] for guid in edited)
    total = Counter(construct_of.values())
    for name, count in by_construct.most_common():
        before, after_text = next(v for g, v in edited.items() if construct_of[g] == name)
        print(f"  {name}: {count}/{total[name]}  {before!r} -> {after_text!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
