"""The question stays in sight on an 80x24 terminal, and practice errors are one line.

A long scenario above a question with four long options must not push the
question out of a 24-line, 80-column terminal before the learner answers: in
the line mode (measured on the transcript, wrapped as the terminal wraps it)
and in the full-screen interface (Textual's pilot at 80x24).
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from rich.cells import cell_len

from sysdrill.app.study_vault import StudyVault
from sysdrill.cli.tui import StudyApp
from sysdrill.content.loader import load_vault
from sysdrill.study.sessions.chains import ChainIndex
from sysdrill.study.sessions.state_machine import Session, SessionKind, SessionLineup

COLUMNS, LINES = 80, 24
QUESTION = "Which change shortens the step the most, given the profile above?"
NUMERIC_QUESTION = "How long does one sweep of the 80 GB of HBM at 2 TB/s take?"
_SCENARIO = " ".join(
    [
        "Your team trains a 70B-parameter model on 512 GPUs across 64 nodes, with tensor "
        "parallelism inside each node and pipeline parallelism across groups of eight nodes."
    ]
    * 6
)
_COMMON = {
    "track": "cloud",
    "level": "L3",
    "zone": "analyze",
    "topic": "memory-hierarchy",
    "competency_area": "memory",
    "bloom_level": "apply",
    "phase": "training",
    "status": "published",
    "tags": ["long"],
    "scenario": _SCENARIO,
}
OPTIONS = [
    "Raise the micro-batch size until activations fill the memory that the optimizer "
    "state leaves free on each GPU",
    "Overlap the gradient all-reduce with the backward pass so that communication hides "
    "behind computation",
    "Move the optimizer state to host memory and page it back in for every step of the "
    "training run",
    "Double the pipeline depth so that each stage holds fewer layers and the bubble "
    "shrinks in proportion",
]


@pytest.fixture
def long_vault(tmp_path: Path) -> Path:
    """A vault of two items whose scenario alone fills most of a 24-line terminal."""
    folder = tmp_path / "vault" / "questions"
    folder.mkdir(parents=True)
    items = [
        {
            "id": "cloud-long-mc",
            "title": "Where the step time goes",
            **_COMMON,
            "question": QUESTION,
            "details": {
                "realistic_solution": "Overlap the all-reduce with the backward pass.",
                "options": OPTIONS,
                "correct_index": 1,
            },
        },
        {
            "id": "cloud-long-num",
            "title": "Sweep time at scale",
            **_COMMON,
            "question": NUMERIC_QUESTION,
            "details": {"realistic_solution": "About 40 ms: 80 GB / 2 TB/s."},
            "answer_value": 40,
            "answer_unit": "ms",
            "answer_tolerance": 0.05,
        },
    ]
    for item in items:
        (folder / f"{item['id']}.yaml").write_text(yaml.safe_dump(item, sort_keys=False))
    return folder.parent


def _last_screen(transcript: list[str]) -> str:
    """What a 24-line, 80-column terminal shows once ``transcript`` is printed."""
    shown: list[str] = []
    rows = 0
    for line in reversed(transcript):
        rows += max(1, -(-cell_len(line) // COLUMNS))  # a long line wraps onto more rows
        if rows > LINES:
            break
        shown.insert(0, line)
    return "\n".join(shown)


def test_line_mode_keeps_the_question_and_its_choices_on_the_last_screen(
    run_cli, long_vault, tmp_path
):
    answers = tmp_path / "answers.txt"
    answers.write_text("b\n40 ms\n", encoding="utf-8")
    result = run_cli(
        "practice", "--vault", str(long_vault), "--tag", "long", "--answers", str(answers)
    )
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    prompts = [i for i, line in enumerate(lines) if line.startswith(("Your choice", "Your answer"))]
    assert len(prompts) == 2
    for index in prompts:
        screen = _last_screen(lines[: index + 1])
        if lines[index].startswith("Your choice"):
            assert QUESTION in screen
            assert all(option in screen for option in OPTIONS)
        else:
            assert NUMERIC_QUESTION in screen
    assert "Items: 2 answered" in result.stdout


class _Recorder:
    def record(self, result, *, now):
        return now


def _screen_at_80x24(item_id: str, vault: Path) -> list[str]:
    """The terminal interface's screen, as text rows, on the item's first prompt."""
    loaded = load_vault(vault)
    item = StudyVault.of(loaded).by_id[item_id]
    plan = SessionLineup(kind=SessionKind.PRACTICE, title="Practice: long", items=(item,))
    session = Session(
        plan,
        recorder=_Recorder(),
        clock=lambda: datetime(2026, 11, 21, 9, 0, tzinfo=UTC),
        chains=ChainIndex(loaded.chains, loaded.items),
    )
    app = StudyApp(session)

    async def main() -> list[str]:
        async with app.run_test(size=(COLUMNS, LINES)) as pilot:
            await pilot.pause()
            # The rows as drawn, clipping and scrolling included (Textual has no public
            # accessor; its snapshot tests read the same compositor).
            return [strip.text for strip in app.screen._compositor.render_strips()]

    return asyncio.run(main())


def _squeezed(rows: list[str]) -> str:
    """The screen's text with each row's spacing and the wrapping undone."""
    return " ".join(" ".join(row.split()) for row in rows)


def test_the_interface_pins_the_question_and_choices_on_an_80x24_screen(long_vault):
    rows = _screen_at_80x24("cloud-long-mc", long_vault)
    assert len(rows) == LINES
    text = _squeezed(rows)
    assert QUESTION in text
    for letter, option in zip("abcd", OPTIONS, strict=True):
        assert f"{letter}) {option}" in text
    assert "Your team trains a 70B-parameter model" in text  # the scenario starts above
    assert "a-d choose" in text


def test_the_interface_shows_the_question_above_the_answer_box_on_an_80x24_screen(long_vault):
    rows = _screen_at_80x24("cloud-long-num", long_vault)
    text = _squeezed(rows)
    assert NUMERIC_QUESTION in text
    question_row = next(i for i, row in enumerate(rows) if "How long does one sweep" in row)
    answer_row = next(i for i, row in enumerate(rows) if "Your answer" in row)
    assert question_row < answer_row < LINES


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--deck", "nope"), "Error: No deck named 'nope'. Known decks: ch26-quiz, dp-cards."),
        (("--db", "nonsense://x"), "Error: Unsupported database 'nonsense' in nonsense://x."),
        (("--db", "sqlite:////etc/hostname/study.db"), "Error: Cannot read /etc/hostname/study.db"),
        (("--db", "postgresql+psycopg://nobody@127.0.0.1:1/none"), "Error: Database failure"),
    ],
)
def test_practice_errors_are_one_line_without_a_traceback(run_cli, args, message):
    vault = Path(__file__).resolve().parents[1] / "study" / "sessions" / "vault"
    result = run_cli("practice", "--vault", str(vault), *args, input="")
    assert result.exit_code == 1
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(message)


def test_practice_in_a_vault_folder_that_does_not_exist_is_one_error_line(run_cli, tmp_path):
    missing = tmp_path / "no" / "vault"
    result = run_cli("practice", "--vault", str(missing), input="")
    assert result.exit_code == 1
    assert result.stderr == (
        f"Error: vault '{missing}' does not exist; pass an existing vault folder\n"
    )
