"""Engines for the study database and its migrations.

SQLite files get WAL mode, ``synchronous=NORMAL``, foreign keys, a busy
timeout, and real transactions (SQLAlchemy emits ``BEGIN``, ``BEGIN IMMEDIATE``
for writes); PostgreSQL connections are checked before use. Migrations are
Alembic scripts shipped in ``storage/migrations``; they run only when asked
(``sysdrill db upgrade``, :func:`upgrade_database`, :func:`migrate`) or, for an
embedded SQLite file, on first use (:func:`prepare_sqlite_database`: a new file
is created, an older one copied to ``<file>.before-<revision>.bak`` and
migrated). Opening a store checks the schema revision instead, once per engine,
and names the fix when it is behind.

A process keeps one engine per database URL (:func:`acquire_engine`), shared
by every store opened on it, so a web server's requests share one pool; the
last store to close disposes of it.
"""

from __future__ import annotations

import functools
import logging
import re
import sqlite3
import threading
import time
from contextlib import closing
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from sysdrill.errors import MigrationError, StorageUnavailable
from sysdrill.storage.location import default_database_url
from sysdrill.storage.translate import translate_errors

__all__ = [
    "HEAD_REVISION",
    "MIGRATIONS_DIR",
    "PING_AFTER_IDLE_S",
    "POOL_SIZE",
    "REVISIONS",
    "WRITE_OPTION",
    "acquire_engine",
    "backup_path",
    "check_schema",
    "create_study_engine",
    "migrate",
    "prepare_sqlite_database",
    "release_engine",
    "safe_url",
    "schema_revision",
    "sqlite_file",
    "upgrade_database",
]

