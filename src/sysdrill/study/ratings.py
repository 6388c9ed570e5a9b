"""How a learner rates a review, and how the review was graded."""

from __future__ import annotations

from enum import IntEnum, StrEnum

from sysdrill.errors import UsageError

__all__ = [
    "SCALE_CHOICES",
    "GradedBy",
    "Rating",
    "RatingScale",
    "rating_from_confidence",
    "rating_from_text",
    "rating_on_scale",
]


class Rating(IntEnum):
    """The four FSRS ratings; the values are those of ``fsrs.Rating``."""

    AGAIN = 1
    """Forgot, or answered wrongly."""
    HARD = 2
    """Recalled with serious difficulty."""
    GOOD = 3
    """Recalled after some thought."""
    EASY = 4
    """Recalled at once."""

    @property
    def passed(self) -> bool:
        """Whether the rating counts as a successful recall (anything but Again)."""
        return self is not Rating.AGAIN


class GradedBy(StrEnum):
    """How a review's rating was decided (stored with every review)."""

    SELF = "self"
    """The learner rated their own free-text answer or flashcard recall."""
    MULTIPLE_CHOICE = "multiple-choice"
    """An option chosen against ``details.correct_index``."""
    NUMERIC = "numeric"
    """A number with a unit checked by the napkin engine against ``answer_value``."""
    GAUNTLET = "gauntlet"
    """Self-scored against a rubric during a timed mock interview."""
    IMPORTED = "imported"
    """Taken over from another tool's history (StaffML browser export)."""
    INTERVIEW = "interview"
    """Key points and napkin math judged during a conversational mock interview."""


_CONFIDENCE: dict[int, Rating] = {
    1: Rating.AGAIN,
    2: Rating.AGAIN,
    3: Rating.HARD,
    4: Rating.GOOD,
    5: Rating.EASY,
}


def rating_from_confidence(confidence: int) -> Rating:
    """Map the 1-5 confidence scale of flashcard decks to a rating.

    1 and 2 are Again, 3 is Hard, 4 is Good, 5 is Easy.

    Args:
        confidence: The learner's confidence, 1 (no idea) to 5 (perfect).

    Returns:
        The matching rating.

    Raises:
        UsageError: If ``confidence`` is not an integer from 1 to 5.
    """
    if isinstance(confidence, bool) or confidence not in _CONFIDENCE:
        raise UsageError(f"Confidence must be a whole number from 1 to 5, got {confidence!r}.")
    return _CONFIDENCE[confidence]


_WORDS: dict[str, Rating] = {
    "again": Rating.AGAIN,
    "a": Rating.AGAIN,
    "hard": Rating.HARD,
    "h": Rating.HARD,
    "good": Rating.GOOD,
    "g": Rating.GOOD,
    "easy": Rating.EASY,
    "e": Rating.EASY,
}


def rating_from_text(text: str) -> Rating:
    """Read a rating typed by a learner: a name (``good``), its initial, or 1-5 confidence.

    Args:
        text: ``again``/``hard``/``good``/``easy`` (any case, or the first letter),
            or a confidence digit 1-5.

    Returns:
        The rating.

    Raises:
        UsageError: If the text is neither a rating name nor a confidence from 1 to 5.
    """
    cleaned = text.strip().lower()
    if cleaned in _WORDS:
        return _WORDS[cleaned]
    if cleaned.isdigit():
        return rating_from_confidence(int(cleaned))
    raise UsageError(
        f"Unknown rating {text.strip()!r}. Use again, hard, good or easy, or a confidence 1-5."
    )


class RatingScale(StrEnum):
    """The scale a learner rates recalls on, the same for every item of a session."""

    AGAIN_TO_EASY = "again-hard-good-easy"
    """FSRS's own four ratings, keys 1 (Again) to 4 (Easy), as in Anki."""
    CONFIDENCE = "confidence"
    """Confidence from 1 (no idea) to 5 (perfect), mapped by :func:`rating_from_confidence`."""


SCALE_CHOICES: dict[RatingScale, tuple[tuple[str, str, Rating], ...]] = {
    RatingScale.AGAIN_TO_EASY: (
        ("1", "Again", Rating.AGAIN),
        ("2", "Hard", Rating.HARD),
        ("3", "Good", Rating.GOOD),
        ("4", "Easy", Rating.EASY),
    ),
    RatingScale.CONFIDENCE: tuple(
        (str(level), label, _CONFIDENCE[level])
        for level, label in (
            (1, "No idea"),
            (2, "Barely"),
            (3, "With effort"),
            (4, "Recalled"),
            (5, "Perfect"),
        )
    ),
}
"""Each scale's choices as (key, label, FSRS rating): the one place a key becomes a rating."""


def rating_on_scale(text: str, scale: RatingScale) -> Rating:
    """Read a rating typed or clicked on ``scale``: a key of the scale, or a rating's name.

    A digit means what the session's scale says it means: ``3`` is Good on
    Again/Hard/Good/Easy and Hard on the confidence scale. Names (``good``,
    ``g``) mean the same on both.

    Raises:
        UsageError: If the text is neither a key of the scale nor a rating's name.
    """
    cleaned = text.strip().lower()
    if cleaned in _WORDS:
        return _WORDS[cleaned]
    for key, _, rating in SCALE_CHOICES[scale]:
        if cleaned == key:
            return rating
    shown = text.strip()[:20]
    if scale is RatingScale.CONFIDENCE:
        raise UsageError(
            f"Unknown rating {shown!r}. Use a confidence from 1 (no idea) to 5 (perfect), "
            "or again, hard, good or easy."
        )
    raise UsageError(
        f"Unknown rating {shown!r}. Use 1 Again, 2 Hard, 3 Good or 4 Easy "
        "(or the words again, hard, good, easy)."
    )
