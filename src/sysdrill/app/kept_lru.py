"""A bounded, locked least-recently-used map: what a worker keeps between requests.

Workers keep a few things by key (a session's machine, a learner's settings) that
the database can always give again; this map bounds how many and is safe under
the threads of one process.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Generic, TypeVar

__all__ = ["KeptLru"]

_K = TypeVar("_K", bound=Hashable)
_V = TypeVar("_V")


class KeptLru(Generic[_K, _V]):
    """At most ``size`` entries; the least recently used goes first."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[_K, _V] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: _K) -> _V | None:
        """The entry under ``key`` (now the most recently used), else None."""
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
            return found

    def pop(self, key: _K) -> _V | None:
        """Take the entry under ``key`` out, else None."""
        with self._lock:
            return self._entries.pop(key, None)

    def put(self, key: _K, value: _V) -> None:
        """Keep ``value`` under ``key``, dropping the least recently used past the bound."""
        with self._lock:
            self._entries[key] = value
            self._entries.move_to_end(key)
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)
