"""A "next in chain" offer within the new-item limits, driven as a user would."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from sysdrill.app.study import open_study
from sysdrill.study.ratings import GradedBy, Rating

VAULT = Path(__file__).resolve().parents[1] / "study" / "sessions" / "vault"
"""The session tests' own vault: chain hbm-basics is c-l1-hbm, c-l2-mc, c-l3-num."""

OFFER = "Next in chain 'HBM from recall to analysis'"


def _reviewed() -> list[str]:
    from sysdrill.app.study_vault import open_study_vault

    with open_study(None, vault=open_study_vault(VAULT)) as study:
        return [review.item_id for review in study.store.iter_reviews(study.scope)]


@pytest.fixture(autouse=True)
def _no_database_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SYSDRILL_DATABASE_URL", raising=False)


def test_practice_offers_no_new_chain_item_when_the_day_allows_no_more(run_cli) -> None:
    assert run_cli("settings", "set", "new_per_day", "1").exit_code == 0

    result = run_cli("practice", "--vault", str(VAULT), "--track", "cloud", input="80 GB\ngood\n")

    assert result.exit_code == 0, result.stderr
    assert "Practice: 1 items (0 due, 1 new; 0 more new today)" in result.stdout
    assert OFFER not in result.stdout
    assert _reviewed() == ["c-l1-hbm"]


def test_practice_new_flag_also_bounds_chain_offers(run_cli) -> None:
    args = ("practice", "--vault", str(VAULT), "--track", "cloud", "--limit", "1", "--new", "2")

    result = run_cli(*args, input="80 GB\ngood\ny\nc\n")

    assert result.exit_code == 0, result.stderr
    # c-l2-mc is the session's second new item; c-l3-num would be a third.
    assert result.stdout.count(OFFER) == 1
    assert f"{OFFER}: Where the bytes go. Take it? (y/n):" in result.stdout
    assert _reviewed() == ["c-l1-hbm", "c-l2-mc"]


def test_practice_new_zero_still_offers_a_chain_item_seen_before(run_cli) -> None:
    from sysdrill.app.study_vault import open_study_vault

    assert run_cli("db", "upgrade").exit_code == 0
    now = datetime.now(UTC)
    with open_study(None, vault=open_study_vault(VAULT)) as study:
        # c-l1-hbm is due again; c-l2-mc, rated Easy yesterday, is seen but not due.
        for item_id, rating, days in (("c-l1-hbm", Rating.GOOD, 3), ("c-l2-mc", Rating.EASY, 1)):
            study.record_review(
                item_id, rating=rating, graded_by=GradedBy.SELF, now=now - timedelta(days=days)
            )
    args = ("practice", "--vault", str(VAULT), "--track", "cloud", "--limit", "1", "--new", "0")

    result = run_cli(*args, input="80 GB\ngood\nn\n")

    assert result.exit_code == 0, result.stderr
    assert "Practice: 1 items (1 due, 0 new" in result.stdout
    assert f"{OFFER}: Where the bytes go. Take it? (y/n):" in result.stdout
