"""Open a learner's study database: the study service over the SQL store.

The study layer defines the service and the store protocol it needs; storage
implements the protocol. Joining the two (choosing the SQL store, finding the
default database) happens here, so ``study`` never imports ``storage``.
"""

from __future__ import annotations

from sysdrill.storage.location import default_database_url, study_database_url
from sysdrill.study.service import StudyService

__all__ = ["default_database_url", "open_study"]


def open_study(db_url: str | None = None, *, user: str = "local") -> StudyService:
    """Open (and migrate) the study database and return a service for one user.

    Args:
        db_url: SQLAlchemy URL (``sqlite:///path`` or
            ``postgresql+psycopg://user@host/db``); None for :func:`default_database_url`
            (``$SYSDRILL_DATABASE_URL``, else ``study.sqlite3`` in ``$SYSDRILL_DATA_DIR``
            or the platform's user data folder).
        user: Learner name; the single ``local`` user unless told otherwise.

    Returns:
        A service to use as a context manager or to :meth:`StudyService.close`.

    Raises:
        StorageError: If the database cannot be opened or migrated.
    """
    # SQLAlchemy and Alembic load only when a database is opened.
    from sysdrill.storage.sql_store import SqlStudyStore

    store = SqlStudyStore(study_database_url(db_url))
    try:
        return StudyService(store, user=user)
    except BaseException:
        store.close()
        raise
