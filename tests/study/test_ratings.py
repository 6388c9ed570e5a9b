from __future__ import annotations

import pytest

from sysdrill.errors import UsageError
from sysdrill.study.ratings import GradedBy, Rating, rating_from_confidence, rating_from_text


@pytest.mark.parametrize(
    ("confidence", "rating"),
    [(1, Rating.AGAIN), (2, Rating.AGAIN), (3, Rating.HARD), (4, Rating.GOOD), (5, Rating.EASY)],
)
def test_confidence_scale_maps_to_ratings(confidence, rating):
    assert rating_from_confidence(confidence) is rating


@pytest.mark.parametrize("bad", [0, 6, -1, True])
def test_confidence_outside_one_to_five_is_rejected(bad):
    with pytest.raises(UsageError, match="Confidence must be a whole number from 1 to 5"):
        rating_from_confidence(bad)


def test_rating_values_match_fsrs():
    import fsrs

    assert [int(r) for r in Rating] == [int(r) for r in fsrs.Rating]


@pytest.mark.parametrize(
    ("text", "rating"),
    [("again", Rating.AGAIN), ("G", Rating.GOOD), (" Easy ", Rating.EASY), ("3", Rating.HARD)],
)
def test_rating_from_text_reads_names_initials_and_confidence(text, rating):
    assert rating_from_text(text) is rating


def test_rating_from_text_rejects_unknown_words():
    with pytest.raises(UsageError, match="Unknown rating 'meh'"):
        rating_from_text("meh")


def test_only_again_fails():
    assert [r.passed for r in Rating] == [False, True, True, True]


def test_graded_by_values_are_stable_strings():
    assert [g.value for g in GradedBy] == [
        "self",
        "multiple-choice",
        "numeric",
        "gauntlet",
        "imported",
        "interview",
    ]
