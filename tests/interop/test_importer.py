from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import yaml

from sysdrill.content.diagnostics import Severity
from sysdrill.errors import ContentInvalid, HostileInput, ImportFailed, UsageError
from sysdrill.interop import text, vault_writer
from sysdrill.interop.importer import AUDITING, ImportReport, ItemAction, import_source

NOW = datetime(2026, 11, 21, 12, 0, tzinfo=UTC)
LATER = NOW + timedelta(days=1)
SEEDS = {
    "000_f94b88cb3c630d3c.txt": 1,
    "001_2a349a237ce54e38.txt": 1,
    "002_150ee555f9dec9d2.txt": 20,
    "003_e725e3b7f745518c.txt": 27,
    "004_8c6267489fed25a8.txt": 89,
}


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file below root, by relative path."""
    if not root.exists():
        return {}
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text("utf-8"))


def staffml_question(item_id: str, **extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "schema_version": "1.0",
        "id": item_id,
        "track": "edge",
        "level": "L2",
        "zone": "recall",
        "topic": "quantization",
        "competency_area": "precision",
        "bloom_level": "remember",
        "phase": "inference",
        "title": "Bytes Per INT8 Weight",
        "scenario": "A phone runs a 1B-parameter model quantised to INT8 weights.",
        "question": "How many bytes do the weights of the model take?",
        "details": {"realistic_solution": "One byte per weight: 1e9 bytes.\nAbout 1 GB.\n"},
        "status": "published",
        "provenance": "human",
    }
    data.update(extra)
    return data


def write_quiz(path: Path, answers: list[str]) -> Path:
    lines = ["Ring Basics Quiz", "A short quiz written for these tests."]
    for number, answer in enumerate(answers, 1):
        lines += [f"Question {number}", f"What is fact number {number}?", "Answer", answer]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.mark.parametrize(("name", "count"), sorted(SEEDS.items()))
def test_import_seed_into_fresh_vault_adds_every_item(
    seeds_dir: Path, tmp_path: Path, name: str, count: int
) -> None:
    vault = tmp_path / "vault"
    report = import_source(seeds_dir / name, into=vault, audit=False, now=NOW)
    assert report.created_vault
    assert len(report.added) == count
    assert not report.updated and not report.unchanged and not report.skipped
    files = sorted((vault / "questions").rglob("*.yaml"))
    assert len(files) == count
    for outcome in report.added:
        data = load(vault / str(outcome.path))
        assert data["id"] == outcome.id
        assert Path(str(outcome.path)).stem == outcome.id
        assert data["provenance"] == "imported"
        assert data["source"]["key"] == outcome.key
        assert data["source"]["format"] == report.format
        assert data["source"]["path"] == name
        assert len(data["source"]["digest"]) == 64


def test_import_seed_quiz_writes_deck_and_readable_yaml(seeds_dir: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    report = import_source(seeds_dir / "002_150ee555f9dec9d2.txt", into=vault, now=NOW)
    assert report.deck == "chapter-26-quiz"
    decks = load(vault / "decks.yaml")["decks"]
    assert decks == [
        {
            "name": "chapter-26-quiz",
            "title": "Chapter 26: Quiz",
            "items": [outcome.id for outcome in report.added],
        }
    ]
    first = (vault / str(report.added[0].path)).read_text("utf-8")
    assert "\n  realistic_solution: " in first
    lines = first.splitlines()
    keys = [line.split(":")[0] for line in lines if line and not line.startswith(" ")]
    assert keys[:2] == ["schema_version", "id"]
    assert keys.index("question") < keys.index("details") < keys.index("source")
    assert report.added[0].path == f"questions/chapter-26-quiz/{report.added[0].id}.yaml"
    assert report.added[0].id == "global-quiz-0001"
    last = report.notes[-1]
    assert last.message.startswith(f"{report.added[-1].id}: question 20 has no answer")


def test_multiline_text_is_written_as_block_scalar(tmp_path: Path) -> None:
    source = tmp_path / "edge-1.yaml"
    source.write_text(yaml.safe_dump(staffml_question("edge-1")), encoding="utf-8")
    import_source(source, into=tmp_path / "vault", now=NOW)
    text = (tmp_path / "vault" / "questions" / "edge" / "edge-1.yaml").read_text("utf-8")
    assert "  realistic_solution: |\n    One byte per weight: 1e9 bytes.\n    About 1 GB.\n" in text


def test_import_same_source_twice_changes_nothing(seeds_dir: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    for name in SEEDS:
        import_source(seeds_dir / name, into=vault, audit=False, now=NOW)
    before = snapshot(vault)
    for name, count in SEEDS.items():
        report = import_source(seeds_dir / name, into=vault, audit=False, now=LATER)
        assert len(report.unchanged) == count, name
        assert not report.added and not report.updated
        assert report.written == []
    assert snapshot(vault) == before


def test_changed_source_updates_the_same_items(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    quiz = write_quiz(tmp_path / "quiz.txt", ["One.", "Two.", "Three."])
    first = import_source(quiz, into=vault, now=NOW)
    write_quiz(quiz, ["One.", "Two, revised.", "Three.", "Four."])
    second = import_source(quiz, into=vault, now=LATER)
    assert [o.action for o in second.outcomes] == [
        ItemAction.UNCHANGED,
        ItemAction.UPDATED,
        ItemAction.UNCHANGED,
        ItemAction.ADDED,
    ]
    assert [o.id for o in second.outcomes[:3]] == [o.id for o in first.outcomes]
    updated = load(vault / str(second.updated[0].path))
    assert updated["details"]["realistic_solution"] == "Two, revised."
    assert updated["created_at"] == NOW.isoformat(timespec="seconds")
    assert updated["updated_at"] == LATER.isoformat(timespec="seconds")
    deck = load(vault / "decks.yaml")["decks"][0]
    assert deck["items"] == [o.id for o in second.outcomes]


def test_dry_run_writes_nothing_and_reports_the_same(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    quiz = write_quiz(tmp_path / "quiz.txt", ["One.", "Two."])
    report = import_source(quiz, into=vault, dry_run=True, now=NOW)
    assert report.dry_run and report.created_vault
    assert [o.action for o in report.outcomes] == [ItemAction.ADDED, ItemAction.ADDED]
    assert report.written == []
    assert not vault.exists()


def test_failure_mid_write_leaves_vault_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    vault = tmp_path / "vault"
    quiz = write_quiz(tmp_path / "quiz.txt", ["One.", "Two.", "Three."])
    import_source(quiz, into=vault, now=NOW)
    before = snapshot(vault)
    write_quiz(quiz, ["One, new.", "Two, new.", "Three, new.", "Four."])
    calls = {"n": 0}
    real_place = vault_writer._place

    def failing_place(staged: str, target: str) -> None:
        calls["n"] += 1
        if calls["n"] == 3:
            raise OSError(28, "No space left on device", str(target))
        real_place(staged, target)

    monkeypatch.setattr(vault_writer, "_place", failing_place)
    with pytest.raises(ImportFailed, match="No space left on device; nothing was imported"):
        import_source(quiz, into=vault, now=LATER)
    assert calls["n"] == 3
    assert snapshot(vault) == before
    assert not [p for p in vault.iterdir() if p.name.startswith(vault_writer.STAGING_PREFIX)]


def test_a_killed_import_leaves_no_staging_folder_after_the_next_import(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    quiz = write_quiz(tmp_path / "quiz.txt", ["One.", "Two."])
    import_source(quiz, into=vault, now=NOW)
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    killed = vault / f"{vault_writer.STAGING_PREFIX}{gone.stdout.strip()}-0123456789ab"
    (killed / "new" / "0").mkdir(parents=True)
    (killed / "new" / "0" / "0.yaml").write_text("half written", "utf-8")
    running = vault / f"{vault_writer.STAGING_PREFIX}{os.getpid()}-ba9876543210"
    running.mkdir()
    write_quiz(quiz, ["One.", "Two.", "Three."])
    import_source(quiz, into=vault, now=LATER)
    assert not killed.exists()
    # A folder whose writer still runs is another import at work: left alone.
    assert running.is_dir()


def test_failure_writing_new_vault_removes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def failing_place(staged: str, target: str) -> None:
        raise OSError(13, "Permission denied", str(target))

    monkeypatch.setattr(vault_writer, "_place", failing_place)
    quiz = write_quiz(tmp_path / "quiz.txt", ["One."])
    with pytest.raises(ImportFailed, match="Permission denied"):
        import_source(quiz, into=tmp_path / "new" / "vault", now=NOW)
    assert not (tmp_path / "new").exists()


def test_invalid_item_fails_validation_and_writes_nothing(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.json"
    corpus.write_text(
        json.dumps([staffml_question("edge-1"), staffml_question("edge-2", level="L9")]),
        encoding="utf-8",
    )
    with pytest.raises(ContentInvalid, match=r"1 problem\(s\).*edge-2\): level:"):
        import_source(corpus, into=tmp_path / "vault", now=NOW)
    assert not (tmp_path / "vault").exists()


def test_staffml_import_keeps_ids_fields_and_provenance_as_written(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.json"
    corpus.write_text(
        json.dumps([staffml_question("edge-1", extra_field=[1, 2])]), encoding="utf-8"
    )
    report = import_source(corpus, into=tmp_path / "vault", now=NOW)
    assert report.added[0].path == "questions/edge/edge-1.yaml"
    data = load(tmp_path / "vault" / "questions" / "edge" / "edge-1.yaml")
    assert data["extra_field"] == [1, 2]
    assert data["status"] == "published"
    assert data["provenance"] == "human"
    assert "provenance" not in data["source"]
    assert "deck" not in data
    assert not (tmp_path / "vault" / "decks.yaml").exists()


def test_web_copy_and_clean_yaml_share_identity(seeds_dir: Path, tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    import_source(seeds_dir / "000_f94b88cb3c630d3c.txt", into=vault, now=NOW)
    clean = tmp_path / "cloud-1013.yaml"
    text = (vault / "questions/cloud/cloud-1013.yaml").read_text("utf-8")
    clean.write_text(text, "utf-8")
    report = import_source(clean, into=vault, now=LATER)
    assert [(o.action, o.id) for o in report.outcomes] == [(ItemAction.UNCHANGED, "cloud-1013")]
    clean.write_text(text.replace("status: published", "status: flagged"), "utf-8")
    report = import_source(clean, into=vault, now=LATER)
    assert [(o.action, o.id) for o in report.outcomes] == [(ItemAction.UPDATED, "cloud-1013")]
    assert load(vault / "questions/cloud/cloud-1013.yaml")["status"] == "flagged"
    assert len(list((vault / "questions").rglob("*.yaml"))) == 1


def test_id_held_by_a_hand_written_item_is_skipped_with_reason(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    own = vault / "questions" / "edge" / "edge-1.yaml"
    own.parent.mkdir(parents=True)
    own.write_text(yaml.safe_dump(staffml_question("edge-1", title="Mine")), encoding="utf-8")
    same = staffml_question("edge-2")
    (vault / "questions" / "edge" / "edge-2.yaml").write_text(yaml.safe_dump(same), "utf-8")
    corpus = tmp_path / "corpus.json"
    corpus.write_text(
        json.dumps([staffml_question("edge-1"), same, staffml_question("edge-3")]), "utf-8"
    )
    report = import_source(corpus, into=vault, now=NOW)
    actions = {o.key: o for o in report.outcomes}
    assert actions["edge-1"].action is ItemAction.SKIPPED
    assert actions["edge-1"].reason == (
        "id 'edge-1' is already used by questions/edge/edge-1.yaml, which was not imported "
        "from this source; rename or remove one of them"
    )
    assert actions["edge-2"].action is ItemAction.UNCHANGED
    assert actions["edge-3"].action is ItemAction.ADDED
    assert load(own)["title"] == "Mine"


def test_allocated_ids_skip_ids_in_use(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    taken = vault / "questions" / "misc" / "global-quiz-0001.yaml"
    taken.parent.mkdir(parents=True)
    taken.write_text("id: global-quiz-0001\nformat: quiz\nquestion: Mine?\n", "utf-8")
    quiz = write_quiz(tmp_path / "quiz.txt", ["One.", "Two."])
    report = import_source(quiz, into=vault, now=NOW)
    assert [o.id for o in report.added] == ["global-quiz-0002", "global-quiz-0003"]


def test_deck_option_overrides_source_deck_and_keeps_other_decks(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "decks.yaml").write_text(
        "decks:\n- name: mine\n  items: []\n  description: kept\n", "utf-8"
    )
    quiz = write_quiz(tmp_path / "quiz.txt", ["One."])
    report = import_source(quiz, into=vault, deck="Week 3 Review", now=NOW)
    assert report.deck == "week-3-review"
    data = load(vault / str(report.added[0].path))
    assert data["deck"] == "week-3-review"
    assert report.added[0].path.startswith("questions/week-3-review/")
    decks = load(vault / "decks.yaml")["decks"]
    assert decks[0] == {"name": "mine", "items": [], "description": "kept"}
    assert decks[1] == {
        "name": "week-3-review",
        "title": "Week 3 Review",
        "items": [report.added[0].id],
    }


def test_broken_decks_file_stops_the_import(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "decks.yaml").write_text("decks: [unclosed\n", "utf-8")
    with pytest.raises(ImportFailed, match="cannot read decks.yaml"):
        import_source(write_quiz(tmp_path / "q.txt", ["One."]), into=vault, now=NOW)
    assert snapshot(vault) == {"decks.yaml": b"decks: [unclosed\n"}


@pytest.mark.parametrize(
    "now", [datetime(2026, 1, 1), datetime(2026, 1, 1, tzinfo=timezone(timedelta(hours=2)))]
)
def test_now_must_be_utc(tmp_path: Path, now: datetime) -> None:
    with pytest.raises(UsageError, match="UTC"):
        import_source(tmp_path, into=tmp_path / "vault", now=now)


def test_unknown_format_is_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="unknown format 'docx'; use one of: auto, staffml"):
        import_source(tmp_path, into=tmp_path / "vault", format="docx", now=NOW)


def test_into_a_file_is_refused(tmp_path: Path) -> None:
    target = tmp_path / "file.txt"
    target.write_text("x", "utf-8")
    with pytest.raises(ImportFailed, match="is a file, not a vault folder"):
        import_source(tmp_path, into=target, now=NOW)


def test_utf16_and_latin1_sources_import(tmp_path: Path) -> None:
    utf16 = tmp_path / "quiz16.txt"
    utf16.write_bytes("Quiz\nQuestion 1\nWhat is 2¹⁶?\nAnswer\n65536\n".encode("utf-16"))
    latin = tmp_path / "latin.txt"
    latin.write_bytes("Deck\n1\nQ\nRéseau: Débit?\nA\nÉlevé.\n".encode("latin-1"))
    vault = tmp_path / "vault"
    first = import_source(utf16, into=vault, now=NOW)
    second = import_source(latin, into=vault, format="flashcards-text", now=NOW)
    quiz = load(vault / str(first.added[0].path))
    card = load(vault / str(second.added[0].path))
    assert quiz["question"] == "What is 2¹⁶?"
    assert card["details"]["realistic_solution"] == "Élevé."
    assert card["tags"] == ["Réseau"]
    assert any("not UTF-8" in note.message for note in second.notes)


def test_huge_text_source_is_refused_and_nothing_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(text, "WHOLE_TEXT_MAX_BYTES", 1024 * 1024)
    big = tmp_path / "quiz.txt"
    big.write_text("Question 1\nWhy?\nAnswer\n" + "x" * (2 * 1024 * 1024), "utf-8")
    with pytest.raises(HostileInput, match="split it into smaller files"):
        import_source(big, into=tmp_path / "vault", format="quiz-text", now=NOW)
    assert not (tmp_path / "vault").exists()


def test_source_with_nothing_to_import_fails(tmp_path: Path) -> None:
    deck = tmp_path / "deck.txt"
    deck.write_text("Deck\n1\nQ\nFront?\nA\n\n", "utf-8")
    with pytest.raises(ImportFailed, match=r"nothing to import .*card 1: no back"):
        import_source(deck, into=tmp_path / "vault", format="flashcards-text", now=NOW)


def test_report_json_shape(tmp_path: Path) -> None:
    quiz = write_quiz(tmp_path / "quiz.txt", ["One."])
    report = import_source(quiz, into=tmp_path / "vault", now=NOW)
    shape = json.loads(json.dumps(report.to_dict()))
    assert shape["counts"] == {"added": 1, "updated": 0, "unchanged": 0, "skipped": 0}
    assert shape["items"][0] == {
        "action": "added",
        "key": "ring-basics-quiz/question-1",
        "id": "global-quiz-0001",
        "path": "questions/ring-basics-quiz/global-quiz-0001.yaml",
        "reason": "",
    }
    assert shape["written"] == [
        "questions/ring-basics-quiz/global-quiz-0001.yaml",
        "decks.yaml",
        "vault.yaml",
    ]
    assert isinstance(report, ImportReport)


def test_imported_seed_vault_passes_check_apart_from_reported_defects(
    seeds_dir: Path, tmp_path: Path
) -> None:
    from sysdrill.check.runner import run_check

    vault = tmp_path / "vault"
    defects: list[str] = []
    for name in SEEDS:
        defects += import_source(seeds_dir / name, into=vault, now=NOW).defects
    found = run_check(vault).findings
    errors = [f.render() for f in found if f.severity is not Severity.INFO]
    assert sorted(errors) == sorted(defects)
    assert run_check(vault).files == sum(SEEDS.values())


def test_staging_folder_never_survives(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    import_source(write_quiz(tmp_path / "q.txt", ["One."]), into=vault, now=NOW)
    assert sorted(os.listdir(vault)) == ["decks.yaml", "questions", "vault.yaml"]


def test_registry_names_every_format_and_loads_each_reader() -> None:
    from sysdrill.interop.formats import FORMAT_NAMES, get_reader

    assert FORMAT_NAMES == (
        "staffml",
        "staffml-web",
        "quiz-text",
        "exercises-text",
        "flashcards-text",
        "apkg",
        "anki-text",
        "csv",
        "markdown",
        "obsidian",
        "mochi",
        "crowdanki",
    )
    for name in FORMAT_NAMES:
        assert callable(get_reader(name))


def test_missing_reader_module_breaks_only_its_format(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from sysdrill.interop.formats import get_reader

    monkeypatch.setitem(sys.modules, "sysdrill.interop.formats.csv_text", None)
    with pytest.raises(ImportFailed, match="the 'csv' importer is not available"):
        get_reader("csv")
    assert callable(get_reader("quiz-text"))


def test_csv_cards_with_anki_subdecks_import_into_deck_folders(tmp_path: Path) -> None:
    cards = tmp_path / "cards.csv"
    cards.write_text(
        "front,back,deck,tags\n"
        "What does NCCL stand for?,NVIDIA Collective Communications Library,GPU::Comms,nccl\n"
        "What is HBM?,High-bandwidth memory,GPU::Memory,hbm\n",
        encoding="utf-8",
    )
    vault = tmp_path / "vault"
    report = import_source(cards, into=vault, now=NOW)
    assert report.format == "csv"
    assert [o.path for o in report.added] == [
        "questions/gpu/comms/global-flashcard-0001.yaml",
        "questions/gpu/memory/global-flashcard-0002.yaml",
    ]
    decks = {d["name"]: d for d in load(vault / "decks.yaml")["decks"]}
    assert decks["gpu::comms"] == {
        "name": "gpu::comms",
        "title": "GPU::Comms",
        "items": ["global-flashcard-0001"],
    }
    again = import_source(cards, into=vault, now=LATER)
    assert len(again.unchanged) == 2


def test_item_dropped_from_source_is_kept_and_noted(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    quiz = write_quiz(tmp_path / "quiz.txt", ["One.", "Two.", "Three."])
    first = import_source(quiz, into=vault, now=NOW)
    write_quiz(quiz, ["One.", "Two."])
    second = import_source(quiz, into=vault, now=LATER)
    assert len(second.unchanged) == 2
    dropped = first.outcomes[2]
    assert (vault / str(dropped.path)).is_file()
    [note] = [n for n in second.notes if "no longer in the source" in n.message]
    assert note.message.startswith(f"{dropped.id}: no longer in the source")
    assert note.location == dropped.path


def test_unreadable_vault_file_is_noted(tmp_path: Path) -> None:
    vault = tmp_path / "vault"
    broken = vault / "questions" / "misc" / "global-quiz-0009.yaml"
    broken.parent.mkdir(parents=True)
    broken.write_text("id: [unclosed\n", "utf-8")
    report = import_source(write_quiz(tmp_path / "q.txt", ["One."]), into=vault, now=NOW)
    [note] = [n for n in report.notes if n.location == "questions/misc/global-quiz-0009.yaml"]
    assert "cannot be matched and may be added again" in note.message
    assert len(report.added) == 1


def test_an_audit_split_with_a_forked_worker_reports_what_a_serial_one_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from sysdrill.interop import import_audit

    # Questions without an answer are a defect the audit reports.
    lines = ["Ring Basics Quiz"]
    for number in range(1, 7):
        lines += [f"Question {number}", f"What is fact number {number}?"]
        lines += ["Answer", f"Fact {number}."] if number % 2 else []
    quiz = tmp_path / "quiz.txt"
    quiz.write_text("\n".join(lines) + "\n", encoding="utf-8")
    monkeypatch.setattr(import_audit, "PARALLEL_AUDIT_MIN_FILES", 10**9)
    serial = import_source(quiz, into=tmp_path / "serial", now=NOW).defects
    monkeypatch.setattr(import_audit, "PARALLEL_AUDIT_MIN_FILES", 2)
    steps: list[int] = []
    parallel = import_source(
        quiz,
        into=tmp_path / "parallel",
        now=NOW,
        progress=lambda stage, done, total: steps.append(done) if stage == AUDITING else None,
    ).defects
    assert parallel == serial
    assert len(serial) == 3
    # This process audits three of six files (its half, scaled); with a thread of an
    # earlier test still alive the audit stays serial by design (forking copies locks).
    expected = [0, 2, 4, 6] if threading.active_count() == 1 else [0, 1, 2, 3, 4, 5, 6]
    assert steps == expected


def test_the_audit_after_a_write_skips_an_item_file_removed_once_written(
    tmp_path: Path,
) -> None:
    # Both answers get the arithmetic wrong; the file the callback removes is not audited.
    quiz = write_quiz(tmp_path / "quiz.txt", ["2 x 3 GB = 7 GB", "4 GB + 4 GB = 9 GB"])

    def remove_second(written: ImportReport) -> None:
        (tmp_path / "vault" / written.added[1].path).unlink()

    report = import_source(quiz, into=tmp_path / "vault", now=NOW, on_written=remove_second)
    assert len(report.added) == 2
    [defect] = report.defects
    assert defect.startswith(f"{report.added[0].path}:5:32: ERROR napkin-arithmetic")
