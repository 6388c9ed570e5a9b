"""``diagram``: a diagram that cannot be drawn is reported at its line, with why."""

from __future__ import annotations

from pathlib import Path

from sysdrill.check.runner import run_check

FLASHCARD = """\
id: global-flashcard-0002
format: flashcard
question: Where does the bubble of this pipeline come from?
details:
  realistic_solution: From the warm-up and the drain.
diagram:
  kind: {kind}
  params:
    stages: {stages}
    microbatches: 8
"""

TEMPLATE = """\
id: global-numeric-0003
format: numeric
question: How many steps does a ring all-reduce over {{ranks}} ranks take?
parameters:
  ranks:
    choices: [4, 8, 512]
answer_expr: 2 * ({{ranks}} - 1)
answer_unit: ''
details:
  napkin_math: |
    - Steps: 2 * ({{ranks}} - 1) = {{answer}}
diagram:
  kind: ring-allreduce
  params:
    ranks: "{reference}"
"""


def _findings(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    vault = tmp_path / "vault"
    (vault / "questions").mkdir(parents=True)
    for name, text in files.items():
        (vault / "questions" / name).write_text(text, encoding="utf-8")
    report = run_check(vault)
    return [(f.path, f.line, f.message) for f in report.findings if f.code == "diagram"]


def test_a_drawable_diagram_passes(tmp_path: Path) -> None:
    files = {"global-flashcard-0002.yaml": FLASHCARD.format(kind="pipeline-schedule", stages=4)}

    assert _findings(tmp_path, files) == []


def test_an_unknown_kind_is_reported_at_the_diagram_line(tmp_path: Path) -> None:
    files = {"global-flashcard-0002.yaml": FLASHCARD.format(kind="gantt", stages=4)}

    assert _findings(tmp_path, files) == [
        (
            "questions/global-flashcard-0002.yaml",
            6,
            "diagram kind 'gantt' is unknown; use one of pipeline-schedule, ring-allreduce, "
            "tree-allreduce, memory-breakdown, roofline",
        )
    ]


def test_a_negative_stage_count_is_reported(tmp_path: Path) -> None:
    files = {"global-flashcard-0002.yaml": FLASHCARD.format(kind="pipeline-schedule", stages=-4)}

    assert _findings(tmp_path, files) == [
        (
            "questions/global-flashcard-0002.yaml",
            6,
            "params.stages = -4: input should be greater than or equal to 1",
        )
    ]


def test_a_template_reference_to_no_parameter_is_reported(tmp_path: Path) -> None:
    files = {"global-numeric-0003.yaml": TEMPLATE.format(reference="{gpus}")}

    (finding,) = _findings(tmp_path, files)
    assert finding[:2] == ("questions/global-numeric-0003.yaml", 12)
    assert finding[2].endswith("params.ranks refers to {gpus}, which no parameter defines")


def test_a_template_draw_too_large_to_draw_is_reported_with_its_seed(tmp_path: Path) -> None:
    files = {"global-numeric-0003.yaml": TEMPLATE.format(reference="{ranks}")}

    (finding,) = _findings(tmp_path, files)
    assert finding[2].startswith("seed ")
    assert "params.ranks = 512.0: input should be less than or equal to 128" in finding[2]
