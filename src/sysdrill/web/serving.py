"""What a server process is told: its settings as environment variables, and the app factory.

``sysdrill serve --workers N`` runs N uvicorn worker processes. Uvicorn starts
each worker from an import string, so the parent cannot hand them an app
object: it writes the settings into the environment, and every worker builds
its own app with :func:`app_from_environment`. The same variables configure a
server started by a process manager (``uvicorn --factory
sysdrill.web.serving:app_from_environment``); docs/deploy.md lists them.

A worker keeps nothing a request depends on but the loaded vault (rebuilt from
the files) and its database engine: every learner's state is read from the
database, so any worker serves any request.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sysdrill.errors import UsageError

if TYPE_CHECKING:
    from fastapi import FastAPI

__all__ = [
    "APP_FACTORY",
    "ENV_ALLOWED_HOSTS",
    "DEFAULT_THREADS",
    "ENV_DATABASE_URL",
    "ENV_MULTI_USER",
    "ENV_PIN_CPUS",
    "ENV_VAULT",
    "ServerSettings",
    "app_from_environment",
    "create_served_app",
    "host_names",
    "refuse_unsafe_setup",
]

APP_FACTORY = "sysdrill.web.serving:app_from_environment"
"""The import string uvicorn's workers build the app from (with ``factory=True``)."""

ENV_VAULT = "SYSDRILL_VAULT"
"""The vault folder served; the bundled starter vault when unset."""
ENV_DATABASE_URL = "SYSDRILL_DATABASE_URL"
"""The study database URL (the same variable every command reads)."""
ENV_MULTI_USER = "SYSDRILL_MULTI_USER"
"""``1`` for accounts and per-user data; ``0`` or unset for the single local learner."""
ENV_BEHIND_PROXY = "SYSDRILL_BEHIND_PROXY"
"""``1`` to trust a reverse proxy's forwarded headers (``--behind-proxy``)."""
ENV_PIN_CPUS = "SYSDRILL_PIN_CPUS"
"""``1`` to keep each worker to a CPU of its own (:mod:`sysdrill.web.worker_cpus`;
``sysdrill serve --workers N --pin-cpus`` sets it; off by default)."""
ENV_ALLOWED_HOSTS = "SYSDRILL_ALLOWED_HOSTS"
"""Host names the server answers to besides the loopback ones, comma-separated
(``--allowed-host``; behind a proxy, its public name). ``*`` for any."""
ENV_THREADS = "SYSDRILL_THREADS"
"""Requests each worker works on at once (``--threads``); :data:`DEFAULT_THREADS` when unset."""
DEFAULT_THREADS = 2
"""Threads a worker runs by default. A process runs Python in one thread at a time:
past two, more threads only fight over it (on 2 cores with PostgreSQL beside the
server, 4 threads gave 15-25 % fewer reviews a second than 2; docs/benchmarks.md)."""
MAX_THREADS = 16
"""The most threads a worker may run (its connection pool holds that many and more)."""

_HOST_NAME = re.compile(r"[A-Za-z0-9_]([A-Za-z0-9._-]*[A-Za-z0-9_])?")
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"", "0", "false", "no", "off"})


