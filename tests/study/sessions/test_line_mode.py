"""The scripted line mode: a transcript driven by answer lines."""

from __future__ import annotations

from datetime import timedelta

import pytest

from sysdrill.study.ratings import GradedBy, Rating, RatingScale
from sysdrill.study.sessions.answers import AnswerScript
from sysdrill.study.sessions.chains import ChainIndex
from sysdrill.study.sessions.line_mode import run_scripted
from sysdrill.study.sessions.report import format_interval
from sysdrill.study.sessions.state_machine import Session, SessionKind, SessionLineup


def _session(vault, clock, recorder, *ids, **options):
    by_id = {item.id: item for item in vault.items}
    plan = SessionLineup(
        kind=options.pop("kind", SessionKind.PRACTICE),
        title=options.pop("title", "Practice"),
        items=tuple(by_id[i] for i in ids),
        **options,
    )
    return Session(
        plan, recorder=recorder, clock=clock, chains=ChainIndex(vault.chains, vault.items)
    )


def _run(session, text):
    out: list[str] = []
    report = run_scripted(session, AnswerScript(text.splitlines(), name="answers.txt"), out.append)
    return report, out


def test_transcript_shows_item_reveal_and_recorded_rating(vault, clock, recorder):
    session = _session(vault, clock, recorder, "quiz-2", "c-l2-mc")
    report, out = _run(session, "# a comment\nthe bubble\ngood\nc\n")
    assert out[:12] == [
        "Practice",
        "",
        # An untitled item is headed by the opening of its question.
        "[1/2] What does (P-1)/(M+P-1) measure? (ch26-quiz)",
        "What does (P-1)/(M+P-1) measure?",
        'Your answer (one line, or several between two """ lines; - for none):',
        "> the bubble",
        "Compare your answer with the model answer.",
        "Model answer:",
        "  The pipeline bubble fraction, about 3 × 10^-1 at worst here.",
        "Rate your recall: 1 Again, 2 Hard, 3 Good, 4 Easy:",
        "> good",
        "Recorded: Good; next review in 1 day.",
    ]
    assert "  c) Adam moments and the master copy" in out
    assert "Correct." in out
    assert report.answered == 2
    assert [(r.rating, r.graded_by) for r, _ in recorder.recorded] == [
        (Rating.GOOD, GradedBy.SELF),
        (Rating.GOOD, GradedBy.MULTIPLE_CHOICE),
    ]


def test_keys_1_to_4_rate_again_to_easy_by_default(vault, clock, recorder):
    session = _session(vault, clock, recorder, "fc-1", "fc-2", "fc-3")
    _, out = _run(session, "4\n3\n1\n")
    ratings = [r.rating for r, _ in recorder.recorded]
    assert ratings == [Rating.EASY, Rating.GOOD, Rating.AGAIN]
    assert out.count("Rate your recall: 1 Again, 2 Hard, 3 Good, 4 Easy:") == 3


def test_on_the_confidence_scale_the_prompt_and_digits_are_confidence(vault, clock, recorder):
    scale = RatingScale.CONFIDENCE
    session = _session(vault, clock, recorder, "fc-1", "fc-2", "fc-3", rating_scale=scale)
    _, out = _run(session, "5\n3\n1\n")
    ratings = [r.rating for r, _ in recorder.recorded]
    assert ratings == [Rating.EASY, Rating.HARD, Rating.AGAIN]
    prompt = "Rate your recall: 1 No idea, 2 Barely, 3 With effort, 4 Recalled, 5 Perfect:"
    assert out.count(prompt) == 3


def _rubric_gauntlet(vault, clock, recorder, **options):
    """A gauntlet of the one rubric-scored question ``c-l4-eval`` (four key points)."""
    return _session(
        vault,
        clock,
        recorder,
        "c-l4-eval",
        kind=SessionKind.GAUNTLET,
        title="Gauntlet",
        rubric_scoring=True,
        graded_by=GradedBy.GAUNTLET,
        **options,
    )


