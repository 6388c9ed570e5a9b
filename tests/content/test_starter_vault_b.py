"""Gates for the second half of the starter vault (items 3000-3999 and their part file).

The part file ``_parts/b-shared.yaml`` holds this half's topics, chains and decks until
the lead merges it into the vault's shared files, so the gates run on a temporary copy
of the vault with the part merged in, the way it will ship.
"""

from __future__ import annotations

import re
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
import yaml

from sysdrill.check.runner import run_check
from sysdrill.content.diagnostics import Finding
from sysdrill.napkin.filecheck import check_document

STARTER_VAULT = Path(__file__).resolve().parents[2] / "src/sysdrill/content/starter_vault"
PART_FILE = STARTER_VAULT / "_parts" / "b-shared.yaml"
OWN_ID = re.compile(r"^(cloud|global|edge|mobile)-3\d{3}$")
SHARED_FILES = {"topics": "taxonomy.yaml", "chains": "chains.yaml", "decks": "decks.yaml"}
LEVELS = ("L1", "L2", "L3", "L4", "L5", "L6+")


def _own_item_files() -> list[Path]:
    return sorted(
        path for path in (STARTER_VAULT / "questions").rglob("*.yaml") if OWN_ID.match(path.stem)
    )


def _load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), path
    return data


def _kind(item: dict[str, Any]) -> str:
    """The item's kind, with multiple choice and napkin scenarios told apart."""
    kind = str(item.get("format", "question"))
    details = item.get("details") or {}
    if kind == "question" and details.get("options"):
        return "multiple-choice"
    if kind == "question" and details.get("napkin_math"):
        return "napkin-question"
    return kind


def _merge_part(vault: Path, part: dict[str, Any]) -> None:
    """Add the part's entries to the copy's shared files, skipping ids already merged."""
    for key, name in SHARED_FILES.items():
        target = vault / name
        existing: list[dict[str, Any]] = []
        if target.exists():
            existing = (yaml.safe_load(target.read_text(encoding="utf-8")) or {}).get(key) or []
        field = "name" if key == "decks" else "id"
        present = {entry[field] for entry in existing}
        merged = existing + [entry for entry in part[key] if entry[field] not in present]
        target.write_text(yaml.safe_dump({key: merged}, sort_keys=False), encoding="utf-8")


@pytest.fixture(scope="module")
def items() -> list[dict[str, Any]]:
    return [_load(path) for path in _own_item_files()]


@pytest.fixture(scope="module")
def part() -> dict[str, Any]:
    return _load(PART_FILE)


@pytest.fixture(scope="module")
def merged_findings(
    tmp_path_factory: pytest.TempPathFactory, part: dict[str, Any]
) -> list[Finding]:
    vault = tmp_path_factory.mktemp("starter") / "vault"
    shutil.copytree(STARTER_VAULT, vault)
    _merge_part(vault, part)
    report = run_check(vault, workers=1)
    own_paths = {f"questions/{p.parent.name}/{p.name}" for p in _own_item_files()}
    own_names = {entry["id"] for entry in part["topics"] + part["chains"]}
    own_names |= {entry["name"] for entry in part["decks"]}
    return [
        finding
        for finding in report.findings
        if finding.path in own_paths
        or Path(finding.path).name in set(SHARED_FILES.values())
        and any(name in finding.message for name in own_names)
    ]


def test_strict_check_finds_nothing_in_this_half(merged_findings: list[Finding]) -> None:
    assert [finding.render() for finding in merged_findings] == []


def test_every_claim_in_this_half_is_checked_and_holds() -> None:
    problems = []
    for path in _own_item_files():
        claims = check_document(path.read_text(encoding="utf-8"), source=str(path)).to_dict()
        for claim in claims["claims"]:
            if claim["verdict"] != "ok":
                problems.append(f"{path.name}:{claim['line']} {claim['verdict']} {claim['claim']}")
    assert problems == []


def test_every_napkin_block_has_at_least_three_checked_claims() -> None:
    thin = []
    for path in _own_item_files():
        if "napkin_math" not in (_load(path).get("details") or {}):
            continue
        claims = check_document(path.read_text(encoding="utf-8"), source=str(path)).to_dict()
        napkin = [c for c in claims["claims"] if c["field"] == "details.napkin_math"]
        if sum(c["verdict"] == "ok" for c in napkin) < 3:
            thin.append(path.name)
    assert thin == []


def test_items_name_topics_of_this_half(items: list[dict[str, Any]], part: dict[str, Any]) -> None:
    topics = {topic["id"] for topic in part["topics"]}
    assert sorted({item["id"] for item in items if item.get("topic") not in topics}) == []


def test_every_topic_of_this_half_has_items(
    items: list[dict[str, Any]], part: dict[str, Any]
) -> None:
    used = {item["topic"] for item in items}
    assert [topic["id"] for topic in part["topics"] if topic["id"] not in used] == []


def test_this_half_meets_its_level_and_kind_targets(items: list[dict[str, Any]]) -> None:
    levels = Counter(str(item["level"]) for item in items)
    kinds = Counter(_kind(item) for item in items)
    assert len(items) >= 150
    assert [level for level in LEVELS if levels[level] < 12] == []
    assert kinds["napkin-question"] >= 50
    assert kinds["multiple-choice"] >= 25
    assert kinds["numeric"] >= 20
    assert kinds["flashcard"] >= 30
    assert kinds["exercise"] >= 10


def test_exercises_have_parts_with_worked_answers(items: list[dict[str, Any]]) -> None:
    thin = [
        item["id"]
        for item in items
        if _kind(item) == "exercise"
        and (len(item.get("parts") or []) < 2 or not all(p.get("answer") for p in item["parts"]))
    ]
    assert thin == []


def test_chains_climb_from_junior_to_senior_levels(
    items: list[dict[str, Any]], part: dict[str, Any]
) -> None:
    level_of = {item["id"]: str(item["level"]) for item in items}
    chains = part["chains"]
    assert len(chains) >= 12
    for chain in chains:
        first, last = level_of[chain["items"][0]], level_of[chain["items"][-1]]
        assert (first, last) in {(a, b) for a in ("L1", "L2") for b in ("L5", "L6+")}, chain["id"]


def test_topics_are_linked_by_prerequisites(part: dict[str, Any]) -> None:
    ids = {topic["id"] for topic in part["topics"]}
    edges = [(t["id"], p) for t in part["topics"] for p in t["prerequisites"]]
    assert len(edges) >= len(ids) - 3
    assert all(prerequisite in ids for _, prerequisite in edges)
