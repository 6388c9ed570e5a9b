"""The terminal interface, driven with Textual's pilot like a learner at the keyboard."""

from __future__ import annotations

import asyncio
import io
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from textual.widgets import Input, Markdown, Static, TextArea

from sysdrill.app.study import open_study
from sysdrill.cli.tui import StudyApp, run_tui
from sysdrill.content.loader import load_vault
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.sessions.chains import ChainIndex
from sysdrill.study.sessions.state_machine import Phase, Session, SessionKind, SessionLineup

VAULT_DIR = Path(__file__).resolve().parents[1] / "study" / "sessions" / "vault"
VAULT = load_vault(VAULT_DIR)
ITEMS = {item.id: item for item in VAULT.items}
PARTS_VAULT = load_vault(Path(__file__).resolve().parents[1] / "study" / "sessions" / "parts_vault")
ITEMS.update({item.id: item for item in PARTS_VAULT.items})


class _Clock:
    def __init__(self) -> None:
        self.now = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


class _Recorder:
    def __init__(self) -> None:
        self.results = []

    def record(self, result, *, now):
        self.results.append(result)
        return now + timedelta(days=2)


def _session(*ids, clock=None, **options):
    plan = SessionLineup(
        kind=options.pop("kind", SessionKind.PRACTICE),
        title=options.pop("title", "Practice: test"),
        items=tuple(ITEMS[i] for i in ids),
        **options,
    )
    recorder = _Recorder()
    session = Session(
        plan,
        recorder=recorder,
        clock=clock or _Clock(),
        chains=ChainIndex(VAULT.chains, VAULT.items),
    )
    return session, recorder


def _text(app, selector):
    widget = app.query_one(selector, Static)
    return str(widget.render())


def _markdown(app):
    """The item as shown: the scrolling body, then the question pinned under it."""
    body = app.query_one("#item", Markdown).source
    pinned = app.query_one("#question", Markdown).source
    return f"{body}\n\n{pinned}" if pinned else body


def _drive(app, script):
    """Run the app headless, apply ``script(pilot)``, return what the app returned."""

    async def main():
        async with app.run_test(size=(100, 40)) as pilot:
            # Let the first screen finish mounting: on a loaded machine the script could
            # otherwise query a widget before it exists.
            await pilot.pause()
            await script(pilot)
            await pilot.pause()
        return app.return_value

    return asyncio.run(main())


def test_option_key_grades_multiple_choice_and_space_goes_on():
    session, recorder = _session("c-l2-mc", "fc-1")
    app = StudyApp(session)
    seen = {}

    async def script(pilot):
        assert "- **c)** Adam moments and the master copy" in _markdown(app)
        await pilot.press("c")
        seen["feedback"] = _text(app, "#feedback")
        seen["after"] = _markdown(app)
        await pilot.press("space")
        seen["next"] = _markdown(app)

    _drive(app, script)
    assert seen["feedback"] == "Correct. Recorded: Good; next review in 2 days."
    assert "### Model answer" in seen["after"]
    assert seen["next"].startswith("## What does data parallelism replicate?")
    assert [(r.rating, r.graded_by) for r in recorder.results] == [
        (Rating.GOOD, GradedBy.MULTIPLE_CHOICE)
    ]


def test_flashcard_space_reveals_and_keys_1_to_4_rate():
    session, recorder = _session("fc-1", "fc-2")
    app = StudyApp(session)
    seen = {}

    async def script(pilot):
        seen["front"] = _markdown(app)
        await pilot.press("g")  # rating keys wait until the back is shown
        seen["early"] = list(recorder.results)
        await pilot.press("space")
        seen["back"] = _markdown(app)
        seen["hint"] = _text(app, "#hint")
        await pilot.press("5")  # not a key of the default scale
        await pilot.press("4")
        await pilot.press("space", "h")

    _drive(app, script)
    assert "The whole model on every rank" not in seen["front"]
    assert seen["early"] == []
    assert "The whole model on every rank" in seen["back"]
    assert seen["hint"].startswith("1 Again  2 Hard  3 Good  4 Easy   s skip")
    assert [r.rating for r in recorder.results] == [Rating.EASY, Rating.HARD]
    assert session.phase is Phase.DONE


