"""Learners' settings kept in a worker's memory under their settings version.

Every change of a learner's settings raises their version in the database
(``users.settings_version``), and a multi-user server reads that version with
the login on every request. The settings themselves are then read once per
version and kept here, so a review need not read them again; a version that
moved on (another worker, the CLI, an import) reads them afresh. Safe under
threads; bounded (least recently used goes first).
"""

from __future__ import annotations

from sysdrill.app.kept_lru import KeptLru
from sysdrill.study.settings import StudySettings

__all__ = ["KEPT_LEARNERS", "kept_settings", "keep_settings"]

KEPT_LEARNERS = 4096
"""Learners whose settings a process keeps at most (a few hundred bytes each)."""

_kept: KeptLru[tuple[object, int], tuple[int, StudySettings]] = KeptLru(KEPT_LEARNERS)


def kept_settings(database: object, user_id: int, version: int) -> StudySettings | None:
    """The settings kept for the learner of ``database`` at ``version``, else None."""
    found = _kept.get((database, user_id))
    return None if found is None or found[0] != version else found[1]


def keep_settings(database: object, user_id: int, version: int, settings: StudySettings) -> None:
    """Keep ``settings``, read after ``version`` was: they are at least that recent."""
    _kept.put((database, user_id), (version, settings))
