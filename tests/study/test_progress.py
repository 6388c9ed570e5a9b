from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

from sysdrill.study.progress import MASTERED_STABILITY_DAYS, build_summary
from sysdrill.study.service import GradedBy, Rating

T0 = datetime(2026, 11, 2, 9, 0, tzinfo=UTC)


def _review(study, item_id, rating, now):
    return study.record_review(item_id, rating=rating, graded_by=GradedBy.SELF, now=now)


def _vault(make_item):
    return [
        make_item("m1", competency_area="memory", track="cloud", topic="kv-cache"),
        make_item("m2", competency_area="memory", track="cloud", topic="kv-cache"),
        make_item("n1", competency_area="networking", track="edge", topic="allreduce"),
        make_item("x1"),
    ]


def test_empty_history_reports_zeroes_and_a_hint(study, make_item):
    report = study.progress(_vault(make_item), now=T0)
    assert (report.items_total, report.items_seen, report.reviews_total) == (4, 0, 0)
    assert report.streak_days == 0
    assert report.retention_young.rate is None
    assert report.notes == ["No reviews yet. Start with `sysdrill practice`."]
    assert len(report.forecast) == 30 and sum(d.count for d in report.forecast) == 0


def test_coverage_counts_seen_and_mastered_per_area_and_track(study, make_item):
    _review(study, "m1", Rating.GOOD, T0)
    # Push n1 to a long stability by passing it on time again and again.
    when = T0
    for _ in range(6):
        outcome = _review(study, "n1", Rating.EASY, when)
        when = outcome.due
    assert study.card_state("n1").stability_days >= MASTERED_STABILITY_DAYS
    report = study.progress(_vault(make_item), now=when)
    cells = {(c.competency_area, c.track): (c.items, c.seen, c.mastered) for c in report.coverage}
    assert cells == {
        ("memory", "cloud"): (2, 1, 0),
        ("networking", "edge"): (1, 1, 1),
        ("(none)", "(none)"): (1, 0, 0),
    }
    assert (report.items_seen, report.items_mastered) == (2, 1)


def test_true_retention_uses_first_review_of_the_day_of_graduated_items(study, make_item):
    first = _review(study, "m1", Rating.EASY, T0)
    second = _review(study, "m2", Rating.EASY, T0)
    day = max(first.due, second.due)
    _review(study, "m1", Rating.AGAIN, day)  # first of the day: a young lapse
    _review(study, "m1", Rating.GOOD, day + timedelta(minutes=15))  # relearning: not counted
    _review(study, "m2", Rating.GOOD, day)
    report = study.progress(_vault(make_item), now=day)
    assert (report.retention_young.reviews, report.retention_young.passed) == (2, 1)
    assert report.retention_young.rate == 0.5
    assert report.retention_mature.reviews == 0


def test_streak_counts_consecutive_days_ending_today_or_yesterday(study, make_item):
    for offset in (0, 1, 2, 4, 5):
        _review(study, f"s{offset}", Rating.GOOD, T0 + timedelta(days=offset))
    items = _vault(make_item)
    assert study.progress(items, now=T0 + timedelta(days=5)).streak_days == 2
    assert study.progress(items, now=T0 + timedelta(days=6)).streak_days == 2
    assert study.progress(items, now=T0 + timedelta(days=7)).streak_days == 0


def test_reviews_per_day_and_forecast_cover_thirty_days(study, make_item):
    _review(study, "m1", Rating.GOOD, T0)
    _review(study, "m1", Rating.GOOD, T0 + timedelta(minutes=10))
    report = study.progress(_vault(make_item), now=T0 + timedelta(hours=1))
    assert report.reviews_per_day[-1].day == T0.date()
    assert report.reviews_per_day[-1].count == 2
    assert len(report.reviews_per_day) == 30
    due_day = study.card_state("m1").due.date()
    forecast = {d.day: d.count for d in report.forecast}
    assert forecast[due_day] == 1


def _topics(make_item):
    return [
        make_item("k1", topic="kv-cache"),
        make_item("k2", topic="kv-cache"),
        make_item("a1", topic="allreduce"),
        make_item("p1", topic="pipelining"),
    ]


def _rate(study, item_id, ratings, start):
    """Rate one item once a minute from ``start`` (learning steps: all on one day)."""
    for minute, rating in enumerate(ratings):
        _review(study, item_id, rating, start + timedelta(minutes=minute))