@dataclass(frozen=True, slots=True)
class ServerSettings:
    """How one server is run; the same in every worker process.

    Attributes:
        db_url: Study database URL (SQLite file or PostgreSQL).
        vault: Vault folder; None for the bundled starter vault.
        multi_user: Accounts and per-user data instead of one local learner.
        behind_proxy: Trust a reverse proxy's forwarded headers (TLS at the proxy).
        threads: Requests each worker process works on at once.
        pin_cpus: Each worker keeps to a CPU of its own
            (:mod:`sysdrill.web.worker_cpus`); for several workers.
        allowed_hosts: Host names the server answers to besides the loopback ones
            (the address it binds, a proxy's public name); ``*`` for any.
    """

    db_url: str
    vault: Path | None = None
    multi_user: bool = False
    behind_proxy: bool = False
    threads: int = DEFAULT_THREADS
    pin_cpus: bool = False
    allowed_hosts: tuple[str, ...] = ()

    def to_environment(self) -> dict[str, str]:
        """The settings as the environment variables :meth:`from_environment` reads."""
        found = {
            ENV_DATABASE_URL: self.db_url,
            ENV_MULTI_USER: "1" if self.multi_user else "0",
            ENV_BEHIND_PROXY: "1" if self.behind_proxy else "0",
            ENV_THREADS: str(self.threads),
            ENV_PIN_CPUS: "1" if self.pin_cpus else "0",
            ENV_ALLOWED_HOSTS: ",".join(self.allowed_hosts),
        }
        if self.vault is not None:
            found[ENV_VAULT] = str(self.vault.resolve())
        return found

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> ServerSettings:
        """Read the settings from environment variables.

        The database is ``$SYSDRILL_DATABASE_URL``, else the default SQLite file
        in ``$SYSDRILL_DATA_DIR``.

        Raises:
            UsageError: If ``$SYSDRILL_MULTI_USER``, ``$SYSDRILL_BEHIND_PROXY``
                or ``$SYSDRILL_PIN_CPUS`` is not a yes/no value, or
                ``$SYSDRILL_THREADS`` not a whole number from 1 to 16.
            StorageUnavailable: If the database URL names an in-memory database.
        """
        from sysdrill.storage.location import study_database_url

        vault = environ.get(ENV_VAULT)
        return cls(
            db_url=study_database_url(environ.get(ENV_DATABASE_URL) or None),
            vault=Path(vault).expanduser() if vault else None,
            multi_user=_flag(environ, ENV_MULTI_USER, "1 for accounts or 0 for one learner"),
            behind_proxy=_flag(environ, ENV_BEHIND_PROXY, "1 behind a TLS proxy, else 0"),
            threads=_threads(environ),
            pin_cpus=_flag(environ, ENV_PIN_CPUS, "1 for a CPU per worker, else 0"),
            allowed_hosts=host_names(environ.get(ENV_ALLOWED_HOSTS, "")),
        )


def host_names(text: str) -> tuple[str, ...]:
    """Host names from a comma- or space-separated list (``SYSDRILL_ALLOWED_HOSTS``).

    Raises:
        UsageError: If one is no host name: it has a scheme, a port or a path.
    """
    import ipaddress

    names = tuple(text.replace(",", " ").split())
    for name in names:
        if name == "*" or _HOST_NAME.fullmatch(name):
            continue
        try:
            ipaddress.IPv6Address(name.removeprefix("[").removesuffix("]"))
        except ValueError:
            raise UsageError(
                f"{name!r} is not a host name; give a name such as drill.example.org or an "
                "address such as 192.168.1.5, without scheme, port or path."
            ) from None
    return names


def _threads(environ: Mapping[str, str]) -> int:
    text = environ.get(ENV_THREADS, "").strip() or str(DEFAULT_THREADS)
    if not text.isdigit() or not 1 <= int(text) <= MAX_THREADS:
        raise UsageError(
            f"{ENV_THREADS}={environ[ENV_THREADS]!r} is not a thread count; "
            f"set a whole number from 1 to {MAX_THREADS}."
        )
    return int(text)


def _flag(environ: Mapping[str, str], name: str, meaning: str) -> bool:
    flag = environ.get(name, "").strip().lower()
    if flag not in _TRUE | _FALSE:
        raise UsageError(f"{name}={environ[name]!r} is neither yes nor no; set it to {meaning}.")
    return flag in _TRUE


def refuse_unsafe_setup(settings: ServerSettings, *, workers: int) -> None:
    """Refuse a setup that would lose or mix up learners' data.

    Several workers writing one SQLite file for many accounts queue on its
    single write lock, and a busy class sees "database is locked" errors.

    Raises:
        UsageError: For multi-user mode with more than one worker on SQLite.
    """
    backend = settings.db_url.partition("://")[0].split("+")[0]
    if settings.multi_user and workers > 1 and backend == "sqlite":
        raise UsageError(
            f"multi-user mode with {workers} workers needs PostgreSQL, not SQLite; give "
            "--db postgresql+psycopg://USER@HOST/DB, or serve with --workers 1."
        )


def create_served_app(settings: ServerSettings) -> FastAPI:
    """The app one server process serves with ``settings``.

    Raises:
        StorageUnavailable: If the database cannot be reached.
    """
    from sysdrill.web.app import create_app

    return create_app(
        vault=settings.vault,
        db_url=settings.db_url,
        multi_user=settings.multi_user,
        behind_proxy=settings.behind_proxy,
        threads=settings.threads,
        allowed_hosts=settings.allowed_hosts,
    )


def app_from_environment() -> FastAPI:
    """Uvicorn's app factory: the app for the settings in this process's environment.

    Raises:
        UsageError: If a setting is unreadable.
        StorageUnavailable: If the database URL names an in-memory database.
    """
    settings = ServerSettings.from_environment(os.environ)
    if settings.pin_cpus:
        from sysdrill.web.worker_cpus import keep_to_a_cpu

        keep_to_a_cpu()
    return create_served_app(settings)