def test_on_the_confidence_scale_keys_1_to_5_rate_and_the_hint_says_so():
    from sysdrill.study.ratings import RatingScale

    session, recorder = _session("fc-1", "fc-2", rating_scale=RatingScale.CONFIDENCE)
    app = StudyApp(session)
    seen = {}

    async def script(pilot):
        await pilot.press("space")
        seen["hint"] = _text(app, "#hint")
        await pilot.press("5", "space", "3")

    _drive(app, script)
    assert seen["hint"].startswith("1 No idea  2 Barely  3 With effort  4 Recalled  5 Perfect")
    assert [r.rating for r in recorder.results] == [Rating.EASY, Rating.HARD]


def test_free_text_is_typed_then_self_rated_and_math_is_readable():
    session, recorder = _session("quiz-2")
    app = StudyApp(session)
    seen = {}

    async def script(pilot):
        seen["question"] = _markdown(app)
        assert app.query_one("#essay", TextArea).has_focus
        await pilot.press(*"bubble", "ctrl+s")
        seen["reveal"] = _markdown(app)
        await pilot.press("a")
        seen["report"] = _markdown(app)
        await pilot.press("q")

    lines = _drive(app, script)
    assert "(P-1)/(M+P-1)" in seen["question"] and "\\frac" not in seen["question"]
    assert "3 × 10^-1" in seen["reveal"]
    assert [(r.rating, r.answer) for r in recorder.results] == [(Rating.AGAIN, "bubble")]
    assert "Score: 0/1 passed (0%): 0 graded right, 0 graded wrong, 1 self-rated" in seen["report"]
    assert lines[0] == "Practice: test: finished"


def test_gauntlet_shows_the_countdown_scores_the_rubric_and_ends_on_time():
    clock = _Clock()
    session, recorder = _session(
        "c-l4-diag",
        "c-l5-opt",
        clock=clock,
        kind=SessionKind.GAUNTLET,
        title="Gauntlet (quick)",
        time_limit=timedelta(minutes=10),
        rubric_scoring=True,
        graded_by=GradedBy.GAUNTLET,
    )
    app = StudyApp(session)
    seen = {}

    async def script(pilot):
        seen["timer"] = _text(app, "#timer")
        await pilot.press(*"profile it", "ctrl+s")
        seen["rubric"] = _markdown(app)
        await pilot.press("1", "3", "3", "2")
        seen["ticked"] = _markdown(app)
        await pilot.press("enter")
        seen["feedback"] = _text(app, "#feedback")
        clock.now += timedelta(minutes=9, seconds=30)
        app.refresh_timer()
        seen["late"] = _text(app, "#timer")
        clock.now += timedelta(minutes=1)
        app.refresh_timer()
        seen["over"] = _markdown(app)

    _drive(app, script)
    assert seen["timer"] == "Time left: 10:00"
    assert "### Key points" in seen["rubric"] and "1. [ ]" in seen["rubric"]
    assert "1. [x]" in seen["ticked"] and "2. [x]" in seen["ticked"] and "3. [ ]" in seen["ticked"]
    assert seen["feedback"].startswith("Covered 2 of 5 key points. Recorded: Hard")
    assert seen["late"] == "Time left: 0:30"
    assert "Score: 20% of 2 questions" in seen["over"]
    assert "Slow step: 2/5 key points, rated Hard" in seen["over"]
    assert "All-reduce overlap: out of time" in seen["over"]
    assert [(r.rating, r.graded_by) for r in recorder.results] == [(Rating.HARD, GradedBy.GAUNTLET)]


def test_a_countdown_tick_during_shutdown_draws_nothing_and_raises_nothing():
    clock = _Clock()
    session, _ = _session(
        "c-l4-diag",
        clock=clock,
        kind=SessionKind.GAUNTLET,
        title="Gauntlet (quick)",
        time_limit=timedelta(minutes=10),
        graded_by=GradedBy.GAUNTLET,
    )
    app = StudyApp(session)
    seen = {}

    async def script(pilot):
        # The interval can fire once more after the screen's widgets are removed.
        await app.query_one("#timer", Static).remove()
        clock.now += timedelta(minutes=11)
        app.refresh_timer()
        seen["timers"] = len(app.query("#timer"))

    _drive(app, script)
    assert seen["timers"] == 0


def test_chain_offer_is_taken_with_y():
    session, _ = _session("c-l1-hbm", "fc-1", offer_chain=True)
    app = StudyApp(session)
    seen = {}

    async def script(pilot):
        await pilot.press(*"80 GB", "ctrl+s", "g")
        seen["offer"] = _text(app, "#feedback")
        await pilot.press("y")

    _drive(app, script)
    assert (
        "Next in chain 'HBM from recall to analysis': Where the bytes go. Take it? (y/n)"
        in (seen["offer"])
    )
    assert session.current is not None and session.current.id == "c-l2-mc"


