"""What a session draws from, worked out once per item list rather than once per session.

A web server starts many sessions a second over one loaded vault of ten
thousand items; filtering, ordering and indexing those items afresh for each
start cost most of the start. The results depend only on the list of items (a
loaded vault's list never changes: a reload makes a new list) and the criteria,
so they are kept in a small process-wide memo keyed by the list's identity.
Each entry holds the list itself (and any other object it depends on), so an
identity cannot be reused by another object while the entry lives; a list
changed in place (its length or ends differ) is computed again. Safe under
threads: two threads may compute the same entry once each, with equal results.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any, TypeVar

__all__ = ["MEMO_ENTRIES", "memo_for_list"]

MEMO_ENTRIES = 256
"""Entries kept (vaults times the filters learners use); the least recently used goes first."""

_T = TypeVar("_T")
_Entry = tuple[Sequence[Any], tuple[object, ...], tuple[int, object, object], Any]
_memo: OrderedDict[tuple[int, Hashable], _Entry] = OrderedDict()
_lock = threading.Lock()


def _shape(items: Sequence[Any]) -> tuple[int, object, object]:
    return (len(items), items[0] if items else None, items[-1] if items else None)


def memo_for_list(
    items: Sequence[Any],
    key: Hashable,
    compute: Callable[[], _T],
    *,
    pins: tuple[object, ...] = (),
) -> _T:
    """``compute()`` for ``items`` and ``key``, computed once while the entry is kept.

    Args:
        items: The list the result is worked out from.
        key: What else the result depends on (criteria; hashable).
        compute: Works the result out.
        pins: Other objects the result depends on by identity (the decks).

    The result is shared: callers must not change it (return tuples, or treat
    lists and dicts as read-only).
    """
    slot = (id(items), key)
    shape = _shape(items)
    with _lock:
        found = _memo.get(slot)
        if (
            found is not None
            and found[0] is items
            and len(found[1]) == len(pins)
            and all(a is b for a, b in zip(found[1], pins, strict=True))
            and found[2][0] == shape[0]
            and found[2][1] is shape[1]
            and found[2][2] is shape[2]
        ):
            _memo.move_to_end(slot)
            kept: _T = found[3]
            return kept
    value = compute()
    with _lock:
        _memo[slot] = (items, pins, shape, value)
        _memo.move_to_end(slot)
        while len(_memo) > MEMO_ENTRIES:
            _memo.popitem(last=False)
    return value
