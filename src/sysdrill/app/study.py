"""Open a learner's study database: the study service over the SQL store.

The study layer defines the service and the store protocol it needs; storage
implements the protocol. Joining the two (choosing the SQL store, finding the
default database) happens here, so ``study`` never imports ``storage``.

Opening never migrates: the schema must be at this version's revision, which
``sysdrill db upgrade`` (:func:`upgrade_study_database`) brings it to. The CLI
creates or upgrades an embedded SQLite file on first use, whichever URL names it
(:func:`ready_cli_database`: an older file is copied to
``<file>.before-<revision>.bak`` first), so a new user's first command just works;
PostgreSQL is upgraded only by ``sysdrill db upgrade``.

Study state belongs to a vault: a service is opened for one vault, and opening
it for a loaded vault hands it any state that is its own but kept under another
name (:func:`adopt_earlier_state`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sysdrill.content.vault_identity import STARTER_VAULT_ID, VaultIdentity
from sysdrill.storage.location import default_database_url, study_database_url
from sysdrill.study.service import StudyService
from sysdrill.study.user_state import LEGACY_VAULT_ID, StudyScope, UserId, VaultId

if TYPE_CHECKING:
    from sysdrill.app.study_vault import StudyVault
    from sysdrill.app.worker_memory import WorkerMemory

__all__ = [
    "UpgradeResult",
    "adopt_earlier_state",
    "default_database_url",
    "open_cli_study",
    "open_study",
    "ready_cli_database",
    "upgrade_study_database",
]


@dataclass(frozen=True, slots=True)
class UpgradeResult:
    """What ``db upgrade`` did."""

    url: str
    """The database, its password masked."""
    before: str | None
    """The schema revision found (None for a new database)."""
    after: str
    """The schema revision now (the latest)."""

    @property
    def changed(self) -> bool:
        """Whether any migration ran."""
        return self.before != self.after

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready mapping."""
        return {"url": self.url, "before": self.before, "after": self.after}


def upgrade_study_database(db_url: str | None = None) -> UpgradeResult:
    """Apply pending schema migrations to the study database.

    A SQLite file is copied to ``<file>.before-<revision>.bak`` before an older
    schema is migrated (see :func:`ready_cli_database`).

    Args:
        db_url: SQLAlchemy URL; None for :func:`default_database_url`.

    Raises:
        MigrationError: If a migration fails (that step is rolled back).
        StorageUnavailable: If the database cannot be reached, or the SQLite URL
            names a folder or a file that is not a study database.
    """
    from sysdrill.storage.engine import safe_url, upgrade_database

    url = study_database_url(db_url)
    before, after = upgrade_database(url)
    return UpgradeResult(url=safe_url(url), before=before, after=after)


def adopt_earlier_state(study: StudyService, vault: StudyVault) -> None:
    """Give ``vault`` the study state that is its own but kept under another identity.

    Two cases, each only while the vault has no cards or reviews of its own
    (histories are never merged):

    - a vault that now declares an id takes the state kept under its folder's
      identity (it was studied before it had a ``vault.yaml``);
    - the legacy state (kept before state was keyed by vault, schema 0003) goes to
      the first vault opened that holds one of its studied items.
    """
    identity = vault.identity
    if identity.declared and identity.path_id != identity.vault_id:
        study.adopt_state(VaultId(identity.path_id))
    legacy = study.store.studied_item_ids(StudyScope(study.user_id, LEGACY_VAULT_ID))
    if legacy and not legacy.isdisjoint(vault.by_id):
        study.adopt_state(LEGACY_VAULT_ID)