_log = logging.getLogger(__name__)

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
    "0014_interviews",
    "0015_card_flags",
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

    A SQLite file is looked at first (:func:`prepare_sqlite_database` says how):
    a folder, a file that is not a SQLite database or a SQLite database that is
    not sysdrill's is refused and left as it was; an older study database is
    copied next to itself before it is migrated.

    Returns:
        The revision before and after (``None`` before for a new database).

    Raises:
        MigrationError: If a migration fails (the failed step is rolled back).
        StorageUnavailable: If the database cannot be reached, or ``url`` names
            something that is not a SQLite study database.
    """
    path = sqlite_file(url)
    if path is not None:
        before, after, _ = _upgrade_sqlite_file(url, path, newer_ok=False)
        return before, after
    engine = acquire_engine(url)
    try:
        before = schema_revision(engine)
        if before != HEAD_REVISION:
            migrate(engine)
        return before, HEAD_REVISION
    finally:
        release_engine(url, engine)


_SQLITE_HEADER = b"SQLite format 3\x00"
"""The first 16 bytes of every SQLite database file."""


def sqlite_file(url: str) -> Path | None:
    """The file a SQLite URL names; None for other databases, in-memory and ``file:`` URIs."""
    scheme, _, rest = url.partition("://")
    if scheme.split("+")[0] != "sqlite":
        return None
    try:
        database = sa.make_url(url).database
    except (sa.exc.ArgumentError, ValueError):
        return None
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database).expanduser()


def backup_path(path: Path) -> Path:
    """Where :func:`prepare_sqlite_database` copies ``path`` before migrating it.

    ``<file>.before-<revision>.bak`` for the revision the migration brings it to
    (``study.sqlite3.before-0013_session_moves.bak``); an earlier copy of that
    name is never overwritten (the next is ``.before-<revision>.2.bak``).
    """
    found = path.with_name(f"{path.name}.before-{HEAD_REVISION}.bak")
    number = 2
    while found.exists():
        found = path.with_name(f"{path.name}.before-{HEAD_REVISION}.{number}.bak")
        number += 1
    return found


def prepare_sqlite_database(url: str) -> Path | None:
    """Bring an embedded SQLite study database to this version's schema on first use.

    What every CLI command does before it opens the study database, for any
    SQLite URL (the default file, ``--db`` or ``$SYSDRILL_DATABASE_URL``):

    - a file that does not exist yet (or is empty) is created and migrated;
    - an older study database is copied to ``<file>.before-<revision>.bak``
      (:func:`backup_path`) with SQLite's backup API, then migrated, and one
      warning names the copy (logged; with no logging set up, as in the CLI,
      Python's last-resort handler prints it as one line on stderr, the way
      :mod:`sysdrill.study.settings` warns of an ignored setting);
    - a current one is left alone (one read of its revision);
    - one written by a newer sysdrill is left alone: opening it names the problem.

    Any other database (PostgreSQL) is left alone: its schema changes only with
    ``sysdrill db upgrade``, and opening it names that command when it is behind.

    Returns:
        The backup copy made, or None.

    Raises:
        StorageUnavailable: If the path is a folder, a file that is not a SQLite
            database, or a SQLite database that is not a sysdrill study database
            (each left as it was), or it cannot be read, copied or written.
        MigrationError: If a migration fails (the file is left as it was; a new
            file is removed).
    """
    path = sqlite_file(url)
    if path is None:
        return None
    _, _, backup = _upgrade_sqlite_file(url, path, newer_ok=True)
    return backup


def _upgrade_sqlite_file(
    url: str, path: Path, *, newer_ok: bool
) -> tuple[str | None, str, Path | None]:
    """Create, or back up and migrate, the SQLite study database ``path``.

    Returns:
        The revision before (None for a new file), the revision after (that
        before when it is newer than this sysdrill and ``newer_ok``), the backup.
    """
    existed = _refuse_what_is_not_a_study_database(path)
    engine = acquire_engine(url)
    try:
        before, after, backup = _migrate_sqlite(engine, path, newer_ok=newer_ok)
    except BaseException:
        release_engine(url, engine)
        if not existed:
            _remove_database_files(path)
        raise
    release_engine(url, engine)
    if backup is not None:
        _log.warning(
            "Migrated %s from schema %s to %s; a copy of it as it was is kept in %s",
            path,
            before,
            after,
            backup,
        )
    return before, after, backup


def _migrate_sqlite(
    engine: Engine, path: Path, *, newer_ok: bool
) -> tuple[str | None, str, Path | None]:
    before = schema_revision(engine)
    if before is not None and (before == HEAD_REVISION or (newer_ok and before not in REVISIONS)):
        return before, before, None
    # A newer schema is not copied: the migration refuses it and changes nothing.
    backup = _backup(path) if before in REVISIONS else None
    migrate(engine)
    return before, HEAD_REVISION, backup


def _refuse_what_is_not_a_study_database(path: Path) -> bool:
    """Whether ``path`` exists; refuse what cannot be or become a study database.

    Looked at without changing anything: the header read from the file, the
    tables read by a read-only connection.

    Raises:
        StorageUnavailable: If ``path`` is a folder, a file that is not a SQLite
            database, or a SQLite database with tables but no schema revision
            (not sysdrill's study data: a compiled vault from ``sysdrill build``
            is the likely one, and migrating it would mix the study tables in).
    """
    fix = f"give a file such as sqlite:///{path.absolute() / 'study.sqlite3'}"
    if path.is_dir():
        raise StorageUnavailable(
            f"{path} is a folder, not a study database file; {fix} (created on first use)."
        )
    try:
        with path.open("rb") as opened:
            header = opened.read(len(_SQLITE_HEADER))
    except FileNotFoundError:
        return False
    except OSError as exc:
        raise StorageUnavailable(
            f"Cannot read {path} ({exc.strerror}); check its permissions, or give another "
            "file with --db."
        ) from exc
    if not header:
        return True
    if header != _SQLITE_HEADER:
        raise StorageUnavailable(
            f"{path} is not a SQLite database, so it cannot hold the study database; give "
            "another file with --db (a new one is created), or move that one away."
        )
    tables = _table_names(path)
    if tables and "alembic_version" not in tables:
        raise StorageUnavailable(
            f"{path} is a SQLite database but not a sysdrill study database (it holds "
            f"{len(tables)} other table(s)); give another file with --db, such as "
            "sqlite:///study.sqlite3."
        )
    return True


def _table_names(path: Path) -> set[str]:
    """The tables of the SQLite database ``path``, read without writing to it."""
    try:
        read_only = sqlite3.connect(f"{path.absolute().as_uri()}?mode=ro", uri=True)
        with closing(read_only) as conn:
            rows = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    except sqlite3.Error as exc:
        raise StorageUnavailable(
            f"Cannot read {path} as a SQLite database ({exc}); give another file with "
            "--db, or move that one away."
        ) from exc
    return {str(row[0]) for row in rows}


def _backup(path: Path) -> Path:
    """Copy the SQLite database ``path`` to :func:`backup_path` (whole, or not at all).

    Raises:
        StorageUnavailable: If the copy cannot be made (nothing is left of it).
    """
    target = backup_path(path)
    partial = target.with_name(target.name + ".partial")
    try:
        # SQLite's backup API copies a consistent snapshot, the WAL's pages included.
        with closing(sqlite3.connect(path)) as source, closing(sqlite3.connect(partial)) as copy:
            source.backup(copy)
        partial.replace(target)
    except (sqlite3.Error, OSError) as exc:
        partial.unlink(missing_ok=True)
        raise StorageUnavailable(
            f"Cannot copy {path} to {target.name} before migrating it ({exc}); nothing was "
            "changed. Free some disk space or make its folder writable, then try again."
        ) from exc
    return target


def _remove_database_files(path: Path) -> None:
    """Remove a database file created here and SQLite's files beside it."""
    for leftover in (path, *(path.with_name(path.name + end) for end in _SIDE_FILES)):
        leftover.unlink(missing_ok=True)


_SIDE_FILES = ("-wal", "-shm", "-journal")
"""The files SQLite keeps beside a database."""


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
                _sqlite_folder(Path(database).expanduser(), default=url == default_database_url())
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


def _sqlite_folder(database: Path, *, default: bool) -> None:
    """Make sure the folder of a SQLite file exists.

    The default database's folder (the data folder, or the one ``SYSDRILL_DATABASE_URL``
    names: configured on purpose) is created on first use; the folder of a file given
    with ``--db`` must exist already, since a mistyped path would otherwise start an
    empty study history silently.

    Raises:
        StorageUnavailable: If the folder is missing (and not the default's) or cannot
            be created.
    """
    folder = database.parent
    if folder.is_dir():
        return
    if not default:
        raise StorageUnavailable(
            f"Cannot open {database}: the folder {folder} does not exist. "
            "Check the path given with --db, or create the folder first."
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StorageUnavailable(
            f"Cannot create the folder for {database}: {exc.strerror}. "
            "Choose another place with --db or SYSDRILL_DATA_DIR."
        ) from exc


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