def test_gauntlet_rubric_lines_and_countdown(vault, clock, recorder):
    session = _rubric_gauntlet(vault, clock, recorder, time_limit=timedelta(minutes=15))
    report, out = _run(session, "zero-3 first, then tensor parallel\n1 2 4\n")
    assert out[1] == "Countdown: 15:00."
    assert "Time left: 15:00" in out
    points = out.index("Key points:")
    assert out[points + 1] == "  1. ZeRO-3 first."
    assert out[points + 5] == "Which did your answer cover? (numbers, all or none):"
    assert "Covered 3 of 4 key points." in out
    assert recorder.recorded[0][0].rating is Rating.GOOD
    assert report.score == 0.75


def test_chain_offer_takes_a_yes_or_no_line(vault, clock, recorder):
    session = _session(vault, clock, recorder, "c-l2-mc", offer_chain=True)
    report, out = _run(session, "c\ny\nskip\n")
    assert "Next in chain 'HBM from recall to analysis': Sweep time. Take it? (y/n):" in out
    assert "[2/2] Sweep time (cloud · L3 · analyze · memory-hierarchy)" in out
    assert report.answered == 1


def test_end_of_script_ends_the_session_and_keeps_reviews(vault, clock, recorder):
    session = _session(vault, clock, recorder, "fc-1", "fc-2")
    report, out = _run(session, "good\n")
    assert "(end of answers)" in out
    assert (report.answered, report.not_reached) == (1, 1)
    assert len(recorder.recorded) == 1


def test_skip_and_quit_lines(vault, clock, recorder):
    session = _session(vault, clock, recorder, "fc-1", "fc-2", "fc-3")
    report, _ = _run(session, "skip\nquit\ngood\n")
    assert (report.skipped, report.not_reached, report.answered) == (1, 2, 0)


def test_an_unreadable_rating_is_asked_again_and_earlier_reviews_stay(vault, clock, recorder):
    session = _session(vault, clock, recorder, "fc-1", "fc-2")
    report, out = _run(session, "good\n\nmaybe\nhard\n")
    assert (
        "Unknown rating 'maybe'. Use 1 Again, 2 Hard, 3 Good or 4 Easy "
        "(or the words again, hard, good, easy). Answer again:"
    ) in out
    assert out.count("Rate your recall: 1 Again, 2 Hard, 3 Good, 4 Easy:") == 2
    assert [r.rating for r, _ in recorder.recorded] == [Rating.GOOD, Rating.HARD]
    assert report.answered == 2


def test_an_unknown_option_is_asked_again(vault, clock, recorder):
    session = _session(vault, clock, recorder, "c-l2-mc")
    report, out = _run(session, "good\n7\nc\n")
    assert out[out.index("> good") + 1] == (
        "Unknown option 'good'. Answer with a letter a-d or a number 1-4. Answer again:"
    )
    assert out[out.index("> 7") + 1] == (
        "Option '7' is out of range. Answer with a letter a-d or a number 1-4. Answer again:"
    )
    assert out.count("Your choice (a-d):") == 1
    assert "Correct." in out
    assert [(r.rating, r.graded_by) for r, _ in recorder.recorded] == [
        (Rating.GOOD, GradedBy.MULTIPLE_CHOICE)
    ]
    assert report.answered == 1


def test_an_unknown_reply_to_a_chain_offer_is_asked_again(vault, clock, recorder):
    session = _session(vault, clock, recorder, "c-l2-mc", offer_chain=True)
    report, out = _run(session, "c\nmaybe\nyes\nskip\n")
    assert out[out.index("> maybe") + 1] == (
        "Unknown reply 'maybe': the replies are y (yes) and n (no). Answer again:"
    )
    assert sum(line.startswith("Next in chain") for line in out) == 1
    assert "[2/2] Sweep time (cloud · L3 · analyze · memory-hierarchy)" in out
    assert (report.answered, report.skipped) == (1, 1)


def test_an_unknown_rubric_point_is_asked_again(vault, clock, recorder):
    session = _rubric_gauntlet(vault, clock, recorder)
    _, out = _run(session, "zero-3 first\n1 9\nsome\n1 2 4\n")
    assert out[out.index("> 1 9") + 1] == (
        "Unknown rubric point '9'. List the points covered as numbers from 1 to 4, "
        "or write all or none. Answer again:"
    )
    assert out[out.index("> some") + 1].startswith("Unknown rubric point 'some'.")
    assert out.count("Which did your answer cover? (numbers, all or none):") == 1
    assert "Covered 3 of 4 key points." in out
    assert recorder.recorded[0][0].rating is Rating.GOOD


