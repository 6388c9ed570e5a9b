"""Shared napkin-test inputs: the labelled corpus's lines and synthetic vault texts."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from sysdrill.napkin import claims
from sysdrill.napkin.claims import check_claims
from sysdrill.napkin.filecheck import item_fields

ROOT = Path(__file__).resolve().parents[2]
CORPUS_DIR = Path(__file__).resolve().parent / "corpus"


@pytest.fixture(scope="session")
def corpus_lines() -> list[str]:
    """Every line of the labelled corpora (claims.tsv, then heldout.tsv), labels dropped."""
    lines = []
    for name in ("claims.tsv", "heldout.tsv"):
        for raw in (CORPUS_DIR / name).read_text("utf-8").splitlines():
            if raw and not raw.startswith("#"):
                lines.append(raw.split("\t", 1)[1])
    return lines


@pytest.fixture(scope="session")
def vault_texts() -> Callable[[int, int], list[str]]:
    """Texts of ``count`` synthetic vault items (bench/synthetic_vault.py) from a seed."""

    def make(count: int, seed: int) -> list[str]:
        sys.path.insert(0, str(ROOT / "bench"))
        try:
            from synthetic_vault import TRACK_WEIGHTS, generate_item
        finally:
            sys.path.remove(str(ROOT / "bench"))
        rng = random.Random(seed)
        tracks = [name for name, _ in TRACK_WEIGHTS]
        weights = [weight for _, weight in TRACK_WEIGHTS]
        texts = []
        for number in range(count):
            track = rng.choices(tracks, weights)[0]
            item: dict[str, Any] = generate_item(rng, track, f"{track}-{number}")
            texts.extend(text for _, text in item_fields(item))
        return texts

    return make


class NothingKept(dict):  # type: ignore[type-arg]
    """A stand-in for a per-process table of the checker that keeps nothing."""

    def __setitem__(self, key: object, value: object) -> None:
        pass


StoredAndFresh = Callable[[list[str], str], tuple[list[str], list[str]]]


@pytest.fixture
def stored_and_fresh(monkeypatch: pytest.MonkeyPatch) -> StoredAndFresh:
    """Every verdict on some texts with one table of the checker kept, then with none.

    The table is ``"_PLANS"`` (plans by shape) or ``"_LINES"`` (line results); the
    other table keeps nothing throughout, so the comparison tests the one table.
    """

    def run(texts: list[str], table: str) -> tuple[list[str], list[str]]:
        for name in ("_PLANS", "_LINES"):
            monkeypatch.setattr(claims, name, {} if name == table else NothingKept())
        stored = [repr(verdict) for text in texts for verdict in check_claims(text)]
        assert getattr(claims, table), "nothing was stored: the test would not test reuse"
        monkeypatch.setattr(claims, table, NothingKept())
        fresh = [repr(verdict) for text in texts for verdict in check_claims(text)]
        return stored, fresh

    return run
