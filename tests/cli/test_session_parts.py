"""Exercises with parts and typed numbers, on the command line as a learner types them."""

from __future__ import annotations

from pathlib import Path

from sysdrill.app.study import open_study
from sysdrill.study.ratings import GradedBy, Rating

PARTS_VAULT = Path(__file__).resolve().parents[1] / "study" / "sessions" / "parts_vault"
VAULT = Path(__file__).resolve().parents[1] / "study" / "sessions" / "vault"


def _reviews(vault: Path = PARTS_VAULT):
    from sysdrill.app.study_vault import open_study_vault

    with open_study(None, vault=open_study_vault(vault)) as study:
        return [
            (r.item_id, Rating(r.rating), GradedBy(r.graded_by), r.answer)
            for r in study.store.iter_reviews(study.scope)
        ]


def test_practice_asks_each_part_and_grades_the_numeric_ones(run_cli):
    result = run_cli(
        "practice", "--vault", str(PARTS_VAULT), "--limit", "2",
        input="128 k\n40\n~0.13 MB\n50\nyes\ngood\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "(a) How big is the buffer?\nYour answer to (a) (one line, - for none):" in out
    assert "(b) What share of a 256 KiB cache is that?" in out
    assert (
        "(b) wrong: Not quite: 40 %, expected 50 % (within 5 % of it: 47.5 to 52.5 %).\n"
        "1 of 2 parts right."
    ) in out
    assert "(c) Is double buffering affordable?" in out
    assert "Compare your answers with the reference, then rate." in out
    assert "  (a) 32 * 4 KiB = 128 KiB." in out
    assert _reviews() == [
        ("ex-num", Rating.HARD, GradedBy.NUMERIC, "(a) 128 k\n(b) 40"),
        ("ex-parts", Rating.GOOD, GradedBy.SELF, "(a) ~0.13 MB\n(b) 50\n(c) yes"),
    ]


def test_an_unreadable_part_answer_is_asked_again_not_graded(run_cli):
    result = run_cli(
        "practice", "--vault", str(PARTS_VAULT), "--limit", "1", input="lots\n128 KiB\n50 %\n"
    )
    assert result.exit_code == 0, result.stderr
    assert (
        "> lots\nCould not read 'lots' as a number; type a number with a unit, like 3 KiB. "
        "Answer again:\n> 128 KiB\n"
    ) in result.stdout
    assert _reviews() == [("ex-num", Rating.GOOD, GradedBy.NUMERIC, "(a) 128 KiB\n(b) 50 %")]


def test_an_unreadable_numeric_answer_is_asked_again_with_the_form_expected(run_cli):
    result = run_cli(
        "practice", "--vault", str(VAULT), "--level", "L3", "--zone", "analyze",
        "--topic", "memory-hierarchy", input="forty-ish\nabout 40 ms\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    assert (
        "> forty-ish\nCould not read 'forty-ish' as a number; type a number with a unit, "
        "like 3 ms. Answer again:\n> about 40 ms\nCorrect" in result.stdout
    )
    assert _reviews(VAULT) == [("c-l3-num", Rating.GOOD, GradedBy.NUMERIC, "about 40 ms")]


def test_napkin_math_in_a_typed_answer_is_marked_before_the_rating(run_cli):
    result = run_cli(
        "practice", "--vault", str(VAULT), "--topic", "pipeline", "--limit", "1",
        input="bubble = 3/19 = 0.3, and 16 * 4 = 64\ngood\n",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    marked = out.index("Your math: 3/19 = 0.3: wrong (expected ≈ 0.158 from 3/19")
    assert out.index("Your math: 16 * 4 = 64: right.") > marked
    assert out.index("Rate your recall") > marked
    assert _reviews(VAULT)[0][1] is Rating.GOOD


def test_the_starter_exercise_grades_its_worded_numeric_parts(run_cli):
    result = run_cli(
        "quiz", "sample-exercises", input="lots\n~48.8 hours\n76 min\nhalf an interval\ngood\n"
    )
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Could not read 'lots' as a number; type a number with a unit, like 3 hours." in out
    assert "(a) right: Correct: 48.8 hours (expected 48.8 hours)." in out
    assert "(b) right: Correct: 4,560 s (expected 4,600 s)." in out
    assert "Rate your recall" in out  # (c) is compared by the learner, who rates the item


def test_practice_reads_a_numeric_answer_typed_as_a_sentence(run_cli, tmp_path):
    assert run_cli("init", str(tmp_path / "v")).exit_code == 0
    result = run_cli(
        "practice", "--vault", str(tmp_path / "v"), input="-\ngood\n14 billion bytes.\n"
    )
    assert result.exit_code == 0, result.stderr
    assert "> 14 billion bytes.\nCorrect: 14 GB (expected 14 GB)." in result.stdout
