"""What a worker keeps between requests is bounded, the least recently used going first."""

from __future__ import annotations

from sysdrill.app.kept_lru import KeptLru


def test_the_least_recently_used_entry_goes_first_past_the_bound() -> None:
    kept: KeptLru[str, int] = KeptLru(2)
    kept.put("a", 1)
    kept.put("b", 2)
    assert kept.get("a") == 1  # "a" is now the more recent
    kept.put("c", 3)
    assert kept.get("b") is None
    assert (kept.get("a"), kept.get("c")) == (1, 3)


def test_a_popped_entry_is_gone() -> None:
    kept: KeptLru[str, int] = KeptLru(4)
    kept.put("a", 1)
    assert kept.pop("a") == 1
    assert kept.pop("a") is None
    assert kept.get("a") is None
