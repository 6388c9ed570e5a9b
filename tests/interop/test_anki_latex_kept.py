"""Anki's own LaTeX survives an edit here (issue 31, item 4).

The import reads ``[$]...[/$]`` and ``[$$]...[/$$]`` as ``$...$`` and ``$$...$$`` (shown
with MathJax); a field the author edits goes back to Anki with the LaTeX markup it
had, so Anki still typesets it as before (bench/anki_round_trip.py found this the
commonest change of an edited note).
"""

from __future__ import annotations

from pathlib import Path

import genanki
from tests.interop.test_anki_original import NOW, _edit, _exported, _items, _notes

from sysdrill.interop.importer import import_source

LATEX_BACK = "Energy [$]E = mc^2[/$], summed: [$$]\\sum_i x_i &lt; N[/$$]"


def _vault(tmp_path: Path) -> Path:
    deck = genanki.Deck(1_700_031_501, "Physics")
    deck.add_note(
        genanki.Note(model=genanki.BASIC_MODEL, fields=["Mass-energy?", LATEX_BACK], guid="latex")
    )
    package = tmp_path / "latex.apkg"
    genanki.Package(deck).write_to_file(str(package))
    vault = tmp_path / "vault"
    import_source(package, into=vault, now=NOW, audit=False)
    return vault


def test_an_edited_answer_keeps_ankis_latex_markup(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    path, raw = _items(vault)["latex"]
    assert raw["details"]["realistic_solution"] == (
        "Energy $E = mc^2$, summed: $$\\sum_i x_i < N$$"
    )
    _edit(path, "Energy $E", "Rest energy $E")

    notes = _notes(_exported(vault, tmp_path))

    assert notes["latex"][1] == [
        "Mass-energy?",
        "<p>Rest energy [$]E = mc^2[/$], summed: [$$]\\sum_i x_i &lt; N[/$$]</p>",
    ]


def test_edited_latex_goes_back_as_written_here(tmp_path: Path) -> None:
    vault = _vault(tmp_path)
    path, _ = _items(vault)["latex"]
    _edit(path, "$E = mc^2$", "$E = m c^2$")

    notes = _notes(_exported(vault, tmp_path))

    # The changed formula is new text, shown with MathJax; the unchanged one keeps its markup.
    assert notes["latex"][1][1] == (
        "<p>Energy \\(E = m c^2\\), summed: [$$]\\sum_i x_i &lt; N[/$$]</p>"
    )
