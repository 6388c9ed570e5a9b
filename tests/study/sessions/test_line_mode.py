"""The scripted line mode: a transcript driven by answer lines."""

from __future__ import annotations

from datetime import timedelta

import pytest

from sysdrill.errors import UsageError
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
        "[1/2] quiz-2 (ch26-quiz)",
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


def test_gauntlet_rubric_lines_and_countdown(vault, clock, recorder):
    session = _session(
        vault,
        clock,
        recorder,
        "c-l4-eval",
        kind=SessionKind.GAUNTLET,
        title="Gauntlet",
        time_limit=timedelta(minutes=15),
        rubric_scoring=True,
        graded_by=GradedBy.GAUNTLET,
    )
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


def test_bad_line_names_the_file_and_line_and_keeps_earlier_reviews(vault, clock, recorder):
    session = _session(vault, clock, recorder, "fc-1", "fc-2")
    with pytest.raises(UsageError) as caught:
        _run(session, "good\n\nmaybe\n")
    assert str(caught.value) == (
        "answers.txt:3: Unknown rating 'maybe'. Use 1 Again, 2 Hard, 3 Good or 4 Easy "
        "(or the words again, hard, good, easy)."
    )
    assert len(recorder.recorded) == 1


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
