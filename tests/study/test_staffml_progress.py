from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from sysdrill.errors import ImportFailed
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.card_state import CardState
from sysdrill.study.service import StudyService
from sysdrill.study.staffml_progress import read_staffml_progress
from sysdrill.study.user_state import VaultId

NOW = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
DAY = 86_400_000


def _ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


ATTEMPTS = [
    {"questionId": "cloud-0001", "timestamp": _ms(NOW) - 10 * DAY, "selfRating": 4},
    {"questionId": "cloud-0001", "timestamp": _ms(NOW) - 6 * DAY, "correct": True},
    {
        "questionId": "edge-0002",
        "timestamp": "2026-11-15T08:00:00Z",
        "correct": False,
        "durationMs": 30000,
    },
]
CARDS = {
    "cloud-0001": {"ease": 2.6, "interval": 6, "repetitions": 2, "due": _ms(NOW) - DAY},
    "mobile-0003": {
        "easeFactor": 1.7,
        "interval": 15,
        "repetitions": 4,
        "nextReview": "2026-11-25T00:00:00Z",
    },
    "tiny-0004": {"ease": 2.5, "interval": 0, "repetitions": 0, "due": _ms(NOW)},
}


def _fresh() -> StudyService:
    return StudyService(MemoryStudyStore(), vault_id=VaultId("test"), now=NOW)


def test_attempts_become_imported_reviews_replayed_through_fsrs():
    study = _fresh()
    count = study.import_staffml({"attempts": ATTEMPTS, "cards": CARDS}, now=NOW)
    assert count == 3
    reviews = list(study.store.iter_reviews(study.scope))
    assert [(r.item_id, r.rating, r.graded_by) for r in reviews] == [
        ("cloud-0001", 3, "imported"),
        ("cloud-0001", 3, "imported"),
        ("edge-0002", 1, "imported"),
    ]
    assert reviews[2].duration_ms == 30000


def test_sm2_due_earlier_than_fsrs_wins():
    study = _fresh()
    study.import_staffml({"attempts": ATTEMPTS, "cards": CARDS}, now=NOW)
    assert study.card_state("cloud-0001").due == NOW - timedelta(days=1)


def test_card_without_attempts_becomes_a_review_card_from_its_sm2_state():
    study = _fresh()
    study.import_staffml({"attempts": ATTEMPTS, "cards": CARDS}, now=NOW)
    card = study.card_state("mobile-0003")
    assert card.state is CardState.REVIEW
    assert card.stability_days == 15.0
    assert card.difficulty == pytest.approx(9.0)
    assert card.due == datetime(2026, 11, 25, tzinfo=UTC)
    assert card.reps == 4


def test_card_never_passed_stays_new():
    study = _fresh()
    study.import_staffml({"attempts": ATTEMPTS, "cards": CARDS}, now=NOW)
    assert study.card_state("tiny-0004").never_seen is True


def test_local_storage_dump_with_json_text_values_is_accepted():
    dump = {
        "staffml:attempts": json.dumps(ATTEMPTS),
        "staffml:srs-cards": json.dumps(CARDS),
        "staffml:theme": "dark",
    }
    attempts, cards = read_staffml_progress(dump)
    assert (len(attempts), len(cards)) == (3, 3)


def test_document_without_attempts_or_cards_is_rejected():
    with pytest.raises(ImportFailed, match="No StaffML attempts or cards found"):
        read_staffml_progress({"theme": "dark"})


@pytest.mark.parametrize(
    ("attempt", "message"),
    [
        ({"timestamp": 1, "correct": True}, r"attempts\[0\]: missing questionId"),
        ({"questionId": "q", "correct": True}, r"attempts\[0\]: missing or unreadable time"),
        ({"questionId": "q", "timestamp": "soon", "correct": True}, "not epoch milliseconds"),
        ({"questionId": "q", "timestamp": 1}, r"attempts\[0\]: no outcome"),
        ({"questionId": "q", "timestamp": 1, "rating": 9}, "Confidence must be"),
    ],
)
def test_malformed_attempts_name_the_entry(attempt, message):
    with pytest.raises(ImportFailed, match=message):
        read_staffml_progress({"attempts": [attempt]})


