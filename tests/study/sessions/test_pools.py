"""Work per item list is done once per list and criteria, and again when the list changed."""

from __future__ import annotations

from sysdrill.study.sessions.pools import MEMO_ENTRIES, memo_for_list


def _counting(result: object) -> tuple[list[int], object]:
    calls: list[int] = []

    def compute() -> object:
        calls.append(1)
        return result

    return calls, compute


def test_the_same_list_and_key_are_computed_once():
    items = ["a", "b", "c"]
    calls, compute = _counting(("a", "b"))
    first = memo_for_list(items, "pool", compute)
    second = memo_for_list(items, "pool", compute)
    assert first is second
    assert calls == [1]


def test_another_key_or_another_list_is_computed_apart():
    items = ["a", "b"]
    calls, compute = _counting("x")
    memo_for_list(items, "pool", compute)
    memo_for_list(items, "order", compute)
    memo_for_list(list(items), "pool", compute)
    assert calls == [1, 1, 1]


def test_a_list_changed_in_place_is_computed_again():
    items = ["a", "b"]
    calls, compute = _counting("x")
    memo_for_list(items, "pool", compute)
    items.append("c")
    memo_for_list(items, "pool", compute)
    items[-1] = "d"
    memo_for_list(items, "pool", compute)
    assert calls == [1, 1, 1]


def test_other_objects_the_result_depends_on_are_pinned():
    items = ["a"]
    decks_before, decks_after = ["deck"], ["deck"]
    calls, compute = _counting("x")
    memo_for_list(items, "pool", compute, pins=(decks_before,))
    memo_for_list(items, "pool", compute, pins=(decks_before,))
    memo_for_list(items, "pool", compute, pins=(decks_after,))
    assert calls == [1, 1]


def test_the_memo_is_bounded_and_drops_the_least_recent():
    lists = [[n] for n in range(MEMO_ENTRIES + 1)]
    calls, compute = _counting("x")
    for each in lists:
        memo_for_list(each, "pool", compute)
    memo_for_list(lists[-1], "pool", compute)
    assert len(calls) == MEMO_ENTRIES + 1
    memo_for_list(lists[0], "pool", compute)
    assert len(calls) == MEMO_ENTRIES + 2
