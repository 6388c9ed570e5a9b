"""Engines for the study database and its migrations.

SQLite files get WAL mode, ``synchronous=NORMAL``, foreign keys, a busy
timeout, and real transactions (SQLAlchemy emits ``BEGIN``, ``BEGIN IMMEDIATE``
for writes); PostgreSQL connections are checked before use. Migrations are
Alembic scripts shipped in ``storage/migrations``; they run only when asked
(``sysdrill db upgrade``, :func:`migrate`). Opening a store checks the schema
revision instead, once per engine, and names the fix when it is behind.

A process keeps one engine per database URL (:func:`acquire_engine`), shared
by every store opened on it, so a web server's requests share one pool; the
last store to close disposes of it.
"""

from __future__ import annotations

import functools
import re
import threading
import time
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from sysdrill.errors import MigrationError, StorageUnavailable
from sysdrill.storage.translate import translate_errors

__all__ = [
    "HEAD_REVISION",
    "MIGRATIONS_DIR",
    "PING_AFTER_IDLE_S",
    "POOL_SIZE",
    "REVISIONS",
    "WRITE_OPTION",
    "acquire_engine",
    "check_schema",
    "create_study_engine",
    "migrate",
    "release_engine",
    "safe_url",
    "schema_revision",
    "upgrade_database",
]

MIGRATIONS_DIR = Path(__file__).parent / "migrations"
"""The Alembic script folder shipped in the package."""

WRITE_OPTION = "sysdrill_write"
"""Connection execution option marking a write transaction (SQLite: BEGIN IMMEDIATE)."""
_MIGRATION_LOCK = threading.Lock()

REVISIONS = (
    "0001_initial",
    "0002_review_days",
    "0003_active_sessions",
    "0004_accounts",
    "0005_server_secrets",
    "0006_vault_keyed_state",
    "0007_personal_decks",
    "0008_settings_version",
    "0009_active_session_updates",
    "0010_login_throttle",
    "0011_problem_reports",
    "0012_card_version",
    "0013_session_moves",
)
"""Every migration, oldest first (a test checks this against the scripts)."""
HEAD_REVISION = REVISIONS[-1]
"""The schema revision this version of sysdrill reads and writes."""

_ENGINES_LOCK = threading.Lock()
# url -> (engine, stores holding it); in-memory SQLite is never shared (each
# such engine is its own database).
_ENGINES: dict[str, tuple[Engine, int]] = {}
# Engines whose schema was found at HEAD_REVISION: checked once, not per open.
_CURRENT: set[int] = set()


def _in_memory(url: str) -> bool:
    scheme, _, rest = url.partition("://")
    return scheme.split("+")[0] == "sqlite" and rest.split("?")[0] in ("", "/", "/:memory:")


def acquire_engine(url: str) -> Engine:
    """Return the process's engine for ``url``, creating it on first use.

    Every call must be paired with :func:`release_engine`. In-memory SQLite
    URLs get a new engine each time (each is its own database).

    Raises:
        StorageUnavailable: If the URL is malformed or names an unknown driver.
    """
    if _in_memory(url):
        return create_study_engine(url)
    with _ENGINES_LOCK:
        held = _ENGINES.get(url)
        if held is None:
            held = (create_study_engine(url), 0)
        _ENGINES[url] = (held[0], held[1] + 1)
        return held[0]


def release_engine(url: str, engine: Engine) -> None:
    """Give back an engine from :func:`acquire_engine`; the last holder disposes of it."""
    with _ENGINES_LOCK:
        held = _ENGINES.get(url)
        if held is None or held[0] is not engine:
            _CURRENT.discard(id(engine))
            engine.dispose()
            return
        if held[1] > 1:
            _ENGINES[url] = (engine, held[1] - 1)
            return
        del _ENGINES[url]
        _CURRENT.discard(id(engine))
    engine.dispose()


