"""Pause Python's cyclic garbage collector while a vault loads.

Loading a vault of ten thousand items builds a few hundred thousand objects that
all stay alive, and the collector walks everything young each time enough new
objects have piled up: ``bench/vault_load_bench.py`` counts about 500 collections,
4 of them full, in a warm-cache load of that size, which takes about twice as long
as it does paused (docs/benchmarks.md). Reference counting still frees everything acyclic
meanwhile; anything cyclic waits for the next collection after the pause.

The pause nests and is safe across threads (a web server may load a vault in one
thread while another is already loading): the collector runs again when the last
pause ends, and only if it ran before the first began.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused", "kept_until_exit"]

_lock = threading.Lock()
_pauses = 0
_resume = False
"""Whether the collector ran before the first of the current pauses."""


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the ``with`` block with the cyclic garbage collector paused (see the module)."""
    global _pauses, _resume
    with _lock:
        if _pauses == 0:
            _resume = gc.isenabled()
            gc.disable()
        _pauses += 1
    try:
        yield
    finally:
        with _lock:
            _pauses -= 1
            if _pauses == 0 and _resume:
                gc.enable()


@contextmanager
def kept_until_exit() -> Iterator[None]:
    """Load, in the ``with`` block, what a command keeps until its process ends.

    The collector pauses while it loads; then everything alive is frozen
    (:func:`gc.freeze`), so later collections skip it. A catalogue of 100,000
    items is about a million objects, and the imports and work that follow its
    load set off full collections that walked them all: about a tenth of
    ``sysdrill workload``'s CPU at that size (docs/benchmarks.md). For a
    command's own process only, as the web app freezes its loaded vault: a
    process that froze objects before keeps its own arrangement.
    """
    with collector_paused():
        yield
    if gc.get_freeze_count() == 0:
        gc.freeze()