def test_attempt_in_the_future_is_rejected_and_nothing_written():
    study = _fresh()
    future = [{"questionId": "q", "timestamp": _ms(NOW) + DAY, "correct": True}]
    with pytest.raises(ImportFailed, match="is in the future"):
        study.import_staffml({"attempts": future}, now=NOW)
    assert list(study.store.iter_reviews(study.scope)) == []


def test_existing_state_needs_replace_and_settings_survive():
    study = _fresh()
    study.update_settings(new_per_day=4)
    study.import_staffml({"attempts": ATTEMPTS}, now=NOW)
    with pytest.raises(ImportFailed, match="Use --replace"):
        study.import_staffml({"attempts": ATTEMPTS}, now=NOW)
    study.import_staffml({"attempts": ATTEMPTS[:1]}, now=NOW, replace=True)
    assert len(list(study.store.iter_reviews(study.scope))) == 1
    assert study.settings.new_per_day == 4


def test_cards_may_be_a_list_carrying_question_ids():
    attempts, cards = read_staffml_progress(
        {"sm2": [{"questionId": "q-9", "ef": 2.2, "interval": 3, "reps": 1}]}
    )
    assert attempts == []
    assert [(c.question_id, c.ease, c.interval_days, c.repetitions) for c in cards] == [
        ("q-9", 2.2, 3.0, 1)
    ]


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ({"cards": 5}, "cards must be an object or a list"),
        ({"cards": {"q": "x"}}, "expected an object with a question id"),
        ({"cards": {"q": {"ease": "high"}}}, r"cards\['q'\]"),
        ({"cards": {"q": {"due": True}}}, "is not a time"),
        ({"attempts": ["x"]}, r"attempts\[0\]: expected an object"),
        ({"attempts": "[oops"}, "attempts: not JSON"),
    ],
)
def test_malformed_cards_and_sections_are_rejected(document, message):
    with pytest.raises(ImportFailed, match=message):
        read_staffml_progress(document)


def test_non_object_document_is_rejected():
    with pytest.raises(ImportFailed, match="must be a JSON object"):
        read_staffml_progress([])  # type: ignore[arg-type]


def test_rating_words_and_naive_iso_times_are_read():
    [attempt], _ = read_staffml_progress(
        {"attempts": [{"id": "q", "date": "2026-11-01T10:00:00", "rating": "hard"}]}
    )
    assert attempt.at == datetime(2026, 11, 1, 10, 0, tzinfo=UTC)
    assert attempt.rating.name == "HARD"


def test_sm2_card_without_due_is_due_one_interval_after_its_last_review():
    study = _fresh()
    study.import_staffml(
        {"cards": {"q": {"interval": 4, "repetitions": 2, "lastReview": "2026-11-18T00:00:00Z"}}},
        now=NOW,
    )
    assert study.card_state("q").due == datetime(2026, 11, 22, tzinfo=UTC)


@pytest.mark.parametrize(
    ("quality", "rating"), [(0, "AGAIN"), (2, "AGAIN"), (3, "HARD"), (5, "EASY")]
)
def test_sm2_quality_scores_map_to_ratings(quality, rating):
    [attempt], _ = read_staffml_progress(
        {"attempts": [{"id": "q", "ts": 1_700_000_000_000, "quality": quality}]}
    )
    assert attempt.rating.name == rating


def test_quality_outside_zero_to_five_is_rejected():
    with pytest.raises(ImportFailed, match="quality must be 0-5, got 7"):
        read_staffml_progress({"attempts": [{"id": "q", "ts": 1, "quality": 7}]})