def schema_revision(engine: Engine) -> str | None:
    """Return the database's schema revision, or None for a database never migrated.

    Raises:
        StorageUnavailable: If the database cannot be reached.
    """
    with translate_errors("reading the schema revision"), engine.connect() as conn:
        if not sa.inspect(conn).has_table("alembic_version"):
            return None
        found = conn.execute(sa.text("SELECT version_num FROM alembic_version")).scalar()
    return None if found is None else str(found)


def check_schema(engine: Engine, url: str) -> None:
    """Refuse a database whose schema is not the one this sysdrill reads.

    Checked once per engine; a database found current stays trusted.

    Raises:
        MigrationError: If the schema is behind (run ``sysdrill db upgrade``) or
            from a newer sysdrill.
    """
    if id(engine) in _CURRENT:
        return
    found = schema_revision(engine)
    if found == HEAD_REVISION:
        _CURRENT.add(id(engine))
        return
    if found is not None and found not in REVISIONS:
        raise MigrationError(
            f"Cannot open the study database {safe_url(url)}: its schema {found!r} is newer "
            "than this sysdrill. Use a database written by this or an older sysdrill version."
        )
    state = "has no schema yet" if found is None else f"is at schema {found}"
    raise MigrationError(
        f"The study database {safe_url(url)} {state}; run `sysdrill db upgrade` "
        f"(with the same --db) to bring it to {HEAD_REVISION}."
    )


def upgrade_database(url: str) -> tuple[str | None, str]:
    """Apply pending migrations to the database at ``url``.

    Returns:
        The revision before and after (``None`` before for a new database).

    Raises:
        MigrationError: If a migration fails (the failed step is rolled back).
        StorageUnavailable: If the database cannot be reached.
    """
    engine = acquire_engine(url)
    try:
        before = schema_revision(engine)
        migrate(engine)
        return before, HEAD_REVISION
    finally:
        release_engine(url, engine)


@functools.lru_cache(maxsize=64)
def safe_url(url: str) -> str:
    """Return the URL with its password masked, for messages (kept: asked per request)."""
    try:
        return sa.make_url(url).render_as_string(hide_password=True)
    except (sa.exc.ArgumentError, ValueError):
        # An unreadable URL (a port that is not a number) still names its scheme
        # and host for the message, never a password.
        return re.sub(r"://([^:/@]*):[^@/]*@", r"://\1:***@", url)