def test_skip_key_and_typed_quit_end_as_in_the_answers_format():
    session, recorder = _session("fc-1", "c-l4-diag", "fc-2")
    app = StudyApp(session)

    async def script(pilot):
        await pilot.press("s")
        await pilot.press(*"quit", "ctrl+s")

    _drive(app, script)
    assert recorder.results == []
    assert [r.outcome.value for r in session.results] == ["skipped", "not-reached", "not-reached"]


def test_quitting_asks_for_a_second_press_and_another_key_cancels():
    session, _ = _session("fc-1", "fc-2")
    app = StudyApp(session)
    seen = {}

    async def script(pilot):
        await pilot.press("q")
        seen["ask"] = _text(app, "#feedback")
        await pilot.press("space")  # any other key goes on: here it shows the back
        seen["phase"] = session.phase
        seen["revealed"] = session.revealed
        await pilot.press("escape", "escape")
        seen["after"] = session.phase
        await pilot.press("escape")

    lines = _drive(app, script)
    assert seen["ask"].startswith("End the session? Press q or Escape again")
    assert seen["phase"] is Phase.RATE and seen["revealed"] is True
    assert seen["after"] is Phase.DONE
    assert lines is not None and lines[0] == "Practice: test: finished"


def test_your_answer_is_shown_beside_the_model_answer():
    session, _ = _session("c-l4-diag")
    app = StudyApp(session)
    seen = {}

    async def script(pilot):
        await pilot.press(*"recompute", "ctrl+s")
        seen["reveal"] = _markdown(app)

    _drive(app, script)
    assert "### Your answer\n\nrecompute\n\n### Model answer" in seen["reveal"]


def test_run_tui_records_the_session_even_when_the_app_is_left_early(tmp_path):
    from sysdrill.app.sessions import StartOptions
    from sysdrill.app.study import open_study
    from sysdrill.app.study_vault import StudyVault

    def runner(app):
        async def script(pilot):
            await pilot.press("8", "0", "ctrl+s")
            await pilot.press("g")

        _drive(app, script)

    vault = StudyVault.of(VAULT)
    options = StartOptions(SessionKind.CHAIN, chain_id="hbm-basics")
    with open_study(f"sqlite:///{tmp_path / 'study.db'}", vault=vault, upgrade=True) as study:
        run = run_tui(study, vault, options, clock=_Clock(), runner=runner)
        reviews = list(study.store.iter_reviews(study.scope))
        sessions = study.sessions()
        in_progress = study.store.list_active_sessions(study.scope)
    assert run.lines[0] == "Chain: HBM from recall to analysis (3 items): finished"
    assert not run.interrupted
    assert [(r.item_id, Rating(r.rating), r.answer) for r in reviews] == [
        ("c-l1-hbm", Rating.GOOD, "80")
    ]
    assert sessions[-1].ended_at is not None
    assert in_progress == []


def test_run_tui_with_nothing_to_ask_says_why(tmp_path):
    from sysdrill.app.sessions import StartOptions
    from sysdrill.app.study import open_study
    from sysdrill.app.study_vault import StudyVault
    from sysdrill.study.filters import ItemFilter

    vault = StudyVault.of(VAULT)
    options = StartOptions(SessionKind.PRACTICE, ItemFilter(deck="dp-cards"))
    with open_study(f"sqlite:///{tmp_path / 'study.db'}", vault=vault, upgrade=True) as study:
        study.update_settings(new_per_day=0)
        run = run_tui(study, vault, options, clock=_Clock(), runner=lambda app: None)
    assert run.lines == [
        "Nothing to practise now: no item is due and no new item is allowed "
        "(0 new items a day, 0 new today). Come back tomorrow, or raise the new items "
        "per day in the settings."
    ]


async def _type(pilot, text):
    await pilot.press(*text, "enter")


def test_each_part_is_asked_in_turn_and_an_unreadable_answer_is_asked_again():
    session, recorder = _session("ex-num")
    app = StudyApp(session)
    seen = {}

    async def script(pilot):
        seen["first"] = _markdown(app)
        await _type(pilot, "lots")
        seen["refused"] = str(app.query_one("#feedback", Static).render())
        await _type(pilot, "128 k")
        seen["second"] = _markdown(app)
        await _type(pilot, "50")
        seen["graded"] = str(app.query_one("#feedback", Static).render())

    _drive(app, script)
    assert "**(a)** How big is the buffer?" in seen["first"]
    assert "(b)" not in seen["first"]
    assert seen["refused"] == (
        "Could not read 'lots' as a number; type a number with a unit, like 3 KiB."
    )
    assert "> 128 k" in seen["second"] and "**(b)** What share" in seen["second"]
    assert "2 of 2 parts right." in seen["graded"]
    assert [(r.rating, r.graded_by) for r in recorder.results] == [(Rating.GOOD, GradedBy.NUMERIC)]


