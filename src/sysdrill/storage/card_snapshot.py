"""Figures of a learner's cards kept between calls, confirmed by the database on each use.

The dashboard and the progress page read the same figures of every seen card on
every visit: at 100,000 cards the seen cards cost 100-150 ms a read and the due
days 50 ms (docs/benchmarks.md). So the figures read are kept per database,
learner and vault, with the **stamp** of that scope's cards read just before
them: one aggregate query (their count; the sums of their versions,
stabilities, difficulties, reviews, lapses, states and unseen flags; the latest
due date and last review), about 20 ms at 100,000 cards. A kept figure is
given back only while the stamp read now is the stamp it was read with.

Every write of a card changes the stamp: a review raises the card's version and
its reviews, and moves its due date and stability; an undo or an import of study
state rewrites the cards with other versions, dates and stabilities; a card
added or removed changes the count. Only an import of study state that swapped
the figures of cards between their items, every sum kept, would go unseen. The
stamp is read before the figure, in the same connection, so a write between the
two leaves the figure kept under an older stamp, which the next call does not
match: the figure is read again.

A figure is kept from its second call on: a command of the terminal reads each
one once, and should not pay for a stamp it never uses.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from sysdrill.storage import schema as t
from sysdrill.storage.translate import translate_errors
from sysdrill.study.user_state import StudyScope

__all__ = ["KEPT_SCOPES", "kept_figure"]

KEPT_SCOPES = 8
"""Scopes (database, learner, vault) whose figures are kept; the least recently used goes."""

T = TypeVar("T")

_c = t.cards.c
_Key = tuple[str, int, str]

_lock = threading.Lock()
_kept: OrderedDict[_Key, tuple[tuple[Any, ...], dict[Hashable, Any]]] = OrderedDict()
_asked: OrderedDict[tuple[_Key, Hashable], None] = OrderedDict()
"""Figures asked for once, most recent last (as many as the kept scopes could hold)."""


def _stamp(conn: Connection, of_scope: sa.ColumnElement[bool]) -> tuple[Any, ...]:
    query = sa.select(
        sa.func.count(),
        sa.func.sum(_c.version),
        sa.func.sum(_c.stability_days),
        sa.func.sum(_c.difficulty),
        sa.func.sum(_c.reps),
        sa.func.sum(_c.lapses),
        sa.func.sum(_c.state),
        sa.func.sum(sa.cast(_c.never_seen, sa.Integer())),
        sa.func.max(_c.due),
        sa.func.max(_c.last_review),
    ).where(of_scope)
    return tuple(conn.execute(query).one())


def kept_figure(
    engine: Engine,
    scope: StudyScope,
    of_scope: sa.ColumnElement[bool],
    name: Hashable,
    read: Callable[[Connection], T],
) -> T:
    """The figure ``name`` of the scope's cards: kept if their stamp is unchanged, else read.

    Args:
        engine: The study database.
        scope: The learner and the vault.
        of_scope: The condition selecting the scope's cards (the stamp's rows).
        name: What the figure is, with any argument it depends on.
        read: Reads the figure through the connection given (after the stamp).

    Returns:
        The figure, shared with later calls: callers copy what they change.
    """
    key = (engine.url.render_as_string(hide_password=True), scope.user_id, scope.vault_id)
    with _lock:
        first = (key, name) not in _asked
        _asked[key, name] = None
        _asked.move_to_end((key, name))
        while len(_asked) > KEPT_SCOPES * 8:
            _asked.popitem(last=False)
    with translate_errors("reading cards"), engine.connect() as conn:
        if first:
            return read(conn)
        stamp = _stamp(conn, of_scope)
        with _lock:
            entry = _kept.get(key)
            if entry is not None and entry[0] == stamp and name in entry[1]:
                _kept.move_to_end(key)
                found: T = entry[1][name]
                return found
        value = read(conn)
    with _lock:
        entry = _kept.get(key)
        if entry is None or entry[0] != stamp:
            entry = _kept[key] = (stamp, {})
        entry[1][name] = value
        _kept.move_to_end(key)
        while len(_kept) > KEPT_SCOPES:
            _kept.popitem(last=False)
    return value
