"""The answers format: lines, ratings, options, rubric ticks and replies."""

from __future__ import annotations

import pytest

from sysdrill.errors import UsageError
from sysdrill.study.ratings import Rating, RatingScale
from sysdrill.study.sessions.answers import (
    AnswerScript,
    Command,
    command_of,
    parse_rating,
    parse_rubric,
    parse_yes_no,
)


def test_script_skips_blank_lines_and_comments_and_counts_lines():
    script = AnswerScript(["# warm-up\n", "\n", "  b  \n", "good\r\n"], name="a.txt")
    assert script.next_line() == "b"
    assert script.line_number == 3
    assert script.next_line() == "good"
    assert script.next_line() is None
    assert str(script.error("bad")) == "a.txt:4: bad"


@pytest.mark.parametrize(
    ("text", "rating"),
    [
        ("again", Rating.AGAIN),
        ("A", Rating.AGAIN),
        ("hard", Rating.HARD),
        ("g", Rating.GOOD),
        ("Easy", Rating.EASY),
        ("1", Rating.AGAIN),
        ("2", Rating.HARD),
        ("3", Rating.GOOD),
        ("4", Rating.EASY),
    ],
)
def test_ratings_are_words_letters_or_keys_1_to_4_by_default(text, rating):
    assert parse_rating(text) is rating


@pytest.mark.parametrize(
    ("text", "rating"),
    [
        ("1", Rating.AGAIN),
        ("2", Rating.AGAIN),
        ("3", Rating.HARD),
        ("4", Rating.GOOD),
        ("5", Rating.EASY),
        ("good", Rating.GOOD),
    ],
)
def test_on_the_confidence_scale_digits_are_confidence(text, rating):
    assert parse_rating(text, RatingScale.CONFIDENCE) is rating


def test_a_key_off_the_scale_is_refused_with_the_scale_in_words():
    with pytest.raises(UsageError, match="Use 1 Again, 2 Hard, 3 Good or 4 Easy"):
        parse_rating("5")
    with pytest.raises(UsageError, match="from 1 \\(no idea\\) to 5 \\(perfect\\)"):
        parse_rating("6", RatingScale.CONFIDENCE)


def test_rubric_ticks_accept_lists_all_and_none():
    assert parse_rubric("1 3", 4) == {0, 2}
    assert parse_rubric("1,2;4", 4) == {0, 1, 3}
    assert parse_rubric("all", 3) == {0, 1, 2}
    assert parse_rubric("none", 3) == frozenset()
    with pytest.raises(UsageError, match="from 1 to 3"):
        parse_rubric("4", 3)


def test_yes_no_and_commands():
    assert parse_yes_no("Y") is True
    assert parse_yes_no("no") is False
    with pytest.raises(UsageError) as refused:
        parse_yes_no("maybe")
    assert str(refused.value) == "Unknown reply 'maybe': the replies are y (yes) and n (no)."
    assert command_of("SKIP") is Command.SKIP
    assert command_of("q") is Command.QUIT
    assert command_of("good") is None


def test_a_block_between_fences_is_one_answer_with_its_lines():
    script = AnswerScript(["good", '"""', "line one", "", "# kept", '  """  ', "hard"])
    assert script.next_line() == "good"
    assert script.next_line() == "line one\n\n# kept"
    assert script.line_number == 6
    assert script.next_line() == "hard"


def test_an_unclosed_block_names_the_line_that_opened_it():
    script = AnswerScript(["good", '"""', "never closed"], name="answers.txt")
    script.next_line()
    with pytest.raises(UsageError, match=r"^answers.txt:2: The multi-line answer opened here"):
        script.next_line()