def test_ctrl_c_leaves_at_once_with_the_reviews_kept_and_the_session_open():
    session, recorder = _session("fc-1", "fc-2")
    app = StudyApp(session)

    async def script(pilot):
        await pilot.press("space", "3")
        await pilot.press("ctrl+c")

    lines = _drive(app, script)
    assert [r.rating for r in recorder.results] == [Rating.GOOD]
    assert lines is not None and "Items: 1 answered" in lines
    assert app.interrupted
    # Left as it stood, not quit: whoever runs the app decides (a practice is resumed).
    assert session.phase is not Phase.DONE and session.current is not None


def test_q_twice_ends_the_session_without_an_interruption():
    session, _ = _session("fc-1", "fc-2")
    app = StudyApp(session)

    async def script(pilot):
        await pilot.press("q", "q")

    _drive(app, script)
    assert not app.interrupted


class _Terminal(io.StringIO):
    """Standard input as on a terminal, so the command opens the interface."""

    def isatty(self) -> bool:
        return True


def test_ctrl_c_in_practice_keeps_the_session_and_the_next_start_resumes_it(
    monkeypatch, tmp_path, capsys
):
    import sysdrill.cli.tui as tui
    from sysdrill.app.study_vault import open_study_vault
    from sysdrill.cli.app import main

    seen = {}

    def ctrl_c_after_one_rating(app):
        async def script(pilot):
            await pilot.press("space", "4")
            await pilot.press("ctrl+c")

        _drive(app, script)

    def look_then_quit(app):
        async def script(pilot):
            seen["status"] = _text(app, "#status")
            await pilot.press("q", "q")

        _drive(app, script)

    runners = [ctrl_c_after_one_rating, look_then_quit]
    real_run_tui = tui.run_tui
    monkeypatch.setattr(
        tui, "run_tui", lambda *args, **kw: real_run_tui(*args, **kw, runner=runners.pop(0))
    )
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setenv("SYSDRILL_DATA_DIR", str(tmp_path / "userdata"))
    monkeypatch.setenv("SYSDRILL_CACHE_DIR", str(tmp_path / "cache"))
    db = f"sqlite:///{tmp_path / 'study.db'}"
    assert main(["db", "upgrade", "--db", db]) == 0
    capsys.readouterr()
    args = ["practice", "--vault", str(VAULT_DIR), "--deck", "dp-cards", "--db", db]
    code = main(args)
    out = capsys.readouterr().out
    assert code == 130
    assert out == (
        "Interrupted: your practice is kept (1 of 3 items done). Run the same command to "
        "resume it, or add --new-session to start afresh.\n"
    )
    with open_study(db, vault=open_study_vault(VAULT_DIR)) as study:
        assert [r.item_id for r in study.store.iter_reviews(study.scope)] == ["fc-1"]
        assert len(study.store.list_active_sessions(study.scope)) == 1

    assert main(args) == 0
    out = capsys.readouterr().out
    assert out.startswith("Resuming your unfinished practice of ")
    assert seen["status"].startswith("[2/3]")
    assert "Items: 1 answered, 2 not reached" in out
    with open_study(db, vault=open_study_vault(VAULT_DIR)) as study:
        assert study.store.list_active_sessions(study.scope) == []


def test_ctrl_c_in_a_quiz_prints_the_report_and_exits_130(monkeypatch, tmp_path, capsys):
    import sysdrill.cli.tui as tui
    from sysdrill.cli.app import main

    def ctrl_c_after_one_rating(app):
        async def script(pilot):
            await pilot.press("space", "4")
            await pilot.press("ctrl+c")

        _drive(app, script)

    real_run_tui = tui.run_tui
    monkeypatch.setattr(
        tui,
        "run_tui",
        lambda *args, **kw: real_run_tui(*args, **kw, runner=ctrl_c_after_one_rating),
    )
    monkeypatch.setattr(sys, "stdin", _Terminal())
    monkeypatch.setenv("SYSDRILL_DATA_DIR", str(tmp_path / "userdata"))
    monkeypatch.setenv("SYSDRILL_CACHE_DIR", str(tmp_path / "cache"))
    db = f"sqlite:///{tmp_path / 'study.db'}"
    assert main(["db", "upgrade", "--db", db]) == 0
    capsys.readouterr()
    code = main(["quiz", "dp-cards", "--vault", str(VAULT_DIR), "--db", db])
    assert code == 130
    assert "Items: 1 answered, 2 not reached" in capsys.readouterr().out