def open_study(
    db_url: str | None = None,
    *,
    vault: StudyVault | VaultIdentity | None,
    user: str = "local",
    user_id: int | None = None,
    settings_version: int | None = None,
    memory: WorkerMemory | None = None,
    upgrade: bool = False,
) -> StudyService:
    """Open the study database and return a service for one user and one vault.

    Args:
        db_url: SQLAlchemy URL (``sqlite:///path`` or
            ``postgresql+psycopg://user@host/db``); None for :func:`default_database_url`
            (``$SYSDRILL_DATABASE_URL``, else ``study.sqlite3`` in ``$SYSDRILL_DATA_DIR``
            or the platform's user data folder).
        vault: The vault studied (its state is read and written, and earlier state
            adopted, see :func:`adopt_earlier_state`); its identity alone when its
            items are not loaded yet (the caller adopts it once they are); None for a
            use of the learner's own settings only, which opens under the starter
            vault's name.
        user: Learner name; the single ``local`` user unless told otherwise.
        user_id: The learner's database id, when known (a logged-in account's):
            saves looking it up.
        settings_version: The learner's settings version, read with their login:
            settings ``memory`` kept at that version are used without a read.
        memory: What the web worker keeps between requests (None: nothing kept).
        upgrade: Apply pending migrations first (as ``sysdrill db upgrade`` does,
            a SQLite file copied first when its schema is older).

    Returns:
        A service to use as a context manager or to :meth:`StudyService.close`.

    Raises:
        MigrationError: If the schema is behind (run ``sysdrill db upgrade``) or
            newer than this sysdrill.
        StorageError: If the database cannot be opened.
    """
    # SQLAlchemy and Alembic load only when a database is opened.
    from sysdrill.storage.sql_store import SqlStudyStore

    url = study_database_url(db_url)
    if upgrade:
        from sysdrill.storage.engine import upgrade_database

        upgrade_database(url)
    store = SqlStudyStore(url)
    if vault is None:
        vault_id = VaultId(STARTER_VAULT_ID)
    elif isinstance(vault, VaultIdentity):
        vault_id = VaultId(vault.vault_id)
    else:
        vault_id = vault.vault_id
    try:
        known = None if user_id is None else UserId(user_id)
        study = StudyService(store, user=user, user_id=known, vault_id=vault_id)
        if memory is not None and known is not None and settings_version is not None:
            kept = memory.settings(store.engine, known, settings_version)
            if kept is None:
                memory.keep_settings(store.engine, known, settings_version, study.settings)
            else:
                study = StudyService(
                    store, user=user, user_id=known, vault_id=vault_id, settings=kept
                )
        if vault is not None and not isinstance(vault, VaultIdentity):
            adopt_earlier_state(study, vault)
        return study
    except BaseException:
        store.close()
        raise


def ready_cli_database(db_url: str | None = None) -> str:
    """The study database URL a CLI command opens, an embedded SQLite file made ready first.

    Any SQLite URL (the default file, ``--db`` or ``$SYSDRILL_DATABASE_URL``) is
    created and migrated on first use, and an older file is copied to
    ``<file>.before-<revision>.bak`` before it is migrated (one warning, which the
    CLI shows as one line on stderr, names the copy); see
    :func:`sysdrill.storage.engine.prepare_sqlite_database`. PostgreSQL is left
    alone: opening it names ``sysdrill db upgrade`` when its schema is behind.

    Args:
        db_url: SQLAlchemy URL; None for :func:`default_database_url`.

    Returns:
        The URL to open (``db_url`` or the default).

    Raises:
        StorageUnavailable: If the SQLite URL names a folder, a file that is not a
            SQLite database or one that is not a study database (nothing is
            created or changed), or the file cannot be read, copied or written.
        MigrationError: If a migration fails (the file is left as it was).
    """
    from sysdrill.storage.engine import prepare_sqlite_database

    url = study_database_url(db_url)
    prepare_sqlite_database(url)
    return url


def open_cli_study(
    db_url: str | None = None, *, vault: StudyVault | VaultIdentity | None
) -> StudyService:
    """Open the study database for a CLI command, for ``vault`` (see :func:`open_study`).

    An embedded SQLite database is created or upgraded first, whichever URL names
    it (:func:`ready_cli_database`); PostgreSQL must be upgraded with ``sysdrill
    db upgrade``.

    Raises:
        MigrationError: If PostgreSQL's schema is behind, a schema is newer than
            this sysdrill, or a migration fails.
        StorageError: If the database cannot be opened.
    """
    return open_study(ready_cli_database(db_url), vault=vault)