def test_weakest_topics_count_again_in_learning_which_recall_calls_100_percent(study, make_item):
    _rate(study, "k1", [Rating.AGAIN, Rating.AGAIN, Rating.AGAIN, Rating.GOOD], T0)
    _rate(study, "k2", [Rating.GOOD], T0)
    _rate(study, "a1", [Rating.GOOD] * 5, T0)
    report = study.progress(_topics(make_item), now=T0 + timedelta(minutes=10))
    [kv] = report.weakest_topics
    assert (kv.topic, kv.seen, kv.reviews, kv.rated_again) == ("kv-cache", 2, 5, 3)
    assert kv.again_share == 0.6
    assert kv.mean_recall == 1.0  # why recall alone cannot rank the first days
    assert report.weakest_topics_note is None
    assert report.to_dict()["weakest_topics"][0]["again_share"] == 0.6


def test_weakest_topics_rank_by_share_of_again_and_skip_thin_evidence(study, make_item):
    _rate(study, "k1", [Rating.AGAIN, Rating.GOOD, Rating.GOOD, Rating.GOOD, Rating.GOOD], T0)
    _rate(study, "a1", [Rating.AGAIN, Rating.AGAIN, Rating.GOOD, Rating.GOOD, Rating.GOOD], T0)
    _rate(study, "p1", [Rating.AGAIN] * 4, T0)  # four reviews: not yet ranked
    report = study.progress(_topics(make_item), now=T0 + timedelta(hours=1))
    assert [(t.topic, t.rated_again) for t in report.weakest_topics] == [
        ("allreduce", 2),
        ("kv-cache", 1),
    ]


def test_weakest_topics_say_not_enough_reviews_yet_on_the_first_reviews(study, make_item):
    _rate(study, "k1", [Rating.AGAIN, Rating.GOOD], T0)
    _rate(study, "a1", [Rating.GOOD], T0)
    report = study.progress(_topics(make_item), now=T0 + timedelta(minutes=5))
    assert report.weakest_topics == []
    note = (
        "Not enough reviews yet: a topic is ranked once its items have 5 reviews in the "
        "last 30 days, or are being forgotten."
    )
    assert report.weakest_topics_note == note
    assert f"Weakest topics: {note}" in report.notes


def test_weakest_topics_list_none_when_no_well_reviewed_topic_was_forgotten(study, make_item):
    _rate(study, "a1", [Rating.GOOD] * 5, T0)
    report = study.progress(_topics(make_item), now=T0 + timedelta(minutes=5))
    assert report.weakest_topics == []
    assert report.weakest_topics_note == (
        "None so far: every topic's items fail less than one time in ten."
    )


def test_no_reviews_gives_one_note_and_no_weakest_topics_note(study, make_item):
    report = study.progress(_topics(make_item), now=T0)
    assert report.weakest_topics_note is None
    assert report.notes == ["No reviews yet. Start with `sysdrill practice`."]


def test_report_serialises_to_json(study, make_item):
    _review(study, "m1", Rating.GOOD, T0)
    data = study.progress(_vault(make_item), now=T0).to_dict()
    text = json.dumps(data)
    assert json.loads(text)["items_seen"] == 1
    assert data["forecast"][0]["day"] == "2026-11-02"
    assert "rate" in data["retention_young"]


def test_summary_gives_the_reports_headline_figures(study, make_item):
    _review(study, "m1", Rating.GOOD, T0 - timedelta(days=1))
    when = T0
    for _ in range(6):
        outcome = _review(study, "n1", Rating.EASY, when)
        when = outcome.due
    study.set_setting("deadline", "2027-06-01")
    items = _vault(make_item)
    report = study.progress(items, now=when)
    summary = build_summary(study.store, study.scope, items, now=when, settings=study.settings)
    assert (summary.items_total, summary.items_seen, summary.items_mastered) == (4, 2, 1)
    assert summary.reviews_total == report.reviews_total == 7
    assert summary.streak_days == report.streak_days
    assert summary.forecast == report.forecast
    assert len(summary.forecast) == 30
    assert summary.deadline == report.deadline
    assert str(summary.deadline) == "2027-06-01"


def test_a_topic_being_forgotten_is_weak_without_a_recent_again(study, make_item):
    # Learnt long ago and not seen since: no Again in the last 30 days, but FSRS
    # expects most of it forgotten by now.
    _rate(study, "k1", [Rating.GOOD], T0 - timedelta(days=400))
    _rate(study, "a1", [Rating.GOOD] * 5, T0)
    report = study.progress(_topics(make_item), now=T0 + timedelta(minutes=5))
    [weak] = report.weakest_topics
    assert weak.reviews == 0 and weak.mean_recall < 0.9


def test_an_old_again_no_longer_makes_a_topic_weak(study, make_item):
    _rate(study, "a1", [Rating.AGAIN] * 5, T0 - timedelta(days=60))
    _rate(study, "a1", [Rating.GOOD] * 5, T0)
    report = study.progress(_topics(make_item), now=T0 + timedelta(minutes=5))
    assert report.weakest_topics == []