def test_tables_and_latex_are_readable_in_plain_output():
    from sysdrill.study.sessions.text import plain_text

    text = plain_text(
        "**Costs** with $\\bar{x}$ and \\min_i:\n\n| GPU | $/h |\n|---|---|\n| A100 | 2 |"
    )
    assert "**" not in text and "\\min" not in text and "\\bar" not in text
    assert "│ A100 │ 2   │" in text


def test_u_takes_back_the_last_rating_in_the_interface(tmp_path):
    from sysdrill.app.sessions import StartOptions
    from sysdrill.app.study import open_study
    from sysdrill.app.study_vault import StudyVault
    from sysdrill.study.filters import ItemFilter

    seen = {}

    def runner(app):
        async def script(pilot):
            seen["hint_before"] = _text(app, "#hint")
            await pilot.press("space", "1")
            seen["hint_after"] = _text(app, "#hint")
            await pilot.press("u")
            seen["note"] = _text(app, "#feedback")
            seen["item"] = _markdown(app)
            await pilot.press("space", "4")

        _drive(app, script)

    vault = StudyVault.of(VAULT)
    options = StartOptions(SessionKind.PRACTICE, ItemFilter(deck="dp-cards"))
    with open_study(f"sqlite:///{tmp_path / 'study.db'}", vault=vault, upgrade=True) as study:
        run_tui(study, vault, options, clock=_Clock(), runner=runner)
        reviews = [(r.item_id, Rating(r.rating)) for r in study.store.iter_reviews(study.scope)]
    assert "u undo" not in seen["hint_before"]
    assert seen["hint_after"].endswith("   s skip   u undo   q quit")
    assert seen["note"] == "Took back the last rating; the item is asked again."
    assert seen["item"].startswith("## What does data parallelism replicate?")
    assert reviews == [("fc-1", Rating.EASY)]


def test_free_text_spans_lines_enter_adds_one_and_the_submit_key_sends_all():
    session, recorder = _session("quiz-2", "c-l2-mc")
    app = StudyApp(session)
    seen = {}

    async def script(pilot):
        seen["footer"] = [b.binding.key_display for b in app.active_bindings.values() if b.enabled]
        await pilot.press(*"bubble", "enter", *"idle stages", "enter")
        seen["phase"] = session.phase
        seen["hint"] = _text(app, "#hint")
        await pilot.press("ctrl+s")
        seen["reveal"] = _markdown(app)
        await pilot.press("g")
        seen["next_focus"] = app.query_one("#essay", TextArea).display
        seen["footer_after"] = [b.binding.action for b in app.active_bindings.values() if b.enabled]

    _drive(app, script)
    assert "Ctrl+S" in seen["footer"]
    assert seen["phase"] is Phase.ANSWER  # Enter only started new lines
    assert seen["hint"].startswith("type your answer; Enter adds a line, Ctrl+S submits")
    assert "### Your answer\n\nbubble  \nidle stages" in seen["reveal"]
    assert [(r.rating, r.answer) for r in recorder.results] == [
        (Rating.GOOD, "bubble\nidle stages")
    ]
    # A multiple-choice item follows: no text box, no submit key.
    assert seen["next_focus"] is False
    assert "submit_essay" not in seen["footer_after"]


def test_numeric_answers_still_submit_with_enter():
    session, recorder = _session("c-l3-num")
    app = StudyApp(session)

    async def script(pilot):
        assert app.query_one("#answer", Input).has_focus
        await pilot.press(*"1 s", "enter")

    _drive(app, script)
    assert len(recorder.results) == 1


@pytest.mark.parametrize("key", ["alt+enter", "ctrl+enter"])
def test_alt_or_ctrl_enter_submit_too_where_the_terminal_reports_them(key):
    session, recorder = _session("quiz-2")
    app = StudyApp(session)

    async def script(pilot):
        await pilot.press(*"bubble", key)
        await pilot.press("h")

    _drive(app, script)
    assert [(r.rating, r.answer) for r in recorder.results] == [(Rating.HARD, "bubble")]
