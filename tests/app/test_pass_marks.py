"""Final-pass marks kept beside a vault's catalogue: the same forecast, no id hashed twice."""

from __future__ import annotations

import marshal
from datetime import UTC, datetime, timedelta
from pathlib import Path

from sysdrill.app.catalogue import open_catalogue
from sysdrill.app.pass_marks import kept_pass_marks
from sysdrill.app.progress import workload
from sysdrill.app.study_vault import open_study_vault
from sysdrill.content.sample import starter_vault_path
from sysdrill.storage.memory import MemoryStudyStore
from sysdrill.study.deadline import final_pass_marks
from sysdrill.study.ratings import GradedBy, Rating
from sysdrill.study.service import StudyService

NOW = datetime(2026, 11, 21, 9, 0, tzinfo=UTC)


def _study_with_deadline(vault_id) -> StudyService:
    study = StudyService(MemoryStudyStore(), vault_id=vault_id, now=NOW)
    loaded = open_study_vault(starter_vault_path())
    for n, item in enumerate(loaded.items[:40]):
        moment = NOW - timedelta(days=40 - n)
        study.record_review(item.id, rating=Rating.GOOD, graded_by=GradedBy.SELF, now=moment)
    study.set_setting("deadline", (NOW + timedelta(days=15)).date().isoformat())
    return study


def test_workload_keeps_the_pass_marks_beside_the_catalogue_and_forecasts_the_same(
    tmp_path: Path,
) -> None:
    catalogue = open_catalogue(starter_vault_path(), cache_dir=tmp_path, now=NOW)
    loaded = open_study_vault(starter_vault_path())
    study = _study_with_deadline(loaded.vault_id)
    assert catalogue.path is not None
    kept = catalogue.path.with_suffix(".pass-marks")
    assert not kept.exists()

    first = workload(study, catalogue, now=NOW)

    marks = marshal.loads(kept.read_bytes())["marks"]
    assert marks == {row.id: final_pass_marks(row.id) for row in catalogue.rows}
    assert workload(study, catalogue, now=NOW) == first
    # The loaded vault keeps nothing and hashes every id: the same days.
    assert workload(study, loaded, now=NOW) == first


def test_kept_pass_marks_are_rebuilt_when_unreadable_and_follow_the_items_asked(
    tmp_path: Path,
) -> None:
    path = tmp_path / "vault.pass-marks"
    path.write_bytes(b"not marshal at all")

    assert kept_pass_marks(path, ["a", "b"]) == {
        "a": final_pass_marks("a"),
        "b": final_pass_marks("b"),
    }
    assert kept_pass_marks(path, ["b", "c"]) == {
        "b": final_pass_marks("b"),
        "c": final_pass_marks("c"),
    }
    assert set(marshal.loads(path.read_bytes())["marks"]) == {"b", "c"}


def test_kept_pass_marks_in_an_unwritable_place_are_still_given(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("a file where the folder should be")

    assert kept_pass_marks(blocker / "vault.pass-marks", ["x"]) == {"x": final_pass_marks("x")}
