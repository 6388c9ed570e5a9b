"""A claim's position in a YAML file, whatever style its field is written in."""

from __future__ import annotations

from sysdrill.napkin.filecheck import check_document

# The napkin math is one double-quoted scalar folded over several file lines, as YAML
# dumpers write long strings: a value line runs on past a file line's end.
FOLDED = (
    "id: cloud-0001\n"
    "details:\n"
    '  napkin_math: "**Calculations:**\\n   - Step time: forward (0.20ms) + backward\\\n'
    '    \\ (0.40ms) = 0.9ms.\\n"\n'
)


def _wrong(document: str) -> list[tuple[int, int]]:
    result = check_document(document, source="item.yaml")
    return [
        (v.verdict.line, v.verdict.column)
        for v in result.verdicts
        if v.verdict.verdict.value == "wrong"
    ]


def test_a_claim_continued_on_the_next_file_line_points_at_its_equals_sign() -> None:
    [(line, column)] = _wrong(FOLDED)

    assert line == 4
    assert FOLDED.splitlines()[line - 1][column - 1 :].startswith("= 0.9ms")


def test_a_claim_in_a_literal_block_keeps_its_line_and_column() -> None:
    document = (
        "id: cloud-0001\n"
        "details:\n"
        "  napkin_math: |\n"
        "    **Calculations:**\n"
        "    - Step time: 0.20 ms + 0.40 ms = 0.9 ms.\n"
    )
    [(line, column)] = _wrong(document)

    assert line == 5
    assert document.splitlines()[line - 1][column - 1 :].startswith("= 0.9 ms")