def create_study_engine(url: str) -> Engine:
    """Create an engine for ``url``, set up for durable, transactional SQLite if it is one.

    Raises:
        StorageUnavailable: If the URL is malformed or names an unknown driver.
    """
    with translate_errors(f"reading the database URL {safe_url(url)}"):
        try:
            parsed = sa.make_url(url)
        except ValueError as exc:
            # SQLAlchemy reads the port with int() and lets the error through.
            raise StorageUnavailable(
                f"Cannot read the database URL {safe_url(url)} ({exc}). "
                "Use sqlite:///PATH or postgresql+psycopg://USER@HOST:PORT/DB with a numeric port."
            ) from exc
        if parsed.port is not None and not 0 < parsed.port < 65536:
            raise StorageUnavailable(
                f"Cannot use the database URL {safe_url(url)}: port {parsed.port} is out of "
                "range. Give a port from 1 to 65535 (PostgreSQL's is 5432), or leave it out."
            )
        if parsed.get_backend_name() == "sqlite":
            database = parsed.database
            if database and database != ":memory:" and not database.startswith("file:"):
                try:
                    Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
                except OSError as exc:
                    raise StorageUnavailable(
                        f"Cannot create the folder for {database}: {exc.strerror}. "
                        "Choose another place with --db or SYSDRILL_DATA_DIR."
                    ) from exc
            if not database or database == ":memory:":
                # One shared connection, usable from any thread (a web app's
                # worker threads must all see the same in-memory database).
                engine = sa.create_engine(
                    parsed,
                    poolclass=sa.pool.StaticPool,
                    connect_args={"check_same_thread": False},
                )
            else:
                engine = sa.create_engine(parsed)
            _make_sqlite_transactional(engine)
        elif parsed.get_backend_name() == "postgresql":
            if parsed.get_driver_name() == "psycopg" and find_spec("psycopg") is None:
                raise StorageUnavailable(
                    "PostgreSQL needs its driver, which is an optional extra: "
                    "pip install 'sysdrill[postgres]'."
                )
            engine = sa.create_engine(parsed, pool_size=POOL_SIZE, max_overflow=POOL_SIZE // 2)
            _ping_after_idle(engine)
        else:
            raise StorageUnavailable(
                f"Unsupported database {parsed.get_backend_name()!r} in {safe_url(url)}. "
                "Use sqlite:///PATH or postgresql+psycopg://USER@HOST/DB."
            )
    return engine


POOL_SIZE = 16
"""Connections a process keeps open to a database server at most (half as many more at a
peak); opened as needed, so a web worker with N threads opens about N + 1."""
PING_AFTER_IDLE_S = 10.0
"""A pooled server connection idle this long is tested before it is used again."""


def _ping_after_idle(engine: Engine) -> None:
    # A connection that sat in the pool may have been dropped (the database
    # restarted, a firewall timed it out): test it before use, and let the pool
    # open a new one if it is dead. A busy server's connections are never idle
    # that long, and testing at every checkout cost a round trip per query.
    @sa.event.listens_for(engine, "checkin")
    def _idle_from(_dbapi_connection: Any, record: Any) -> None:
        record.info["idle_since"] = time.monotonic()

    @sa.event.listens_for(engine, "checkout")
    def _test_if_idle(dbapi_connection: Any, record: Any, _proxy: Any) -> None:
        since = record.info.get("idle_since")
        if since is None or time.monotonic() - since < PING_AFTER_IDLE_S:
            return
        # SQLAlchemy 2.0.0 answers False for a dead connection; later releases raise.
        try:
            alive = engine.dialect.do_ping(dbapi_connection)
        except engine.dialect.loaded_dbapi.Error as exc:
            raise sa.exc.DisconnectionError(str(exc)) from exc
        if not alive:
            raise sa.exc.DisconnectionError("the pooled connection was closed by the server")


def _make_sqlite_transactional(engine: Engine) -> None:
    # pysqlite's own transaction handling does not begin a transaction before
    # DDL; hand BEGIN to SQLAlchemy so migrations and writes are atomic.
    @sa.event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA busy_timeout=5000")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @sa.event.listens_for(engine, "begin")
    def _on_begin(connection: Connection) -> None:
        # Writers take the write lock up front: a deferred transaction that reads
        # first fails at once with "database is locked" instead of waiting.
        writing = connection.get_execution_options().get(WRITE_OPTION, False)
        connection.exec_driver_sql("BEGIN IMMEDIATE" if writing else "BEGIN")


def migrate(engine: Engine, *, target: str = "head", scripts: Path | None = None) -> None:
    """Apply pending migrations up to ``target``, each in its own transaction.

    Args:
        engine: The study database.
        target: Revision to reach (``head`` for the latest).
        scripts: Alembic script folder; the one shipped in the package when None.

    Raises:
        MigrationError: If a migration fails (the failed step is rolled back).
        StorageUnavailable: If the database cannot be reached.
    """
    from alembic import command
    from alembic.config import Config
    from alembic.util import CommandError

    config = Config()
    config.set_main_option("script_location", str(scripts or MIGRATIONS_DIR))
    # Alembic keeps its running context in module globals: one migration at a
    # time per process (a web server may open stores from several threads).
    with _MIGRATION_LOCK:
        with translate_errors("connecting to the database"):
            connection = engine.connect()
        try:
            with translate_errors("migrating the database schema", migration=True):
                config.attributes["connection"] = connection
                try:
                    command.upgrade(config, target)
                except CommandError as exc:
                    raise MigrationError(
                        f"Cannot migrate the study database: {exc}. Use a database written "
                        "by this or an older sysdrill version."
                    ) from exc
                connection.commit()
        finally:
            connection.close()
        _CURRENT.discard(id(engine))
