"""One rating scale per session, each choice with the interval it schedules (issue 29 item 2)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sysdrill.app import sessions as app
from sysdrill.app.sessions import StartOptions
from sysdrill.app.study_vault import StudyVault
from sysdrill.content.loader import load_vault
from sysdrill.errors import UsageError
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.filters import ItemFilter
from sysdrill.study.ratings import Rating, RatingScale
from sysdrill.study.scheduler import new_card
from sysdrill.study.service import StudyService
from sysdrill.study.sessions.rating_choices import preview_intervals, short_interval
from sysdrill.study.sessions.state_machine import SessionKind
from sysdrill.study.settings import StudySettings
from sysdrill.study.user_state import VaultId

VAULT_DIR = Path(__file__).resolve().parent / "vault"
T0 = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def vault() -> StudyVault:
    return StudyVault.of(load_vault(VAULT_DIR))


@pytest.fixture
def study() -> StudyService:
    service = StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=T0)
    service.update_settings(fuzz=False)  # exact intervals, to compare with the preview
    return service


def _cards(study: StudyService, vault: StudyVault) -> int:
    view = app.start_session(
        study, vault, StartOptions(SessionKind.PRACTICE, ItemFilter(deck="dp-cards")), now=T0
    )
    assert view.session_id is not None and view.item is not None
    assert view.item.mode == "flashcard"
    return view.session_id


@pytest.mark.parametrize(
    ("span", "text"),
    [
        (timedelta(seconds=20), "1m"),
        (timedelta(minutes=10), "10m"),
        (timedelta(hours=5), "5h"),
        (timedelta(days=4, hours=2), "4d"),
        (timedelta(days=75), "2mo"),
        (timedelta(days=365 * 1.5), "1.5y"),
        (timedelta(days=730), "2y"),
    ],
)
def test_intervals_are_written_as_anki_writes_them(span, text):
    assert short_interval(span) == text


def test_a_flashcard_is_refused_a_rating_until_its_back_is_shown(study, vault):
    session_id = _cards(study, vault)
    with pytest.raises(UsageError, match="Show the answer first"):
        app.rate(study, vault, session_id, "3", now=T0)
    shown = app.current_prompt(study, vault, session_id, now=T0)
    assert not shown.revealed and shown.rating_choices == ()
    assert shown.item is not None and shown.item.reveal == ()  # the back stays hidden
    assert list(study.store.iter_reviews(study.scope)) == []
    revealed = app.reveal(study, vault, session_id, now=T0)
    assert revealed.revealed and revealed.item is not None and revealed.item.reveal
    app.rate(study, vault, session_id, "3", now=T0)
    assert [r.rating for r in study.store.iter_reviews(study.scope)] == [Rating.GOOD]


def test_each_choice_shows_the_interval_the_rating_then_schedules(study, vault):
    session_id = _cards(study, vault)
    view = app.reveal(study, vault, session_id, now=T0)
    assert [(c.key, c.label) for c in view.rating_choices] == [
        ("1", "Again"),
        ("2", "Hard"),
        ("3", "Good"),
        ("4", "Easy"),
    ]
    shown = {c.rating: c.interval for c in view.rating_choices}
    assert shown[Rating.AGAIN] < shown[Rating.GOOD] <= shown[Rating.EASY]
    app.rate(study, vault, session_id, "4", now=T0)
    card = study.store.get_card(study.scope, "fc-1")
    assert card is not None and card.due is not None
    assert card.due - T0 == shown[Rating.EASY]
    easy = view.rating_choices[3]
    assert easy.caption == f"4 · Easy · {short_interval(shown[Rating.EASY])}"
    assert view.to_dict()["rating_choices"][3]["interval"] == short_interval(shown[Rating.EASY])


def test_a_card_seen_before_previews_longer_waits_from_its_own_state(study, vault):
    settings = StudySettings(fuzz=False)
    fresh = preview_intervals(new_card("fc-1"), settings=settings, now=T0)
    from sysdrill.study.scheduler import review_card

    learned = new_card("fc-1")
    moment = T0
    for _ in range(3):
        learned = review_card(learned, Rating.GOOD, now=moment, settings=settings)
        assert learned.due is not None
        moment = learned.due
    later = preview_intervals(learned, settings=settings, now=moment)
    assert later[Rating.GOOD] > fresh[Rating.GOOD]
    assert review_card(learned, Rating.GOOD, now=moment, settings=settings).due == (
        moment + later[Rating.GOOD]
    )


def test_the_confidence_setting_gives_the_whole_session_five_keys(study, vault):
    study.set_setting("rating_scale", "confidence")
    session_id = _cards(study, vault)
    view = app.reveal(study, vault, session_id, now=T0)
    assert view.rating_scale == "confidence"
    assert [c.key for c in view.rating_choices] == ["1", "2", "3", "4", "5"]
    assert [c.rating for c in view.rating_choices] == [
        Rating.AGAIN,
        Rating.AGAIN,
        Rating.HARD,
        Rating.GOOD,
        Rating.EASY,
    ]
    # Changing the setting mid-session leaves this session on its scale.
    study.set_setting("rating_scale", "again-hard-good-easy")
    app.rate(study, vault, session_id, "3", now=T0)
    assert [r.rating for r in study.store.iter_reviews(study.scope)] == [Rating.HARD]
    following = app.reveal(study, vault, session_id, now=T0)
    assert len(following.rating_choices) == 5


def test_an_unknown_scale_is_refused_when_set():
    from sysdrill.errors import SchedulingError
    from sysdrill.study.settings import parse_setting

    with pytest.raises(SchedulingError, match="again-hard-good-easy or confidence"):
        parse_setting("rating_scale", "stars")
    assert parse_setting("rating_scale", " Confidence ") == RatingScale.CONFIDENCE.value