def test_input_ending_after_an_unreadable_line_ends_the_session_cleanly(vault, clock, recorder):
    session = _session(vault, clock, recorder, "fc-1", "fc-2")
    report, out = _run(session, "good\nmaybe\n")
    assert out[out.index("(end of answers)") - 1].endswith("Answer again:")
    assert (report.answered, report.not_reached) == (1, 1)
    assert len(recorder.recorded) == 1


def test_input_ending_inside_a_multi_line_answer_ends_the_session_cleanly(vault, clock, recorder):
    session = _session(vault, clock, recorder, "quiz-2", "fc-1")
    report, out = _run(session, '"""\nthe bubble\n')
    assert (
        "answers.txt:1: The multi-line answer opened here is never closed; "
        'end it with a line holding only """.'
    ) in out
    assert "(end of answers)" in out
    assert (report.answered, report.not_reached) == (0, 2)
    assert recorder.recorded == []


def _numeric_item(vault, **answer):
    """The numeric item ``c-l3-num`` with another expected answer."""
    item = next(item for item in vault.items if item.id == "c-l3-num")
    return item.model_copy(update=answer)


def _session_of(items, clock, recorder):
    plan = SessionLineup(kind=SessionKind.PRACTICE, title="Practice", items=tuple(items))
    return Session(plan, recorder=recorder, clock=clock)


def test_a_numeric_answer_without_a_unit_asks_for_a_number(vault, clock, recorder):
    plain = _numeric_item(vault, answer_value=1.309, answer_unit="", answer_tolerance=0.02)
    _, out = _run(_session_of([plain], clock, recorder), "1.31\n")
    assert "Your answer (a number):" in out
    assert not any("None" in line for line in out)
    assert out[out.index("> 1.31") + 1].startswith("Correct")


def test_a_numeric_answer_with_a_unit_names_it_in_the_prompt(vault, clock, recorder):
    session = _session(vault, clock, recorder, "c-l3-num")
    _, out = _run(session, "40 ms\n")
    assert "Your answer (a number with a unit, e.g. in ms):" in out


def test_a_wrong_percentage_says_the_range_its_relative_tolerance_accepts(vault, clock, recorder):
    share = _numeric_item(vault, answer_value=15.79, answer_unit="%", answer_tolerance=0.02)
    _, out = _run(_session_of([share, share], clock, recorder), "17 %\n16 %\n")
    assert out[out.index("> 17 %") + 1] == (
        "Not quite: 17 %. Expected 15.79 % (within 2 % of it: 15.47 to 16.11 %)."
    )
    assert [r.correct for r, _ in recorder.recorded] == [False, True]


@pytest.mark.parametrize(
    ("span", "text"),
    [
        (timedelta(seconds=20), "1 min"),
        (timedelta(minutes=10), "10 min"),
        (timedelta(hours=5), "5 h"),
        (timedelta(days=1), "1 day"),
        (timedelta(days=12, hours=3), "12 days"),
    ],
)
def test_format_interval(span, text):
    assert format_interval(span) == text


def test_answer_after_the_countdown_ends_the_gauntlet(vault, clock, recorder):
    clock.step = timedelta(minutes=6)  # every reading of the clock is six minutes later
    session = _session(
        vault,
        clock,
        recorder,
        "c-l2-mc",
        "fc-1",
        kind=SessionKind.GAUNTLET,
        title="Gauntlet",
        time_limit=timedelta(minutes=10),
    )
    report, out = _run(session, "c\ngood\n")
    assert "Time is up." in out
    assert recorder.recorded == []
    assert report.not_reached == 2


def test_a_fenced_block_answers_free_text_over_several_lines(vault, clock, recorder):
    session = _session(vault, clock, recorder, "quiz-2")
    script = '"""\nthe bubble:\n\n# idle stages\n(P-1)/(M+P-1)\n"""\ngood\n'
    report, out = _run(session, script)
    assert out[5] == "> the bubble:\n> \n> # idle stages\n> (P-1)/(M+P-1)"
    assert session.results[0].answer == "the bubble:\n\n# idle stages\n(P-1)/(M+P-1)"
    assert report.answered == 1
