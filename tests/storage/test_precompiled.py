"""Hot statements run as SQL compiled once, where their values need no converting."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
import sqlalchemy as sa

from sysdrill.storage.precompiled import DRIVER_CACHED_LENGTH, DRIVER_CACHED_VALUES, Precompiled

T0 = datetime(2026, 12, 1, 9, 30, 15, 123456, tzinfo=UTC)

_metadata = sa.MetaData()
_things = sa.Table(
    "precompiled_things",
    _metadata,
    sa.Column("id", sa.Integer(), primary_key=True),
    sa.Column("name", sa.String(50), nullable=False),
    sa.Column("done", sa.Boolean(), nullable=False),
    sa.Column("count", sa.Integer(), nullable=False),
)
_times = sa.Table(
    "precompiled_times",
    _metadata,
    sa.Column("id", sa.Integer(), primary_key=True),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)
_RENAME = _things.update().where(_things.c.id == sa.bindparam("b_id"))
_COUNT_DONE = sa.select(sa.func.count()).where(
    _things.c.done == sa.bindparam("b_done"), sa.func.coalesce(_things.c.count, 5) < 3
)
_STAMP = _times.insert()


@pytest.fixture
def engine(blank_sql_url: str) -> Iterator[sa.Engine]:
    made = sa.create_engine(blank_sql_url)
    _metadata.create_all(made)
    with made.begin() as conn:
        conn.execute(
            _things.insert(),
            [
                {"id": 1, "name": "one", "done": False, "count": 0},
                {"id": 2, "name": "two", "done": True, "count": 0},
            ],
        )
    yield made
    _metadata.drop_all(made)
    made.dispose()


def _sent(engine: sa.Engine) -> list[str]:
    statements: list[str] = []

    def note(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        statements.append(statement)

    sa.event.listen(engine, "before_cursor_execute", note)
    return statements


def test_an_update_sets_the_columns_its_values_name(engine):
    rename = Precompiled(_RENAME)
    with engine.begin() as conn:
        for _ in range(2):  # compiled once, run twice
            assert rename.execute(conn, {"b_id": 1, "name": "uno"}).rowcount == 1
        assert rename.execute(conn, {"b_id": 2, "count": 7, "done": False}).rowcount == 1
    with engine.connect() as conn:
        rows = conn.execute(sa.select(_things).order_by(_things.c.id)).all()
    assert [tuple(row) for row in rows] == [(1, "uno", False, 0), (2, "two", False, 7)]


def test_a_select_with_a_boolean_value_gives_what_execute_gives(engine):
    count_done = Precompiled(_COUNT_DONE)
    with engine.connect() as conn:
        assert count_done.execute(conn, {"b_done": True}).scalar() == 1
        assert conn.execute(_COUNT_DONE, {"b_done": True}).scalar() == 1


def test_postgresql_is_sent_the_compiled_text_and_sqlite_datetimes_are_converted(engine):
    stamp = Precompiled(_STAMP)
    sent = _sent(engine)
    with engine.begin() as conn:
        stamp.execute(conn, {"id": 1, "at": T0})
        stored = conn.execute(sa.select(_times.c.at)).scalar_one()
    assert stored.replace(tzinfo=UTC) == T0
    compiled = _STAMP.compile(dialect=engine.dialect, column_keys=["at", "id"])
    if engine.dialect.name == "postgresql":
        # The compiled text, its values named short (psycopg caches short texts' conversion).
        assert sent[0] == compiled.string.replace("%(id)s", "%(p0)s").replace("%(at)s", "%(p1)s")
    else:
        # SQLite keeps datetimes as the text SQLAlchemy writes: its execute converted it.
        with engine.connect() as conn:
            text = conn.execute(sa.text("SELECT CAST(at AS TEXT) FROM precompiled_times")).scalar()
        assert text == "2026-12-01 09:30:15.123456"


_SAME_TWICE = sa.select(sa.func.count()).where(
    _things.c.id >= sa.bindparam("b_low"),
    _things.c.count >= sa.bindparam("b_floor"),
    _things.c.count % 7 == 0,
)


def test_values_bound_under_two_names_are_sent_once(engine):
    same = Precompiled(_SAME_TWICE, same={"b_low": ("b_floor",)})
    sent = _sent(engine)
    with engine.connect() as conn:
        assert same.execute(conn, {"b_low": 0, "b_floor": 0}).scalar() == 2
        # Copies that differ: the statement as written, each value where it is bound.
        assert same.execute(conn, {"b_low": 2, "b_floor": 0}).scalar() == 1
        assert same.execute(conn, {"b_low": 0, "b_floor": 1}).scalar() == 0
    form = same.driver_form(engine.dialect, {"b_low": 0, "b_floor": 0})
    if engine.dialect.name == "postgresql":
        assert form is not None
        text, values = form
        assert sent[0] == text
        assert text.count("%(p0)s") == 2 and "b_floor" not in text
        assert " %% " in text  # an escaped percent sign (modulo) is left as it is
        assert values["p0"] == 0 and set(values) == {"p0", "p1", "p2"}  # and the 7 and 0
        assert same.driver_form(engine.dialect, {"b_low": 2, "b_floor": 0}) is None
    else:
        assert form is None


def test_a_copy_of_a_name_the_statement_does_not_bind_is_refused():
    with pytest.raises(ValueError, match="b_nothing"):
        Precompiled(_SAME_TWICE, same={"b_low": ("b_nothing",)})


def test_a_review_and_its_save_run_compiled_once_on_postgresql(sql_url):
    from datetime import timedelta

    from sysdrill.storage.sql_store import SqlStudyStore
    from sysdrill.study.card_state import CardRecord, CardState
    from sysdrill.study.review_log import ReviewRecord
    from sysdrill.study.sessions.saved import SavedSession
    from sysdrill.study.user_state import SessionRecord, StudyScope, VaultId

    store = SqlStudyStore(sql_url)
    scope = StudyScope(store.ensure_user("learner", now=T0), VaultId("v"))
    session_id = store.start_session(scope, SessionRecord("practice", T0))
    saved = SavedSession(session_id, "practice", {}, ("q1",), T0, T0)
    store.put_active_session(scope, saved)
    card = CardRecord("q1", CardState.LEARNING, 0, 2.5, 5.0, T0, T0, 1, 0, False)
    review = ReviewRecord("q1", 3, "self", None, 900, T0, CardState.NEW, None, True, {})
    compiled_per_call: list[bool] = []

    def note(_conn: Any, _cursor: Any, statement: str, _params: Any, context: Any, *_: Any) -> None:
        first_settings = "scheduler_settings" in statement  # stored once, not per review
        if (
            statement.lstrip().upper().startswith(("WITH", "UPDATE", "INSERT"))
            and not first_settings
        ):
            compiled_per_call.append(context.compiled is not None)

    sa.event.listen(store.engine, "before_cursor_execute", note)
    try:
        assert store.record_checked_review(scope, card, review, read=None) is not None
        moved = SavedSession(session_id, "practice", {}, ("q1",), T0, T0 + timedelta(1), 1, (), 1)
        store.put_active_session(scope, moved)
    finally:
        store.close()
    # PostgreSQL: SQL compiled once, run as text; SQLite: SQLAlchemy converts its datetimes.
    if sql_url.startswith("sqlite"):
        assert len(compiled_per_call) == 4 and all(compiled_per_call)  # card, review, day, save
    else:
        assert compiled_per_call == [False, False]  # the review's one statement, the save


def test_the_driver_limits_are_psycopgs():
    queries = pytest.importorskip("psycopg._queries")
    if not hasattr(queries, "MAX_CACHED_STATEMENT_LENGTH"):
        # Before the limits (psycopg 3.1), every statement's conversion was kept.
        assert hasattr(queries._query2pg, "cache_info")
        return
    assert queries.MAX_CACHED_STATEMENT_LENGTH == DRIVER_CACHED_LENGTH
    assert queries.MAX_CACHED_STATEMENT_PARAMS == DRIVER_CACHED_VALUES


def test_importing_the_module_leaves_psycopg_unloaded():
    # A SQLite server never needs the driver; loading it costs every full collection.
    code = "import sys, sysdrill.storage.precompiled; print('psycopg' in sys.modules)"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "False"
